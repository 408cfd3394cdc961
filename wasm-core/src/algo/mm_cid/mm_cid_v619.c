/*
 * mm_cid, variant v6.19: Thomas Gleixner's rework of the concurrency-ID allocator
 * ("sched/mmcid" series, tip sched/core 2025-11-20, merged for v6.19; read here in
 * Debian's linux-source-7.3 7.3.4-1~bpo13+1, kernel/sched/sched.h and core.c, which
 * still carry it unchanged in design). Debian's 7.x kernels run this code.
 *
 * What changed, and why. Up to 6.18 a cid belonged to a CPU: a thread leaving a CPU
 * left its cid there (the lazy put), a periodic scan (task_mm_cid_work, 100 ms)
 * took back cids CPUs had not used lately, and migrations tried to carry a cid
 * along. The scan and the remote clears were the costly, racy part (seed 000's
 * lesson is about what they did to cache locality). 6.19 drops all of it and asks
 * one question per process instead: are there more threads than cids worth
 * handing out?
 *
 *   - No (the usual case): per-task mode. A thread gets a cid when it is forked
 *     (sched_mm_cid_fork: the lowest free one) and keeps it until it exits
 *     (sched_mm_cid_exit). Switch-in costs a compare: the thread's cid is copied
 *     into the CPU's per-mm slot; nothing touches the shared cidmask. A thread's
 *     cid follows it across CPUs: rseq users index their per-"CPU" data by a
 *     number that is now, in effect, a thread number.
 *   - Yes: per-CPU mode. When a fork makes users > max_cids, where
 *         opt = min(nr_cpus_allowed, users),  max_cids = min(opt + opt/4, nr_cpu_ids)
 *     (nr_cpus_allowed: the weight of the union of the threads' allowed CPUs, which
 *     only grows), the CPUs own the cids: a thread switched in on a CPU takes the
 *     CPU's cid (allocating one the first time), and the cid stays with the CPU when
 *     the thread leaves, for good - there is no scan that takes it back. The mode
 *     goes back to per-task when exits bring users below pcpu_thrs =
 *     max(min(opt - opt/4, nr_cpu_ids/2), 1), computed when per-CPU mode began
 *     (or when an affinity change widens the union).
 *   - A mode change happens in two phases so that no switch-in ever waits for a
 *     cid: the mode word gets a TRANSIT bit, the forking (or exiting) thread walks
 *     the threads (to per-CPU) or the CPUs (to per-task); a cid whose owner is not
 *     running goes back to the pool at once, a running owner's cid gets the TRANSIT
 *     bit and is given up, or handed to its new owner, when that thread switches
 *     out (mm_cid_schedout); then the TRANSIT bit leaves the mode word.
 *   - max_cids also pulls cids down: a thread (per-task) or CPU (per-CPU) whose cid
 *     is >= max_cids after threads exited swaps it at its next switch-in for the
 *     lowest free one below max_cids, if there is one (mm_cid_converge).
 *
 * Encoding, as the kernel's: a cid word is the number plus flag bits - ONCPU (bit
 * 30: the CPU owns it), TRANSIT (bit 29: given up at switch-out), UNSET (bit 31:
 * none). task_mm_cid(), what rseq reports, masks ONCPU and TRANSIT off. Here the
 * words live in mm_cid_task.raw_cid and mm_cid_pcpu.raw_cid; mm_cid_task.mm_cid is
 * what rseq would report while the thread runs (-1 otherwise), and mm_cid_pcpu.cid
 * is, for the views, the cid the CPU holds now (its own, or the running thread's).
 * mm_cid_mm.max_nr_cid holds max_cids; mm_users holds mm_mm_cid::users.
 *
 * What the tracepoint shows. rseq_update (cpu_id, node_id, mm_cid) is recorded on
 * the return to user space that writes new ids into the thread's struct rseq:
 * since the 6.19 rseq rework (same series) only when the ids changed, for a
 * registration with the optimised ABI, but on every return after a switch-in for
 * glibc's registrations (the legacy ABI, which the kernel keeps updating as before).
 *
 * Simplifications. The fixups of a mode change run inside the fork / exit / affinity
 * hook that triggers them, with no other CPU switching in between (the kernel runs
 * them under each rq lock in turn, while other CPUs keep scheduling: the TRANSIT
 * phase exists for that window, and its hand-over at switch-out is modelled). The
 * affinity path's deferred work (irq_work, then a workqueue) runs at once. The
 * kernel's fallback when no cid below max_cids is free (spin, then search below
 * nr_cpu_ids) is one search below nr_cpu_ids. mm_users counts the traced or
 * simulated threads only. An execve is not replayed (the kernel drops the cid and
 * takes a fresh one from the new mm: cid 0 for a single-threaded process, as here).
 * Invariants: mm_cid_v619_check, below.
 */
#include <stdio.h>

#include "mm_cid.h"

#define V619_UNSET 0x80000000u
#define V619_ONCPU 0x40000000u
#define V619_TRANSIT 0x20000000u

/* ---- the cid word (kernel/sched/sched.h, v6.19-7.3: cid_on_cpu() and friends) ---------- */

static int on_cpu(uint32_t c) { return (c & V619_ONCPU) != 0; }
static int in_transit(uint32_t c) { return (c & V619_TRANSIT) != 0; }
static int on_task(uint32_t c) { return c < V619_TRANSIT; }    /* no flag bit at all */
static uint32_t plain(uint32_t c) { return c & ~(V619_ONCPU | V619_TRANSIT); }

static uint32_t traw(const mm_cid_state *st, int32_t t) { return (uint32_t)st->tasks[t].raw_cid; }
static void set_traw(mm_cid_state *st, int32_t t, uint32_t c) { st->tasks[t].raw_cid = (int32_t)c; }
static uint32_t craw(const mm_cid_mm *m, int32_t cpu) { return (uint32_t)m->pcpu[cpu].raw_cid; }
static void set_craw(mm_cid_mm *m, int32_t cpu, uint32_t c) { m->pcpu[cpu].raw_cid = (int32_t)c; }

/* task_mm_cid() (include/linux/sched.h, v6.19+): what rseq reports; -1 for UNSET. */
static int32_t reported(uint32_t c)
{
    return c & V619_UNSET ? -1 : (int32_t)plain(c);
}

static void log_path(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t path, int32_t task,
                     int32_t cpu, int32_t cid, int32_t prev_cid, int32_t bound)
{
    ks_mm_cid_record r = mm_cid_record(st, sim, m, path, task, cpu);
    r.cid = cid;
    if (prev_cid != -2)
        r.prev_cid = prev_cid;
    r.bound = bound;
    r.recent_cid = -1;
    if (cid >= m->nr_cpus_allowed)
        r.flags |= KS_MM_CID_F_OVER_ALLOWED;
    mm_cid_log(st, &r);
}

/* mm_drop_cid() (sched.h, v6.19+): the cid's bit leaves the cidmask. */
static void drop_cid(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, uint32_t cid, int32_t task,
                     int32_t cpu)
{
    cpumask_clear_cpu(&m->cidmask, (int32_t)cid);
    log_path(st, sim, m, KS_MM_CID_DROPPED, task, cpu, (int32_t)cid, -2, m->max_nr_cid);
}

/* __mm_get_cid() (sched.h, v6.19+): the lowest free cid below max, taken; UNSET if none. */
static uint32_t try_get_cid(mm_cid_state *st, mm_cid_mm *m, int32_t max)
{
    for (int32_t cid = 0; cid < max && cid < st->nr_cpus; cid++)
        if (!cpumask_test(&m->cidmask, cid)) {
            cpumask_set(&m->cidmask, cid);
            return (uint32_t)cid;
        }
    return V619_UNSET;
}

/* mm_get_cid() (sched.h, v6.19+): below max_cids, else (the kernel spins and widens the
 * search to num_possible_cpus()) below nr_cpu_ids. */
static uint32_t get_cid(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task, int32_t cpu)
{
    uint32_t cid = try_get_cid(st, m, m->max_nr_cid);
    if (cid == V619_UNSET)
        cid = try_get_cid(st, m, st->nr_cpus);
    log_path(st, sim, m, KS_MM_CID_FIRST_FREE, task, cpu, reported(cid), -2, m->max_nr_cid);
    return cid;
}

/* mm_unset_cid_on_task() (sched.h, v6.19+): the thread gives up a cid it owns. */
static void unset_cid_on_task(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    uint32_t cid = traw(st, t);
    set_traw(st, t, V619_UNSET);
    if (on_task(cid))
        drop_cid(st, sim, m, cid, t, cpu);
}

/* mm_drop_cid_on_cpu() (sched.h, v6.19+): the CPU gives up its cid; the slot keeps the
 * number without ONCPU (the kernel does not write UNSET there). */
static void drop_cid_on_cpu(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t cpu)
{
    uint32_t c = craw(m, cpu);
    if (!on_cpu(c))
        return;
    set_craw(m, cpu, plain(c));
    drop_cid(st, sim, m, plain(c), -1, cpu);
}

/* mm_cid_converge() (sched.h, v6.19+): a cid >= max_cids is swapped for a lower free one,
 * keeping its ONCPU bit; kept when none is free. */
static uint32_t converge(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, uint32_t orig,
                         int32_t task, int32_t cpu)
{
    uint32_t cid = orig & ~V619_ONCPU;
    if ((int32_t)cid < m->max_nr_cid)
        return orig;
    uint32_t got = try_get_cid(st, m, m->max_nr_cid);
    if (got == V619_UNSET)
        return orig;
    cpumask_clear_cpu(&m->cidmask, (int32_t)cid);
    log_path(st, sim, m, KS_MM_CID_CONVERGE, task, cpu, (int32_t)got, (int32_t)cid, m->max_nr_cid);
    return got | (orig & V619_ONCPU);
}

/* ---- switch-in and switch-out (sched.h, v6.19+: mm_cid_schedin / mm_cid_schedout) ------- */

/* mm_cid_from_cpu(): per-CPU mode. The CPU's cid, else the thread's own (handed to the CPU),
 * else a new one for the CPU. */
static void from_cpu(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    uint32_t cpu_cid = craw(m, cpu), tcid = traw(st, t);
    int32_t prev = on_cpu(cpu_cid) ? (int32_t)plain(cpu_cid) : -1;
    if (on_cpu(cpu_cid & tcid)) {
        if ((int32_t)plain(cpu_cid) < m->max_nr_cid) {
            log_path(st, sim, m, KS_MM_CID_KEEP_PCPU_CID, t, cpu, (int32_t)plain(cpu_cid), prev,
                     m->max_nr_cid);
            set_craw(m, cpu, cpu_cid);
            set_traw(st, t, cpu_cid);
            return;
        }
        cpu_cid = converge(st, sim, m, cpu_cid, t, cpu);
    } else {
        if (on_task(tcid)) {
            if (on_cpu(cpu_cid)) {
                unset_cid_on_task(st, sim, m, t, cpu);
            } else {
                cpu_cid = tcid | V619_ONCPU;
                log_path(st, sim, m, KS_MM_CID_HANDOVER, t, cpu, (int32_t)tcid, prev, m->max_nr_cid);
            }
        }
        if (!on_cpu(cpu_cid))
            cpu_cid = get_cid(st, sim, m, t, cpu) | V619_ONCPU;
        else if (prev >= 0 && (int32_t)plain(cpu_cid) == prev)
            log_path(st, sim, m, KS_MM_CID_KEEP_PCPU_CID, t, cpu, prev, prev, m->max_nr_cid);
        if (in_transit((uint32_t)m->mode))
            cpu_cid = plain(cpu_cid) | V619_TRANSIT;
    }
    set_craw(m, cpu, cpu_cid);
    set_traw(st, t, cpu_cid);
}

/* mm_cid_from_task(): per-task mode. The thread's own cid, else the CPU's (handed to the
 * thread), else a new one. */
static void from_task(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    uint32_t cpu_cid = craw(m, cpu), tcid = traw(st, t);
    if (on_task(tcid | cpu_cid)) {
        if ((int32_t)tcid < m->max_nr_cid) {
            log_path(st, sim, m, KS_MM_CID_KEEP_TASK_CID, t, cpu, (int32_t)tcid, -2, m->max_nr_cid);
            set_craw(m, cpu, tcid);
            return;
        }
        tcid = converge(st, sim, m, tcid, t, cpu);
    } else {
        if (on_cpu(cpu_cid)) {
            if (on_task(tcid)) {
                drop_cid_on_cpu(st, sim, m, cpu);
            } else {
                tcid = plain(cpu_cid);
                log_path(st, sim, m, KS_MM_CID_HANDOVER, t, cpu, (int32_t)tcid, (int32_t)tcid,
                         m->max_nr_cid);
            }
        }
        if (!on_task(tcid))
            tcid = get_cid(st, sim, m, t, cpu);
        else
            log_path(st, sim, m, KS_MM_CID_KEEP_TASK_CID, t, cpu, (int32_t)tcid, -2, m->max_nr_cid);
        tcid |= (uint32_t)m->mode & V619_TRANSIT;
    }
    set_craw(m, cpu, tcid);
    set_traw(st, t, tcid);
}

/* mm_cid_schedout(): only a cid in transit is touched. Once the mode change is over it
 * passes to its new owner (below max_cids), else it goes back to the pool. */
static void schedout(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t prev, int32_t cpu)
{
    uint32_t raw = traw(st, prev);
    if (!in_transit(raw) || (raw & V619_UNSET))
        return;
    uint32_t cid = raw & ~V619_TRANSIT;
    if (!in_transit((uint32_t)m->mode) && (int32_t)cid < m->max_nr_cid) {
        if (on_cpu((uint32_t)m->mode))
            cid |= V619_ONCPU;
        set_craw(m, cpu, cid);
        set_traw(st, prev, cid);
        log_path(st, sim, m, KS_MM_CID_HANDOVER, prev, cpu, (int32_t)plain(cid), -2, m->max_nr_cid);
    } else {
        drop_cid(st, sim, m, cid, prev, cpu);
        set_traw(st, prev, V619_UNSET);
    }
}

/* The views' per-CPU cid: the CPU's own, or the running thread's; -1. */
static void view_slot(mm_cid_state *st, mm_cid_mm *m, int32_t cpu, int32_t running)
{
    uint32_t c = craw(m, cpu);
    if (running >= 0)
        m->pcpu[cpu].cid = reported(traw(st, running));
    else
        m->pcpu[cpu].cid = on_cpu(c) ? (int32_t)plain(c) : MM_CID_UNSET;
}

/* mm_cid_switch_to() (sched.h, v6.19+, called from context_switch()). */
void mm_cid_v619_switch_to(mm_cid_state *st, ks_sim *sim, int32_t prev, int32_t next, int32_t cpu)
{
    mm_cid_mm *m;
    if (prev >= 0 && (m = mm_cid_mm_of_task(st, sim, prev))) {
        schedout(st, sim, m, prev, cpu);
        st->tasks[prev].mm_cid = -1;
        view_slot(st, m, cpu, -1);
    }
    if (next >= 0 && st->tasks[next].active && (m = mm_cid_mm_of_task(st, sim, next))) {
        if (on_cpu((uint32_t)m->mode))
            from_cpu(st, sim, m, next, cpu);
        else
            from_task(st, sim, m, next, cpu);
        m->pcpu[cpu].time = sched_rq_clock(sim, cpu);
        int32_t cid = reported(traw(st, next));
        st->tasks[next].mm_cid = st->tasks[next].last_mm_cid = cid;
        view_slot(st, m, cpu, next);
    }
}

/* ---- modes (core.c, v6.19+) ------------------------------------------------------------ */

static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }

/* __mm_update_max_cids(): max_cids = min(opt + opt/4, nr_cpu_ids), opt = min(allowed, users). */
static void update_max_cids_value(const mm_cid_state *st, mm_cid_mm *m)
{
    int32_t opt = min32(m->nr_cpus_allowed, m->mm_users);
    m->max_nr_cid = min32(opt + opt / 4, st->nr_cpus);
}

/* mm_cid_calc_pcpu_thrs(): back to per-task below max(min(opt - opt/4, nr_cpu_ids/2), 1). */
static int32_t calc_pcpu_thrs(const mm_cid_state *st, const mm_cid_mm *m)
{
    int32_t opt = min32(m->nr_cpus_allowed, m->mm_users);
    int32_t thrs = min32(opt - opt / 4, st->nr_cpus / 2);
    return thrs > 1 ? thrs : 1;
}

/* mm_update_max_cids(): 1 when the mode flips (the TRANSIT bit is then set). */
static int update_max_cids(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task, int32_t cpu)
{
    int percpu = on_cpu((uint32_t)m->mode);
    update_max_cids_value(st, m);
    if (!percpu) {
        if (m->mm_users > m->max_nr_cid)
            m->pcpu_thrs = calc_pcpu_thrs(st, m);
    } else if (m->mm_users < m->pcpu_thrs) {
        m->pcpu_thrs = 0;
    }
    if (percpu == (m->pcpu_thrs != 0))
        return 0;
    m->mode = (int32_t)((uint32_t)m->mode ^ (V619_TRANSIT | V619_ONCPU));
    log_path(st, sim, m, percpu ? KS_MM_CID_MODE_PER_TASK : KS_MM_CID_MODE_PER_CPU, task, cpu, -1, -2,
             percpu ? m->pcpu_thrs : m->max_nr_cid);
    return 1;
}

/* mm_cid_transit_to_task(): a CPU-owned cid of a running thread becomes the thread's, in transit. */
static void transit_to_task(mm_cid_state *st, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    uint32_t c = traw(st, t);
    if (!on_cpu(c) || (c & V619_UNSET))
        return;
    set_traw(st, t, plain(c) | V619_TRANSIT);
    set_craw(m, cpu, plain(c) | V619_TRANSIT);
}

/* mm_cid_transit_to_cpu(): a running thread's own cid goes into transit toward its CPU. */
static void transit_to_cpu(mm_cid_state *st, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    uint32_t c = traw(st, t);
    if (!on_task(c))
        return;
    set_traw(st, t, c | V619_TRANSIT);
    set_craw(m, cpu, c | V619_TRANSIT);
}

static int running(const ks_sim *sim, int32_t t)
{
    return sched_cpu_curr(sim, sched_task_cpu(sim, t)) == t;
}

/* mm_cid_fixup_cpus_to_tasks(): every CPU-owned cid is dropped, or put in transit when a
 * thread of the mm runs there; running threads' own cids get TRANSIT too; mode 0. */
static void fixup_cpus_to_tasks(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m)
{
    for (int32_t cpu = 0; cpu < st->nr_cpus; cpu++) {
        int32_t curr = mm_cid_curr_of_mm(st, sim, m, cpu);
        uint32_t c = craw(m, cpu);
        if (on_cpu(c)) {
            if (curr >= 0)
                transit_to_task(st, m, curr, cpu);
            else
                drop_cid_on_cpu(st, sim, m, cpu);
        } else if (curr >= 0) {
            uint32_t tc = traw(st, curr);
            if (tc != V619_UNSET && !in_transit(tc)) {
                set_traw(st, curr, tc | V619_TRANSIT);
                set_craw(m, cpu, tc | V619_TRANSIT);
            }
        }
        view_slot(st, m, cpu, curr);
    }
    m->mode = 0;
}

/* mm_cid_fixup_tasks_to_cpus(): every thread but the initiator gives up its own cid, at once
 * when not running, in transit when running; mode ONCPU. */
static void fixup_tasks_to_cpus(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t current)
{
    for (int32_t t = 0; t < st->hdr.nr_tasks; t++) {
        if (t == current || !st->tasks[t].active || sched_task_mm(sim, t) != m->mm)
            continue;
        if (!on_task(traw(st, t)))
            continue;
        if (running(sim, t))
            transit_to_cpu(st, m, t, sched_task_cpu(sim, t));
        else
            unset_cid_on_task(st, sim, m, t, sched_task_cpu(sim, t));
    }
    m->mode = (int32_t)V619_ONCPU;
}

/* ---- fork, exit, affinity (core.c, v6.19+) ---------------------------------------------- */

/* sched_mm_cid_fork() (from sched_post_fork(), before the child first runs). mm_cid.c has
 * found or created the mm's entry (mm_init_cid); current is the parent. */
void mm_cid_v619_fork(mm_cid_state *st, ks_sim *sim, int32_t parent, int32_t child)
{
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, child);
    mm_cid_task *t = &st->tasks[child];
    t->raw_cid = (int32_t)V619_UNSET;
    t->mm_cid = t->last_mm_cid = -1;
    if (!m)
        return;
    int same_mm = parent >= 0 && st->tasks[parent].active && sched_task_mm(sim, parent) == m->mm;
    int32_t cpu = parent >= 0 ? sched_task_cpu(sim, parent) : sched_task_cpu(sim, child);
    int first = m->mm_users == 0;
    t->active = 1;                                  /* sched_mm_cid_add_user() */
    m->mm_users++;
    int changed = update_max_cids(st, sim, m, child, cpu);
    if (first) {
        set_traw(st, child, get_cid(st, sim, m, child, cpu));
        set_craw(m, cpu, traw(st, child));          /* for execve(), says the kernel */
        return;
    }
    if (!changed) {
        if (!on_cpu((uint32_t)m->mode))
            set_traw(st, child, get_cid(st, sim, m, child, cpu));
        return;
    }
    int percpu = on_cpu((uint32_t)m->mode);
    if (same_mm) {
        if (percpu)
            transit_to_cpu(st, m, parent, cpu);
        else
            transit_to_task(st, m, parent, cpu);
    }
    if (percpu) {
        fixup_tasks_to_cpus(st, sim, m, same_mm ? parent : -1);
    } else {
        fixup_cpus_to_tasks(st, sim, m);
        set_traw(st, child, get_cid(st, sim, m, child, cpu));
    }
}

/* sched_mm_cid_remove_user(): 1 when the mode flips. */
static int remove_user(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t t, int32_t cpu)
{
    st->tasks[t].active = 0;
    set_traw(st, t, traw(st, t) & ~V619_TRANSIT);
    unset_cid_on_task(st, sim, m, t, cpu);
    m->mm_users--;
    return update_max_cids(st, sim, m, t, cpu);
}

/* sched_mm_cid_exit() (do_exit(), the thread running on its CPU). The caller frees the mm's
 * entry when mm_users reaches 0. */
void mm_cid_v619_exit(mm_cid_state *st, ks_sim *sim, int32_t task)
{
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (!m)
        return;
    int32_t cpu = sched_task_cpu(sim, task);
    st->tasks[task].mm_cid = st->tasks[task].last_mm_cid = -1;
    if (m->mm_users > 1) {
        if (!remove_user(st, sim, m, task, cpu) || on_cpu((uint32_t)m->mode))
            return;
        drop_cid_on_cpu(st, sim, m, cpu);
        fixup_cpus_to_tasks(st, sim, m);
        return;
    }
    transit_to_task(st, m, task, cpu);
    remove_user(st, sim, m, task, cpu);
}

/* mm_update_cpus_allowed() (core.c, v6.19+, from __do_set_cpus_allowed()): the union grows;
 * a wider one may send per-CPU mode back to per-task (mm_cid_work_fn, run at once here). */
void mm_cid_v619_set_cpus_allowed(mm_cid_state *st, ks_sim *sim, int32_t task)
{
    mm_cid_mm *m = mm_cid_mm_of_task(st, sim, task);
    if (!m || m->mm_users == 0)
        return;
    const cpumask *mask = sched_task_cpus_allowed(sim, task);
    for (int32_t w = 0; w < st->nwords; w++)
        m->cpus_allowed.bits[w] |= mask->bits[w];
    int32_t weight = cpumask_weight(&m->cpus_allowed, st->nwords);
    if (weight == m->nr_cpus_allowed)
        return;
    m->nr_cpus_allowed = weight;
    update_max_cids_value(st, m);
    if (!on_cpu((uint32_t)m->mode))
        return;
    m->pcpu_thrs = calc_pcpu_thrs(st, m);
    if (m->mm_users >= m->pcpu_thrs)
        return;
    if (update_max_cids(st, sim, m, task, sched_task_cpu(sim, task)) && !on_cpu((uint32_t)m->mode))
        fixup_cpus_to_tasks(st, sim, m);
}

/* ---- invariants ----------------------------------------------------------------------- */

static int32_t fail(char *why, int32_t len, const char *what, int32_t a, int32_t b)
{
    if (why && len > 0)
        snprintf(why, (size_t)len, "%s: %d / %d", what, a, b);
    return -1;
}

/* Outside a hook (mode changes are over): each cid in the cidmask has exactly one owner - a
 * thread that owns it (plain), a running thread holding it in transit, or a CPU (ONCPU) -,
 * owned cids are below nr_cpu_ids, the mode is 0 or ONCPU, and running threads of the mm
 * report distinct cids equal to their word's. In per-task mode no CPU owns one; in per-CPU
 * mode no thread owns one. */
int32_t mm_cid_v619_check(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m, char *why,
                          int32_t why_len)
{
    cpumask owned = { { 0 } }, reported_now = { { 0 } };
    uint32_t mode = (uint32_t)m->mode;
    if (mode != 0 && mode != V619_ONCPU)
        return fail(why, why_len, "v6.19: mode left in transit (mm/mode)", m->mm, (int32_t)mode);
    for (int32_t cpu = 0; cpu < st->nr_cpus; cpu++) {
        uint32_t c = craw(m, cpu);
        if (!on_cpu(c) || (c & V619_UNSET))
            continue;
        if (mode != V619_ONCPU)
            return fail(why, why_len, "v6.19: a CPU owns a cid in per-task mode (cpu/cid)", cpu,
                        (int32_t)plain(c));
        if ((int32_t)plain(c) >= st->nr_cpus || cpumask_test(&owned, (int32_t)plain(c)))
            return fail(why, why_len, "v6.19: CPU cid out of range or owned twice (cpu/cid)", cpu,
                        (int32_t)plain(c));
        cpumask_set(&owned, (int32_t)plain(c));
    }
    for (int32_t t = 0; t < st->hdr.nr_tasks; t++) {
        if (!st->tasks[t].active || sched_task_mm(sim, t) != m->mm)
            continue;
        uint32_t c = traw(st, t);
        int run = running(sim, t);
        if (run) {
            int32_t r = reported(c);
            if (r < 0 || st->tasks[t].mm_cid != r || cpumask_test(&reported_now, r))
                return fail(why, why_len, "v6.19: running thread's cid missing or shared (tid/cid)",
                            sched_task_tid(sim, t), st->tasks[t].mm_cid);
            cpumask_set(&reported_now, r);
        } else if (st->tasks[t].mm_cid != -1) {
            return fail(why, why_len, "v6.19: a thread not running reports a cid (tid/cid)",
                        sched_task_tid(sim, t), st->tasks[t].mm_cid);
        }
        if ((c & V619_UNSET) || on_cpu(c))
            continue;                       /* none, or a copy of a CPU's (counted there) */
        if (in_transit(c) && !run)
            return fail(why, why_len, "v6.19: cid in transit on a thread not running (tid/cid)",
                        sched_task_tid(sim, t), (int32_t)plain(c));
        if (!in_transit(c) && mode == V619_ONCPU)
            return fail(why, why_len, "v6.19: a thread owns a cid in per-CPU mode (tid/cid)",
                        sched_task_tid(sim, t), (int32_t)c);
        if ((int32_t)plain(c) >= st->nr_cpus || cpumask_test(&owned, (int32_t)plain(c)))
            return fail(why, why_len, "v6.19: thread cid out of range or owned twice (tid/cid)",
                        sched_task_tid(sim, t), (int32_t)plain(c));
        cpumask_set(&owned, (int32_t)plain(c));
    }
    for (int32_t w = 0; w < st->nwords; w++)
        if (m->cidmask.bits[w] != owned.bits[w])
            return fail(why, why_len, "v6.19: cidmask differs from the owned cids (mm/word)", m->mm, w);
    return 0;
}
