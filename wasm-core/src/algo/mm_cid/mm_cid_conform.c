/*
 * Conformance of the mm_cid model with a real kernel (kscope/mm_cid/native/conform.h): the model's
 * classifier on the generic trace-replay host (src/sched/replay.c).
 *
 * The host replays the trace's scheduling events through mm_cid_ops (switches,
 * forks, migrations, exits, inferred affinity, gaps); this file is the client that
 * compares, at every rseq_update, the cid the model gives the task with the one the
 * kernel reported, and names the cause of each disagreement (kscope/mm_cid/native/conform.h lists
 * them). What the host assumes where the trace is silent is replay.c's essay; what
 * is particular to mm_cid:
 *   - the tick, and with it the 100 ms scan (task_tick_mm_cid queues
 *     task_mm_cid_work as task_work, TWA_RESUME, which runs at the task's next
 *     return to user space; each rseq_update is such a return, and the replay runs
 *     the queued work there, before comparing). Replaying kscope's simulator
 *     (SCAN_AT_TICK): the host's tick grid runs the model's tick hook, which
 *     queues the work; the simulator's rseq_update after that tick (or after the
 *     task's next switch-in, if the tick's balance preempted it) runs it. Replaying a
 *     kernel (SCAN_AT_RETURN): the real ticks' phase is unknown, so the grid is not
 *     used; the work runs where the trace shows it ran - an rseq_update with no
 *     switch-in or migration of its task since its last one was raised by
 *     task_work_add's TIF_NOTIFY_RESUME (or a signal), and resume_user_mode_work
 *     runs task_work just before rseq_handle_notify_resume records it. Not seen:
 *     a tick that found the task in the kernel just before it blocked or was
 *     preempted (its work runs at its next return, after a switch-in, and the
 *     rseq_update there looks like any other). Model and kernel both gate the scan on
 *     mm_cid_next_scan;
 *   - the age test of sched_mm_cid_remote_clear_old reads the remote CPU's
 *     rq->clock, which stands still while that CPU idles until something calls
 *     update_rq_clock for it. The host keeps one clock per CPU (src/sched/rq.c
 *     lists the kernel's update points) and moves it where the trace says the
 *     kernel did: the CPU's own switches, a sched_wakeup / wakeup_new enqueued on
 *     it (target_cpu), a migration onto it, a CPU going newly idle (the nohz
 *     blocked-load update of every idle CPU, at most every 32 ms), and the
 *     untraced ticks of CPUs the trace shows running a task (each tick's
 *     nohz_balancer_kick: taken one tick after nohz.next_blocked, or after the
 *     CPU's switch-in). Assumed where the trace cannot tell: nohz.has_blocked is
 *     set, every idle CPU has its tick stopped and is visited, the newly idle
 *     CPU's avg_idle is long enough. Measured on the real captures in traces/:
 *     with only the switches, wakeups and migrations moving the clocks (idle
 *     clocks frozen between them) the 16-vCPU 6.12 captures fall from 1.0 / 0.988
 *     / 0.663 to 0.515 / 0.424 / 0.527: the kernel's idle clocks do move. With the
 *     blocked-load update and the busy CPUs' tick kicks, the idle clocks the scans
 *     read lag the replay's time by 1-5 ms on average (at most 30 ms, in the
 *     pid-filtered capture, whose other tasks' switches are missing) and no scan
 *     decision on these captures differs from one aged by the replay's time;
 *   - affinity: the host's inferred pins matter for 6.12's migrate-to test,
 *     mm_users >= t->nr_cpus_allowed; mm->cpus_allowed (a union that never shrinks)
 *     is all CPUs;
 *   - kscope's kscope_mm_cid_get tracepoint, recorded from switch_mm_cid() inside
 *     context_switch(), names prev: the host's context-switch exception covers it;
 *   - a task without a tgid has no mm: its rseq_updates count as unknown_mm;
 *   - a scan that ran unseen (see the tick above) is not replayed, but a
 *     disagreement it explains is named (scan_not_visible): the mm's scan was
 *     due in the model and a thread of the mm returned to user space after a
 *     switch-in since then, where task_work queued by a tick before the thread
 *     blocked runs unseen (hidden_scan_at).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/mm_cid/native/conform.h"
#include "mm_cid.h"
#include "../../base/imap.h"
#include "../../sched/replay.h"
#include "../../sched/sim_internal.h"

#define CONFORM_NEAR_NS 100000000ull   /* a gap this close before a disagreement is named */

/* What the classifier knows of a task besides the host's. */
typedef struct conform_task {
    int32_t last_path;      /* the model's last allocation decision for it, -1 */
    int32_t last_cpu;       /* ... on this CPU */
    uint64_t last_ts;
    uint64_t slot_idle_ns;  /* at its last switch-in: how long its CPU's cid had been unused */
    int32_t prompted;       /* switched in or migrated since its last rseq_update */
    uint64_t scan_due_ret_ts; /* its last prompted rseq_update (a return to user space after a
                               switch-in) while its mm's scan was due in the model; 0 none */
} conform_task;

struct ks_conform {
    sched_replay *r;        /* the replay host (src/sched/replay.c) */
    ks_sim *host;           /* its ks_sim, for the accessors */
    mm_cid_state *st;
    conform_task *ctasks;
    imap rseq_tgid;         /* tgids with rseq_updates (value 1) */
    imap mm_disagreed;      /* mm -> 1: had a disagreement (later ones may cascade) */
    uint64_t *mm_disagree_ts;/* per mm: time of its last disagreement (0 none) */
    int32_t *mm_due_ret;    /* per mm: the task of its first scan_due_ret_ts since the scan
                               became due (-1 none) */
    int32_t *mm_due_n;      /* per mm: how many such returns since then */
    imap scan_drop;         /* mm * nr_cpus + cpu -> cid + 1 the model's scan dropped there,
                               unused < 100 ms + 1 tick (borderline) */
    imap compared_on;       /* task * nr_cpus + cpu -> 1: the task was compared on that CPU */
    uint64_t tick_ns;
    uint64_t switch_seq;    /* the log's sequence number when the current switch began */
    uint64_t tick_seq;      /* ... when the current tick hook began */
    ks_conform_summary sum;
    ks_conform_disagreement *kept;
    int32_t max_kept;
    int32_t resync;
    int32_t scan_at;        /* KS_CONFORM_SCAN_AT_* */
    int32_t real_ticks;     /* the trace's own ticks are replayed (ks_conform_set_ticks) */
};

/* ---- the host's callbacks ------------------------------------------------------------ */

static int32_t on_grow(void *ctx, int32_t max_tasks, int32_t max_mms, int32_t old_tasks,
                       int32_t old_mms)
{
    ks_conform *c = ctx;
    if (max_tasks > old_tasks) {
        conform_task *ct = realloc(c->ctasks, (size_t)max_tasks * sizeof *ct);
        if (!ct)
            return -1;
        c->ctasks = ct;
    }
    if (max_mms > old_mms) {
        uint64_t *dts = realloc(c->mm_disagree_ts, ((size_t)max_mms + 1) * sizeof *dts);
        if (!dts)
            return -1;
        c->mm_disagree_ts = dts;
        int32_t *due = realloc(c->mm_due_ret, ((size_t)max_mms + 1) * sizeof *due);
        if (!due)
            return -1;
        c->mm_due_ret = due;
        int32_t *dn = realloc(c->mm_due_n, ((size_t)max_mms + 1) * sizeof *dn);
        if (!dn)
            return -1;
        c->mm_due_n = dn;
        for (int32_t i = old_mms; i <= max_mms; i++) {
            dts[i] = 0;
            due[i] = -1;
            dn[i] = 0;
        }
    }
    return 0;
}

static void on_task_new(void *ctx, sched_replay *r, int32_t t)
{
    (void)r;
    ks_conform *c = ctx;
    c->ctasks[t] = (conform_task){ .last_path = -1, .last_cpu = -1 };
    c->sum.nr_tasks = replay_stats_get(r)->nr_tasks;
}

/* Whether task t belongs to an mm that has rseq_updates (so a gap there matters). */
static int task_in_rseq_mm(const ks_conform *c, int32_t t)
{
    return t >= 0 && c->host->tasks[t].tgid >= 0 && imap_get(&c->rseq_tgid, c->host->tasks[t].tgid, 0);
}

static void on_gap(void *ctx, sched_replay *r, int32_t believed, int32_t named, int32_t cpu)
{
    (void)r, (void)cpu;
    ks_conform *c = ctx;
    if (task_in_rseq_mm(c, believed) || task_in_rseq_mm(c, named))
        c->sum.gaps_mm++;
}

/* Notes the model's allocation decision for task t (the records logged since seq). */
static void note_decision(ks_conform *c, int32_t t, uint64_t seq)
{
    const mm_cid_state *st = c->st;
    int32_t tid = c->host->tasks[t].tid;
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

static void on_switch_begin(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu)
{
    (void)r, (void)prev, (void)next, (void)cpu;
    ks_conform *c = ctx;
    c->switch_seq = c->st->hdr.log_seq;
}

/* How long next's CPU slot had been unused, just before the model switches it in. */
static void on_switch_before(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu)
{
    (void)r, (void)prev;
    ks_conform *c = ctx;
    if (next < 0)
        return;
    ks_sim *h = c->host;
    mm_cid_mm *m = mm_cid_mm_of(c->st, h->tasks[next].mm);
    const mm_cid_pcpu *slot = m ? &m->pcpu[cpu] : NULL;
    c->ctasks[next].slot_idle_ns = slot && slot->cid != MM_CID_UNSET && h->core.now > slot->time
                                       ? h->core.now - slot->time : 0;
}

static void on_switch_end(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu)
{
    (void)r, (void)prev, (void)cpu;
    ks_conform *c = ctx;
    if (next >= 0) {
        c->ctasks[next].prompted = 1;       /* rseq_preempt / rseq_migrate */
        note_decision(c, next, c->switch_seq);
    }
}

static void on_migrated(void *ctx, sched_replay *r, int32_t t, int32_t from, int32_t to)
{
    (void)r, (void)from, (void)to;
    ((ks_conform *)ctx)->ctasks[t].prompted = 1;    /* rseq_migrate */
}

static void on_tick_before(void *ctx, sched_replay *r, int32_t cpu, int32_t curr)
{
    (void)r, (void)cpu, (void)curr;
    ks_conform *c = ctx;
    c->tick_seq = c->st->hdr.log_seq;
}

/* The model's records since seq (task_mm_cid_work run by curr's return to user space):
 * counts scans, notes borderline drops. */
static void note_scan_records(ks_conform *c, uint64_t seq, int32_t curr)
{
    ks_sim *h = c->host;
    const mm_cid_state *st = c->st;
    for (uint64_t s = seq; s < st->hdr.log_seq; s++) {
        if (s < st->log_first_seq || s >= st->log_first_seq + st->log_len)
            continue;
        const ks_mm_cid_record *rec = &st->log[s - st->log_first_seq];
        if (rec->path == KS_MM_CID_SCAN)
            c->sum.scans++;
        else if (rec->path == KS_MM_CID_SCAN_DROPPED_OLD && rec->cid >= 0 &&
                 rec->age_ns < SCHED_MM_CID_PERIOD_NS + c->tick_ns)
            /* a borderline drop: the kernel's scan, a tick off, may have kept it */
            imap_put(&c->scan_drop, h->tasks[curr].mm * h->nr_cpus + rec->cpu, rec->cid + 1);
    }
}

/* After task_tick_mm_cid for curr on cpu: it queues task_mm_cid_work, which runs at curr's
 * next return to user space (on_rseq); a model whose tick scanned at once is noted too. */
static void on_tick_after(void *ctx, sched_replay *r, int32_t cpu, int32_t curr)
{
    (void)r, (void)cpu;
    ks_conform *c = ctx;
    note_scan_records(c, c->tick_seq, curr);
}

/* ---- classification ------------------------------------------------------------------ */

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
    int32_t tgid = c->host->tasks[t].tgid;
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
    mm_cid_mm *m = mm_cid_mm_of(c->st, c->host->tasks[t].mm);
    uint64_t now = c->host->core.now;
    if (!m || kcid < 0)
        return 0;
    for (int32_t cpu = 0; cpu < c->st->nr_cpus; cpu++)
        if (m->pcpu[cpu].cid == kcid && mm_cid_curr_of_mm(c->st, c->host, m, cpu) < 0 &&
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
    int32_t mm = c->host->tasks[t].mm;
    mm_cid_mm *m = mm_cid_mm_of(c->st, mm);
    if (!m || mm < 0 || c->host->core.now < m->next_scan)
        return -1;
    int32_t cand = c->mm_due_ret[mm];
    if (cand < 0 || c->host->tasks[cand].mm != mm)
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
    const replay_task *rt = replay_task_info(c->r, t);
    const replay_cpu *cc = replay_cpu_info(c->r, ev->cpu);
    int32_t mm = c->host->tasks[t].mm;
    int near_cpu = cc->gap_ts && ev->ts_ns - cc->gap_ts <= CONFORM_NEAR_NS;
    int near_task = rt->gap_ts && ev->ts_ns - rt->gap_ts <= CONFORM_NEAR_NS;
    if (near_cpu || near_task)
        return KS_CONFORM_MISSING_EVENTS;
    int scans = c->st->variant != KS_MM_CID_V6_19;     /* 6.19 has no scan to miss */
    if (scans && ct->last_path == KS_MM_CID_KEEP_PCPU_CID &&
        ct->slot_idle_ns + c->tick_ns >= SCHED_MM_CID_PERIOD_NS)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (scans && is_allocation(ct->last_path) && drop_cid >= 0 && drop_cid == ev->u.rseq_update.mm_cid)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (scans && is_allocation(ct->last_path) && idle_holder(c, t, ev->u.rseq_update.mm_cid))
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (scans && hidden_scan_at(c, t) >= 0)
        return KS_CONFORM_SCAN_NOT_VISIBLE;
    if (same_time_change(c, t))
        return KS_CONFORM_SAME_TIME_ORDER;
    if (!replay_mm_born(c->r, mm) && first_on_cpu)
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
    ks_sim *h = c->host;
    const conform_task *ct = &c->ctasks[t];
    const replay_cpu *cc = replay_cpu_info(c->r, ev->cpu);
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
            WHY("events of this task missing before %.6f", (double)replay_task_info(c->r, t)->gap_ts / 1e9);
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
    ks_sim *h = c->host;
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
    int32_t t = replay_task_of_pid(c->r, ev->pid);
    if (t < 0 || c->host->tasks[t].mm < 0) {
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
    mm_cid_mm *mmp = mm_cid_mm_of(c->st, c->host->tasks[t].mm);
    /* noted after the comparison: a scan here runs after this cid was chosen */
    int due_ret = !unprompted && mmp && ev->ts_ns >= mmp->next_scan;
    if (unprompted) {
        c->sum.unprompted++;
        if (c->scan_at == KS_CONFORM_SCAN_AT_RETURN && !c->real_ticks &&
            c->host->rqs[ev->cpu].curr == t)
            replay_tick_return(c->r, ev->cpu, t);   /* the tick, then this return */
    }
    /* the return itself: the work a tick queued on t (the one just inferred, or one of the
     * tick grid's, possibly before t blocked or was preempted) runs before rseq's update */
    if (c->host->rqs[ev->cpu].curr == t) {
        uint64_t seq = c->st->hdr.log_seq;
        if (replay_return_to_user(c->r, ev->cpu, t))
            note_scan_records(c, seq, t);
    }
    compare_rseq(c, ev, t);
    if (due_ret) {
        int32_t mm = c->host->tasks[t].mm, first = c->mm_due_ret[mm];
        if (first < 0 || c->host->tasks[first].mm != mm ||
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
    int32_t model = mm_cid_ops.rseq_cid(c->st, c->host, t);
    c->sum.compared++;
    /* what the model's scan dropped here since the last comparison (consumed now) */
    int32_t mm = c->host->tasks[t].mm, nr = c->host->nr_cpus;
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

static void on_event(void *ctx, sched_replay *r, const ks_event *ev)
{
    (void)r;
    if (ev->type == KS_EV_RSEQ_UPDATE && ev->cpu >= 0)
        on_rseq(ctx, ev);
}

/* ---- API ----------------------------------------------------------------------------- */

void ks_conform_free(ks_conform *c)
{
    if (!c)
        return;
    replay_free(c->r);
    free(c->ctasks);
    free(c->kept);
    free(c->mm_disagree_ts);
    free(c->mm_due_ret);
    free(c->mm_due_n);
    imap_free(&c->rseq_tgid);
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
    c->max_kept = max_kept ? max_kept : 64;
    c->kept = calloc((size_t)c->max_kept, sizeof *c->kept);
    if (!c->kept) {
        ks_conform_free(c);
        return KS_ERR_NO_MEMORY;
    }
    const replay_client client = {
        .ctx = c, .grow = on_grow, .task_new = on_task_new, .switch_begin = on_switch_begin,
        .switch_before = on_switch_before, .switch_end = on_switch_end, .migrated = on_migrated,
        .tick_before = on_tick_before, .tick_after = on_tick_after, .gap = on_gap,
        .event = on_event,
    };
    int32_t status = replay_new(&mm_cid_ops, variant, nr_cpus, hz, &client, &c->r);
    if (status != KS_OK) {
        ks_conform_free(c);
        return status;
    }
    c->host = replay_host(c->r);
    c->st = replay_model(c->r);
    c->tick_ns = replay_tick_ns(c->r);
    c->sum.variant = c->st->variant;
    c->sum.nr_cpus = nr_cpus;
    c->sum.hz = replay_hz(c->r);
    *out = c;
    return KS_OK;
}

int32_t ks_conform_feed(ks_conform *c, const ks_event *evs, uint32_t n)
{
    if (!c)
        return KS_ERR_INVALID_ARG;
    return replay_feed(c->r, evs, n);
}

int32_t ks_conform_set_scan_at(ks_conform *c, int32_t when)
{
    if (!c || (when != KS_CONFORM_SCAN_AT_TICK && when != KS_CONFORM_SCAN_AT_RETURN))
        return KS_ERR_INVALID_ARG;
    c->scan_at = when;
    replay_set_tick_grid(c->r, when == KS_CONFORM_SCAN_AT_TICK);
    return KS_OK;
}

int32_t ks_conform_set_ticks(ks_conform *c, const uint64_t *ts_ns, const int32_t *cpu, uint32_t n)
{
    if (!c || (n && (!ts_ns || !cpu)))
        return KS_ERR_INVALID_ARG;
    for (uint32_t i = 1; i < n; i++)
        if (ts_ns[i] < ts_ns[i - 1])
            return KS_ERR_INVALID_ARG;
    if (replay_set_ticks(c->r, ts_ns, cpu, n))
        return KS_ERR_NO_MEMORY;
    c->real_ticks = n > 0;
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
    const replay_stats *rs = replay_stats_get(c->r);
    *out = c->sum;
    out->events = rs->events;
    out->gaps = rs->gaps;
    out->cold_starts = rs->cold_starts;
    out->missing_migrations = rs->missing_migrations;
    out->ticks = rs->ticks;
    out->bad_events = rs->bad_events;
    out->stopper_migrations = rs->stopper_migrations;
    out->nr_tasks = rs->nr_tasks;
    out->nr_mms = rs->nr_mms;
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
