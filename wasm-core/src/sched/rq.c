/*
 * Per-CPU runqueues: one ordered list per CPU of the tasks waiting to run.
 *
 * The kernel keeps one queue per scheduling class (an rt_prio_array of FIFO
 * lists, a red-black tree of fair entities) and picks from the highest class
 * first. Here both live in one doubly linked list in pick order:
 *
 *     head -> [RT 10] -> [RT 10] -> [RT 50] -> [fair v=3.1ms] -> [fair v=4.0ms] <- tail
 *              FIFO within a priority           by vruntime, ties in arrival order
 *
 * The running task (rq->curr) is not on the list, as for CFS's curr (the RT
 * class keeps curr queued; a preempted RT task goes back to the head of its
 * priority, which gives the same order). Lists are short on the modelled
 * workloads (a handful of tasks per CPU), so insertion is a walk: O(n) where
 * the kernel's tree is O(log n). Links are task indices, so the whole queue is
 * plain data that snapshots copy.
 *
 * The rq also maintains the machine-wide masks the balancer scans instead of
 * visiting every CPU: idle CPUs, CPUs with waiting fair tasks, and CPUs with
 * waiting RT tasks (the kernel's root_domain rto_mask).
 */
#include "sim_internal.h"

/* Whether a runs before b. */
static int runs_before(const sim_task *a, const sim_task *b)
{
    int a_rt = task_is_rt(a), b_rt = task_is_rt(b);
    if (a_rt != b_rt)
        return a_rt;
    if (a_rt)
        return a->prio < b->prio;
    return a->vruntime < b->vruntime;
}

static void link_before(ks_sim *s, sim_rq *rq, int32_t task, int32_t at)
{
    sim_task *p = &s->tasks[task];
    p->rq_next = at;
    p->rq_prev = at >= 0 ? s->tasks[at].rq_prev : rq->tail;
    if (p->rq_prev >= 0)
        s->tasks[p->rq_prev].rq_next = task;
    else
        rq->head = task;
    if (at >= 0)
        s->tasks[at].rq_prev = task;
    else
        rq->tail = task;
}

/* First queued task that `task` must run before (head: also before its equals). */
static int32_t find_insert_point(const ks_sim *s, const sim_rq *rq, const sim_task *p, int head)
{
    if (!head && !task_is_rt(p)) {
        /* Fair tasks usually land near the tail: walk back to the last one not after p. */
        int32_t at = rq->tail;
        while (at >= 0 && runs_before(p, &s->tasks[at]))
            at = s->tasks[at].rq_prev;
        return at >= 0 ? s->tasks[at].rq_next : rq->head;
    }
    int32_t at = rq->head;
    while (at >= 0) {
        const sim_task *q = &s->tasks[at];
        if (head ? !runs_before(q, p) : runs_before(p, q))
            break;
        at = q->rq_next;
    }
    return at;
}

static void update_overload_masks(ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    if (rq->nr_queued_fair)
        cpumask_set(&s->core.fair_overload, cpu);
    else
        cpumask_clear_cpu(&s->core.fair_overload, cpu);
    if (rq->nr_queued_rt)
        cpumask_set(&s->core.rt_overload, cpu);
    else
        cpumask_clear_cpu(&s->core.rt_overload, cpu);
}

void rq_enqueue(ks_sim *s, int32_t cpu, int32_t task, int head)
{
    sim_rq *rq = &s->rqs[cpu];
    sim_task *p = &s->tasks[task];
    link_before(s, rq, task, find_insert_point(s, rq, p, head));
    p->state = KS_TASK_RUNNABLE;
    p->cpu = cpu;
    if (task_is_rt(p))
        rq->nr_queued_rt++;
    else
        rq->nr_queued_fair++;
    update_overload_masks(s, cpu);
}

void rq_dequeue(ks_sim *s, int32_t cpu, int32_t task)
{
    sim_rq *rq = &s->rqs[cpu];
    sim_task *p = &s->tasks[task];
    if (p->rq_prev >= 0)
        s->tasks[p->rq_prev].rq_next = p->rq_next;
    else
        rq->head = p->rq_next;
    if (p->rq_next >= 0)
        s->tasks[p->rq_next].rq_prev = p->rq_prev;
    else
        rq->tail = p->rq_prev;
    p->rq_next = p->rq_prev = -1;
    if (task_is_rt(p))
        rq->nr_queued_rt--;
    else
        rq->nr_queued_fair--;
    update_overload_masks(s, cpu);
}

void rq_set_curr(ks_sim *s, int32_t cpu, int32_t task)
{
    s->rqs[cpu].curr = task;
    if (task < 0)
        cpumask_set(&s->core.idle, cpu);
    else
        cpumask_clear_cpu(&s->core.idle, cpu);
    if (task >= 0 && task_is_rt(&s->tasks[task]))
        cpumask_set(&s->core.rt_curr, cpu);
    else
        cpumask_clear_cpu(&s->core.rt_curr, cpu);
}

/* update_min_vruntime(): the rq's fair clock never goes back. */
void rq_update_min_vruntime(ks_sim *s, int32_t cpu)
{
    sim_rq *rq = &s->rqs[cpu];
    int32_t leftmost = rq->head;
    for (int32_t i = 0; i < rq->nr_queued_rt && leftmost >= 0; i++)
        leftmost = s->tasks[leftmost].rq_next;
    int have = 0;
    int64_t v = 0;
    if (rq->curr >= 0 && !task_is_rt(&s->tasks[rq->curr])) {
        v = s->tasks[rq->curr].vruntime;
        have = 1;
    }
    if (leftmost >= 0 && (!have || s->tasks[leftmost].vruntime < v)) {
        v = s->tasks[leftmost].vruntime;
        have = 1;
    }
    if (have && v > rq->min_vruntime)
        rq->min_vruntime = v;
}

int32_t rq_nr_running(const ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    return (rq->curr >= 0) + rq->nr_queued_rt + rq->nr_queued_fair;
}

/* rt_rq->highest_prio.curr, or 140 (no RT task: the cpupri NORMAL level). */
int32_t rq_rt_level(const ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    int32_t level = 140;
    if (rq->curr >= 0 && task_is_rt(&s->tasks[rq->curr]))
        level = s->tasks[rq->curr].prio;
    if (rq->nr_queued_rt && s->tasks[rq->head].prio < level)
        level = s->tasks[rq->head].prio;
    return level;
}
