/*
 * The trace-replay host (replay.h): a model driven by a trace instead of the simulator.
 *
 * The design: a replay host, not the simulator. A model reads the scheduler only
 * through the accessors of sched_ops.h (sched_now, sched_cpu_curr, sched_task_mm,
 * ...), which read a struct ks_sim. The replay owns one such struct, zeroed, and
 * fills only what the accessors read: the clock (core.now), nr_cpus, the task table
 * (tid, tgid, mm, cpu, state, affinity) and each CPU's current task (rqs[].curr). No
 * workload, timers, runqueues or cache model exist; the simulator's own code never
 * runs on it. The model's hooks are then called as the scheduler core calls them, in
 * the order the trace's events say, so the model code that runs is exactly the
 * simulator's, unmodified. What the model's answers mean, and how they compare with
 * the kernel's, is the client's business (replay_client: each model's classifier).
 *
 * What the trace does not show, and what the replay assumes instead:
 *   - tasks alive before the trace starts: created (task_fork with no parent, as
 *     the simulator creates its t=0 tasks) at the first event's time, switched
 *     in on a CPU when an event first names them current there (a cold start);
 *   - affinity: sched_setaffinity is not traced. A task may run on every CPU,
 *     except that a task the migration stopper (migration/N) moves is taken as
 *     pinned where it lands (a thread pinning itself: affine_move_task). The move
 *     is the sched_migrate_task recorded while the stopper is current; where the
 *     trace lacks it (pid-filtered captures drop it) a task preempted by the
 *     stopper and switched in next on another CPU is moved right after the
 *     stopper's switch-in, as the stopper does. Seen later on a CPU outside that
 *     pin, it may run anywhere again (set_cpus_allowed tells the model each time);
 *   - the tick: not traced. With the tick grid (the default, replaying kscope's
 *     simulator) each CPU whose current task belongs to a known mm runs the model's
 *     tick hook on a grid of 1/hz from time 0, before the events stamped at that
 *     time, as the simulator does. Replaying a kernel, the real ticks' phase is
 *     unknown: the grid is off and the client runs the hook where the trace shows
 *     the tick's work ran (replay_tick_return). task_work a tick queued runs at the
 *     task's next return to user space, which the trace marks by an rseq_update: the
 *     client calls replay_return_to_user there. (A tick-long stretch of one task on a
 *     CPU certainly took a tick, but running the hook there is not done: the mm's
 *     scan clock is wrong after an exec the trace does not show, see
 *     traces/README.md);
 *   - each CPU's rq clock (rq.c): moved at its switches (__schedule), at a
 *     sched_wakeup / sched_wakeup_new whose target it is and a migration onto it
 *     (the enqueue), at a CPU going newly idle (the nohz blocked-load update of
 *     every idle CPU, at most every 32 ms), and - ticks not being traced - at the
 *     ticks of the CPUs it shows running a task: replaying a kernel, each busy
 *     CPU's tick kicks that update one tick after it is due (busy_tick_kicks),
 *     and the tick hook sees the busy CPUs' clocks at the replay's time. Other
 *     updates of an idle CPU's clock (interrupt work, the nohz idle balance) are
 *     not seen. With the tick grid (a simulated trace) the simulator's
 *     housekeeping update runs at the grid's ticks, as the simulator ran it;
 *   - mm identity: the tgid. Traces without a TGID column get it from the
 *     capture header, sched_process_fork or the pid (backend/kscope/tgids.py);
 *     a task still without one is replayed without an mm;
 *   - missing events (gaps): every event names the task current on its CPU
 *     (pid column; sched_switch's prev_pid). When it is not the task the replay
 *     believes current, the replay switches the believed task out, switches the
 *     named task out of any other CPU it believed it on, applies the migration
 *     the trace missed (migrate hook) when the task last ran elsewhere, and
 *     switches it in: the kernel did all of that at some time the trace does
 *     not say; the replay does it at the event's time.
 *     One exception: __schedule() records sched_switch before context_switch(),
 *     and current becomes next only in switch_to(), so an event recorded inside
 *     context_switch() (a model's own tracepoint there) names prev. A
 *     non-scheduling (generic) event naming the task the CPU's last sched_switch
 *     switched out, before any other event there, is that and no gap.
 *
 * Tasks are dense indices into the host's table (pid -> index by a hash; a fork
 * of a pid seen before starts a new task: pid reuse). Tables grow by doubling:
 * the host's, the model's (its grow hook) and the client's together.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "sim_internal.h"
#include "../base/imap.h"

struct sched_replay {
    ks_sim host;            /* see the essay */
    const ks_sched_ops *ops;
    replay_client client;
    replay_task *tasks;
    replay_cpu *cpus;
    imap pid_task;          /* pid -> task index */
    imap pid_tgid;          /* pid -> tgid, learned from every record's TGID column */
    imap tgid_mm;           /* tgid -> mm index */
    imap mm_born;           /* mm -> 1: created by a fork in the trace; 0: existed before it */
    int32_t hz;
    int32_t tick_grid;
    uint64_t tick_ns, next_tick;
    uint64_t *tick_ts;      /* a kernel's recorded ticks (replay_set_ticks) */
    int32_t *tick_cpu;
    uint32_t nr_ticks, next_real_tick;
    uint64_t start_ns, last_ts;
    int32_t started;
    replay_stats stats;
};

#define CALL(r, hook, ...) \
    do { if ((r)->client.hook) (r)->client.hook((r)->client.ctx, (r), __VA_ARGS__); } while (0)

/* Grows the host's, the model's and the client's tables to hold need tasks / mms. */
static int grow(sched_replay *r, int32_t need_tasks, int32_t need_mms)
{
    ks_sim *h = &r->host;
    if (need_tasks <= h->max_tasks && need_mms <= h->max_mms)
        return 0;
    int32_t old_tasks = h->max_tasks, old_mms = h->max_mms;
    int32_t tcap = old_tasks, mcap = old_mms;
    while (tcap < need_tasks)
        tcap *= 2;
    while (mcap < need_mms)
        mcap *= 2;
    if (tcap > old_tasks) {
        sim_task *t = realloc(h->tasks, (size_t)tcap * sizeof *t);
        if (!t)
            return -1;
        h->tasks = t;
        replay_task *rt = realloc(r->tasks, (size_t)tcap * sizeof *rt);
        if (!rt)
            return -1;
        r->tasks = rt;
        cpumask *masks = realloc(h->masks, ((size_t)tcap + 1) * sizeof *masks);
        if (!masks)
            return -1;
        h->masks = masks;
        h->nr_masks = tcap + 1;
    }
    h->max_tasks = tcap;
    h->max_mms = mcap;
    if ((r->ops->grow && r->ops->grow(h->algo, h, old_tasks, old_mms)) ||
        (r->client.grow && r->client.grow(r->client.ctx, tcap, mcap, old_tasks, old_mms))) {
        h->max_tasks = old_tasks;       /* the tables that did grow keep their room */
        h->max_mms = old_mms;
        return -1;
    }
    return 0;
}

/* The mm index of a tgid (a new one for a new tgid); -1 for an unknown tgid. */
static int32_t mm_of_tgid(sched_replay *r, int32_t tgid)
{
    if (tgid < 0)
        return -1;
    int32_t mm = imap_get(&r->tgid_mm, tgid, -1);
    if (mm >= 0)
        return mm;
    mm = (int32_t)r->tgid_mm.len;
    if (grow(r, 0, mm + 1) || imap_put(&r->tgid_mm, tgid, mm))
        return -1;
    r->stats.nr_mms = mm + 1;
    return mm;
}

/* The model's fork of task t (and its affinity), at the trace's start if not forked. */
static void model_fork(sched_replay *r, int32_t parent, int32_t t, int forked)
{
    ks_sim *h = &r->host;
    uint64_t now = h->core.now;
    if (!forked)
        h->core.now = r->start_ns;
    if (r->ops->task_fork)
        r->ops->task_fork(h->algo, h, parent, t);
    if (r->ops->set_cpus_allowed)
        r->ops->set_cpus_allowed(h->algo, h, t);
    h->core.now = now;
}

/* Creates a task for pid (tgid from the trace, or -1) on cpu. -1 if out of memory. */
static int32_t new_task(sched_replay *r, int32_t pid, int32_t parent, int32_t cpu,
                        const char *comm, int forked)
{
    ks_sim *h = &r->host;
    int32_t t = h->core.nr_tasks;
    if (grow(r, t + 1, 0) || imap_put(&r->pid_task, pid, t))
        return -1;
    h->core.nr_tasks++;
    int32_t tgid = imap_get(&r->pid_tgid, pid, -1);
    int32_t known_mms = (int32_t)r->tgid_mm.len;
    h->tasks[t] = (sim_task){ .tid = pid, .tgid = tgid, .mm = mm_of_tgid(r, tgid), .proc = -1,
                              .policy = KS_SCHED_NORMAL, .prio = SCHED_NORMAL_PRIO,
                              .state = KS_TASK_SLEEPING, .cpu = cpu, .mask = 0,
                              .nr_cpus_allowed = h->nr_cpus, .rq_next = -1, .rq_prev = -1,
                              .parent = parent };
    if (comm)
        memcpy(h->tasks[t].comm, comm, KS_COMM_LEN);
    if (h->tasks[t].mm >= 0 && (int32_t)r->tgid_mm.len > known_mms)   /* this task made the mm */
        imap_put(&r->mm_born, h->tasks[t].mm, forked);
    r->tasks[t] = (replay_task){ .forked = forked, .migrate_from = -1 };
    r->stats.nr_tasks = h->core.nr_tasks;
    CALL(r, task_new, t);
    /* A task alive before the trace is created as at its start (the simulator's t=0). */
    model_fork(r, parent, t, forked);
    return t;
}

/* The task of pid, created (as alive before the trace) if new; -1 for the idle task. */
static int32_t task_of(sched_replay *r, int32_t pid, int32_t cpu, const char *comm)
{
    if (pid <= 0)
        return -1;
    int32_t t = imap_get(&r->pid_task, pid, -1);
    return t >= 0 ? t : new_task(r, pid, -1, cpu, comm, 0);
}

static void model_migrate(sched_replay *r, int32_t t, int32_t from, int32_t to)
{
    if (r->ops->migrate)
        r->ops->migrate(r->host.algo, &r->host, t, from, to);
}

/* The enqueue of a woken task on the CPU its wakeup moved it to: activate_task() calls the
 * model's migrate hook there (ENQUEUE_MIGRATED), after set_task_cpu() recorded
 * sched_migrate_task and just before ttwu_do_activate() records sched_wakeup; with a wake
 * list (an IPI to an idle target) that is later, on the target CPU, and what the CPU it
 * left runs by then may decide what the model does (a per-CPU id may stay there). */
static void finish_wakeup_migration(sched_replay *r, int32_t t)
{
    replay_task *rt = &r->tasks[t];
    rt->waking = 0;
    if (rt->migrate_from < 0)
        return;
    int32_t from = rt->migrate_from;
    rt->migrate_from = -1;
    if (from != r->host.tasks[t].cpu)
        model_migrate(r, t, from, r->host.tasks[t].cpu);
}

static void model_switch(sched_replay *r, int32_t prev, int32_t next, int32_t cpu)
{
    if (r->ops->switch_to)
        r->ops->switch_to(r->host.algo, &r->host, prev, next, cpu);
}

static void model_allowed(sched_replay *r, int32_t t)
{
    if (r->ops->set_cpus_allowed)
        r->ops->set_cpus_allowed(r->host.algo, &r->host, t);
}

/* A task seen on a CPU outside its inferred mask: its affinity was widened again. */
static void unpin_if_outside(sched_replay *r, int32_t t, int32_t cpu)
{
    ks_sim *h = &r->host;
    if (h->tasks[t].mask == 0 || cpumask_test(&h->masks[h->tasks[t].mask], cpu))
        return;
    h->tasks[t].mask = 0;
    h->tasks[t].nr_cpus_allowed = h->nr_cpus;
    model_allowed(r, t);
}

/* The model's context switch on cpu (prev or next may be -1), as context_switch(). */
static void do_switch(sched_replay *r, int32_t prev, int32_t next, int32_t cpu)
{
    ks_sim *h = &r->host;
    CALL(r, switch_begin, prev, next, cpu);
    if (prev >= 0 && h->tasks[prev].state != KS_TASK_DEAD)
        h->tasks[prev].state = KS_TASK_SLEEPING;
    if (next >= 0) {
        sim_task *n = &h->tasks[next];
        /* next is believed running elsewhere: its switch-out there is missing */
        if (n->state == KS_TASK_RUNNING && n->cpu != cpu && h->rqs[n->cpu].curr == next) {
            int32_t other = n->cpu;
            model_switch(r, next, -1, other);
            h->rqs[other].curr = -1;
            r->cpus[other].known = 0;       /* the next event there tells who runs */
        }
        if (r->tasks[next].migrate_from >= 0)
            finish_wakeup_migration(r, next);   /* its sched_wakeup is missing */
        unpin_if_outside(r, next, cpu);
        if (n->cpu != cpu && r->tasks[next].ran) {
            r->stats.missing_migrations++;  /* its migration is missing: set_task_cpu() */
            int32_t from = n->cpu;
            n->cpu = cpu;
            model_migrate(r, next, from, cpu);
        }
        n->cpu = cpu;
    }
    rq_update_clock(h, cpu);            /* __schedule(): update_rq_clock() */
    if (next >= 0 && h->rqs[cpu].curr < 0)
        r->cpus[cpu].busy_since = h->core.now;
    CALL(r, switch_before, prev, next, cpu);
    model_switch(r, prev, next, cpu);
    h->rqs[cpu].curr = next;
    if (next < 0 && prev >= 0)
        rq_newidle_blocked_update(h, cpu);  /* the idle CPUs' clocks (rq.c) */
    if (next >= 0) {
        h->tasks[next].state = KS_TASK_RUNNING;
        r->tasks[next].ran = 1;
    }
    CALL(r, switch_end, prev, next, cpu);
}

/* Task t may run only on cpu from now on (sched_setaffinity: inferred, see the essay). */
static void pin_task(sched_replay *r, int32_t t, int32_t cpu)
{
    ks_sim *h = &r->host;
    cpumask *m = &h->masks[1 + t];
    memset(m, 0, sizeof *m);
    cpumask_set(m, cpu);
    h->tasks[t].mask = 1 + t;
    h->tasks[t].nr_cpus_allowed = 1;
    model_allowed(r, t);
}

/* The migration stopper (migration/N) moved pid from src to dst: sched_setaffinity's
 * affine_move_task (or an active balance) while it ran. Traces filtered by pid lack the
 * sched_migrate_task (recorded with the stopper current). The replay infers a pin to dst
 * (the common case: a thread pinning itself), then migrates as move_queued_task does. */
static void stopper_migration(sched_replay *r, int32_t pid, int32_t src, int32_t dst)
{
    ks_sim *h = &r->host;
    int32_t t = imap_get(&r->pid_task, pid, -1);
    if (t < 0 || h->tasks[t].state == KS_TASK_DEAD || h->tasks[t].cpu != src)
        return;
    r->stats.stopper_migrations++;
    pin_task(r, t, dst);
    h->tasks[t].cpu = dst;
    rq_update_clock(h, dst);            /* move_queued_task(): enqueued on dst */
    model_migrate(r, t, src, dst);
}

/* Every record names the task current on its CPU: reconcile the replay's belief. */
static void reconcile(sched_replay *r, const ks_event *ev, int32_t pid)
{
    ks_sim *h = &r->host;
    int32_t cpu = ev->cpu;
    replay_cpu *rc = &r->cpus[cpu];
    /* recorded inside context_switch(), before switch_to() made next current (the essay) */
    if (ev->type == KS_EV_GENERIC && rc->known && pid == rc->ctx_prev)
        return;
    rc->ctx_prev = -1;
    int32_t named = task_of(r, pid, cpu, pid == ev->pid ? ev->comm : NULL);
    int32_t believed = h->rqs[cpu].curr;
    if (rc->known && believed == named)
        return;
    if (!rc->known) {
        rc->known = 1;
        r->stats.cold_starts++;
        if (believed != named)
            do_switch(r, believed, named, cpu);
        return;
    }
    r->stats.gaps++;
    CALL(r, gap, believed, named, cpu);
    rc->gap_out = believed >= 0 ? h->tasks[believed].tid : 0;
    rc->gap_in = pid;
    rc->gap_ts = ev->ts_ns;
    if (believed >= 0)
        r->tasks[believed].gap_ts = ev->ts_ns;
    if (named >= 0)
        r->tasks[named].gap_ts = ev->ts_ns;
    do_switch(r, believed, named, cpu);
}

/* The clocks of the CPUs that run a task: sched_tick() updates them every 1/hz, at times
 * the trace does not show; taken as now (at most one tick late in the kernel). */
static void update_busy_clocks(sched_replay *r)
{
    ks_sim *h = &r->host;
    for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++)
        if (h->rqs[cpu].curr >= 0)
            rq_update_clock(h, cpu);
}

static void tick(sched_replay *r, int32_t cpu, int32_t curr, int and_return, int kick)
{
    r->stats.ticks++;
    update_busy_clocks(r);
    CALL(r, tick_before, cpu, curr);
    if (r->ops->tick)
        r->ops->tick(r->host.algo, &r->host, cpu, curr);
    if (and_return)
        replay_return_to_user(r, cpu, curr);
    if (kick)
        rq_tick_blocked_kick(&r->host, cpu);   /* the tick's nohz_balancer_kick() (rq.c) */
    CALL(r, tick_after, cpu, curr);
}

void replay_tick(sched_replay *r, int32_t cpu, int32_t curr)
{
    tick(r, cpu, curr, 0, 1);
}

/* A kernel's tick that found curr in user space: its task_work runs on the return from the
 * interrupt, microseconds later, before the idle CPU the tick kicked (nohz_balancer_kick's
 * IPI) has woken to update the idle clocks: the work reads them as they were. */
void replay_tick_return(sched_replay *r, int32_t cpu, int32_t curr)
{
    tick(r, cpu, curr, 1, 1);
}

int32_t replay_return_to_user(sched_replay *r, int32_t cpu, int32_t t)
{
    ks_sim *h = &r->host;
    if (t < 0 || t >= h->core.nr_tasks || !(h->tasks[t].flags & TF_NOTIFY_RESUME))
        return 0;
    h->tasks[t].flags &= ~TF_NOTIFY_RESUME;
    if (r->ops->task_work_run)
        r->ops->task_work_run(h->algo, h, t, cpu);
    return 1;
}

/* Replaying a kernel (no tick grid), the busy CPUs' ticks are not traced, but they ran:
 * every 1/hz on each CPU that runs a task. Each such tick kicks the nohz blocked-load
 * update once it is due (nohz_balancer_kick; rq.c), which moves the idle CPUs' clocks.
 * Applied before each event: every kick due since the last one, at the first tick after
 * nohz.next_blocked of a CPU busy since before it (its phase unknown: taken as one tick
 * after next_blocked, or after the CPU's switch-in). */
static void busy_tick_kicks(sched_replay *r)
{
    ks_sim *h = &r->host;
    uint64_t now = h->core.now;
    if (r->tick_grid)
        return;
    for (int guard = 0; guard < 1000; guard++) {
        uint64_t due = h->core.nohz_next_blocked + r->tick_ns;
        if (due > now)
            break;
        int32_t kicker = -1;
        uint64_t at = now + 1;
        for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
            if (h->rqs[cpu].curr < 0)
                continue;
            uint64_t first = r->cpus[cpu].busy_since + r->tick_ns;
            uint64_t t = first > due ? first : due;
            if (t < at) {
                at = t;
                kicker = cpu;
            }
        }
        if (kicker < 0 || at > now)
            break;
        h->core.now = at;
        rq_tick_blocked_kick(h, kicker);
        h->core.now = now;
    }
}

static void place_tick_returns(sched_replay *r, const ks_event *ev, uint64_t ts);

/* The tick grid (replay_set_tick_grid): the ticks of the 1/hz grid up to and including
 * ts, each running the tick hook on every CPU whose current task has an mm. */
static void run_ticks(sched_replay *r, uint64_t ts)
{
    ks_sim *h = &r->host;
    if (!r->tick_grid)
        return;
    while (r->next_tick <= ts) {
        int any = 0;
        place_tick_returns(r, NULL, r->next_tick);     /* an earlier tick's, in user space */
        for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
            int32_t curr = h->rqs[cpu].curr;
            if (curr < 0 || h->tasks[curr].mm < 0 || h->tasks[curr].state == KS_TASK_DEAD)
                continue;
            if (!any) {
                h->core.now = r->next_tick;
                any = 1;
            }
            replay_tick(r, cpu, curr);
            if (h->tasks[curr].flags & TF_NOTIFY_RESUME)
                r->cpus[cpu].tick_return = r->next_tick;
        }
        if (!any) {
            /* no task of an mm runs anywhere: skip to the tick after ts, running the
             * simulator's housekeeping update (rq.c) at the grid ticks it falls on */
            uint64_t last = (ts / r->tick_ns) * r->tick_ns;
            while (h->core.nohz_next_blocked <= last) {
                uint64_t at = (h->core.nohz_next_blocked + r->tick_ns - 1) / r->tick_ns * r->tick_ns;
                if (at < r->next_tick)
                    at = r->next_tick;
                if (at > last)
                    break;
                h->core.now = at;
                rq_housekeeping_tick(h);
            }
            r->next_tick = last;
        } else {
            rq_housekeeping_tick(h);
        }
        r->next_tick += r->tick_ns;
    }
}

/* The tick grid (a simulated trace): where the task a grid tick queued task_work on went
 * back to user space. The simulator returns it right after the tick, recording an
 * rseq_update at the tick's time (the client runs the work there, replay_return_to_user),
 * unless the tick's balance preempted it (its switch-out at the tick's time: the work runs
 * after its next switch-in). A trace without that rseq_update (kscope before the tick's
 * task_work was modelled, hand-made traces) returned at the tick: once an event later
 * than the tick comes, the work runs at the tick's time. */
static void place_tick_returns(sched_replay *r, const ks_event *ev, uint64_t ts)
{
    ks_sim *h = &r->host;
    for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
        replay_cpu *c = &r->cpus[cpu];
        if (!c->tick_return)
            continue;
        int32_t t = h->rqs[cpu].curr;
        if (t < 0 || !(h->tasks[t].flags & TF_NOTIFY_RESUME)) {
            c->tick_return = 0;
            continue;
        }
        if (ts == c->tick_return) {
            if (ev && ev->cpu == cpu && ((ev->type == KS_EV_SCHED_SWITCH && ev->u.sched_switch.prev_pid == h->tasks[t].tid) ||
                                   (ev->type == KS_EV_RSEQ_UPDATE && ev->pid == h->tasks[t].tid)))
                c->tick_return = 0;     /* preempted, or the return itself (the client's) */
            continue;                   /* the tick's other records: not yet known */
        }
        uint64_t now = h->core.now;
        h->core.now = c->tick_return;
        c->tick_return = 0;
        CALL(r, tick_before, cpu, t);
        replay_return_to_user(r, cpu, t);
        CALL(r, tick_after, cpu, t);
        h->core.now = now;
    }
}

/* The kernel's recorded ticks up to ts (replay_set_ticks): sched_tick() on that CPU found
 * its current task, whose task_work then waits for its next return to user space. */
static void recorded_ticks(sched_replay *r, uint64_t ts)
{
    ks_sim *h = &r->host;
    uint64_t now = h->core.now;
    while (r->next_real_tick < r->nr_ticks && r->tick_ts[r->next_real_tick] <= ts) {
        uint64_t at = r->tick_ts[r->next_real_tick];
        int32_t cpu = r->tick_cpu[r->next_real_tick++];
        if (cpu < 0 || cpu >= h->nr_cpus || at < r->last_ts)
            continue;
        int32_t curr = h->rqs[cpu].curr;
        if (curr < 0 || h->tasks[curr].mm < 0 || h->tasks[curr].state == KS_TASK_DEAD)
            continue;
        h->core.now = at;
        /* the kick's blocked-load update runs on the idle CPU it wakes (kick_ilb's IPI),
         * after the ticked task's return to user, as replay_tick_return assumes: it is
         * applied at the next event of this CPU */
        tick(r, cpu, curr, 0, 0);
        r->cpus[cpu].kick_at = at;
    }
    h->core.now = now > h->core.now ? now : h->core.now;
}

/* A recorded tick's nohz kick, once the ticked CPU's next event came (recorded_ticks). */
static void late_kick(sched_replay *r, int32_t cpu)
{
    ks_sim *h = &r->host;
    if (!r->cpus[cpu].kick_at)
        return;
    uint64_t now = h->core.now;
    h->core.now = r->cpus[cpu].kick_at;
    r->cpus[cpu].kick_at = 0;
    rq_tick_blocked_kick(h, cpu);
    h->core.now = now;
}

static void on_event(sched_replay *r, const ks_event *ev)
{
    ks_sim *h = &r->host;
    r->stats.events++;
    if (ev->cpu < 0 || ev->cpu >= h->nr_cpus || (r->started && ev->ts_ns < r->last_ts)) {
        r->stats.bad_events++;
        return;
    }
    if (!r->started) {
        r->started = 1;
        r->start_ns = ev->ts_ns;
        r->next_tick = (ev->ts_ns / r->tick_ns + 1) * r->tick_ns;
    }
    recorded_ticks(r, ev->ts_ns);
    r->last_ts = ev->ts_ns;
    run_ticks(r, ev->ts_ns);
    if (r->tick_grid)
        place_tick_returns(r, ev, ev->ts_ns);
    h->core.now = ev->ts_ns;
    busy_tick_kicks(r);
    int32_t cpu = ev->cpu;
    switch (ev->type) {
    case KS_EV_SCHED_SWITCH: {
        const ks_ev_sched_switch *s = &ev->u.sched_switch;
        reconcile(r, ev, s->prev_pid);
        int32_t prev = h->rqs[cpu].curr;
        int32_t next = task_of(r, s->next_pid, cpu, s->next_comm);
        if (prev != next)
            do_switch(r, prev, next, cpu);
        r->cpus[cpu].ctx_prev = s->prev_pid;
        break;
    }
    case KS_EV_SCHED_PROCESS_FORK: {
        reconcile(r, ev, ev->pid);
        const ks_ev_sched_process_fork *f = &ev->u.sched_process_fork;
        int32_t parent = task_of(r, f->parent_pid, cpu, f->parent_comm);
        new_task(r, f->child_pid, parent, cpu, f->child_comm, 1);
        break;
    }
    case KS_EV_SCHED_MIGRATE_TASK: {
        reconcile(r, ev, ev->pid);
        const ks_ev_sched_migrate_task *m = &ev->u.sched_migrate_task;
        if (m->orig_cpu < 0 || m->orig_cpu >= h->nr_cpus || m->dest_cpu < 0 ||
            m->dest_cpu >= h->nr_cpus)
            break;
        int32_t t = task_of(r, m->pid, m->orig_cpu, m->comm);
        if (t < 0)
            break;
        /* moved by the stopper (migration/N current): taken as pinned at dest, as when the
         * trace lacks the move (stopper_migration) */
        if (strncmp(ev->comm, "migration/", 10) == 0 && m->orig_cpu != m->dest_cpu) {
            r->stats.stopper_migrations++;
            pin_task(r, t, m->dest_cpu);
        }
        h->tasks[t].cpu = m->dest_cpu;
        rq_update_clock(h, m->dest_cpu);    /* enqueued there next (ttwu_queue, attach_tasks) */
        CALL(r, migrated, t, m->orig_cpu, m->dest_cpu);
        if (r->tasks[t].waking && h->rqs[m->orig_cpu].curr != t) {
            /* a wakeup's set_task_cpu(): the model's migrate-to runs at the enqueue, at
             * its sched_wakeup (finish_wakeup_migration) */
            if (r->tasks[t].migrate_from < 0)
                r->tasks[t].migrate_from = m->orig_cpu;
            break;
        }
        model_migrate(r, t, m->orig_cpu, m->dest_cpu);
        break;
    }
    case KS_EV_SCHED_PROCESS_EXIT: {
        reconcile(r, ev, ev->pid);
        int32_t t = imap_get(&r->pid_task, ev->u.sched_process_exit.pid, -1);
        if (t < 0 || h->tasks[t].state == KS_TASK_DEAD)
            break;
        h->tasks[t].cpu = cpu;
        if (r->ops->task_exit)
            r->ops->task_exit(h->algo, h, t);
        h->tasks[t].state = KS_TASK_DEAD;
        break;
    }
    case KS_EV_SCHED_WAKING: {
        reconcile(r, ev, ev->pid);
        int32_t t = imap_get(&r->pid_task, ev->u.sched_wakeup.pid, -1);
        if (t >= 0 && h->tasks[t].state != KS_TASK_DEAD)
            r->tasks[t].waking = 1;
        break;
    }
    case KS_EV_SCHED_WAKEUP:
    case KS_EV_SCHED_WAKEUP_NEW: {
        reconcile(r, ev, ev->pid);
        int32_t woken = imap_get(&r->pid_task, ev->u.sched_wakeup.pid, -1);
        /* recorded by ttwu_do_activate() / wake_up_new_task() right after the target's
         * update_rq_clock(), on whichever CPU took the target's rq lock */
        int32_t target = ev->u.sched_wakeup.target_cpu;
        if (target >= 0 && target < h->nr_cpus)
            rq_update_clock(h, target);
        if (woken >= 0)
            finish_wakeup_migration(r, woken);
        break;
    }
    default:
        reconcile(r, ev, ev->pid);
        break;
    }
    CALL(r, event, ev);
    if (r->cpus[cpu].kick_at && ev->ts_ns > r->cpus[cpu].kick_at)
        late_kick(r, cpu);
}

/* ---- API --------------------------------------------------------------------------- */

void replay_free(sched_replay *r)
{
    if (!r)
        return;
    if (r->host.algo && r->ops->release)
        r->ops->release(r->host.algo);
    free(r->host.tasks);
    free(r->host.rqs);
    free(r->host.masks);
    free(r->tasks);
    free(r->cpus);
    imap_free(&r->pid_task);
    imap_free(&r->pid_tgid);
    imap_free(&r->tgid_mm);
    imap_free(&r->mm_born);
    free(r->tick_ts);
    free(r->tick_cpu);
    free(r);
}

int32_t replay_new(const ks_sched_ops *ops, const char *variant, int32_t nr_cpus, int32_t hz,
                   const replay_client *client, sched_replay **out)
{
    if (!ops || !variant || !out || nr_cpus < 1 || nr_cpus > CPUMASK_MAX_CPUS || hz < 0 ||
        hz > 10000)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    sched_replay *r = calloc(1, sizeof *r);
    if (!r)
        return KS_ERR_NO_MEMORY;
    r->ops = ops;
    if (client)
        r->client = *client;
    r->hz = hz ? hz : 250;
    r->tick_ns = 1000000000ull / (uint64_t)r->hz;
    r->tick_grid = 1;
    ks_sim *h = &r->host;
    h->nr_cpus = nr_cpus;
    h->nwords = cpumask_words(nr_cpus);
    h->max_tasks = 64;
    h->max_mms = 16;
    h->ops = ops;
    h->tasks = calloc((size_t)h->max_tasks, sizeof *h->tasks);
    h->rqs = calloc((size_t)nr_cpus, sizeof *h->rqs);
    h->masks = calloc((size_t)h->max_tasks + 1, sizeof *h->masks);
    h->nr_masks = h->max_tasks + 1;
    r->tasks = calloc((size_t)h->max_tasks, sizeof *r->tasks);
    r->cpus = calloc((size_t)nr_cpus, sizeof *r->cpus);
    if (!h->tasks || !h->rqs || !h->masks || !r->tasks || !r->cpus ||
        (r->client.grow && r->client.grow(r->client.ctx, h->max_tasks, h->max_mms, 0, 0))) {
        replay_free(r);
        return KS_ERR_NO_MEMORY;
    }
    for (int32_t cpu = 0; cpu < nr_cpus; cpu++) {
        h->rqs[cpu] = (sim_rq){ .curr = -1, .head = -1, .tail = -1, .rt_published = 140 };
        r->cpus[cpu].ctx_prev = -1;
        cpumask_set(&h->masks[0], cpu);
    }
    if (ops->init) {
        void *state = NULL;
        int32_t status = ops->init(h, variant, &state);
        if (status != KS_OK) {
            replay_free(r);
            return status;
        }
        h->algo = state;
    }
    *out = r;
    return KS_OK;
}

int32_t replay_feed(sched_replay *r, const ks_event *evs, uint32_t n)
{
    if (!r || (!evs && n))
        return KS_ERR_INVALID_ARG;
    ks_sim *h = &r->host;
    /* Learn every pid's tgid first: a task is often switched in (as next_pid) before
     * any record of its own shows its TGID column. */
    for (uint32_t i = 0; i < n; i++)
        if (evs[i].pid > 0 && evs[i].tgid >= 0 && imap_get(&r->pid_tgid, evs[i].pid, -1) < 0) {
            if (imap_put(&r->pid_tgid, evs[i].pid, evs[i].tgid))
                return KS_ERR_NO_MEMORY;
            /* a task created earlier without its tgid gets it now (the model saw it
             * without an mm) */
            int32_t t = imap_get(&r->pid_task, evs[i].pid, -1);
            if (t >= 0 && h->tasks[t].tgid < 0 && h->tasks[t].state != KS_TASK_DEAD) {
                h->tasks[t].tgid = evs[i].tgid;
                h->tasks[t].mm = mm_of_tgid(r, evs[i].tgid);
                model_fork(r, -1, t, 0);
                /* running already (fed in an earlier call): it takes its state now */
                int32_t cpu = h->tasks[t].cpu;
                if (h->tasks[t].state == KS_TASK_RUNNING && h->rqs[cpu].curr == t)
                    model_switch(r, -1, t, cpu);
            }
        }
    /* Stopper migrations (see stopper_migration): a task preempted by migration/N on CPU
     * N and switched in next on another CPU; applied right after the stopper's switch-in. */
    int32_t *act = malloc((size_t)n * 3 * sizeof *act + 1);
    if (!act)
        return KS_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++)
        act[3 * i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        const ks_event *e = &evs[i];
        if (e->type != KS_EV_SCHED_SWITCH || e->u.sched_switch.prev_pid <= 0 ||
            strncmp(e->u.sched_switch.next_comm, "migration/", 10) != 0)
            continue;
        int32_t pid = e->u.sched_switch.prev_pid;
        uint32_t in = n;
        for (uint32_t j = i + 1; j < n && in == n; j++) {
            const ks_event *f = &evs[j];
            if (f->ts_ns > e->ts_ns + 1000000000ull)
                break;                          /* look at most 1 s ahead (bounded cost) */
            if (f->type == KS_EV_SCHED_MIGRATE_TASK && f->u.sched_migrate_task.pid == pid)
                break;                          /* recorded: the migrate event moves it */
            if (f->type != KS_EV_SCHED_SWITCH)
                continue;
            if (f->u.sched_switch.next_pid == pid)
                in = j;
            if (f->u.sched_switch.prev_pid == pid || (f->u.sched_switch.next_pid == pid && f->cpu == e->cpu))
                break;                      /* ran again (or on the same CPU): no migration */
        }
        if (in < n && evs[in].cpu != e->cpu && evs[in].u.sched_switch.next_pid == pid) {
            act[3 * i] = pid;
            act[3 * i + 1] = e->cpu;
            act[3 * i + 2] = evs[in].cpu;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        on_event(r, &evs[i]);
        /* the stopper runs at once: the move follows its switch-in */
        if (act[3 * i] >= 0 && evs[i].ts_ns >= r->last_ts)
            stopper_migration(r, act[3 * i], act[3 * i + 1], act[3 * i + 2]);
    }
    free(act);
    return KS_OK;
}

int32_t replay_set_ticks(sched_replay *r, const uint64_t *ts, const int32_t *cpu, uint32_t n)
{
    free(r->tick_ts);
    free(r->tick_cpu);
    r->tick_ts = malloc((size_t)n * sizeof *ts + 1);
    r->tick_cpu = malloc((size_t)n * sizeof *cpu + 1);
    r->nr_ticks = r->next_real_tick = 0;
    if (!r->tick_ts || !r->tick_cpu)
        return -1;
    if (n) {
        memcpy(r->tick_ts, ts, (size_t)n * sizeof *ts);
        memcpy(r->tick_cpu, cpu, (size_t)n * sizeof *cpu);
    }
    r->nr_ticks = n;
    return 0;
}

void replay_set_tick_grid(sched_replay *r, int32_t on)
{
    r->tick_grid = on != 0;
}

void *replay_model(const sched_replay *r)
{
    return r->host.algo;
}

ks_sim *replay_host(sched_replay *r)
{
    return &r->host;
}

uint64_t replay_tick_ns(const sched_replay *r)
{
    return r->tick_ns;
}

int32_t replay_hz(const sched_replay *r)
{
    return r->hz;
}

const replay_stats *replay_stats_get(const sched_replay *r)
{
    return &r->stats;
}

const replay_task *replay_task_info(const sched_replay *r, int32_t task)
{
    return &r->tasks[task];
}

const replay_cpu *replay_cpu_info(const sched_replay *r, int32_t cpu)
{
    return &r->cpus[cpu];
}

int32_t replay_task_of_pid(const sched_replay *r, int32_t pid)
{
    return imap_get(&r->pid_task, pid, -1);
}

int32_t replay_mm_born(const sched_replay *r, int32_t mm)
{
    return imap_get(&r->mm_born, mm, 0);
}
