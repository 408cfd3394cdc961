/*
 * kscope/mm_cid/native/conform.h: conformance of the mm_cid model with a real kernel.
 *
 * Replays a trace's scheduling events (ks_event records: a decoded real trace,
 * or a simulated run) through one variant of kscope's mm_cid model
 * ("mm_cid:v6.12|v6.13|v6.18", src/algo/mm_cid/mm_cid.c) and compares, at every
 * rseq:rseq_update, the cid the model gives the task with the cid the kernel
 * reported (the record's mm_cid).
 *
 *     ks_conform_new           a replay of one variant on nr_cpus CPUs, ticking at hz
 *     ks_conform_feed          events in trace order (may be called many times)
 *     ks_conform_result        the counts so far (ks_conform_summary)
 *     ks_conform_disagreement_get  the first disagreements kept, with why
 *     ks_conform_set_resync    adopt the kernel's cid after each disagreement
 *
 * How events drive the model (src/algo/mm_cid/mm_cid_conform.c has the details):
 *   sched_process_fork   task_fork (the child's tgid from the trace's TGID column)
 *   sched_switch         switch_to(prev, next, cpu)
 *   sched_migrate_task   migrate(task, orig_cpu, dest_cpu)
 *   sched_process_exit   task_exit
 *   (the tick)           not in traces: the model's task_tick_mm_cid (the 100 ms
 *                        scan) at modelled ticks, or where the trace shows the
 *                        task_work it queued ran (ks_conform_set_scan_at)
 *   rseq_update          compared: the model's t->mm_cid with the record's mm_cid
 * Tasks are named by pid, mms by tgid. A task whose tgid the trace never shows has
 * an unknown mm: the model does not track it and its rseq_updates count as unknown_mm.
 * Every event names the task current on its CPU; when that is not the task the
 * replay believes is current there, events are missing (lost in the ring buffer,
 * or filtered out): that is a gap, and the replay trusts the trace (switches the
 * believed task out, the named one in) and counts it.
 *
 * Each disagreement gets one cause (ks_conform_cause), the first that applies in
 * this order, and the summary counts them:
 *   MISSING_EVENTS      a gap on its CPU or of its task in the 100 ms before;
 *   SCAN_NOT_VISIBLE    the model's decision hinged on the periodic scan, which the
 *                       trace does not show (it runs from an untraced tick, as
 *                       task_work on a later return to user space): the model kept a
 *                       cid unused >= 100 ms - 1 tick that the kernel's scan could
 *                       have dropped, or the model allocated while a CPU slot unused
 *                       that long held the kernel's cid, or the model's scan had
 *                       dropped the very cid the kernel still had, unused for less than
 *                       100 ms + 1 tick (borderline: a scan a tick off decides otherwise);
 *   SAME_TIME_ORDER     another CPU changed this mm's cids (an exit's put, an
 *                       allocation, a migration) within 1 us before the decision:
 *                       ftrace text stamps microseconds, so which came first is unknown;
 *   STATE_BEFORE_TRACE  the task's mm existed before the trace (its cids then are
 *                       unknown) and this is the task's first comparison on that CPU;
 *   CASCADE             an earlier disagreement in the same mm (without resync the
 *                       model's cid state has diverged since);
 *   UNEXPLAINED         none of these: a difference between model and kernel.
 */
#ifndef KSCOPE_CONFORM_H
#define KSCOPE_CONFORM_H

#include <stdint.h>
#include "kscope/event.h"
#include "kscope/status.h"

typedef struct ks_conform ks_conform;

typedef enum ks_conform_cause {
    KS_CONFORM_UNEXPLAINED = 0,
    KS_CONFORM_MISSING_EVENTS,
    KS_CONFORM_SCAN_NOT_VISIBLE,
    KS_CONFORM_STATE_BEFORE_TRACE,
    KS_CONFORM_CASCADE,
    KS_CONFORM_SAME_TIME_ORDER,
    KS_CONFORM_CAUSE_COUNT
} ks_conform_cause;
#define KS_CONFORM_CAUSE_SLOTS 8   /* room in ks_conform_summary.causes */

/* Counts so far. Fixed-width (one typed-array view in JS, ctypes in Python). */
typedef struct ks_conform_summary {
    uint64_t events;            /* records fed */
    uint64_t rseq_updates;      /* rseq_update records */
    uint64_t compared;          /* rseq_updates compared: agree + disagree */
    uint64_t agree;
    uint64_t disagree;
    uint64_t unknown_mm;        /* rseq_updates of tasks whose tgid (mm) is unknown */
    uint64_t no_cid;            /* rseq_updates without an mm_cid field (before 6.3) */
    uint64_t gaps;              /* events naming another current task than the replay's */
    uint64_t gaps_mm;           /* ... of which involve a task of an mm with rseq_updates */
    uint64_t cold_starts;       /* a CPU's first event: its current task taken as switched in */
    uint64_t missing_migrations;/* a task switched in on another CPU than it was last on */
    uint64_t ticks;             /* scan hook runs: modelled ticks on a task of an mm (AT_TICK),
                                   or task_work seen in the trace (AT_RETURN) */
    uint64_t scans;             /* task_mm_cid_work scans those ran (at most 1 per mm per 100 ms) */
    int32_t variant;            /* ks_mm_cid_variant */
    int32_t nr_cpus;
    int32_t hz;
    int32_t nr_tasks;           /* tasks (pids) seen */
    int32_t nr_mms;             /* mms (tgids) seen */
    int32_t kept;               /* disagreements kept (ks_conform_disagreement) */
    uint64_t bad_events;        /* events on a CPU >= nr_cpus, or with time going back: skipped */
    uint64_t stopper_migrations;/* tasks moved by migration/N, inferred pinned there (see .c) */
    uint64_t resyncs;           /* disagreements after which the model took the kernel's cid */
    uint64_t causes[KS_CONFORM_CAUSE_SLOTS]; /* disagreements by ks_conform_cause */
    uint64_t unprompted;        /* rseq_updates with no switch-in/migration of the task before */
} ks_conform_summary;
_Static_assert(sizeof(ks_conform_summary) == 224, "ks_conform_summary: 13 x u64 + 6 x i32 + 12 x u64");

/* One disagreement. */
typedef struct ks_conform_disagreement {
    uint64_t ts_ns;
    int32_t tid;
    int32_t tgid;
    int32_t cpu;
    int32_t kernel_cid;
    int32_t model_cid;
    int32_t path;               /* ks_mm_cid_path of the model's last decision for the task, -1 */
    int32_t gap_near;           /* 1: a gap on this CPU or of this task in the 100 ms before */
    int32_t cause;              /* ks_conform_cause */
    char why[216];              /* NUL-terminated sentence */
} ks_conform_disagreement;
_Static_assert(sizeof(ks_conform_disagreement) == 256, "ks_conform_disagreement: 256 bytes");

/* variant: "v6.12" | "v6.13" | "v6.18" (as after "mm_cid:"); nr_cpus: the machine's CPUs
 * (1..1024); hz: ticks per second (CONFIG_HZ, 0 = 250); max_kept: disagreements to keep
 * (0 = 64). KS_ERR_NOT_FOUND for an unknown variant, KS_ERR_INVALID_ARG for bad numbers. */
KS_API int32_t ks_conform_new(const char *variant, int32_t nr_cpus, int32_t hz, int32_t max_kept,
                              ks_conform **out);
KS_API void ks_conform_free(ks_conform *conf);

/* on = 1: after each disagreement the model adopts the kernel's cid for that task (its
 * CPU's slot takes the kernel's cid), so agreement then counts decisions taken from the
 * kernel's state, not the model's diverged one. Off by default; set before feeding. */
KS_API int32_t ks_conform_set_resync(ks_conform *conf, int32_t on);

/* When the modelled periodic scan (task_mm_cid_work) runs. AT_TICK (the default): every
 * modelled tick (1/hz, from time 0) on each CPU running a task of an mm queues it, as
 * kscope's simulator does (replaying a simulated run), and it runs at that task's return
 * to user space: its rseq_update at the tick's time, or the tick's time itself when a later
 * event shows it was not preempted there, else after its next switch-in. AT_RETURN: as a kernel runs it, where the
 * trace shows it: the tick queues it as task_work (TWA_RESUME) on the running task, which
 * runs it on its next return to user space just before rseq_handle_notify_resume records
 * an rseq_update; with the trace's own ticks (ks_conform_set_ticks) each queues it on the task
 * current there; without them an rseq_update that follows no switch-in or migration of its
 * task was raised that way (or by a signal), so the work runs there (the model's own
 * mm_cid_next_scan test still decides whether it scans), and no scan is run from a guessed
 * tick. Set before feeding;
 * KS_ERR_INVALID_ARG for another value. */
#define KS_CONFORM_SCAN_AT_TICK 0
#define KS_CONFORM_SCAN_AT_RETURN 1
KS_API int32_t ks_conform_set_scan_at(ks_conform *conf, int32_t when);

/* The kernel's ticks, when the trace recorded them (timer:hrtimer_expire_entry of the tick
 * handler, tick_nohz_handler): n (time, CPU) pairs in time order. With them (AT_RETURN)
 * each tick runs task_tick_mm_cid for the task the replay has current on that CPU, and the
 * work it queues runs at that task's next rseq_update: right after the tick if the tick
 * found it in user space, after its next switch-in if it found it in the kernel on its way
 * to block or be preempted (what a trace without ticks cannot show). An rseq_update no
 * switch-in explains then infers no tick. Set before feeding; KS_ERR_NO_MEMORY. */
KS_API int32_t ks_conform_set_ticks(ks_conform *conf, const uint64_t *ts_ns, const int32_t *cpu,
                                    uint32_t n);

/* Replays n events (in time order; later calls continue the replay). */
KS_API int32_t ks_conform_feed(ks_conform *conf, const ks_event *evs, uint32_t n);

KS_API int32_t ks_conform_result(const ks_conform *conf, ks_conform_summary *out);

/* The i-th disagreement kept (0 <= i < summary.kept); KS_ERR_RANGE past the end. */
KS_API int32_t ks_conform_disagreement_get(const ks_conform *conf, int32_t i,
                                           ks_conform_disagreement *out);

/* "unexplained", "missing_events", "scan_not_visible", "state_before_trace", "cascade",
 * "same_time_order";
 * "?" out of range. */
KS_API const char *ks_conform_cause_name(int32_t cause);

#endif
