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
 * waiting RT tasks (the kernel's root_domain rto_mask); and the rq clock
 * (rq->clock, at the end of this file): the time as that CPU last read it,
 * which stands still while the CPU idles. Models read it through
 * sched_rq_clock (the cid model's remote age test; RT priority-map and LLC models may too).
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
    int was = cpumask_test(&s->core.rt_overload, cpu), now = rq->nr_queued_rt > 0;
    if (now)
        cpumask_set(&s->core.rt_overload, cpu);
    else
        cpumask_clear_cpu(&s->core.rt_overload, cpu);
    if (was != now && s->ops && s->ops->rt_overload_changed && s->algo)
        s->ops->rt_overload_changed(s->algo, s, cpu, now);
}

/*
 * inc_rt_prio_smp() / dec_rt_prio_smp() (kernel/sched/rt.c, v6.12): when the rq's
 * rt_rq->highest_prio.curr changes, the kernel calls cpupri_set() for the rq's CPU. The
 * level here is rq_rt_level() (the running RT task counts, as the RT class keeps curr
 * queued), published after each enqueue, dequeue and set_curr; the pick dequeues `next`
 * while prev is still curr, so a switch between two equal RT tasks publishes nothing.
 */
static void publish_rt_level(ks_sim *s, int32_t cpu)
{
    sim_rq *rq = &s->rqs[cpu];
    int32_t level = rq_rt_level(s, cpu);
    if (level == rq->rt_published)
        return;
    int32_t old = rq->rt_published;
    rq->rt_published = level;
    if (s->ops && s->ops->rt_prio_changed && s->algo)
        s->ops->rt_prio_changed(s->algo, s, cpu, old > 99 ? 99 : old, level > 99 ? 99 : level);
}

int32_t sched_rt_highest_prio(const ks_sim *s, int32_t cpu)
{
    int32_t level = s->rqs[cpu].rt_published;
    return level > 99 ? 99 : level;
}

void rq_enqueue(ks_sim *s, int32_t cpu, int32_t task, int head)
{
    sim_rq *rq = &s->rqs[cpu];
    sim_task *p = &s->tasks[task];
    rq_update_clock(s, cpu);                    /* enqueue_task() without ENQUEUE_NOCLOCK */
    link_before(s, rq, task, find_insert_point(s, rq, p, head));
    p->state = KS_TASK_RUNNABLE;
    p->cpu = cpu;
    if (task_is_rt(p))
        rq->nr_queued_rt++;
    else
        rq->nr_queued_fair++;
    publish_rt_level(s, cpu);       /* inc/dec_rt_prio before enqueue/dequeue_pushable_task */
    update_overload_masks(s, cpu);
}

void rq_dequeue(ks_sim *s, int32_t cpu, int32_t task)
{
    sim_rq *rq = &s->rqs[cpu];
    sim_task *p = &s->tasks[task];
    rq_update_clock(s, cpu);                    /* dequeue_task() without DEQUEUE_NOCLOCK */
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
    publish_rt_level(s, cpu);       /* inc/dec_rt_prio before enqueue/dequeue_pushable_task */
    update_overload_masks(s, cpu);
}

void rq_set_curr(ks_sim *s, int32_t cpu, int32_t task)
{
    sim_rq *rq = &s->rqs[cpu];
    int was_idle = rq->curr < 0;
    rq->curr = task;
    if (task < 0 && !was_idle)
        rq->idle_since = s->core.now;       /* an idle period starts (the cost model v2 reads it) */
    else if (task >= 0 && was_idle)
        rq->idle_end = s->core.now;
    if (task < 0)
        cpumask_set(&s->core.idle, cpu);
    else
        cpumask_clear_cpu(&s->core.idle, cpu);
    if (task >= 0 && task_is_rt(&s->tasks[task]))
        cpumask_set(&s->core.rt_curr, cpu);
    else
        cpumask_clear_cpu(&s->core.rt_curr, cpu);
    publish_rt_level(s, cpu);
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

/* rt_rq->highest_prio.curr, or 140 (no RT task: CPUPRI_NORMAL). */
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

/*
 * rq->clock. The kernel stamps time per runqueue, not globally: update_rq_clock()
 * (kernel/sched/core.c, v6.12 through v6.18) sets rq->clock from sched_clock_cpu()
 * and is called with the rq lock held by whoever is about to act on that rq:
 *   - __schedule() on the CPU itself, before it picks (so every context switch);
 *   - enqueue_task() / dequeue_task() unless the caller updated it already
 *     (ENQUEUE_NOCLOCK): a wakeup (ttwu_queue(), or sched_ttwu_pending() when the
 *     wakeup is queued to the target by IPI), wake_up_new_task(), a migration's
 *     attach on the destination (attach_tasks(), move_queued_task());
 *   - sched_tick() on every CPU whose tick runs;
 *   - the balancers (sched_balance_rq() on the busiest rq; the nohz idle balancer,
 *     _nohz_idle_balance(), and sched_balance_update_blocked_averages() for the idle
 *     CPUs it visits).
 * An idle CPU with its tick stopped (CONFIG_NO_HZ_IDLE, Debian's default) runs none
 * of these: its rq->clock stands at the time it went idle until one of them runs for
 * it. Readers on other CPUs see that stale value (the concurrency-id age test,
 * the kernel's sched_*_remote_clear_old(), reads rq->clock of the CPU it looks at). Here the
 * clock is the simulation time at the last update; the callers are in core.c (the
 * simulator) and replay.c (a trace, where the updates the trace cannot show are
 * assumed as its essay says).
 */
void rq_update_clock(ks_sim *s, int32_t cpu)
{
    sim_rq *rq = &s->rqs[cpu];
    if (s->core.now > rq->clock)        /* sched_clock_cpu() is monotonic per CPU */
        rq->clock = s->core.now;
}

/* LOAD_AVG_PERIOD: the nohz blocked-load update runs at most every 32 ms. */
#define NOHZ_BLOCKED_PERIOD_NS 32000000ull

/*
 * What moves an idle CPU's clock that the trace does not show: the nohz blocked-load
 * update (kernel/sched/fair.c; read in v6.12, the same through v6.18). Once
 * nohz.next_blocked has passed, the load that idle CPUs still carry is decayed by
 * _nohz_idle_balance(NOHZ_STATS_KICK), which for each CPU in nohz.idle_cpus_mask takes
 * its rq lock and calls update_rq_clock() (update_nohz_stats ->
 * sched_balance_update_blocked_averages while it has blocked load; directly when its
 * rq->next_balance is due), then sets nohz.next_blocked 32 ms (LOAD_AVG_PERIOD) ahead.
 * Two things start it:
 *   - a CPU going idle with nothing to pull (sched_balance_newidle ->
 *     nohz_newidle_balance, since v5.13): do_idle() -> nohz_run_idle_balance() runs it
 *     on that CPU before it idles (rq_newidle_blocked_update);
 *   - a busy CPU's tick (sched_tick -> sched_balance_trigger -> nohz_balancer_kick):
 *     kick_ilb(NOHZ_STATS_KICK) has an idle CPU run it (rq_tick_blocked_kick; the
 *     kick's IPI lands after the ticking CPU's own tick work, so after a scan queued by
 *     that tick).
 * Assumed, because nothing traced tells: nohz.has_blocked is set (some idle CPU still
 * has load to decay: true while CPUs keep going idle after running something); the
 * newly idle CPU's avg_idle is above sysctl_sched_migration_cost (0.5 ms: its idle
 * periods are not all short); every idle CPU is in nohz.idle_cpus_mask (tick stopped)
 * and is visited. Not modelled: the nohz idle *balance* (NOHZ_BALANCE_KICK), whose
 * conditions depend on load the model does not track.
 */
static void nohz_blocked_update(ks_sim *s, int32_t cpu)
{
    if (s->core.now < s->core.nohz_next_blocked)
        return;
    s->core.nohz_next_blocked = s->core.now + NOHZ_BLOCKED_PERIOD_NS;
    for (int32_t c = 0; c < s->nr_cpus; c++)
        if (c == cpu || s->rqs[c].curr < 0)
            rq_update_clock(s, c);
}

void rq_newidle_blocked_update(ks_sim *s, int32_t cpu)
{
    nohz_blocked_update(s, cpu);
}

void rq_tick_blocked_kick(ks_sim *s, int32_t cpu)
{
    nohz_blocked_update(s, cpu);
}

/*
 * The simulator's machine runs nothing but the workload, and a real one never does:
 * kworkers, RCU callbacks, timers and their softirqs wake some CPU every few
 * milliseconds on an otherwise idle many-core server, and each of those CPUs goes
 * newly idle again, starting the blocked-load update above once it is due. So the
 * simulator assumes (labelled: SIM_HOUSEKEEPING) that the update runs every
 * LOAD_AVG_PERIOD, at the first tick after it is due, whatever the workload does: an
 * idle CPU's clock then lags by at most 32 ms plus a tick. The trace replay of a real
 * kernel does not assume it: it moves clocks only where the trace's own events (or the
 * ticks of CPUs it shows busy) say; the replay of a simulated trace (tick grid) does
 * what the simulator did.
 */
void rq_housekeeping_tick(ks_sim *s)
{
    nohz_blocked_update(s, -1);
}
