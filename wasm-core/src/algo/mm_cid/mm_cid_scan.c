/*
 * mm_cid, part two: how cids leave a CPU other than by the CPU's own threads.
 *
 *   migration     sched_mm_cid_migrate_to: a thread moving from src to dst may
 *                 take src's cid along (src must not be running the mm), or
 *                 free it when dst already has one, to keep cids compact.
 *   remote clear  sched_mm_cid_remote_clear: another CPU takes a slot's cid
 *                 back: mark it LAZY_PUT; if the slot's CPU runs the mm, leave
 *                 it marked (that thread gives it back at switch-out);
 *                 otherwise empty the slot and free the cid.
 *   the scan      task_mm_cid_work, queued by task_tick_mm_cid from the tick of
 *                 a running thread of the mm once mm_cid_next_scan has passed
 *                 (so at most every MM_CID_SCAN_DELAY = 100 ms, and never while
 *                 no thread of the mm is on a CPU at a tick) as task_work, which
 *                 runs on that thread's next return to user space: first drop every
 *                 cid unused for SCHED_MM_CID_PERIOD_NS = 100 ms
 *                 (remote_clear_old), then every cid >= the number still taken
 *                 (remote_clear_weight: compaction).
 *
 * The race 7e019dc's message names sits in remote clear, between emptying the
 * slot and freeing the cid: for that window the cid is owned by no slot yet
 * still taken in the cidmask. An allocation then (on any CPU) sees one cid
 * fewer than there is. v6.12 takes the first zero bit below nr_cpu_ids, which
 * can be >= the mm's allowed CPUs; 6.13+ only accepts one below
 * mm->nr_cpus_allowed and spins until the clear is done. The model opens the
 * window when asked ("+race", or mm_cid_remote_clear_hold in tests) and closes
 * it after the next allocation of the mm, at the next scan, or when a 6.13+
 * allocation waits for it (mm_cid.c).
 *
 * Kernel sources read: kernel/sched/core.c and sched.h of v6.12 (before
 * 7e019dc), 7e019dc itself (its tip-tree commit mail), a 6.17 tree and a 6.18.2
 * tree (unchanged here since 7e019dc, but for migrate-to's recent_cid test,
 * which 7e019dc added).
 */
#include <stddef.h>

#include "mm_cid.h"

/* ---- migration --------------------------------------------------------------------- */

/* __sched_mm_cid_migrate_from_fetch_cid() (v6.4+): src's cid, if it is the one the task
 * last ran with and no thread of the mm runs on src now (else: -1, nothing to move). */
static int32_t fetch_src_cid(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                             int32_t src_cpu)
{
    mm_cid_task *t = &st->tasks[task];
    const mm_cid_pcpu *src = &m->pcpu[src_cpu];
    if (t->last_mm_cid == -1 || src->cid == MM_CID_UNSET || src->lazy_put ||
        src->cid != t->last_mm_cid)
        return -1;
    if (mm_cid_curr_of_mm(st, sim, m, src_cpu) >= 0) {
        ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_MIGRATE_SRC_IN_USE, task, src_cpu);
        r.cid = src->cid;
        mm_cid_log(st, &r);
        t->last_mm_cid = -1;
        return -1;
    }
    return src->cid;
}

/* __sched_mm_cid_migrate_from_try_steal_cid(): LAZY_PUT, re-check src's current task (it
 * cannot have changed within one hook: collapsed), then UNSET; the cid now travels with the
 * task. 7e019dc also forgets src's recent_cid. */
static void steal_src_cid(const mm_cid_state *st, mm_cid_pcpu *src)
{
    src->cid = MM_CID_UNSET;
    src->lazy_put = 0;
    if (mm_cid_keeps_recent_cid(st))
        src->recent_cid = MM_CID_UNSET;
}

/* Whether src still holds the cid this task last ran with (what migrate-to could move). */
static int src_holds_last_cid(const mm_cid_state *st, const mm_cid_mm *m, int32_t task,
                              int32_t src_cpu)
{
    int32_t last = st->tasks[task].last_mm_cid;
    return last != -1 && m->pcpu[src_cpu].cid == last && !m->pcpu[src_cpu].lazy_put;
}

/* sched_mm_cid_migrate_to() (core.c): called with dst's rq lock when a migrated task is
 * enqueued on dst (activate_task with ENQUEUE_MIGRATED; set_task_cpu() has just recorded
 * src as migrate_from_cpu). If dst already has a cid (6.13+: or a recent_cid) and
 * mm_users >= the allowed CPUs (6.12: the task's, t->nr_cpus_allowed; 6.13+: the mm's
 * union), leave src alone: user space may use as many cids as allowed CPUs. Otherwise take
 * src's cid: move it into dst's empty slot, or free it if dst has one. */
void sched_mm_cid_migrate_to(mm_cid_state *st, ks_sim *sim, int32_t task, int32_t src_cpu,
                             int32_t dst_cpu)
{
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (!m || !st->tasks[task].active)
        return;
    mm_cid_pcpu *dst = &m->pcpu[dst_cpu];
    int dst_set = dst->cid != MM_CID_UNSET || (mm_cid_is_613(st) && dst->recent_cid != MM_CID_UNSET);
    int32_t allowed = mm_cid_is_613(st) && !st->task_nr_cpus_allowed ? m->nr_cpus_allowed
                                                                     : sched_task_nr_cpus_allowed(sim, task);
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_MIGRATE_KEPT_SRC, task, dst_cpu);
    r.other_cpu = src_cpu;
    r.bound = allowed;
    if (mm_cid_is_613(st) && st->task_nr_cpus_allowed)
        r.flags |= KS_MM_CID_F_TASK_ALLOWED;
    if (dst_set && m->mm_users >= allowed) {
        if (src_holds_last_cid(st, m, task, src_cpu)) {
            r.cid = m->pcpu[src_cpu].cid;
            mm_cid_log(st, &r);
        }
        return;
    }
    int32_t cid = fetch_src_cid(st, sim, m, task, src_cpu);
    if (cid < 0)
        return;
    steal_src_cid(st, &m->pcpu[src_cpu]);
    r.cid = cid;
    if (dst_set) {
        __mm_cid_put(m, cid);
        r.path = KS_MM_CID_MIGRATE_SRC_DROPPED;
    } else {
        dst->time = sched_rq_clock(sim, dst_cpu);   /* mm_cid_snapshot_time(dst_rq) */
        dst->cid = cid;
        if (mm_cid_keeps_recent_cid(st))
            dst->recent_cid = cid;
        r.path = KS_MM_CID_MIGRATE_TAKEN_FROM_SRC;
    }
    mm_cid_log(st, &r);
}

/* ---- remote clear ------------------------------------------------------------------ */

/* sched_mm_cid_remote_clear() (core.c): r is prefilled with the path and why. With hold
 * (or "+race") the clear stops in its window: slot empty, cid still taken (m->held). */
void sched_mm_cid_remote_clear(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t cpu,
                               ks_mm_cid_record *r, int hold)
{
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (slot->cid == MM_CID_UNSET || slot->lazy_put)
        return;                                 /* !mm_cid_is_valid() */
    r->cid = slot->cid;
    r->prev_cid = slot->cid;
    slot->lazy_put = 1;                         /* cmpxchg: cid -> cid | LAZY_PUT */
    if (mm_cid_curr_of_mm(st, sim, m, cpu) >= 0) {
        r->path = KS_MM_CID_MARKED_LAZY;        /* the running thread puts it at switch-out */
        mm_cid_log(st, r);
        return;
    }
    slot->cid = MM_CID_UNSET;                   /* cmpxchg: LAZY_PUT -> UNSET */
    slot->lazy_put = 0;
    mm_cid_log(st, r);
    if (hold || st->race) {
        cpumask_set(&m->held, r->cid);
        r->path = KS_MM_CID_REMOTE_CLEAR_HELD;
        mm_cid_log(st, r);
        return;
    }
    __mm_cid_put(m, r->cid);
}

/* sched_mm_cid_remote_clear_old() (core.c, v6.4 to v6.18): a CPU running the mm gets its
 * time bumped (that is how rarely-switching threads keep their cid); one whose cid went
 * unused for 100 ms loses it. Both read that CPU's rq->clock, not the scanning CPU's
 * time: an idle CPU's clock stands still until something updates it (src/sched/rq.c),
 * so a cid on a CPU idle since its last use keeps looking fresh, however long ago that
 * was, until the CPU's clock moves. */
static void sched_mm_cid_remote_clear_old(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m,
                                          int32_t cpu, const ks_mm_cid_record *scan)
{
    uint64_t rq_clock = sched_rq_clock(sim, cpu);
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (mm_cid_curr_of_mm(st, sim, m, cpu) >= 0) {
        slot->time = rq_clock;
        return;
    }
    if (rq_clock < slot->time + SCHED_MM_CID_PERIOD_NS)
        return;
    ks_mm_cid_record r = *scan;
    r.path = KS_MM_CID_SCAN_DROPPED_OLD;
    r.cpu = cpu;
    r.age_ns = rq_clock - slot->time;
    r.bound = -1;
    sched_mm_cid_remote_clear(st, sim, m, cpu, &r, 0);
}

/* sched_mm_cid_remote_clear_weight() (core.c): compaction, cids >= weight go. */
static void sched_mm_cid_remote_clear_weight(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m,
                                             int32_t cpu, int32_t weight,
                                             const ks_mm_cid_record *scan)
{
    const mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (slot->cid == MM_CID_UNSET || slot->lazy_put || slot->cid < weight)
        return;
    ks_mm_cid_record r = *scan;
    r.path = KS_MM_CID_COMPACT_DROPPED;
    r.cpu = cpu;
    r.bound = weight;
    sched_mm_cid_remote_clear(st, sim, m, cpu, &r, 0);
}

/* task_mm_cid_work() (core.c): one scan of every CPU's slot, at most every 100 ms. */
static void task_mm_cid_work(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                             int32_t cpu)
{
    uint64_t now = sched_now(sim);
    if (now < m->next_scan)                     /* time_before(now, old_scan) */
        return;
    m->next_scan = now + MM_CID_SCAN_DELAY_NS;  /* try_cmpxchg(&mm_cid_next_scan, ...) */
    m->last_scan = now;
    m->nr_scans++;
    mm_cid_release_held(st, sim, m, task);      /* an earlier clear's window is over */
    ks_mm_cid_record scan = mm_cid_record(st, sim, m, KS_MM_CID_SCAN, task, cpu);
    scan.other_cpu = cpu;
    scan.bound = cpumask_weight(&m->cidmask, st->nwords);
    mm_cid_log(st, &scan);
    for (int32_t c = 0; c < st->nr_cpus; c++)
        sched_mm_cid_remote_clear_old(st, sim, m, c, &scan);
    int32_t weight = cpumask_weight(&m->cidmask, st->nwords);
    for (int32_t c = 0; c < st->nr_cpus; c++)
        sched_mm_cid_remote_clear_weight(st, sim, m, c, weight, &scan);
}

/* task_tick_mm_cid() (core.c): from sched_tick() for the CPU's current task. Once the mm's
 * scan is due (mm_cid_next_scan passed) it queues task_mm_cid_work as the task's task_work
 * (TWA_RESUME: TIF_NOTIFY_RESUME), unless that work is queued already; the work runs on
 * the task's next return to user space (mm_cid_task_work_run): at once when the tick
 * interrupted user code, else after the kernel work the tick interrupted - for a task on
 * its way to block or preempted, after its next switch-in. Simplified: next_scan is in
 * ns (now + 100 ms where the work runs), the kernel's in jiffies (jiffies + 25 at HZ 250):
 * a scan that runs between ticks lets the next one be queued up to a tick later here. */
void task_tick_mm_cid(mm_cid_state *st, ks_sim *sim, int32_t cpu, int32_t curr)
{
    (void)cpu;
    if (curr < 0 || curr >= st->hdr.nr_tasks || !st->tasks[curr].active)
        return;                                 /* no mm, exiting, kthread */
    if (st->tasks[curr].work_queued)
        return;                                 /* work->next != work */
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, curr);
    if (!m || sched_now(sim) < m->next_scan)
        return;
    st->tasks[curr].work_queued = 1;
    sched_task_work_add(sim, curr);
}

/* task_mm_cid_work() as task_work (the task_work_run hook): it clears its queued mark
 * first (work->next = work), does nothing for an exiting task, and re-checks
 * mm_cid_next_scan itself (another thread's work may have scanned since the tick). */
void mm_cid_task_work_run(void *state, ks_sim *sim, int32_t task, int32_t cpu)
{
    mm_cid_state *st = state;
    if (task < 0 || task >= st->hdr.nr_tasks || !st->tasks[task].work_queued)
        return;
    st->tasks[task].work_queued = 0;
    if (!st->tasks[task].active)
        return;                                 /* PF_EXITING, no mm */
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (m)
        task_mm_cid_work(st, sim, m, task, cpu);
}

void mm_cid_remote_clear_hold(ks_sim *sim, int32_t task, int32_t cpu)
{
    mm_cid_state *st = sched_algo_state(sim, &mm_cid_ops);
    mm_cid_mm *m = st ? mm_cid_mm_of_task(st, sim, task) : NULL;
    if (!m)
        return;
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_SCAN_DROPPED_OLD, -1, cpu);
    r.age_ns = sched_now(sim) - m->pcpu[cpu].time;
    sched_mm_cid_remote_clear(st, sim, m, cpu, &r, 1);
}
