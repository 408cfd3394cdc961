/*
 * Conformance: replaying a real trace through the mm_cid model (kscope/conform.h).
 *
 * The design: a replay host, not the simulator. The model (mm_cid.c,
 * mm_cid_scan.c) reads the scheduler only through the accessors of
 * sched/sched_ops.h (sched_now, sched_cpu_curr, sched_task_mm, ...), which read
 * a struct ks_sim. The replay owns one such struct, zeroed, and fills only what
 * the accessors read: the clock (core.now), nr_cpus, the task table (tid, tgid,
 * mm, cpu, state, affinity) and each CPU's current task (rqs[].curr). No
 * workload, timers, runqueues or cache model exist; the simulator's own code
 * never runs on it. The model's hooks (mm_cid_ops) are then called as the
 * scheduler core calls them, in the order the trace's events say, so the model
 * code that runs is exactly the simulator's, unmodified.
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
 *     pin, it may run anywhere again. mm->cpus_allowed (a union that never
 *     shrinks) is therefore all CPUs; the pin matters for 6.12's migrate-to
 *     test, mm_users >= t->nr_cpus_allowed;
 *   - the tick, and with it the 100 ms scan (task_tick_mm_cid queues
 *     task_mm_cid_work as task_work, TWA_RESUME). Replaying kscope's simulator
 *     (SCAN_AT_TICK): on a grid of 1/hz from time 0 each CPU whose current task
 *     belongs to a known mm runs the model's tick hook, before the events
 *     stamped at that time, as the simulator does. Replaying a kernel
 *     (SCAN_AT_RETURN): the real ticks' phase is unknown, so the grid is not
 *     used; the work runs where the trace shows it ran - an rseq_update with no
 *     switch-in or migration of its task since its last one was raised by
 *     task_work_add's TIF_NOTIFY_RESUME (or a signal), and resume_user_mode_work
 *     runs task_work just before rseq_handle_notify_resume records it. Not seen:
 *     a tick that found the task in the kernel just before it blocked or was
 *     preempted (its work runs at its next return, after a switch-in, and the
 *     rseq_update there looks like any other). Model and kernel both gate the scan on
 *     mm_cid_next_scan. One kernel detail the model leaves out: the age test of
 *     sched_mm_cid_remote_clear_old reads the remote CPU's rq->clock, which
 *     stands still while that CPU idles until something updates it; the model
 *     uses the replay's time;
 *   - mm identity: the tgid. Traces without a TGID column get it from the
 *     capture header, sched_process_fork or the pid (backend/kscope/tgids.py);
 *     a task still without one is replayed without an mm (the model ignores
 *     it) and its rseq_updates count as unknown_mm;
 *   - missing events (gaps): every event names the task current on its CPU
 *     (pid column; sched_switch's prev_pid). When it is not the task the replay
 *     believes current, the replay switches the believed task out, switches the
 *     named task out of any other CPU it believed it on, applies the migration
 *     the trace missed (migrate hook) when the task last ran elsewhere, and
 *     switches it in: the kernel did all of that at some time the trace does
 *     not say; the replay does it at the event's time.
 *     One exception: __schedule() records sched_switch before context_switch(),
 *     and current becomes next only in switch_to(), so an event recorded inside
 *     context_switch() (kscope's kscope_mm_cid_get, from switch_mm_cid()) names
 *     prev. A non-scheduling (generic) event naming the task the CPU's last
 *     sched_switch switched out, before any other event there, is that and no gap;
 *   - a scan that ran unseen (see the tick above) is not replayed, but a
 *     disagreement it explains is named (scan_not_visible): the mm's scan was
 *     due in the model and a thread of the mm returned to user space after a
 *     switch-in since then, where task_work queued by a tick before the thread
 *     blocked runs unseen (hidden_scan_at).
 *
 * Tasks are dense indices into the host's table (pid -> index by a hash; a fork
 * of a pid seen before starts a new task: pid reuse). Tables grow by doubling:
 * the host's and the model's (st->tasks, st->mm_map) together.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/native/conform.h"
#include "mm_cid.h"
#include "../sched/sim_internal.h"

#define CONFORM_NEAR_NS 100000000ull   /* a gap this close before a disagreement is named */

/* ---- an int -> int hash (open addressing, linear probing) ------------------------- */

typedef struct imap {
    int32_t *keys;      /* key + 1; 0 = empty */
    int32_t *vals;
    uint32_t cap, len;
} imap;

static uint32_t imap_hash(int32_t k)
{
    uint32_t x = (uint32_t)k * 2654435761u;
    return x ^ (x >> 16);
}

static int32_t imap_get(const imap *m, int32_t key, int32_t dflt)
{
    if (!m->cap)
        return dflt;
    for (uint32_t i = imap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == 0)
            return dflt;
        if (m->keys[i] == key + 1)
            return m->vals[i];
    }
}

static int imap_put(imap *m, int32_t key, int32_t val);

static int imap_grow(imap *m)
{
    imap g = { .cap = m->cap ? m->cap * 2 : 64 };
    g.keys = calloc(g.cap, sizeof *g.keys);
    g.vals = calloc(g.cap, sizeof *g.vals);
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            imap_put(&g, m->keys[i] - 1, m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = g;
    return 0;
}

static int imap_put(imap *m, int32_t key, int32_t val)
{
    if ((m->len + 1) * 2 > m->cap && imap_grow(m))
        return -1;
    for (uint32_t i = imap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == 0) {
            m->keys[i] = key + 1;
            m->vals[i] = val;
            m->len++;
            return 0;
        }
        if (m->keys[i] == key + 1) {
            m->vals[i] = val;
            return 0;
        }
    }
}

static void imap_free(imap *m)
{
    free(m->keys);
    free(m->vals);
    *m = (imap){ 0 };
}

/* ---- the replay ------------------------------------------------------------------- */

/* What the replay knows of a task besides the host's sim_task. */
typedef struct conform_task {
    int32_t ran;            /* switched in at least once (migrations may move its cid) */
    int32_t forked;         /* created by a fork event in the trace */
    int32_t last_path;      /* the model's last allocation decision for it, -1 */
    int32_t last_cpu;       /* ... on this CPU */
    uint64_t last_ts;
    uint64_t gap_ts;        /* its last gap (0 none) */
    uint64_t slot_idle_ns;  /* at its last switch-in: how long its CPU's cid had been unused */
    int32_t prompted;       /* switched in, migrated or forked since its last rseq_update */
    uint64_t scan_due_ret_ts; /* its last prompted rseq_update (a return to user space after a
                               switch-in) while its mm's scan was due in the model; 0 none */
} conform_task;

typedef struct conform_cpu {
    int32_t known;          /* an event named its current task */
    int32_t gap_out;        /* the last gap: pid believed current (missing switch-out) */
    int32_t gap_in;         /* ... pid the trace named (missing switch-in) */
    int32_t ctx_prev;       /* prev_pid of the last sched_switch here while no other event
                               has followed it (inside context_switch()); -1 none */
    uint64_t gap_ts;
} conform_cpu;

struct ks_conform {
    ks_sim host;            /* the replay host: see the essay */
    mm_cid_state *st;
    conform_task *ctasks;
    conform_cpu *cpus;
    imap pid_task;          /* pid -> task index */
    imap pid_tgid;          /* pid -> tgid, learned from every record's TGID column */
    imap tgid_mm;           /* tgid -> mm index */
    imap rseq_tgid;         /* tgids with rseq_updates (value 1) */
    imap mm_born;           /* mm -> 1: created by a fork in the trace; 0: existed before it */
    imap mm_disagreed;      /* mm -> 1: had a disagreement (later ones may cascade) */
    uint64_t *mm_disagree_ts;/* per mm: time of its last disagreement (0 none) */
    int32_t *mm_due_ret;    /* per mm: the task of its first scan_due_ret_ts since the scan
                               became due (-1 none) */
    int32_t *mm_due_n;      /* per mm: how many such returns since then */
    imap scan_drop;         /* mm * nr_cpus + cpu -> cid + 1 the model's scan dropped there,
                               unused < 100 ms + 1 tick (borderline) */
    imap compared_on;       /* task * nr_cpus + cpu -> 1: the task was compared on that CPU */
    int32_t hz;
    uint64_t tick_ns, next_tick;
    uint64_t start_ns, last_ts;
    int32_t started;
    ks_conform_summary sum;
    ks_conform_disagreement *kept;
    int32_t max_kept;
    int32_t resync;
    int32_t scan_at;        /* KS_CONFORM_SCAN_AT_* */
};

/* Grows the host's and the model's task tables to hold at least need tasks. */
static int grow_tasks(ks_conform *c, int32_t need)
{
    ks_sim *h = &c->host;
    if (need <= h->max_tasks)
        return 0;
    int32_t cap = h->max_tasks;
    while (cap < need)
        cap *= 2;
    sim_task *t = realloc(h->tasks, (size_t)cap * sizeof *t);
    if (!t)
        return -1;
    h->tasks = t;
    conform_task *ct = realloc(c->ctasks, (size_t)cap * sizeof *ct);
    if (!ct)
        return -1;
    c->ctasks = ct;
    cpumask *masks = realloc(h->masks, ((size_t)cap + 1) * sizeof *masks);
    if (!masks)
        return -1;
    h->masks = masks;
    h->nr_masks = cap + 1;
    mm_cid_task *mt = realloc(c->st->tasks, ((size_t)cap + 1) * sizeof *mt);
    if (!mt)
        return -1;
    memset(mt + h->max_tasks + 1, 0, (size_t)(cap - h->max_tasks) * sizeof *mt);
    c->st->tasks = mt;
    h->max_tasks = c->st->max_tasks = cap;
    return 0;
}

static int grow_mms(ks_conform *c, int32_t need)
{
    ks_sim *h = &c->host;
    if (need <= h->max_mms)
        return 0;
    int32_t cap = h->max_mms;
    while (cap < need)
        cap *= 2;
    int32_t *map = realloc(c->st->mm_map, ((size_t)cap + 1) * sizeof *map);
    if (!map)
        return -1;
    for (int32_t i = h->max_mms; i <= cap; i++)
        map[i] = -1;
    c->st->mm_map = map;
    uint64_t *dts = realloc(c->mm_disagree_ts, ((size_t)cap + 1) * sizeof *dts);
    if (!dts)
        return -1;
    c->mm_disagree_ts = dts;
    int32_t *due = realloc(c->mm_due_ret, ((size_t)cap + 1) * sizeof *due);
    if (!due)
        return -1;
    c->mm_due_ret = due;
    int32_t *dn = realloc(c->mm_due_n, ((size_t)cap + 1) * sizeof *dn);
    if (!dn)
        return -1;
    c->mm_due_n = dn;
    for (int32_t i = h->max_mms; i <= cap; i++) {
        dts[i] = 0;
        due[i] = -1;
        dn[i] = 0;
    }
    h->max_mms = c->st->max_mms = cap;
    return 0;
}

/* The mm index of a tgid (a new one for a new tgid); -1 for an unknown tgid. */
static int32_t mm_of_tgid(ks_conform *c, int32_t tgid)
{
    if (tgid < 0)
        return -1;
    int32_t mm = imap_get(&c->tgid_mm, tgid, -1);
    if (mm >= 0)
        return mm;
    mm = (int32_t)c->tgid_mm.len;
    if (grow_mms(c, mm + 1) || imap_put(&c->tgid_mm, tgid, mm))
        return -1;
    c->sum.nr_mms = mm + 1;
    return mm;
}

/* Creates a task for pid (tgid from the trace, or -1) on cpu. -1 if out of memory. */
static int32_t new_task(ks_conform *c, int32_t pid, int32_t parent, int32_t cpu, const char *comm,
                        int forked)
{
    ks_sim *h = &c->host;
    int32_t t = h->core.nr_tasks;
    if (grow_tasks(c, t + 1) || imap_put(&c->pid_task, pid, t))
        return -1;
    h->core.nr_tasks++;
    int32_t tgid = imap_get(&c->pid_tgid, pid, -1);
    int32_t known_mms = (int32_t)c->tgid_mm.len;
    h->tasks[t] = (sim_task){ .tid = pid, .tgid = tgid, .mm = mm_of_tgid(c, tgid), .proc = -1,
                              .policy = KS_SCHED_NORMAL, .prio = SCHED_NORMAL_PRIO,
                              .state = KS_TASK_SLEEPING, .cpu = cpu, .mask = 0,
                              .nr_cpus_allowed = h->nr_cpus, .rq_next = -1, .rq_prev = -1,
                              .parent = parent };
    if (comm)
        memcpy(h->tasks[t].comm, comm, KS_COMM_LEN);
    if (h->tasks[t].mm >= 0 && (int32_t)c->tgid_mm.len > known_mms)   /* this task made the mm */
        imap_put(&c->mm_born, h->tasks[t].mm, forked);
    c->ctasks[t] = (conform_task){ .forked = forked, .last_path = -1, .last_cpu = -1 };
    c->sum.nr_tasks = h->core.nr_tasks;
    /* A task alive before the trace is created as at its start (the simulator's t=0). */
    uint64_t now = h->core.now;
    if (!forked)
        h->core.now = c->start_ns;
    mm_cid_ops.task_fork(c->st, h, parent, t);
    mm_cid_ops.set_cpus_allowed(c->st, h, t);
    h->core.now = now;
    return t;
}

/* The task of pid, created (as alive before the trace) if new; -1 for the idle task. */
static int32_t task_of(ks_conform *c, int32_t pid, int32_t cpu, const char *comm)
{
    if (pid <= 0)
        return -1;
    int32_t t = imap_get(&c->pid_task, pid, -1);
    return t >= 0 ? t : new_task(c, pid, -1, cpu, comm, 0);
}

/* Whether task t belongs to an mm that has rseq_updates (so a gap there matters). */
static int task_in_rseq_mm(const ks_conform *c, int32_t t)
{
    return t >= 0 && c->host.tasks[t].tgid >= 0 && imap_get(&c->rseq_tgid, c->host.tasks[t].tgid, 0);
}

/* Notes the model's allocation decision for task t (the records logged since seq). */
static void note_decision(ks_conform *c, int32_t t, uint64_t seq)
{
    const mm_cid_state *st = c->st;
    int32_t tid = c->host.tasks[t].tid;
    uint64_t end = st->log_first_seq + st->log_len;
    for (uint64_t s = end; s > seq && s > st->log_first_seq; s--) {
        const ks_mm_cid_record *r = &st->log[s - 1 - st->log_first_seq];
        if (r->tid != tid)
            continue;
        switch (r->path) {
        case KS_MM_CID_KEEP_PCPU_CID:
        case KS_MM_CID_RECENT_CID:
        case KS_MM_CID_EXPAND_MAX_NR_CID:
        case KS_MM_CID_FIRST_FREE:
        case KS_MM_CID_MIGRATE_TAKEN_FROM_SRC:
            c->ctasks[t].last_path = r->path;
            c->ctasks[t].last_cpu = r->cpu;
            c->ctasks[t].last_ts = r->ts_ns;
            return;
        default:
            break;
        }
    }
}

static void unpin_if_outside(ks_conform *c, int32_t t, int32_t cpu);

/* The model's context switch on cpu (prev or next may be -1), as context_switch(). */
static void do_switch(ks_conform *c, int32_t prev, int32_t next, int32_t cpu)
{
    ks_sim *h = &c->host;
    uint64_t seq = c->st->hdr.log_seq;
    if (prev >= 0 && h->tasks[prev].state != KS_TASK_DEAD)
        h->tasks[prev].state = KS_TASK_SLEEPING;
    if (next >= 0) {
        sim_task *n = &h->tasks[next];
        /* next is believed running elsewhere: its switch-out there is missing */
        if (n->state == KS_TASK_RUNNING && n->cpu != cpu && h->rqs[n->cpu].curr == next) {
            int32_t other = n->cpu;
            mm_cid_ops.switch_to(c->st, h, next, -1, other);
            h->rqs[other].curr = -1;
            c->cpus[other].known = 0;       /* the next event there tells who runs */
        }
        unpin_if_outside(c, next, cpu);
        if (n->cpu != cpu && c->ctasks[next].ran) {
            c->sum.missing_migrations++;    /* its migration is missing: set_task_cpu() */
            int32_t from = n->cpu;
            n->cpu = cpu;
            mm_cid_ops.migrate(c->st, h, next, from, cpu);
        }
        n->cpu = cpu;
    }
    if (next >= 0) {
        mm_cid_mm *m = mm_cid_mm_of(c->st, h->tasks[next].mm);
        const mm_cid_pcpu *slot = m ? &m->pcpu[cpu] : NULL;
        c->ctasks[next].slot_idle_ns = slot && slot->cid != MM_CID_UNSET && h->core.now > slot->time
                                           ? h->core.now - slot->time : 0;
    }
    mm_cid_ops.switch_to(c->st, h, prev, next, cpu);
    h->rqs[cpu].curr = next;
    if (next >= 0) {
        h->tasks[next].state = KS_TASK_RUNNING;
        c->ctasks[next].ran = 1;
        c->ctasks[next].prompted = 1;       /* rseq_preempt / rseq_migrate */
        note_decision(c, next, seq);
    }
}

/* Task t may run only on cpu from now on (sched_setaffinity: inferred, see below). */
static void pin_task(ks_conform *c, int32_t t, int32_t cpu)
{
    ks_sim *h = &c->host;
    cpumask *m = &h->masks[1 + t];
    memset(m, 0, sizeof *m);
    cpumask_set(m, cpu);
    h->tasks[t].mask = 1 + t;
    h->tasks[t].nr_cpus_allowed = 1;
    mm_cid_ops.set_cpus_allowed(c->st, h, t);
}

/* A task seen on a CPU outside its inferred mask: its affinity was widened again. */
static void unpin_if_outside(ks_conform *c, int32_t t, int32_t cpu)
{
    ks_sim *h = &c->host;
    if (h->tasks[t].mask == 0 || cpumask_test(&h->masks[h->tasks[t].mask], cpu))
        return;
    h->tasks[t].mask = 0;
    h->tasks[t].nr_cpus_allowed = h->nr_cpus;
    mm_cid_ops.set_cpus_allowed(c->st, h, t);
}

/* The migration stopper (migration/N) moved pid from src to dst: sched_setaffinity's
 * affine_move_task (or an active balance) while it ran. Traces filtered by pid lack the
 * sched_migrate_task (recorded with the stopper current). The replay infers a pin to dst
 * (the common case: a thread pinning itself), then migrates as move_queued_task does. */
static void stopper_migration(ks_conform *c, int32_t pid, int32_t src, int32_t dst)
{
    ks_sim *h = &c->host;
    int32_t t = imap_get(&c->pid_task, pid, -1);
    if (t < 0 || h->tasks[t].state == KS_TASK_DEAD || h->tasks[t].cpu != src)
        return;
    c->sum.stopper_migrations++;
    pin_task(c, t, dst);
    h->tasks[t].cpu = dst;
    mm_cid_ops.migrate(c->st, h, t, src, dst);
}

/* Every record names the task current on its CPU: reconcile the replay's belief. */
static void reconcile(ks_conform *c, const ks_event *ev, int32_t pid)
{
    ks_sim *h = &c->host;
    int32_t cpu = ev->cpu;
    conform_cpu *cc = &c->cpus[cpu];
    /* recorded inside context_switch(), before switch_to() made next current (see the essay) */
    if (ev->type == KS_EV_GENERIC && cc->known && pid == cc->ctx_prev)
        return;
    cc->ctx_prev = -1;
    int32_t named = task_of(c, pid, cpu, pid == ev->pid ? ev->comm : NULL);
    int32_t believed = h->rqs[cpu].curr;
    if (cc->known && believed == named)
        return;
    if (!cc->known) {
        cc->known = 1;
        c->sum.cold_starts++;
        if (believed != named)
            do_switch(c, believed, named, cpu);
        return;
    }
    c->sum.gaps++;
    if (task_in_rseq_mm(c, believed) || task_in_rseq_mm(c, named))
        c->sum.gaps_mm++;
    cc->gap_out = believed >= 0 ? h->tasks[believed].tid : 0;
    cc->gap_in = pid;
    cc->gap_ts = ev->ts_ns;
    if (believed >= 0)
        c->ctasks[believed].gap_ts = ev->ts_ns;
    if (named >= 0)
        c->ctasks[named].gap_ts = ev->ts_ns;
    do_switch(c, believed, named, cpu);
}

/* task_tick_mm_cid / task_mm_cid_work for task curr on cpu at the replay's current time
 * (the model checks mm->mm_cid_next_scan itself); counts scans, notes borderline drops. */
static void run_scan_hook(ks_conform *c, int32_t cpu, int32_t curr)
{
    ks_sim *h = &c->host;
    uint64_t seq = c->st->hdr.log_seq;
    mm_cid_ops.tick(c->st, h, cpu, curr);
    const mm_cid_state *st = c->st;
    for (uint64_t s = seq; s < st->hdr.log_seq; s++) {
        if (s < st->log_first_seq || s >= st->log_first_seq + st->log_len)
            continue;
        const ks_mm_cid_record *r = &st->log[s - st->log_first_seq];
        if (r->path == KS_MM_CID_SCAN)
            c->sum.scans++;
        else if (r->path == KS_MM_CID_SCAN_DROPPED_OLD && r->cid >= 0 &&
                 r->age_ns < SCHED_MM_CID_PERIOD_NS + c->tick_ns)
            /* a borderline drop: the kernel's scan, a tick off, may have kept it */
            imap_put(&c->scan_drop, h->tasks[curr].mm * h->nr_cpus + r->cpu, r->cid + 1);
    }
}

/* AT_TICK (replaying kscope's simulator): the ticks of the 1/hz grid up to and including
 * ts, each running the scan hook on every CPU whose current task has an mm, as the
 * simulator does. AT_RETURN (a real kernel) does not use the grid: the kernel's ticks
 * have a phase the trace does not give, and a grid tick landing in a short run the real
 * tick missed would scan where the kernel did not. The scan runs where the trace shows
 * that task_work ran instead (on_rseq). */
static void run_ticks(ks_conform *c, uint64_t ts)
{
    ks_sim *h = &c->host;
    if (c->scan_at != KS_CONFORM_SCAN_AT_TICK)
        return;
    while (c->next_tick <= ts) {
        int any = 0;
        for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++) {
            int32_t curr = h->rqs[cpu].curr;
            if (curr < 0 || !c->st->tasks[curr].active || h->tasks[curr].mm < 0)
                continue;
            if (!any) {
                h->core.now = c->next_tick;
                any = 1;
            }
            c->sum.ticks++;
            run_scan_hook(c, cpu, curr);
        }
        if (!any)   /* no task of an mm runs anywhere: skip to the tick after ts */
            c->next_tick = (ts / c->tick_ns) * c->tick_ns;
        c->next_tick += c->tick_ns;
    }
}

static const char *const cause_names[KS_CONFORM_CAUSE_COUNT] = {
    "unexplained", "missing_events", "scan_not_visible", "state_before_trace", "cascade",
    "same_time_order",
};

#define CONFORM_RESOLUTION_NS 1000ull  /* ftrace text prints microseconds */

/* Whether the model logged a change to this mm's cids on another CPU within the trace's
 * timestamp resolution before the task's last decision (the log is in time order). */
static int same_time_change(const ks_conform *c, int32_t t)
{
    const conform_task *ct = &c->ctasks[t];
    const mm_cid_state *st = c->st;
    int32_t tgid = c->host.tasks[t].tgid;
    if (ct->last_path < 0)
        return 0;
    for (uint32_t i = st->log_len, n = 0; i > 0 && n < 256; i--, n++) {
        const ks_mm_cid_record *r = &st->log[i - 1];
        if (r->ts_ns + CONFORM_RESOLUTION_NS < ct->last_ts)
            break;
        if (r->tgid != tgid || r->cpu == ct->last_cpu || r->cpu < 0 || r->ts_ns > ct->last_ts)
            continue;
        switch (r->path) {
        case KS_MM_CID_EXIT_PUT:
        case KS_MM_CID_PUT_LAZY:
        case KS_MM_CID_FIRST_FREE:
        case KS_MM_CID_RECENT_CID:
        case KS_MM_CID_EXPAND_MAX_NR_CID:
        case KS_MM_CID_MIGRATE_TAKEN_FROM_SRC:
        case KS_MM_CID_MIGRATE_SRC_DROPPED:
            return 1;
        default:
            break;
        }
    }
    return 0;
}

const char *ks_conform_cause_name(int32_t cause)
{
    return cause >= 0 && cause < KS_CONFORM_CAUSE_COUNT ? cause_names[cause] : "?";
}

static int is_allocation(int32_t path)
{
    return path == KS_MM_CID_FIRST_FREE || path == KS_MM_CID_RECENT_CID ||
           path == KS_MM_CID_EXPAND_MAX_NR_CID;
}

/* Whether the kernel's cid kcid is, in the model, held by a CPU slot of t's mm unused for
 * >= 100 ms - 1 tick: a scan the trace did not show would have freed it for t. */
static int idle_holder(const ks_conform *c, int32_t t, int32_t kcid)
{
    mm_cid_mm *m = mm_cid_mm_of(c->st, c->host.tasks[t].mm);
    uint64_t now = c->host.core.now;
    if (!m || kcid < 0)
        return 0;
    for (int32_t cpu = 0; cpu < c->st->nr_cpus; cpu++)
        if (m->pcpu[cpu].cid == kcid && mm_cid_curr_of_mm(c->st, &c->host, m, cpu) < 0 &&
            now + c->tick_ns >= m->pcpu[cpu].time + SCHED_MM_CID_PERIOD_NS)
            return 1;
    return 0;
}

/* The first return to user space where the kernel's scan may have run unseen before t's
 * disagreement, or -1: the mm's scan is due in the model (task_mm_cid_work has not run
 * since mm_cid_next_scan passed), the mm has not disagreed since, and since then a
 * thread of the mm returned to user space after a switch-in (a prompted rseq_update).
 * task_tick_mm_cid() queues task_mm_cid_work on the thread a tick finds running once the
 * scan is due; when that thread blocks before going back to user space, the work runs at
 * its next return (resume_user_mode_work: task_work_run, then rseq_handle_notify_resume),
 * which follows its next switch-in and looks like any other. Returns the task index. */
static int32_t hidden_scan_at(const ks_conform *c, int32_t t)
{
    int32_t mm = c->host.tasks[t].mm;
    mm_cid_mm *m = mm_cid_mm_of(c->st, mm);
    if (!m || mm < 0 || c->host.core.now < m->next_scan)
        return -1;
    int32_t cand = c->mm_due_ret[mm];
    if (cand < 0 || c->host.tasks[cand].mm != mm)
        return -1;
    uint64_t ts = c->ctasks[cand].scan_due_ret_ts;
    if (!ts || ts < m->next_scan || c->mm_disagree_ts[mm] >= m->next_scan)
        return -1;
    return cand;
}

/* The first cause that applies (conform.h lists them, in this order). drop_cid: the cid the
 * model's scan dropped from this CPU's slot since the last comparison there (-1 none). */
static int32_t classify(const ks_conform *c, const ks_event *ev, int32_t t, int32_t drop_cid,
                        int first_on_cpu)
{
    const conform_task *ct = &c->ctasks[t];
    const conform_cpu *cc = &c->cpus[ev->cpu];
    int32_t mm = c->host.tasks[t].mm;
    int near_cpu = cc->gap_ts && ev->ts_ns - cc->gap_ts <= CONFORM_NEAR_NS;
    int near_task = ct->gap_ts && ev->ts_ns - ct->gap_ts <= CONFORM_NEAR_NS;
    if (near_cpu || near_task)
        return KS_CONFORM_MISSING_EVENTS;
    if (ct->last_path == KS_MM_CID_KEEP_PCPU_CID &&
        ct->slot_idle_ns + c->tick_ns >= SCHED_MM_CID_PERIOD_NS)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (is_allocation(ct->last_path) && drop_cid >= 0 && drop_cid == ev->u.rseq_update.mm_cid)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (is_allocation(ct->last_path) && idle_holder(c, t, ev->u.rseq_update.mm_cid))
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (hidden_scan_at(c, t) >= 0)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (same_time_change(c, t))
        return KS_CONFORM_SAME_TIME_ORDER;
    if (!imap_get(&c->mm_born, mm, 0) && first_on_cpu)
        return KS_CONFORM_STATE_BEFORE_TRACE;
    if (imap_get(&c->mm_disagreed, mm, 0))
        return KS_CONFORM_CASCADE;
    return KS_CONFORM_UNEXPLAINED;
}

static void keep_disagreement(ks_conform *c, const ks_event *ev, int32_t t, int32_t model_cid,
                              int32_t cause)
{
    if (c->sum.kept >= c->max_kept)
        return;
    ks_sim *h = &c->host;
    const conform_task *ct = &c->ctasks[t];
    const conform_cpu *cc = &c->cpus[ev->cpu];
    ks_conform_disagreement *d = &c->kept[c->sum.kept++];
    int32_t kcid = ev->u.rseq_update.mm_cid;
    int near_cpu = cc->gap_ts && ev->ts_ns - cc->gap_ts <= CONFORM_NEAR_NS;
    *d = (ks_conform_disagreement){ .ts_ns = ev->ts_ns, .tid = h->tasks[t].tid,
                                    .tgid = h->tasks[t].tgid, .cpu = ev->cpu,
                                    .kernel_cid = kcid, .model_cid = model_cid,
                                    .path = ct->last_path, .cause = cause,
                                    .gap_near = cause == KS_CONFORM_MISSING_EVENTS };
    char *w = d->why;
    size_t left = sizeof d->why;
    int n;
#define WHY(...)                                                         \
    do {                                                                 \
        n = snprintf(w, left, __VA_ARGS__);                              \
        if (n > 0 && (size_t)n < left) { w += n; left -= (size_t)n; }    \
        else left = 1;                                                   \
    } while (0)
    /* first the cause, in plain words */
    switch (cause) {
    case KS_CONFORM_MISSING_EVENTS:
        if (near_cpu && cc->gap_out > 0)
            WHY("trace lacks pid %d's switch-out on CPU %d before %.6f", cc->gap_out, ev->cpu,
                (double)cc->gap_ts / 1e9);
        else if (near_cpu)
            WHY("trace lacks pid %d's switch-in on CPU %d before %.6f", cc->gap_in, ev->cpu,
                (double)cc->gap_ts / 1e9);
        else
            WHY("events of this task missing before %.6f", (double)ct->gap_ts / 1e9);
        break;
    case KS_CONFORM_SCAN_NOT_VISIBLE:
        if (!(ct->last_path == KS_MM_CID_KEEP_PCPU_CID &&
              ct->slot_idle_ns + c->tick_ns >= SCHED_MM_CID_PERIOD_NS) &&
            !(is_allocation(ct->last_path) && idle_holder(c, t, kcid)) && hidden_scan_at(c, t) >= 0) {
            int32_t at = hidden_scan_at(c, t);
            WHY("scan due since %.6f may have run unseen at a return to user after a switch-in "
                "(%d since, first pid %d at %.6f)",
                (double)mm_cid_mm_of(c->st, h->tasks[t].mm)->next_scan / 1e9,
                c->mm_due_n[h->tasks[t].mm], h->tasks[at].tid,
                (double)c->ctasks[at].scan_due_ret_ts / 1e9);
        } else if (ct->last_path == KS_MM_CID_KEEP_PCPU_CID)
            WHY("model kept a cid unused %.0f ms; the kernel's 100 ms scan (untraced tick) had "
                "dropped it", (double)ct->slot_idle_ns / 1e6);
        else
            WHY("model's scan had dropped cid %d here; the kernel's (untraced tick) had not yet", kcid);
        break;
    case KS_CONFORM_STATE_BEFORE_TRACE:
        WHY("process existed before the trace: its cids then are unknown");
        break;
    case KS_CONFORM_CASCADE:
        WHY("follows an earlier disagreement in this process");
        break;
    case KS_CONFORM_SAME_TIME_ORDER:
        WHY("another CPU changed this process's cids in the same microsecond: the trace cannot "
            "order them");
        break;
    default:
        WHY("unexplained");
        break;
    }
    if (ct->last_path >= 0)
        WHY("; model %s %d on CPU %d at %.6f, kernel %d", ks_mm_cid_path_name(ct->last_path),
            model_cid, ct->last_cpu, (double)ct->last_ts / 1e9, kcid);
    else
        WHY("; model %d (no allocation seen), kernel %d", model_cid, kcid);
    mm_cid_mm *m = mm_cid_mm_of(c->st, h->tasks[t].mm);
    if (m && kcid >= 0 && kcid < c->st->nr_cpus) {
        int32_t owner = -1;
        for (int32_t cpu = 0; cpu < c->st->nr_cpus; cpu++)
            if (m->pcpu[cpu].cid == kcid)
                owner = cpu;
        if (owner >= 0)
            WHY("; in the model %d is CPU %d's", kcid, owner);
        else if (!cpumask_test(&m->cidmask, kcid))
            WHY("; in the model %d is free", kcid);
    }
#undef WHY
}

/* Resync (ks_conform_set_resync): after a disagreement the model adopts the kernel's cid
 * for the running task t on cpu, so later comparisons test each decision from the
 * kernel's state rather than the model's diverged one. The cid the kernel named moves to
 * this CPU's slot: from another slot (which gets this slot's cid instead: a swap), from
 * a remote clear's hold, or from the free pool (this slot's cid is freed). */
static void resync(ks_conform *c, int32_t t, int32_t cpu, int32_t kcid)
{
    ks_sim *h = &c->host;
    mm_cid_state *st = c->st;
    mm_cid_mm *m = mm_cid_mm_of(st, h->tasks[t].mm);
    if (!m || kcid < 0 || kcid >= st->nr_cpus || h->rqs[cpu].curr != t)
        return;
    mm_cid_pcpu *slot = &m->pcpu[cpu];
    int32_t mine = slot->cid, owner = -1;
    for (int32_t x = 0; x < st->nr_cpus; x++)
        if (x != cpu && m->pcpu[x].cid == kcid)
            owner = x;
    if (owner >= 0) {
        int32_t ot = mm_cid_curr_of_mm(st, h, m, owner);
        if (mine == MM_CID_UNSET && ot >= 0)
            return;                     /* both would run with kcid: leave the model as is */
        m->pcpu[owner].cid = mine;
        if (mine == MM_CID_UNSET)
            m->pcpu[owner].lazy_put = 0;
        if (ot >= 0)
            st->tasks[ot].mm_cid = st->tasks[ot].last_mm_cid = mine;
    } else {
        if (cpumask_test(&m->held, kcid))
            cpumask_clear_cpu(&m->held, kcid);
        else
            cpumask_set(&m->cidmask, kcid);
        if (mine != MM_CID_UNSET)
            __mm_cid_put(m, mine);
    }
    slot->cid = kcid;
    slot->lazy_put = 0;
    slot->time = h->core.now;
    if (mm_cid_is_613(st)) {
        slot->recent_cid = kcid;
        int32_t grown = kcid + 1 < m->nr_cpus_allowed ? kcid + 1 : m->nr_cpus_allowed;
        if (m->max_nr_cid < grown)
            m->max_nr_cid = grown;
    }
    st->tasks[t].mm_cid = st->tasks[t].last_mm_cid = kcid;
    c->sum.resyncs++;
}

static void compare_rseq(ks_conform *c, const ks_event *ev, int32_t t);

static void on_rseq(ks_conform *c, const ks_event *ev)
{
    c->sum.rseq_updates++;
    if (ev->tgid >= 0)
        imap_put(&c->rseq_tgid, ev->tgid, 1);
    int32_t t = imap_get(&c->pid_task, ev->pid, -1);
    if (t < 0 || c->host.tasks[t].mm < 0) {
        c->sum.unknown_mm++;
        return;
    }
    /* Return to user space (resume_user_mode_work): task_work first, then
     * rseq_handle_notify_resume, which records this event. An rseq_update with no
     * switch-in or migration of its task since its last one was raised by task_work_add's
     * TIF_NOTIFY_RESUME (or a signal): a tick hit the task while it ran and queued
     * task_mm_cid_work if the mm's scan was due (task_tick_mm_cid); it runs here, just
     * before this event. (A tick that also preempted the task leaves no such mark: its
     * work runs unseen at the task's next return.) */
    conform_task *ct = &c->ctasks[t];
    int unprompted = !ct->prompted;
    ct->prompted = 0;
    mm_cid_mm *mmp = mm_cid_mm_of(c->st, c->host.tasks[t].mm);
    /* noted after the comparison: a scan here runs after this cid was chosen */
    int due_ret = !unprompted && mmp && ev->ts_ns >= mmp->next_scan;
    if (unprompted) {
        c->sum.unprompted++;
        if (c->scan_at == KS_CONFORM_SCAN_AT_RETURN && c->host.rqs[ev->cpu].curr == t) {
            c->sum.ticks++;
            run_scan_hook(c, ev->cpu, t);
        }
    }
    compare_rseq(c, ev, t);
    if (due_ret) {
        int32_t mm = c->host.tasks[t].mm, first = c->mm_due_ret[mm];
        if (first < 0 || c->host.tasks[first].mm != mm ||
            c->ctasks[first].scan_due_ret_ts < mmp->next_scan) {   /* the first since due */
            ct->scan_due_ret_ts = ev->ts_ns;
            c->mm_due_ret[mm] = t;
            c->mm_due_n[mm] = 0;
        }
        c->mm_due_n[mm]++;
    }
}

/* Compares the kernel's cid in rseq_update ev with the model's for task t. */
static void compare_rseq(ks_conform *c, const ks_event *ev, int32_t t)
{
    if (ev->u.rseq_update.mm_cid < 0) {
        c->sum.no_cid++;
        return;
    }
    int32_t model = mm_cid_ops.mm_cid(c->st, &c->host, t);
    c->sum.compared++;
    /* what the model's scan dropped here since the last comparison (consumed now) */
    int32_t mm = c->host.tasks[t].mm, nr = c->host.nr_cpus;
    int32_t drop_cid = imap_get(&c->scan_drop, mm * nr + ev->cpu, 0) - 1;
    if (drop_cid >= 0)
        imap_put(&c->scan_drop, mm * nr + ev->cpu, 0);
    int first_on_cpu = !imap_get(&c->compared_on, t * nr + ev->cpu, 0);
    if (first_on_cpu)
        imap_put(&c->compared_on, t * nr + ev->cpu, 1);
    if (model == ev->u.rseq_update.mm_cid) {
        c->sum.agree++;
        return;
    }
    c->sum.disagree++;
    int32_t cause = classify(c, ev, t, drop_cid, first_on_cpu);
    c->sum.causes[cause]++;
    keep_disagreement(c, ev, t, model, cause);
    imap_put(&c->mm_disagreed, mm, 1);
    c->mm_disagree_ts[mm] = ev->ts_ns;
    if (c->resync)
        resync(c, t, ev->cpu, ev->u.rseq_update.mm_cid);
}

static void on_event(ks_conform *c, const ks_event *ev)
{
    ks_sim *h = &c->host;
    c->sum.events++;
    if (ev->cpu < 0 || ev->cpu >= h->nr_cpus || (c->started && ev->ts_ns < c->last_ts)) {
        c->sum.bad_events++;
        return;
    }
    if (!c->started) {
        c->started = 1;
        c->start_ns = ev->ts_ns;
        c->next_tick = (ev->ts_ns / c->tick_ns + 1) * c->tick_ns;
    }
    c->last_ts = ev->ts_ns;
    run_ticks(c, ev->ts_ns);
    h->core.now = ev->ts_ns;
    int32_t cpu = ev->cpu;
    switch (ev->type) {
    case KS_EV_SCHED_SWITCH: {
        const ks_ev_sched_switch *s = &ev->u.sched_switch;
        reconcile(c, ev, s->prev_pid);
        int32_t prev = h->rqs[cpu].curr;
        int32_t next = task_of(c, s->next_pid, cpu, s->next_comm);
        if (prev != next)
            do_switch(c, prev, next, cpu);
        c->cpus[cpu].ctx_prev = s->prev_pid;
        break;
    }
    case KS_EV_SCHED_PROCESS_FORK: {
        reconcile(c, ev, ev->pid);
        const ks_ev_sched_process_fork *f = &ev->u.sched_process_fork;
        int32_t parent = task_of(c, f->parent_pid, cpu, f->parent_comm);
        new_task(c, f->child_pid, parent, cpu, f->child_comm, 1);
        break;
    }
    case KS_EV_SCHED_MIGRATE_TASK: {
        reconcile(c, ev, ev->pid);
        const ks_ev_sched_migrate_task *m = &ev->u.sched_migrate_task;
        if (m->orig_cpu < 0 || m->orig_cpu >= h->nr_cpus || m->dest_cpu < 0 ||
            m->dest_cpu >= h->nr_cpus)
            break;
        int32_t t = task_of(c, m->pid, m->orig_cpu, m->comm);
        if (t < 0)
            break;
        /* moved by the stopper (migration/N current): taken as pinned at dest, as when the
         * trace lacks the move (stopper_migration) */
        if (strncmp(ev->comm, "migration/", 10) == 0 && m->orig_cpu != m->dest_cpu) {
            c->sum.stopper_migrations++;
            pin_task(c, t, m->dest_cpu);
        }
        h->tasks[t].cpu = m->dest_cpu;
        c->ctasks[t].prompted = 1;          /* rseq_migrate */
        mm_cid_ops.migrate(c->st, h, t, m->orig_cpu, m->dest_cpu);
        break;
    }
    case KS_EV_SCHED_PROCESS_EXIT: {
        reconcile(c, ev, ev->pid);
        int32_t t = imap_get(&c->pid_task, ev->u.sched_process_exit.pid, -1);
        if (t < 0 || h->tasks[t].state == KS_TASK_DEAD)
            break;
        h->tasks[t].cpu = cpu;
        mm_cid_ops.task_exit(c->st, h, t);
        h->tasks[t].state = KS_TASK_DEAD;
        break;
    }
    case KS_EV_RSEQ_UPDATE:
        reconcile(c, ev, ev->pid);
        on_rseq(c, ev);
        break;
    default:
        reconcile(c, ev, ev->pid);
        break;
    }
}

/* ---- API ----------------------------------------------------------------------------- */

void ks_conform_free(ks_conform *c)
{
    if (!c)
        return;
    if (c->st)
        mm_cid_ops.release(c->st);
    free(c->host.tasks);
    free(c->host.rqs);
    free(c->host.masks);
    free(c->ctasks);
    free(c->cpus);
    free(c->kept);
    free(c->mm_disagree_ts);
    free(c->mm_due_ret);
    free(c->mm_due_n);
    imap_free(&c->pid_task);
    imap_free(&c->pid_tgid);
    imap_free(&c->tgid_mm);
    imap_free(&c->rseq_tgid);
    imap_free(&c->mm_born);
    imap_free(&c->mm_disagreed);
    imap_free(&c->scan_drop);
    imap_free(&c->compared_on);
    free(c);
}

int32_t ks_conform_new(const char *variant, int32_t nr_cpus, int32_t hz, int32_t max_kept,
                       ks_conform **out)
{
    if (!variant || !out || nr_cpus < 1 || nr_cpus > CPUMASK_MAX_CPUS || hz < 0 || hz > 10000 ||
        max_kept < 0)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    if (strchr(variant, '+'))
        return KS_ERR_NOT_FOUND;            /* "+race" is a simulation device, not a kernel */
    ks_conform *c = calloc(1, sizeof *c);
    if (!c)
        return KS_ERR_NO_MEMORY;
    c->hz = hz ? hz : 250;
    c->tick_ns = 1000000000ull / (uint64_t)c->hz;
    c->max_kept = max_kept ? max_kept : 64;
    ks_sim *h = &c->host;
    h->nr_cpus = nr_cpus;
    h->nwords = cpumask_words(nr_cpus);
    h->max_tasks = 64;
    h->max_mms = 16;
    h->ops = &mm_cid_ops;
    h->tasks = calloc((size_t)h->max_tasks, sizeof *h->tasks);
    h->rqs = calloc((size_t)nr_cpus, sizeof *h->rqs);
    h->masks = calloc((size_t)h->max_tasks + 1, sizeof *h->masks);
    h->nr_masks = h->max_tasks + 1;
    c->ctasks = calloc((size_t)h->max_tasks, sizeof *c->ctasks);
    c->cpus = calloc((size_t)nr_cpus, sizeof *c->cpus);
    c->kept = calloc((size_t)c->max_kept, sizeof *c->kept);
    c->mm_disagree_ts = calloc((size_t)h->max_mms + 1, sizeof *c->mm_disagree_ts);
    c->mm_due_ret = malloc(((size_t)h->max_mms + 1) * sizeof *c->mm_due_ret);
    c->mm_due_n = calloc((size_t)h->max_mms + 1, sizeof *c->mm_due_n);
    if (c->mm_due_ret)
        for (int32_t i = 0; i <= h->max_mms; i++)
            c->mm_due_ret[i] = -1;
    if (!h->tasks || !h->rqs || !h->masks || !c->ctasks || !c->cpus || !c->kept ||
        !c->mm_disagree_ts || !c->mm_due_ret || !c->mm_due_n) {
        ks_conform_free(c);
        return KS_ERR_NO_MEMORY;
    }
    for (int32_t cpu = 0; cpu < nr_cpus; cpu++) {
        h->rqs[cpu] = (sim_rq){ .curr = -1, .head = -1, .tail = -1 };
        c->cpus[cpu].ctx_prev = -1;
        cpumask_set(&h->masks[0], cpu);
    }
    void *state = NULL;
    int32_t status = mm_cid_ops.init(h, variant, &state);
    if (status != KS_OK) {
        ks_conform_free(c);
        return status;
    }
    c->st = state;
    h->algo = state;
    c->sum.variant = c->st->variant;
    c->sum.nr_cpus = nr_cpus;
    c->sum.hz = c->hz;
    *out = c;
    return KS_OK;
}

int32_t ks_conform_feed(ks_conform *c, const ks_event *evs, uint32_t n)
{
    if (!c || (!evs && n))
        return KS_ERR_INVALID_ARG;
    /* Learn every pid's tgid first: a task is often switched in (as next_pid) before
     * any record of its own shows its TGID column. */
    for (uint32_t i = 0; i < n; i++)
        if (evs[i].pid > 0 && evs[i].tgid >= 0 && imap_get(&c->pid_tgid, evs[i].pid, -1) < 0) {
            if (imap_put(&c->pid_tgid, evs[i].pid, evs[i].tgid))
                return KS_ERR_NO_MEMORY;
            /* a task created earlier without its tgid gets it now */
            int32_t t = imap_get(&c->pid_task, evs[i].pid, -1);
            if (t >= 0 && c->host.tasks[t].tgid < 0 && c->host.tasks[t].state != KS_TASK_DEAD &&
                !c->st->tasks[t].active) {
                c->host.tasks[t].tgid = evs[i].tgid;
                c->host.tasks[t].mm = mm_of_tgid(c, evs[i].tgid);
                uint64_t now = c->host.core.now;
                c->host.core.now = c->start_ns;
                mm_cid_ops.task_fork(c->st, &c->host, -1, t);
                mm_cid_ops.set_cpus_allowed(c->st, &c->host, t);
                c->host.core.now = now;
                /* running already (fed in an earlier call): it takes its cid now */
                int32_t cpu = c->host.tasks[t].cpu;
                if (c->host.tasks[t].state == KS_TASK_RUNNING && c->host.rqs[cpu].curr == t)
                    mm_cid_ops.switch_to(c->st, &c->host, -1, t, cpu);
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
        on_event(c, &evs[i]);
        /* the stopper runs at once: the move follows its switch-in */
        if (act[3 * i] >= 0 && evs[i].ts_ns >= c->last_ts)
            stopper_migration(c, act[3 * i], act[3 * i + 1], act[3 * i + 2]);
    }
    free(act);
    return KS_OK;
}

int32_t ks_conform_set_scan_at(ks_conform *c, int32_t when)
{
    if (!c || (when != KS_CONFORM_SCAN_AT_TICK && when != KS_CONFORM_SCAN_AT_RETURN))
        return KS_ERR_INVALID_ARG;
    c->scan_at = when;
    return KS_OK;
}

int32_t ks_conform_set_resync(ks_conform *c, int32_t on)
{
    if (!c)
        return KS_ERR_INVALID_ARG;
    c->resync = on != 0;
    return KS_OK;
}

int32_t ks_conform_result(const ks_conform *c, ks_conform_summary *out)
{
    if (!c || !out)
        return KS_ERR_INVALID_ARG;
    *out = c->sum;
    return KS_OK;
}

int32_t ks_conform_disagreement_get(const ks_conform *c, int32_t i, ks_conform_disagreement *out)
{
    if (!c || !out)
        return KS_ERR_INVALID_ARG;
    if (i < 0 || i >= c->sum.kept)
        return KS_ERR_RANGE;
    *out = c->kept[i];
    return KS_OK;
}
