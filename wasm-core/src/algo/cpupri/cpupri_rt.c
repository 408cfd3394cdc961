/*
 * cpupri_rt.c: the RT class's use of the map: find_lowest_rq (kernel/sched/rt.c, v6.12)
 * and the per-CPU rotation cpumask_any_and_distribute / cpumask_any_distribute
 * (lib/cpumask.c, v6.12).
 *
 * find_lowest_rq(task) is the target of an RT task that should not stay where it is: the
 * wakeup path (select_task_rq_rt, when the task's previous CPU runs an RT task of equal
 * or higher priority, or a pinned one) and the push path (push_rt_task ->
 * find_lock_lowest_rq) both call it; the scheduler core (src/sched/core.c) makes those
 * two calls through the find_lowest_rq hook and keeps its own select_task_rq_rt and
 * push/pull loops. The function, v6.12:
 *
 *   - a task allowed on one CPU: -1 (no search);
 *   - cpupri_find(&rd->cpupri, task, lowest_mask) (cpupri_vec.c: every count and bitmap
 *     load is a modelled access by the searching CPU); -1 if it finds nothing;
 *   - the task's own CPU if it is in lowest_mask ("most likely cache-hot");
 *   - else, for each scheduling domain of the task's CPU from the lowest (SMT siblings,
 *     the LLC, the node, the machine) with SD_WAKE_AFFINE: the searching CPU if it is in
 *     lowest_mask and the domain, else cpumask_any_and_distribute(lowest_mask, span) if
 *     that finds one;
 *   - else the searching CPU if it was in lowest_mask, else cpumask_any_distribute.
 *
 * cpumask_any_and_distribute (lib/cpumask.c, v6.12, read in torvalds/linux): the next
 * CPU of the intersection after the per-CPU distribute_cpu_mask_prev of the CPU running
 * it, wrapping (find_next_and_bit_wrap from prev + 1; so the first use skips CPU 0), and
 * the pick is stored there: equally good targets rotate, per searching CPU.
 *
 * Simplified: the searching CPU (this_cpu) is taken to be the task's previous CPU, the
 * only CPU the core's hook passes: exact for a push (the pushing CPU is the task's) and
 * for a timer wakeup (the periodic threads' hrtimer fires on their own CPU), not for a
 * wakeup by another CPU. Domains come from the topology (core, LLC, node, all), every
 * one with SD_WAKE_AFFINE (the kernel drops it only beyond node_reclaim_distance, 30:
 * no preset is that far); degenerate (equal) domains visited twice give the same answer.
 */
#include <string.h>

#include "cpupri.h"

/* The next CPU of a & b after prev, wrapping; -1 if a & b is empty. */
static int32_t next_and_wrap(const cpupri_state *st, const cpumask *a, const cpumask *b,
                             int32_t prev)
{
    for (int32_t i = 1; i <= st->nr_cpus; i++) {
        int32_t c = (prev + i) % st->nr_cpus;
        if (cpumask_test(a, c) && (!b || cpumask_test(b, c)))
            return c;
    }
    return -1;
}

/* cpumask_any_and_distribute(src1, src2) (b NULL: cpumask_any_distribute) run on cpu. */
static int32_t any_and_distribute(cpupri_state *st, int32_t cpu, const cpumask *a,
                                  const cpumask *b)
{
    int32_t next = next_and_wrap(st, a, b, st->distribute_prev[cpu]);
    if (next >= 0)
        st->distribute_prev[cpu] = next;
    return next;
}

static void domain_span(const cpupri_state *st, int32_t cpu, int32_t level, cpumask *out)
{
    memset(out, 0, sizeof *out);
    for (int32_t c = 0; c < st->nr_cpus; c++) {
        int in = level == 0 ? st->core_of[c] == st->core_of[cpu]
               : level == 1 ? st->llc_of[c] == st->llc_of[cpu]
               : level == 2 ? st->node_of[c] == st->node_of[cpu]
                            : 1;
        if (in)
            cpumask_set(out, c);
    }
}

/* find_lowest_rq(), rt.c v6.12. */
int32_t cpupri_find_lowest_rq(void *state, ks_sim *sim, int32_t task, int32_t prev_cpu)
{
    cpupri_state *st = state;
    if (sched_task_nr_cpus_allowed(sim, task) == 1)
        return -1;
    int32_t this_cpu = prev_cpu;        /* see the essay: the core passes no searching CPU */
    int32_t cpu = sched_task_cpu(sim, task);
    if (cpu < 0 || cpu >= st->nr_cpus)
        cpu = prev_cpu;
    cpumask lowest;
    int32_t scanned;
    if (!cpupri_find(st, sim, this_cpu, sched_task_prio(sim, task),
                     sched_task_cpus_allowed(sim, task), &lowest, (double)sched_now(sim),
                     &scanned))
        return -1;
    if (cpumask_test(&lowest, cpu))
        return cpu;
    int32_t tc = cpumask_test(&lowest, this_cpu) ? this_cpu : -1;
    for (int32_t level = 0; level < 4; level++) {       /* for_each_domain(cpu, sd) */
        cpumask span;
        domain_span(st, cpu, level, &span);
        if (tc != -1 && cpumask_test(&span, tc))
            return tc;
        int32_t best = any_and_distribute(st, this_cpu, &lowest, &span);
        if (best >= 0)
            return best;
    }
    if (tc != -1)
        return tc;
    return any_and_distribute(st, this_cpu, &lowest, NULL);
}

/*
 * rt_set_overload() / rt_clear_overload() (rt.c v6.12, from enqueue_pushable_task /
 * dequeue_pushable_task): set: cpumask_set_cpu(cpu, rd->rto_mask), smp_wmb(),
 * atomic_inc(&rd->rto_count); clear: atomic_dec(&rd->rto_count), then
 * cpumask_clear_cpu(cpu, rd->rto_mask) ("the order here really doesn't matter").
 * Executed by the CPU whose rq changes (simplified, as cpupri_set). The core's overload
 * meaning is "has waiting RT tasks" (sched_ops.h).
 */
void cpupri_rt_overload_changed(void *state, ks_sim *sim, int32_t cpu, int32_t overloaded)
{
    cpupri_state *st = state;
    double t = (double)sched_now(sim);
    uint32_t word = 8u * (uint32_t)(cpu / 64);
    uint32_t count_off = KS_CACHE_LINE + 4;         /* line 1, 0x4 */
    if (overloaded) {
        t = cpupri_mem_access(st, sim, cpu, st->obj_rto_mask, word, 8, ACC_RMW,
                              SITE_ENQUEUE_PUSHABLE, t);
        cpupri_mem_access(st, sim, cpu, st->obj_root_domain, count_off, 4, ACC_RMW,
                          SITE_ENQUEUE_PUSHABLE, t);
        cpumask_set(&st->rto_mask, cpu);
        st->rto_count++;
    } else {
        t = cpupri_mem_access(st, sim, cpu, st->obj_root_domain, count_off, 4, ACC_RMW,
                              SITE_DEQUEUE_PUSHABLE, t);
        cpupri_mem_access(st, sim, cpu, st->obj_rto_mask, word, 8, ACC_RMW,
                          SITE_DEQUEUE_PUSHABLE, t);
        cpumask_clear_cpu(&st->rto_mask, cpu);
        st->rto_count--;
    }
    st->overload_changes++;
}
