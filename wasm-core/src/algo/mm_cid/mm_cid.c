/*
 * mm_cid: the RSEQ concurrency-ID allocator, before and after commit 7e019dc
 * ("sched: Improve cache locality of RSEQ concurrency IDs for intermittent
 * workloads", Mathieu Desnoyers, v6.13), which builds on 223baf9 ("sched: Fix
 * performance regression introduced by mm_cid", v6.4).
 *
 * The problem. rseq tells each thread, on every return to user space, a
 * concurrency id (mm_cid): a number below the CPU count that no other thread
 * of the same process holds while running. User space indexes per-"CPU" data
 * with it (librseq's rseq_mempool), which stays compact when a process uses
 * few CPUs of a big machine, unlike indexing by cpu_id. Since 223baf9 a cid is
 * owned by a CPU, not a thread: when a thread leaves a CPU its cid stays in
 * the CPU's per-mm slot (a lazy put), so the next thread of the process on
 * that CPU takes it back without touching the shared cidmask. A periodic scan
 * (task_mm_cid_work, queued from the tick of a running thread of the process,
 * at most every 100 ms) takes back the cids CPUs have not used for 100 ms
 * (SCHED_MM_CID_PERIOD_NS) and compacts the rest. What happens next is the
 * problem: the next allocation takes the lowest free cid. A thread that runs
 * in bursts more than 100 ms apart comes back to find its CPU's cid gone, and
 * gets cid 0, or whichever low cid is free, whose data area was last written
 * by another core, maybe behind another L3. Its data scatters over the
 * machine, and every burst starts with cache misses that per-cpu indexing
 * would not have.
 *
 * The idea of 7e019dc. Remember, per mm and CPU, the cid last used there
 * (recent_cid) and try it first: a thread coming back to its CPU gets its own
 * data back. When the hint is taken, do not pile onto cid 0 either: hand out
 * fresh cids up to min(nr_cpus_allowed, mm_users) (max_nr_cid counts how far
 * allocation has spread), and only then the first free one. nr_cpus_allowed is
 * the weight of a new per-mm mask, the union of every thread's allowed CPUs
 * since the mm began (mm_set_cpus_allowed; never cleared). That union also
 * bounds cids below nr_cpus_allowed rather than nr_cpu_ids (a cid allocation
 * racing with a remote clear could exceed it), and fixes migrate-to, which
 * compared mm_users with the *migrating thread's* allowed CPUs (1 for a pinned
 * thread) when it meant the whole mm's.
 *
 * Invariants (mm_cid_check_invariants checks them after every step in tests):
 *   - a cid is owned by at most one CPU's per-mm/cpu slot at a time, and every
 *     bit of the cidmask is owned by a slot or held by a remote clear in flight;
 *   - a running thread's cid is its CPU's slot cid, so running threads of one
 *     mm have distinct cids; a thread that is not running has mm_cid -1;
 *   - cids are below nr_cpu_ids, and from 6.13 on below mm->nr_cpus_allowed.
 *
 * The data (one mm; LAZY is the kernel's MM_CID_LAZY_PUT bit of the slot):
 *
 *   mm->cidmask   cid:  0 1 2 3 4 5 6 7      mm->cpus_allowed (6.13+): 0-7, weight 8
 *                       1 1 0 1 0 0 0 0      mm->max_nr_cid   (6.13+): 4
 *                       | |   |              mm_users: 5   next_scan: t+100 ms
 *   per-mm/cpu    CPU   0 1 2 3 4 5 6 7
 *     cid               1 - 3 0 - - - -      owned by the CPU, kept across switches
 *     recent_cid        1 2 3 0 - - - -      (6.13+) hint for the next allocation
 *     time             t0 t1 t2 t3           last use; the scan drops cids idle >= 100 ms
 *     lazy_put          . . . L              a remote clear wants CPU 3's cid back
 *   task  mm_cid        running on CPU 0 -> 1, on CPU 3 -> 0, sleeping -> -1
 *
 * Variants (the text after "mm_cid:"; "" means v6.13; "+flags" may follow):
 *   v6.12  before 7e019dc: __mm_cid_try_get takes the lowest free cid below
 *          nr_cpu_ids; sched_mm_cid_migrate_to tests mm_users against
 *          t->nr_cpus_allowed.
 *   v6.13  7e019dc as merged (v6.13-rc1; the v6.13 release has it and not the
 *          follow-up below): recent_cid, per-mm cpus_allowed / nr_cpus_allowed,
 *          max_nr_cid expansion, the [0, nr_cpus_allowed) bound, migrate-to
 *          with mm->nr_cpus_allowed and "dst cid or dst recent_cid set".
 *   v6.18  6.13 plus 02d954c0 ("sched: Compact RSEQ concurrency IDs with
 *          reduced threads and affinity", v6.14-rc4, also in 6.13.y stable):
 *          max_nr_cid shrinks back to min(nr_cpus_allowed, mm_users) when
 *          threads exit, and the recent_cid hint is used only below it. The
 *          rest is unchanged through 6.18: task_mm_cid_work is still a
 *          task_work queued by task_tick_mm_cid (read in 6.17 and 6.18.2
 *          trees). Not modelled, because not merged by 6.18: Gabriele Monaco's
 *          series moving the scan to an mm work_struct / timer and scanning in
 *          batches (v1-v14, 2024-12..2025-07). Not modelled, because after
 *          6.18: Thomas Gleixner's 6.19 rework (per-task or per-CPU ownership
 *          modes, no scan at all): that is the next variant.
 *   v6.19  the rework, as Debian's 7.x kernels run it: mm_cid_v619.c (its own
 *          essay). The hooks below hand over to it; migrate and tick do nothing.
 *   +no_recent_cid          (toggle, 6.13+ only) 7e019dc without its recent_cid field:
 *          no CPU remembers its last cid, so allocation is expansion, then the
 *          lowest free cid. For the lesson's "what breaks" step: a thread back
 *          after > 100 ms idle no longer gets its old cid (and its cached data).
 *   +task_nr_cpus_allowed   (toggle, 6.13+ only) migrate-to compares mm_users with
 *          the migrating task's t->nr_cpus_allowed again, as before 7e019dc, instead
 *          of the per-mm union's weight: with threads pinned to one CPU each, a
 *          migrating thread's old cid stays on the source CPU (cids spread).
 *   +race  every remote clear stops inside its window (slot already UNSET,
 *          cid bit not yet cleared) until the next allocation of that mm: the
 *          interleaving 7e019dc's commit message names. Seekable, unlike
 *          poking the state from outside (tests also use
 *          mm_cid_remote_clear_hold for one targeted clear).
 *
 * Simplifications. The kernel's lock-free steps (cmpxchg on the slot, the
 * test-and-set on the cidmask, the use_cid_lock retry for forward progress)
 * run here one after another inside one hook call, so no two of them
 * interleave except through the explicit race window above; a v6.13 spin
 * (cpu_relax until a cid below nr_cpus_allowed frees up) is modelled as
 * letting the in-flight remote clear finish first. The scan is task_work, as
 * in the kernel: the tick queues it on the running thread and it runs on that
 * thread's next return to user space (the core's task_work_run hook): right
 * after the tick in the simulator, whose threads are in user space whenever a
 * tick finds them, unless that tick's balance preempts the thread (then after
 * its next switch-in); in a kernel's replay, at the rseq_update that return
 * records (mm_cid_conform.c). Time:
 * the scan period is gated on the simulation clock in ns (the kernel counts
 * jiffies); the 100 ms age test and every slot's time stamp use the rq clock
 * of that slot's CPU (sched_rq_clock, src/sched/rq.c), as
 * sched_mm_cid_remote_clear_old and mm_cid_snapshot_time read rq->clock
 * (v6.4 to v6.18). An idle CPU's rq clock stands still until something calls
 * update_rq_clock for it - a wakeup or migration enqueued there, or the nohz
 * blocked-load update (a CPU going newly idle, a busy CPU's tick kick, at most
 * every 32 ms) - so a cid used long ago on a CPU idle since looks as fresh as
 * the CPU's clock says (tests/test_mm_cid_rq_clock.c). The simulator assumes
 * kernel housekeeping elsewhere on the machine runs that update every 32 ms
 * (SIM_HOUSEKEEPING, rq.c): its idle clocks lag by at most 32 ms + a tick.
 * kscope's tick is HZ=250, 4 ms. mm_users
 * counts the simulated threads only. A new mm's first scan is due 100 ms after
 * it is created (the kernel's dup_mm copies the parent's mm_cid_next_scan, or
 * leaves 0 for the first work to set). The per-mm cpus_allowed union is kept
 * in every variant as bookkeeping for views and checks; v6.12's allocator
 * never reads it, and the views show it only for 6.13+.
 *
 * Where it plugs in (src/sched/sched_ops.h): task_fork -> mm_init_cid /
 * init_sched_mm_cid / sched_mm_cid_fork; set_cpus_allowed ->
 * mm_set_cpus_allowed; switch_to -> switch_mm_cid; migrate ->
 * sched_mm_cid_migrate_to; tick -> task_tick_mm_cid; task_work_run ->
 * task_mm_cid_work; task_exit ->
 * sched_mm_cid_exit_signals. Migration, remote clear and the scan live in
 * mm_cid_scan.c; the decision log in mm_cid_log.c; views and the invariant check in mm_cid_view.c.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_cid.h"

/* ---- small helpers --------------------------------------------------------------- */

int mm_cid_is_613(const mm_cid_state *st)
{
    return st->variant >= KS_MM_CID_V6_13;
}

/* 6.13+ keeps a per-CPU recent_cid hint, unless the "+no_recent_cid" toggle takes it out. */
int mm_cid_keeps_recent_cid(const mm_cid_state *st)
{
    return mm_cid_is_613(st) && !st->no_recent_cid;
}

mm_cid_mm *mm_cid_mm_of(mm_cid_state *st, int32_t mm)
{
    if (mm < 0 || mm >= st->hdr.nr_mms || st->mm_map[mm] < 0)
        return NULL;
    return (mm_cid_mm *)(st->pool + (size_t)st->mm_map[mm] * st->mm_stride);
}

mm_cid_mm *mm_cid_mm_of_task(mm_cid_state *st, const ks_sim *sim, int32_t task)
{
    return mm_cid_mm_of(st, sched_task_mm(sim, task));
}

int32_t mm_cid_curr_of_mm(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m,
                          int32_t cpu)
{
    int32_t t = sched_cpu_curr(sim, cpu);
    if (t < 0 || t >= st->hdr.nr_tasks || !st->tasks[t].active || sched_task_mm(sim, t) != m->mm)
        return -1;
    return t;
}

/* cpumask_test_and_set_cpu() on the cidmask: 1 if the cid was already taken. */
static int cid_test_and_set(mm_cid_mm *m, int32_t cid)
{
    int taken = cpumask_test(&m->cidmask, cid);
    cpumask_set(&m->cidmask, cid);
    return taken;
}

/* cpumask_first_zero() of the cidmask; nr_cpus if every cid is taken. */
static int32_t cid_first_zero(const mm_cid_state *st, const mm_cid_mm *m)
{
    for (int32_t w = 0; w < st->nwords; w++) {
        uint64_t free_bits = ~m->cidmask.bits[w];
        if (free_bits) {
            int32_t cid = w * 64 + __builtin_ctzll(free_bits);
            return cid < st->nr_cpus ? cid : st->nr_cpus;
        }
    }
    return st->nr_cpus;
}

/* __mm_cid_put(): the cid goes back to the mm's free pool. */
void __mm_cid_put(mm_cid_mm *m, int32_t cid)
{
    if (cid >= 0)
        cpumask_clear_cpu(&m->cidmask, cid);
}

/* The upper bound of the first-free search: nr_cpu_ids (6.12), mm->nr_cpus_allowed (6.13+). */
static int32_t cid_bound(const mm_cid_state *st, const mm_cid_mm *m)
{
    return mm_cid_is_613(st) ? m->nr_cpus_allowed : st->nr_cpus;
}

void mm_cid_release_held(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task)
{
    for (int32_t cid = cpumask_first_and(&m->held, NULL, st->nwords); cid >= 0;
         cid = cpumask_first_and(&m->held, NULL, st->nwords)) {
        cpumask_clear_cpu(&m->held, cid);
        __mm_cid_put(m, cid);
        ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_REMOTE_CLEAR_DONE, task, -1);
        r.cid = cid;
        mm_cid_log(st, &r);
    }
}

/* ---- mm lifetime: mm_init_cid, init_sched_mm_cid, mm_set_cpus_allowed -------------- */

/* A free pool entry for a new mm (the pool grows by doubling). NULL if out of memory. */
static mm_cid_mm *alloc_mm_entry(mm_cid_state *st, int32_t mm)
{
    int32_t e = 0;
    while (e < st->hdr.nr_pool && ((mm_cid_mm *)(st->pool + (size_t)e * st->mm_stride))->in_use)
        e++;
    if (e == st->pool_cap) {
        int32_t cap = st->pool_cap ? st->pool_cap * 2 : 4;
        uint8_t *grown = realloc(st->pool, (size_t)cap * st->mm_stride);
        if (!grown)
            return NULL;
        st->pool = grown;
        st->pool_cap = cap;
    }
    if (e == st->hdr.nr_pool)
        st->hdr.nr_pool++;
    mm_cid_mm *m = (mm_cid_mm *)(st->pool + (size_t)e * st->mm_stride);
    memset(m, 0, st->mm_stride);
    m->in_use = 1;
    m->mm = mm;
    st->mm_map[mm] = e;
    if (mm >= st->hdr.nr_mms)
        st->hdr.nr_mms = mm + 1;
    return m;
}

/* mm_init_cid() (include/linux/mm_types.h; the task argument and the 6.13 fields since
 * 7e019dc): every slot unset, no cid taken, the union starts as the first task's mask. */
static void mm_init_cid(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task)
{
    for (int32_t cpu = 0; cpu < st->nr_cpus; cpu++)
        m->pcpu[cpu] = (mm_cid_pcpu){ .cid = MM_CID_UNSET, .recent_cid = MM_CID_UNSET };
    m->tgid = sched_task_tgid(sim, task);
    m->cpus_allowed = *sched_task_cpus_allowed(sim, task);
    m->nr_cpus_allowed = sched_task_nr_cpus_allowed(sim, task);
    m->max_nr_cid = 0;
    m->next_scan = sched_now(sim) + MM_CID_SCAN_DELAY_NS;
}

/* init_sched_mm_cid() (kernel/sched/core.c, v6.4+): a thread joining a single-threaded
 * mm pushes its first scan 100 ms out. */
static void init_sched_mm_cid(const ks_sim *sim, mm_cid_mm *m)
{
    if (m->mm_users == 1)
        m->next_scan = sched_now(sim) + MM_CID_SCAN_DELAY_NS;
}

/* mm_set_cpus_allowed() (mm_types.h, 7e019dc): the union only grows. */
static void mm_set_cpus_allowed(mm_cid_state *st, mm_cid_mm *m, const cpumask *mask)
{
    for (int32_t w = 0; w < st->nwords; w++)
        m->cpus_allowed.bits[w] |= mask->bits[w];
    m->nr_cpus_allowed = cpumask_weight(&m->cpus_allowed, st->nwords);
}

static void mm_cid_task_fork(void *state, ks_sim *sim, int32_t parent, int32_t child)
{
    (void)parent;
    mm_cid_state *st = state;
    if (child >= st->hdr.nr_tasks)
        st->hdr.nr_tasks = child + 1;
    st->tasks[child] = (mm_cid_task){ .mm_cid = -1, .last_mm_cid = -1 };
    int32_t mm = sched_task_mm(sim, child);
    mm_cid_mm *m = mm_cid_mm_of(st, mm);
    if (m) {
        init_sched_mm_cid(sim, m);
    } else if (mm >= 0 && mm < st->max_mms && (m = alloc_mm_entry(st, mm))) {
        mm_init_cid(st, sim, m, child);
    } else {
        return;                         /* no memory for the mm: the task gets no cid */
    }
    if (st->variant == KS_MM_CID_V6_19) {
        mm_cid_v619_fork(st, sim, parent, child);   /* mm_cid_v619.c */
        return;
    }
    m->mm_users++;                      /* copy_mm(): mmget() or a new mm */
    st->tasks[child].active = 1;        /* sched_mm_cid_fork() */
}

static void mm_cid_set_cpus_allowed(void *state, ks_sim *sim, int32_t task)
{
    mm_cid_state *st = state;
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (m && st->variant == KS_MM_CID_V6_19)
        mm_cid_v619_set_cpus_allowed(st, sim, task);
    else if (m)
        mm_set_cpus_allowed(st, m, sched_task_cpus_allowed(sim, task));
}

/* ---- allocation: __mm_cid_try_get, __mm_cid_get, mm_cid_get ------------------------ */

/* 02d954c0 (v6.18 variant): after threads exit or affinity narrows, max_nr_cid falls back
 * to min(nr_cpus_allowed, mm_users), so a later expansion spreads from there again. */
static void shrink_max_nr_cid(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                              int32_t cpu)
{
    int32_t allowed = m->nr_cpus_allowed < m->mm_users ? m->nr_cpus_allowed : m->mm_users;
    if (m->max_nr_cid <= allowed)
        return;
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_MAX_NR_CID_SHRUNK, task, cpu);
    r.prev_cid = m->max_nr_cid;
    m->max_nr_cid = allowed;
    r.max_nr_cid = allowed;
    r.bound = allowed;
    mm_cid_log(st, &r);
}

/* 6.13+: this CPU's recent cid, if still free (6.18: and below max_nr_cid). */
static int32_t try_recent_cid(const mm_cid_state *st, mm_cid_mm *m, const mm_cid_pcpu *slot)
{
    int32_t cid = slot->recent_cid;
    if (cid == MM_CID_UNSET)
        return -1;
    if (st->variant >= KS_MM_CID_V6_18 && cid >= m->max_nr_cid)
        return -1;
    return cid_test_and_set(m, cid) ? -1 : cid;
}

/* 6.13+: the next never-used cid while max_nr_cid < min(nr_cpus_allowed, mm_users). */
static int32_t try_expand_max_nr_cid(mm_cid_mm *m)
{
    while (m->max_nr_cid < m->nr_cpus_allowed && m->max_nr_cid < m->mm_users) {
        int32_t cid = m->max_nr_cid++;
        if (!cid_test_and_set(m, cid))
            return cid;
    }
    return -1;
}

/* The lowest free cid below bound. The kernel spins (cpu_relax) while none is free: only
 * a remote clear holding a cid can cause that, so the model lets it finish, then retries. */
static int32_t take_first_free(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                               int32_t bound, int32_t *flags)
{
    for (;;) {
        int32_t cid = cid_first_zero(st, m);
        if (cid < bound) {
            cid_test_and_set(m, cid);
            return cid;
        }
        if (cpumask_empty(&m->held, st->nwords))
            break;
        mm_cid_release_held(st, sim, m, task);
        *flags |= KS_MM_CID_F_WAITED;
    }
    int32_t cid = cid_first_zero(st, m);        /* unreachable while the invariants hold */
    if (cid < st->nr_cpus)
        cid_test_and_set(m, cid);
    return cid < st->nr_cpus ? cid : -1;
}

/* __mm_cid_try_get() (kernel/sched/sched.h): v6.12 lowest free below nr_cpu_ids; 6.13+
 * recent_cid, then expansion, then lowest free below mm->nr_cpus_allowed. */
static int32_t __mm_cid_try_get(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                                int32_t cpu)
{
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (st->variant >= KS_MM_CID_V6_18)
        shrink_max_nr_cid(st, sim, m, task, cpu);
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_FIRST_FREE, task, cpu);
    int32_t cid = -1;
    if (mm_cid_keeps_recent_cid(st) && (cid = try_recent_cid(st, m, slot)) >= 0) {
        r.path = KS_MM_CID_RECENT_CID;
    } else if (mm_cid_is_613(st) && (cid = try_expand_max_nr_cid(m)) >= 0) {
        r.path = KS_MM_CID_EXPAND_MAX_NR_CID;
        r.bound = m->nr_cpus_allowed < m->mm_users ? m->nr_cpus_allowed : m->mm_users;
    } else {
        r.bound = cid_bound(st, m);
        cid = take_first_free(st, sim, m, task, r.bound, &r.flags);
    }
    r.cid = cid;
    r.max_nr_cid = mm_cid_is_613(st) ? m->max_nr_cid : -1;
    if (cid >= m->nr_cpus_allowed)
        r.flags |= KS_MM_CID_F_OVER_ALLOWED;
    mm_cid_log(st, &r);
    return cid;
}

/* mm_cid_snapshot_time(): the CPU used its cid now, by its own rq->clock (which
 * __schedule() has just updated: the callers run inside context_switch()). */
static void mm_cid_snapshot_time(const ks_sim *sim, mm_cid_mm *m, int32_t cpu)
{
    m->pcpu[cpu].time = sched_rq_clock(sim, cpu);
}

/* __mm_cid_get(): try, stamp the time; then the allocation that raced with a remote clear
 * is over, and so is the clear's window. */
static int32_t __mm_cid_get(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                            int32_t cpu)
{
    int32_t cid = __mm_cid_try_get(st, sim, m, task, cpu);
    mm_cid_snapshot_time(sim, m, cpu);
    mm_cid_release_held(st, sim, m, task);
    return cid;
}

/* Empties a slot whose cid carries LAZY_PUT and frees the cid (mm_cid_put_lazy's cmpxchg). */
static void put_lazy_slot(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                          int32_t cpu)
{
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_PUT_LAZY, task, cpu);
    r.cid = slot->cid;
    slot->cid = MM_CID_UNSET;
    slot->lazy_put = 0;
    __mm_cid_put(m, r.cid);
    mm_cid_log(st, &r);
}

/* mm_cid_get() (sched.h): keep the CPU's valid cid; a lazy-put one is released first;
 * else allocate and remember it as this CPU's (6.13+: and as its recent_cid). */
static int32_t mm_cid_get(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                          int32_t cpu)
{
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (slot->cid != MM_CID_UNSET && !slot->lazy_put) {
        ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_KEEP_PCPU_CID, task, cpu);
        r.cid = slot->cid;
        mm_cid_snapshot_time(sim, m, cpu);
        mm_cid_log(st, &r);
        return slot->cid;
    }
    if (slot->cid != MM_CID_UNSET)
        put_lazy_slot(st, sim, m, task, cpu);
    int32_t cid = __mm_cid_get(st, sim, m, task, cpu);
    slot->cid = cid < 0 ? MM_CID_UNSET : cid;
    if (mm_cid_keeps_recent_cid(st))
        slot->recent_cid = slot->cid;
    return cid;
}

/* mm_cid_put_lazy() (sched.h): at switch-out, give back a cid a remote clear marked. */
static void mm_cid_put_lazy(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                            int32_t cpu)
{
    if (m->pcpu[cpu].cid != MM_CID_UNSET && m->pcpu[cpu].lazy_put)
        put_lazy_slot(st, sim, m, task, cpu);
}

/* switch_mm_cid() (sched.h, called from context_switch()): prev leaves its cid with the
 * CPU (lazy put); next takes the CPU's cid or allocates one. */
static void mm_cid_switch_to(void *state, ks_sim *sim, int32_t prev, int32_t next, int32_t cpu)
{
    mm_cid_state *st = state;
    mm_cid_mm *m;
    if (st->variant == KS_MM_CID_V6_19) {
        mm_cid_v619_switch_to(st, sim, prev, next, cpu);
        return;
    }
    if (prev >= 0 && st->tasks[prev].active && (m = mm_cid_mm_of_task(st, sim, prev))) {
        mm_cid_snapshot_time(sim, m, cpu);
        mm_cid_put_lazy(st, sim, m, prev, cpu);
        st->tasks[prev].mm_cid = -1;
    }
    if (next >= 0 && st->tasks[next].active && (m = mm_cid_mm_of_task(st, sim, next))) {
        int32_t cid = mm_cid_get(st, sim, m, next, cpu);
        st->tasks[next].mm_cid = st->tasks[next].last_mm_cid = cid;
    }
}

/* ---- exit: sched_mm_cid_exit_signals, then exit_mm's mmput ------------------------ */

/* mm_cid_put() (sched.h): the exiting task's CPU gives its cid back, lazy or not. */
static void mm_cid_put(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task,
                       int32_t cpu)
{
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    if (slot->cid == MM_CID_UNSET)
        return;
    ks_mm_cid_record r = mm_cid_record(st, sim, m, KS_MM_CID_EXIT_PUT, task, cpu);
    r.cid = slot->cid;
    slot->cid = MM_CID_UNSET;
    slot->lazy_put = 0;
    __mm_cid_put(m, r.cid);
    mm_cid_log(st, &r);
}

/* mm_destroy_cid(): the last user is gone; its entry is free for a later mm. */
static void drop_mm(mm_cid_state *st, mm_cid_mm *m)
{
    st->mm_map[m->mm] = -1;
    m->in_use = 0;
}

static void mm_cid_task_exit(void *state, ks_sim *sim, int32_t task)
{
    mm_cid_state *st = state;
    mm_cid_task *t = &st->tasks[task];
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (!m || !t->active)
        return;
    if (st->variant == KS_MM_CID_V6_19) {
        mm_cid_v619_exit(st, sim, task);
        if (m->mm_users == 0)
            drop_mm(st, m);
        return;
    }
    t->active = 0;                      /* sched_mm_cid_exit_signals() */
    mm_cid_put(st, sim, m, task, sched_task_cpu(sim, task));
    t->mm_cid = t->last_mm_cid = -1;
    if (--m->mm_users == 0)             /* exit_mm() -> mmput() */
        drop_mm(st, m);
}

/* ---- the other hooks --------------------------------------------------------------- */

static void mm_cid_migrate(void *state, ks_sim *sim, int32_t task, int32_t from_cpu,
                           int32_t to_cpu)
{
    if (((mm_cid_state *)state)->variant == KS_MM_CID_V6_19)
        return;                         /* 6.19 removed sched_mm_cid_migrate_to */
    sched_mm_cid_migrate_to(state, sim, task, from_cpu, to_cpu);
}

static void mm_cid_tick(void *state, ks_sim *sim, int32_t cpu, int32_t curr)
{
    if (((mm_cid_state *)state)->variant == KS_MM_CID_V6_19)
        return;                         /* 6.19 removed task_tick_mm_cid and the scan */
    task_tick_mm_cid(state, sim, cpu, curr);
}

/* t->mm_cid, as rseq reports it on the return to user space. */
static int32_t mm_cid_of_task(const void *state, const ks_sim *sim, int32_t task)
{
    (void)sim;
    const mm_cid_state *st = state;
    return task >= 0 && task < st->hdr.nr_tasks ? st->tasks[task].mm_cid : -1;
}

/* ---- init, release, snapshots -------------------------------------------------------- */

/* "v6.12" | "v6.13" | "v6.18" | "v6.19" | "" (v6.13), then any of "+race", "+no_recent_cid",
 * "+task_nr_cpus_allowed" (the last two are bug-injection toggles of 7e019dc's parts, so
 * they need 6.13 or later: v6.12 never had what they take out). */
static int32_t parse_variant(mm_cid_state *st, const char *variant)
{
    static const char *const names[] = { "v6.12", "v6.13", "v6.18", "v6.19" };
    size_t len = strcspn(variant, "+");
    st->variant = KS_MM_CID_V6_13;
    int found = len == 0;
    for (int32_t i = 0; i < 4 && !found; i++)
        if (strlen(names[i]) == len && strncmp(variant, names[i], len) == 0) {
            st->variant = i;
            found = 1;
        }
    if (!found)
        return KS_ERR_NOT_FOUND;
    for (const char *p = variant + len; *p == '+';) {
        size_t n = strcspn(p + 1, "+");
        int32_t *flag = NULL;
        if (n == 4 && strncmp(p + 1, "race", 4) == 0)
            flag = &st->race;
        else if (n == 13 && strncmp(p + 1, "no_recent_cid", 13) == 0)
            flag = &st->no_recent_cid;
        else if (n == 20 && strncmp(p + 1, "task_nr_cpus_allowed", 20) == 0)
            flag = &st->task_nr_cpus_allowed;
        if (!flag || *flag)
            return KS_ERR_NOT_FOUND;
        *flag = 1;
        p += 1 + n;
    }
    if ((st->no_recent_cid || st->task_nr_cpus_allowed || st->race) &&
        st->variant == KS_MM_CID_V6_19)
        return KS_ERR_NOT_FOUND;        /* 6.19 has none of the parts these take out */
    if ((st->no_recent_cid || st->task_nr_cpus_allowed) && !mm_cid_is_613(st))
        return KS_ERR_NOT_FOUND;
    return KS_OK;
}

static void mm_cid_release(void *state)
{
    mm_cid_state *st = state;
    if (!st)
        return;
    free(st->tasks);
    free(st->mm_map);
    free(st->pool);
    free(st->log);
    free(st);
}

/* The replay host's tables grew (replay.c): the task table and the mm map follow. */
static int32_t mm_cid_grow(void *state, ks_sim *sim, int32_t old_tasks, int32_t old_mms)
{
    mm_cid_state *st = state;
    int32_t tasks = sched_max_tasks(sim), mms = sched_max_mms(sim);
    if (tasks > old_tasks) {
        mm_cid_task *mt = realloc(st->tasks, ((size_t)tasks + 1) * sizeof *mt);
        if (!mt)
            return -1;
        memset(mt + old_tasks + 1, 0, (size_t)(tasks - old_tasks) * sizeof *mt);
        st->tasks = mt;
        st->max_tasks = tasks;
    }
    if (mms > old_mms) {
        int32_t *map = realloc(st->mm_map, ((size_t)mms + 1) * sizeof *map);
        if (!map)
            return -1;
        for (int32_t i = old_mms; i <= mms; i++)
            map[i] = -1;
        st->mm_map = map;
        st->max_mms = mms;
    }
    return 0;
}

static int32_t mm_cid_init(ks_sim *sim, const char *variant, void **state)
{
    mm_cid_state *st = calloc(1, sizeof *st);
    if (!st)
        return KS_ERR_NO_MEMORY;
    int32_t status = parse_variant(st, variant);
    st->nr_cpus = sched_nr_cpus(sim);
    st->nwords = cpumask_words(st->nr_cpus);
    st->max_tasks = sched_max_tasks(sim);
    st->max_mms = sched_max_mms(sim);
    size_t entry = sizeof(mm_cid_mm) + (size_t)st->nr_cpus * sizeof(mm_cid_pcpu);
    st->mm_stride = (uint32_t)((entry + 7) & ~(size_t)7);
    st->tasks = calloc((size_t)st->max_tasks + 1, sizeof *st->tasks);
    st->mm_map = malloc(((size_t)st->max_mms + 1) * sizeof *st->mm_map);
    if (status == KS_OK && (!st->tasks || !st->mm_map))
        status = KS_ERR_NO_MEMORY;
    if (status != KS_OK) {
        mm_cid_release(st);
        return status;
    }
    for (int32_t i = 0; i < st->max_mms; i++)
        st->mm_map[i] = -1;
    *state = st;
    return KS_OK;
}

/* Identifies the configuration a snapshot was taken under. */
typedef struct mm_cid_snap_sig {
    int32_t variant, race, no_recent_cid, task_nr_cpus_allowed, nr_cpus;
    uint32_t mm_stride;
} mm_cid_snap_sig;

static uint32_t mm_cid_snapshot_size(const void *state)
{
    const mm_cid_state *st = state;
    return (uint32_t)(sizeof(mm_cid_snap_sig) + sizeof(mm_cid_hdr) +
                      (size_t)st->hdr.nr_tasks * sizeof(mm_cid_task) +
                      (size_t)st->hdr.nr_mms * sizeof(int32_t) +
                      (size_t)st->hdr.nr_pool * st->mm_stride);
}

static mm_cid_snap_sig sig_of(const mm_cid_state *st)
{
    return (mm_cid_snap_sig){ st->variant, st->race, st->no_recent_cid, st->task_nr_cpus_allowed,
                              st->nr_cpus, st->mm_stride };
}

static int32_t mm_cid_snapshot_save(const void *state, void *buf, uint32_t len)
{
    const mm_cid_state *st = state;
    if (len != mm_cid_snapshot_size(st))
        return KS_ERR_RANGE;
    uint8_t *p = buf;
    mm_cid_snap_sig sig = sig_of(st);
    memcpy(p, &sig, sizeof sig);
    p += sizeof sig;
    memcpy(p, &st->hdr, sizeof st->hdr);
    p += sizeof st->hdr;
    memcpy(p, st->tasks, (size_t)st->hdr.nr_tasks * sizeof *st->tasks);
    p += (size_t)st->hdr.nr_tasks * sizeof *st->tasks;
    memcpy(p, st->mm_map, (size_t)st->hdr.nr_mms * sizeof *st->mm_map);
    p += (size_t)st->hdr.nr_mms * sizeof *st->mm_map;
    memcpy(p, st->pool, (size_t)st->hdr.nr_pool * st->mm_stride);
    return KS_OK;
}

/* Checks a snapshot's header against this state; KS_OK and *hdr if it fits. */
static int32_t check_snapshot(const mm_cid_state *st, const uint8_t *p, uint32_t len,
                              mm_cid_hdr *hdr)
{
    mm_cid_snap_sig want = sig_of(st), got;
    if (len < sizeof got + sizeof *hdr)
        return KS_ERR_INVALID_ARG;
    memcpy(&got, p, sizeof got);
    memcpy(hdr, p + sizeof got, sizeof *hdr);
    if (memcmp(&got, &want, sizeof got) != 0 || hdr->nr_tasks < 0 ||
        hdr->nr_tasks > st->max_tasks || hdr->nr_mms < 0 || hdr->nr_mms > st->max_mms ||
        hdr->nr_pool < 0 || hdr->nr_pool > st->max_mms)
        return KS_ERR_INVALID_ARG;
    size_t need = sizeof got + sizeof *hdr + (size_t)hdr->nr_tasks * sizeof(mm_cid_task) +
                  (size_t)hdr->nr_mms * sizeof(int32_t) + (size_t)hdr->nr_pool * st->mm_stride;
    return need == len ? KS_OK : KS_ERR_INVALID_ARG;
}

static int32_t mm_cid_snapshot_restore(void *state, const void *buf, uint32_t len)
{
    mm_cid_state *st = state;
    const uint8_t *p = buf;
    mm_cid_hdr hdr;
    int32_t status = check_snapshot(st, p, len, &hdr);
    if (status != KS_OK)
        return status;
    if (hdr.nr_pool > st->pool_cap) {
        uint8_t *grown = realloc(st->pool, (size_t)hdr.nr_pool * st->mm_stride);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        st->pool = grown;
        st->pool_cap = hdr.nr_pool;
    }
    for (int32_t i = hdr.nr_mms; i < st->hdr.nr_mms; i++)
        st->mm_map[i] = -1;
    for (int32_t i = hdr.nr_tasks; i < st->hdr.nr_tasks; i++)
        st->tasks[i] = (mm_cid_task){ .mm_cid = -1, .last_mm_cid = -1 };
    p += sizeof(mm_cid_snap_sig) + sizeof hdr;
    memcpy(st->tasks, p, (size_t)hdr.nr_tasks * sizeof *st->tasks);
    p += (size_t)hdr.nr_tasks * sizeof *st->tasks;
    memcpy(st->mm_map, p, (size_t)hdr.nr_mms * sizeof *st->mm_map);
    p += (size_t)hdr.nr_mms * sizeof *st->mm_map;
    memcpy(st->pool, p, (size_t)hdr.nr_pool * st->mm_stride);
    st->hdr = hdr;
    mm_cid_log_truncate(st, hdr.log_seq);
    return KS_OK;
}

const ks_sched_ops mm_cid_ops = {
    .name = "mm_cid",
    .init = mm_cid_init,
    .release = mm_cid_release,
    .task_fork = mm_cid_task_fork,
    .task_exit = mm_cid_task_exit,
    .switch_to = mm_cid_switch_to,
    .migrate = mm_cid_migrate,
    .set_cpus_allowed = mm_cid_set_cpus_allowed,
    .tick = mm_cid_tick,
    .task_work_run = mm_cid_task_work_run,
    .rseq_cid = mm_cid_of_task,
    .view_get = mm_cid_view_get,
    .grow = mm_cid_grow,
    .snapshot_size = mm_cid_snapshot_size,
    .snapshot_save = mm_cid_snapshot_save,
    .snapshot_restore = mm_cid_snapshot_restore,
};
