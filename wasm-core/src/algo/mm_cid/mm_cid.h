/*
 * Internal: the mm_cid model's state, shared by mm_cid.c (allocation, the
 * switch/fork/exit paths, snapshots), mm_cid_scan.c (migration, remote clear,
 * the periodic scan), mm_cid_log.c (the decision log, below the model and the
 * views), mm_cid_view.c (public views, invariants), mm_cid_lesson.c (the lesson
 * block) and mm_cid_conform.c (classifying disagreements with a real trace).
 * See the essay at the top of mm_cid.c.
 *
 * Layout: everything that changes lives in flat arrays indexed by dense ids,
 * so a snapshot is a few memcpys:
 *
 *     mm_cid_state
 *      ├─ config   variant, race, nr_cpus, strides        (fixed after init)
 *      ├─ saved    hdr {counts, log_seq}                   (snapshot)
 *      │           tasks[task]      {mm_cid, last_mm_cid, active}
 *      │           mm_map[mm]       -> pool entry, -1 before the mm exists
 *      │           pool[entry]      mm_cid_mm + pcpu[nr_cpus]
 *      └─ history  log[] of ks_mm_cid_record               (not saved: see mm_cid_log.c)
 */
#ifndef KSCOPE_ALGO_MM_CID_H
#define KSCOPE_ALGO_MM_CID_H

#include <stdint.h>

#include "kscope/mm_cid/mm_cid.h"
#include "../../sched/sched_ops.h"

#define MM_CID_UNSET (-1)

/* SCHED_MM_CID_PERIOD_NS: a CPU's cid unused this long is dropped by the next scan
 * (100 ms, kernel/sched/sched.h since v6.4). */
#define SCHED_MM_CID_PERIOD_NS 100000000ull
/* MM_CID_SCAN_DELAY: at most one scan per mm per 100 ms (the kernel counts jiffies). */
#define MM_CID_SCAN_DELAY_NS 100000000ull
/* The log keeps at most this many records (64 bytes each), dropping the oldest half. */
#define MM_CID_LOG_MAX (1u << 18)

/* struct mm_cid: one per mm and CPU. The kernel packs LAZY_PUT into bit 31 of cid. */
typedef struct mm_cid_pcpu {
    int32_t cid;                /* MM_CID_UNSET or the cid this CPU owns */
    int32_t lazy_put;           /* MM_CID_LAZY_PUT: a remote clear asked for it back */
    int32_t recent_cid;         /* 6.13+: last cid this CPU got (MM_CID_UNSET on 6.12) */
    int32_t raw_cid;            /* v6.19: mm_cid_pcpu::cid with its ONCPU / TRANSIT bits */
    uint64_t time;              /* mm_cid_snapshot_time: last use */
} mm_cid_pcpu;

/* The mm_struct fields of CONFIG_SCHED_MM_CID, plus view counters. */
typedef struct mm_cid_mm {
    int32_t in_use;
    int32_t mm;                 /* simulation mm index */
    int32_t tgid;
    int32_t mm_users;
    int32_t nr_cpus_allowed;    /* 6.13+: weight of cpus_allowed */
    int32_t max_nr_cid;         /* 6.13+; v6.19: mm_mm_cid::max_cids */
    int32_t mode;               /* v6.19: mm_mm_cid::mode (0, V619_ONCPU, | V619_TRANSIT) */
    int32_t pcpu_thrs;          /* v6.19: mm_mm_cid::pcpu_thrs (0: per-task mode wanted) */
    uint64_t next_scan;         /* mm_cid_next_scan (ns here, jiffies in the kernel) */
    uint64_t last_scan;
    uint64_t nr_scans;
    cpumask cidmask;            /* mm_cidmask(): bit c set = cid c allocated */
    cpumask cpus_allowed;       /* 6.13+ mm_cpus_allowed(): union of the threads' masks */
    cpumask held;               /* cids a remote clear took from their slot but not yet freed */
    mm_cid_pcpu pcpu[];         /* nr_cpus entries */
} mm_cid_mm;

/* Per task: the task_struct fields. */
typedef struct mm_cid_task {
    int32_t mm_cid;             /* t->mm_cid: the cid while running, -1 otherwise */
    int32_t last_mm_cid;        /* t->last_mm_cid: the cid it last ran with (migrate-from) */
    int32_t active;             /* t->mm_cid_active */
    int32_t raw_cid;            /* v6.19: t->mm_cid.cid with its ONCPU / TRANSIT / UNSET bits */
    int32_t work_queued;        /* t->cid_work queued by a tick (work->next != work), not run yet */
} mm_cid_task;

typedef struct mm_cid_hdr {
    int32_t nr_tasks;           /* task entries in use (highest task index seen + 1) */
    int32_t nr_mms;             /* mm_map entries in use */
    int32_t nr_pool;            /* pool entries in use (high-water mark) */
    int32_t reserved;
    uint64_t log_seq;           /* records logged so far */
} mm_cid_hdr;

typedef struct mm_cid_state {
    /* configuration */
    int32_t variant;            /* ks_mm_cid_variant */
    int32_t race;               /* "+race": every remote clear keeps its put in flight */
    int32_t no_recent_cid;      /* "+no_recent_cid" toggle: 6.13+ without the recent_cid hint */
    int32_t task_nr_cpus_allowed; /* "+task_nr_cpus_allowed" toggle: migrate-to's old test */
    int32_t nr_cpus, nwords;
    int32_t max_tasks, max_mms;
    uint32_t mm_stride;         /* bytes per pool entry */
    int32_t pool_cap;
    /* state */
    mm_cid_hdr hdr;
    mm_cid_task *tasks;
    int32_t *mm_map;
    uint8_t *pool;
    /* history */
    ks_mm_cid_record *log;
    uint32_t log_len, log_cap;
    uint64_t log_first_seq;
} mm_cid_state;

extern const ks_sched_ops mm_cid_ops;

/* ---- mm_cid.c ------------------------------------------------------------ */

mm_cid_mm *mm_cid_mm_of(mm_cid_state *st, int32_t mm);        /* NULL before the mm exists */
mm_cid_mm *mm_cid_mm_of_task(mm_cid_state *st, const ks_sim *sim, int32_t task);
int mm_cid_is_613(const mm_cid_state *st);                     /* 6.13 behaviour or later */
int mm_cid_keeps_recent_cid(const mm_cid_state *st);            /* 6.13+, no "+no_recent_cid" */
void __mm_cid_put(mm_cid_mm *m, int32_t cid);
/* Whether cpu's current task is an active task of mm m (the kernel's rq->curr test). */
int32_t mm_cid_curr_of_mm(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m,
                          int32_t cpu);
/* Frees the cids remote clears of m still hold (the end of the race window). */
void mm_cid_release_held(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t task);

/* ---- mm_cid_v619.c: the 6.19 ownership-mode rework (its own essay) ----------------------- */

/* mm_cid.c's hooks hand over to these when the variant is v6.19. */
void mm_cid_v619_fork(mm_cid_state *st, ks_sim *sim, int32_t parent, int32_t child);
void mm_cid_v619_exit(mm_cid_state *st, ks_sim *sim, int32_t task);
void mm_cid_v619_switch_to(mm_cid_state *st, ks_sim *sim, int32_t prev, int32_t next, int32_t cpu);
void mm_cid_v619_set_cpus_allowed(mm_cid_state *st, ks_sim *sim, int32_t task);
/* The invariants of one mm under v6.19 (mm_cid_check_invariants): 0 or -1 with a reason. */
int32_t mm_cid_v619_check(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m, char *why,
                          int32_t why_len);

/* ---- mm_cid_scan.c -------------------------------------------------------- */

void sched_mm_cid_migrate_to(mm_cid_state *st, ks_sim *sim, int32_t task, int32_t src_cpu,
                             int32_t dst_cpu);
/* r: a record prefilled with the path and why (SCAN_DROPPED_OLD, COMPACT_DROPPED). */
void sched_mm_cid_remote_clear(mm_cid_state *st, const ks_sim *sim, mm_cid_mm *m, int32_t cpu,
                               ks_mm_cid_record *r, int hold);
void task_tick_mm_cid(mm_cid_state *st, ks_sim *sim, int32_t cpu, int32_t curr);
/* The task_work_run hook: task_mm_cid_work, if a tick queued it, on task's return to user. */
void mm_cid_task_work_run(void *state, ks_sim *sim, int32_t task, int32_t cpu);

/* ---- mm_cid_log.c --------------------------------------------------------- */

/* A record prefilled from m and a slot; the caller sets path and what differs. */
ks_mm_cid_record mm_cid_record(const mm_cid_state *st, const ks_sim *sim, const mm_cid_mm *m,
                               int32_t path, int32_t task, int32_t cpu);
void mm_cid_log(mm_cid_state *st, const ks_mm_cid_record *r);
/* After a restore to log sequence number seq (the stored window stays if it covers seq). */
void mm_cid_log_truncate(mm_cid_state *st, uint64_t seq);

/* ---- mm_cid_view.c -------------------------------------------------------- */

/* The model's ks_sim_model_view_get (the view_get hook): kscope/mm_cid/mm_cid.h's views. */
int32_t mm_cid_view_get(void *state, ks_sim *sim, void *buf, uint32_t len);
/* 0 if the allocator's invariants hold for every mm; else -1 with a reason. */
int32_t mm_cid_check_invariants(const ks_sim *sim, char *why, int32_t why_len);

/* For tests: one remote clear of (mm of task, cpu) that stops inside the race window
 * (slot unset, cid still held), as a concurrent sched_mm_cid_remote_clear would. */
void mm_cid_remote_clear_hold(ks_sim *sim, int32_t task, int32_t cpu);

#endif
