/*
 * Scheduler invariants, checked by the tests after every step (not by the
 * simulator itself: it is O(tasks + CPUs) per call).
 *
 *   - a task runs on at most one CPU, and a CPU's curr is RUNNING on that CPU;
 *   - every RUNNABLE task is on exactly one runqueue (its CPU's), nothing else is;
 *   - runqueue links, counts and the idle/overload masks agree with the queues;
 *   - each queue is in pick order (RT by prio, then fair by vruntime);
 *   - running and queued tasks are on a CPU in their cpus_allowed;
 *   - no RT task waits while a CPU it may use is idle or runs a fair task
 *     (push/pull keep the RT class work-conserving across CPUs).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_internal.h"

static int32_t broken(char *why, int32_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int32_t broken(char *why, int32_t len, const char *fmt, ...)
{
    if (why && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, (size_t)len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int32_t check_cpu(const ks_sim *s, int32_t cpu, int32_t *seen, char *why, int32_t len)
{
    const sim_rq *rq = &s->rqs[cpu];
    if ((rq->curr < 0) != cpumask_test(&s->core.idle, cpu))
        return broken(why, len, "cpu %d: idle mask disagrees with curr", cpu);
    if (rq->curr >= 0) {
        const sim_task *p = &s->tasks[rq->curr];
        if (p->state != KS_TASK_RUNNING || p->cpu != cpu)
            return broken(why, len, "cpu %d: curr tid %d is not running there", cpu, p->tid);
        if (seen[rq->curr]++)
            return broken(why, len, "tid %d is current on two CPUs", p->tid);
        if (task_is_rt(p) != cpumask_test(&s->core.rt_curr, cpu))
            return broken(why, len, "cpu %d: rt_curr mask disagrees", cpu);
    }
    int32_t nr_rt = 0, nr_fair = 0, prev = -1;
    for (int32_t t = rq->head; t >= 0; prev = t, t = s->tasks[t].rq_next) {
        const sim_task *p = &s->tasks[t];
        if (p->rq_prev != prev)
            return broken(why, len, "cpu %d: broken runqueue links at tid %d", cpu, p->tid);
        if (p->state != KS_TASK_RUNNABLE || p->cpu != cpu)
            return broken(why, len, "cpu %d: queued tid %d is not runnable there", cpu, p->tid);
        if (seen[t]++)
            return broken(why, len, "tid %d is queued twice or queued and running", p->tid);
        if (prev >= 0) {
            const sim_task *q = &s->tasks[prev];
            int bad = task_is_rt(p) ? !task_is_rt(q) || q->prio > p->prio
                                    : !task_is_rt(q) && q->vruntime > p->vruntime;
            if (bad)
                return broken(why, len, "cpu %d: tid %d is out of pick order", cpu, p->tid);
        }
        task_is_rt(p) ? nr_rt++ : nr_fair++;
    }
    if (prev != rq->tail || nr_rt != rq->nr_queued_rt || nr_fair != rq->nr_queued_fair)
        return broken(why, len, "cpu %d: runqueue tail or counts disagree", cpu);
    if ((nr_fair > 0) != cpumask_test(&s->core.fair_overload, cpu) ||
        (nr_rt > 0) != cpumask_test(&s->core.rt_overload, cpu))
        return broken(why, len, "cpu %d: overload masks disagree", cpu);
    return 0;
}

/* A queued RT task must not be able to run on an idle CPU or one running fair work. */
static int32_t check_rt_waiting(const ks_sim *s, int32_t t, char *why, int32_t len)
{
    const sim_task *p = &s->tasks[t];
    const cpumask *allowed = task_mask(s, t);
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
        if (!cpumask_test(allowed, cpu))
            continue;
        int32_t curr = s->rqs[cpu].curr;
        if (curr < 0 || !task_is_rt(&s->tasks[curr]) || s->tasks[curr].prio > p->prio)
            return broken(why, len, "RT tid %d waits on cpu %d while cpu %d could run it",
                          p->tid, p->cpu, cpu);
    }
    return 0;
}

static int32_t check_tasks(const ks_sim *s, const int32_t *seen, char *why, int32_t len)
{
    for (int32_t t = 0; t < s->core.nr_tasks; t++) {
        const sim_task *p = &s->tasks[t];
        int on_cpu = p->state == KS_TASK_RUNNING || p->state == KS_TASK_RUNNABLE;
        if (seen[t] != on_cpu)
            return broken(why, len, "tid %d (state %d) is on %d runqueues", p->tid, p->state,
                          seen[t]);
        if (on_cpu && !cpumask_test(task_mask(s, t), p->cpu))
            return broken(why, len, "tid %d is on cpu %d outside its affinity", p->tid, p->cpu);
        if (p->state == KS_TASK_RUNNABLE && task_is_rt(p) && check_rt_waiting(s, t, why, len))
            return -1;
    }
    return 0;
}

int32_t sim_check_invariants(const ks_sim *s, char *why, int32_t why_len)
{
    int32_t *seen = calloc((size_t)s->max_tasks + 1, sizeof *seen);
    if (!seen)
        return broken(why, why_len, "out of memory");
    int32_t status = 0;
    for (int32_t cpu = 0; cpu < s->nr_cpus && status == 0; cpu++)
        status = check_cpu(s, cpu, seen, why, why_len);
    if (status == 0)
        status = check_tasks(s, seen, why, why_len);
    free(seen);
    return status;
}
