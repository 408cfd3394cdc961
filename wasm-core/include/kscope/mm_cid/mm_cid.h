/*
 * kscope/mm_cid/mm_cid.h: what the mm_cid lesson's views read from a simulation that
 * runs the RSEQ concurrency-ID allocator (algo "mm_cid:v6.12", "mm_cid:v6.13",
 * "mm_cid:v6.18"; "+no_recent_cid" / "+task_nr_cpus_allowed" after a 6.13+ variant
 * take one part of 7e019dc out, for teaching; see src/algo/mm_cid/mm_cid.c for the model
 * and its sources).
 *
 * The browser and the backend read all of it through the one generic export,
 * ks_sim_model_view_get (kscope/sim.h): the caller writes a ks_mm_cid_view_request
 * at the start of its buffer and gets the view's bytes back in the same buffer
 * (KS_MM_CID_VIEW_* below say which view and what it writes). The C functions
 * below are the same views for C callers (the native tests); they are not
 * exported from the shared library or the wasm module.
 *
 * Per process (named by its tgid) a view can read:
 *
 *     ks_mm_cid_mm_get       the per-mm scalars: mm_users, max_nr_cid,
 *                            nr_cpus_allowed, when the next scan is due...
 *     ks_mm_cid_mask_get     mm->cidmask or mm->cpus_allowed as bytes
 *                            (bit i of byte i / 8 is cid / CPU i)
 *     ks_mm_cid_pcpu_get     the per-mm/cpu table: one {cid, recent_cid,
 *                            time, lazy_put} row per CPU
 *
 * and, for every process, the allocation log: one ks_mm_cid_record per
 * decision the allocator took (which branch ran, for which task on which CPU,
 * and the values the branch compared), so the UI can narrate "CPU 3 still owned
 * cid 2 for this mm: kept it" or "the recent_cid hint 5 was free: took it".
 *
 * All of it is machine state or derived from it: stepping back (ks_sim_seek,
 * ks_sim_snapshot_restore) brings it back exactly, and the log shows exactly the
 * records logged up to the step sought.
 *
 * Every function answers KS_ERR_NOT_FOUND when the simulation does not run an
 * mm_cid algorithm or no process has that tgid.
 */
#ifndef KSCOPE_MM_CID_H
#define KSCOPE_MM_CID_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/sim.h"

/* Which upstream behaviour a run models (ks_mm_cid_mm.variant). */
typedef enum ks_mm_cid_variant {
    KS_MM_CID_V6_12 = 0,   /* before 7e019dc: lowest free cid, t->nr_cpus_allowed in migrate-to */
    KS_MM_CID_V6_13 = 1,   /* 7e019dc: recent_cid, max_nr_cid expansion, per-mm cpus_allowed */
    KS_MM_CID_V6_18 = 2,   /* 6.13 + 02d954c0 (v6.14): max_nr_cid shrinks with threads/affinity */
    KS_MM_CID_V6_19 = 3,   /* Gleixner's rework (v6.19 to 7.3): per-task / per-CPU ownership, no scan */
} ks_mm_cid_variant;

/* Per-mm scalars. Fields a kernel version does not have read -1 there. */
typedef struct ks_mm_cid_mm {
    int32_t tgid;
    int32_t mm;                /* the simulation's mm index */
    int32_t variant;           /* ks_mm_cid_variant */
    int32_t race;              /* 1: the run forces the remote-clear race ("+race") */
    int32_t nr_cpu_ids;        /* CPUs of the machine: the v6.12 cid bound */
    int32_t nr_cpus_allowed;   /* weight of mm->cpus_allowed (6.13+), else -1 */
    int32_t max_nr_cid;        /* mm->max_nr_cid (6.13+), else -1 */
    int32_t mm_users;          /* threads holding the mm */
    int32_t cidmask_weight;    /* cids allocated now */
    int32_t held_cids;         /* cids held by a remote clear in flight (the race) */
    uint64_t next_scan_ns;     /* mm->mm_cid_next_scan: no scan before this */
    uint64_t last_scan_ns;     /* when task_mm_cid_work last scanned (0: never) */
    uint64_t nr_scans;
} ks_mm_cid_mm;
_Static_assert(sizeof(ks_mm_cid_mm) == 64, "ks_mm_cid_mm: 10 x int32 + 3 x u64");

/* One row of the per-mm/cpu table (struct mm_cid). */
typedef struct ks_mm_cid_pcpu {
    int32_t cpu;
    int32_t cid;               /* the cid this CPU owns for the mm, -1 if none */
    int32_t recent_cid;        /* 6.13+: the last cid this CPU used for the mm, -1 if none */
    int32_t lazy_put;          /* 1: MM_CID_LAZY_PUT set (a remote clear wants it back) */
    int32_t running_tid;       /* the mm's task running there now, -1 */
    int32_t reserved;
    uint64_t time_ns;          /* mm_cid_snapshot_time: when the CPU last used the cid */
} ks_mm_cid_pcpu;
_Static_assert(sizeof(ks_mm_cid_pcpu) == 32, "ks_mm_cid_pcpu: 6 x int32 + u64");

/* Which branch of the allocator a record is about (ks_mm_cid_path_name names them). */
typedef enum ks_mm_cid_path {
    KS_MM_CID_KEEP_PCPU_CID = 0,    /* mm_cid_get: the CPU still owns a cid for the mm */
    KS_MM_CID_RECENT_CID,           /* __mm_cid_try_get (6.13+): the recent_cid hint was free */
    KS_MM_CID_EXPAND_MAX_NR_CID,    /* __mm_cid_try_get (6.13+): max_nr_cid grew by one */
    KS_MM_CID_FIRST_FREE,           /* __mm_cid_try_get: the lowest free cid below the bound */
    KS_MM_CID_PUT_LAZY,             /* mm_cid_put_lazy / mm_cid_get: a lazy-put cid released */
    KS_MM_CID_MIGRATE_TAKEN_FROM_SRC, /* sched_mm_cid_migrate_to: src CPU's cid moved to dst */
    KS_MM_CID_MIGRATE_SRC_DROPPED,  /* sched_mm_cid_migrate_to: dst had one; src's cid freed */
    KS_MM_CID_MIGRATE_KEPT_SRC,     /* sched_mm_cid_migrate_to: early return, src keeps its cid */
    KS_MM_CID_MIGRATE_SRC_IN_USE,   /* src CPU runs the mm: its cid stays there */
    KS_MM_CID_SCAN,                 /* task_mm_cid_work ran (from a tick) */
    KS_MM_CID_SCAN_DROPPED_OLD,     /* sched_mm_cid_remote_clear_old: unused for >= 100 ms */
    KS_MM_CID_COMPACT_DROPPED,      /* sched_mm_cid_remote_clear_weight: cid >= cidmask weight */
    KS_MM_CID_MARKED_LAZY,          /* a remote clear found the mm running there: LAZY_PUT set */
    KS_MM_CID_EXIT_PUT,             /* sched_mm_cid_exit_signals: the exiting CPU's cid freed */
    KS_MM_CID_REMOTE_CLEAR_HELD,    /* the race: slot unset, cid bit still held by the clearer */
    KS_MM_CID_REMOTE_CLEAR_DONE,    /* the race: the clearer released the held cid */
    KS_MM_CID_MAX_NR_CID_SHRUNK,    /* 6.18: max_nr_cid cut to min(nr_cpus_allowed, mm_users) */
    KS_MM_CID_KEEP_TASK_CID,        /* 6.19 mm_cid_from_task: the thread owns its cid, keeps it */
    KS_MM_CID_HANDOVER,             /* 6.19: a cid changed owner, thread <-> CPU (mode change) */
    KS_MM_CID_CONVERGE,             /* 6.19 mm_cid_converge: cid >= max_cids swapped for a lower one */
    KS_MM_CID_MODE_PER_CPU,         /* 6.19 mm_update_max_cids: users > max_cids: CPUs own cids */
    KS_MM_CID_MODE_PER_TASK,        /* 6.19 mm_update_max_cids: users < pcpu_thrs: threads own cids */
    KS_MM_CID_DROPPED,              /* 6.19: a cid went back to the pool (exit, mode fixup) */
    KS_MM_CID_PATH_COUNT
} ks_mm_cid_path;

/* ks_mm_cid_record.flags */
#define KS_MM_CID_F_WAITED 0x1        /* the allocation waited for an in-flight remote clear */
#define KS_MM_CID_F_OVER_ALLOWED 0x2  /* the cid is >= the mm's union of allowed CPUs' weight */
#define KS_MM_CID_F_TASK_ALLOWED 0x4  /* 6.13+ with "+task_nr_cpus_allowed": migrate-to's bound was
                                         the thread's own allowed CPUs (the test before 7e019dc) */

/* One decision. 64 bytes, fixed-width (one typed-array view in JS). */
typedef struct ks_mm_cid_record {
    uint64_t ts_ns;
    uint64_t age_ns;           /* SCAN_DROPPED_OLD: how long the slot had been unused */
    int32_t path;              /* ks_mm_cid_path */
    int32_t tgid;
    int32_t tid;               /* the task decided for (the scanning task for scans), -1 */
    int32_t cpu;               /* the CPU whose per-mm/cpu slot the decision is about */
    int32_t cid;               /* the cid taken, kept, moved or freed; -1 none */
    int32_t prev_cid;          /* the slot's cid before the decision, -1 unset */
    int32_t recent_cid;        /* the slot's recent_cid before the decision (6.13+), -1 */
    int32_t max_nr_cid;        /* mm->max_nr_cid after the decision (6.13+), -1 */
    int32_t bound;             /* the limit the branch compared with (see ks_mm_cid_path_help) */
    int32_t mm_users;
    int32_t other_cpu;         /* migrations: the source CPU; scans: the scanning CPU; -1 */
    int32_t flags;             /* KS_MM_CID_F_* */
} ks_mm_cid_record;
_Static_assert(sizeof(ks_mm_cid_record) == 64, "ks_mm_cid_record: 2 x u64 + 12 x int32");

int32_t ks_mm_cid_mm_get(const ks_sim *sim, int32_t tgid, ks_mm_cid_mm *out);

/* which: 0 = mm->cidmask (bit = cid), 1 = mm->cpus_allowed (bit = CPU; all zero on 6.12).
 * Writes (nr_cpu_ids + 7) / 8 bytes; KS_ERR_RANGE if len is smaller. */
#define KS_MM_CID_MASK_CIDMASK 0
#define KS_MM_CID_MASK_CPUS_ALLOWED 1
int32_t ks_mm_cid_mask_get(const ks_sim *sim, int32_t tgid, int32_t which, uint8_t *out,
                                  int32_t len);

/* Writes one row per CPU (nr_cpu_ids rows); KS_ERR_RANGE if n is smaller. */
int32_t ks_mm_cid_pcpu_get(const ks_sim *sim, int32_t tgid, ks_mm_cid_pcpu *out, int32_t n);

/* The allocation log of all processes, oldest first: records [0, count) have sequence
 * numbers first_seq .. first_seq + count - 1 (older ones were dropped to bound memory,
 * or precede a snapshot restored into a fresh simulation). Valid until the next call
 * that steps, seeks or restores sim. */
uint32_t ks_mm_cid_log_count(const ks_sim *sim);
uint64_t ks_mm_cid_log_first_seq(const ks_sim *sim);
const ks_mm_cid_record *ks_mm_cid_log_records(const ks_sim *sim);

/*
 * The lesson view: everything the mm_cid lesson draws for one process, refreshed by one
 * call per animation frame (the JS side reads it through typed arrays). One block:
 *
 *     ks_mm_cid_lesson   header: time, step, where the log / bursts / frame are, offsets
 *     cidmask            mask_bytes (mm->cidmask, as ks_mm_cid_mask_get), padded to 8
 *     cpus_allowed       mask_bytes (the 6.13+ union; zero on 6.12), padded to 8
 *     pcpu[nr_cpus]      ks_mm_cid_pcpu rows, as ks_mm_cid_pcpu_get
 *     areas[nr_cpus]     ks_mm_cid_area, by area index: where each per-index data area
 *                        of the process's intermittent threads ("<comm>.area[k]") is
 *
 * The addresses (log_records, bursts, frame) are the ones ks_mm_cid_log_records,
 * ks_sim_burst_costs and ks_sim_frame_get return, valid until the next call that steps,
 * seeks or restores sim. When no live mm has that tgid (not forked yet, or every thread
 * has exited) mm_status is KS_ERR_NOT_FOUND, mm, the masks and pcpu rows are zero / -1,
 * and the rest (frame, log, bursts, areas) is still filled.
 */

/* Where one data area's 64-byte lines are (ks_cache_line_places, summed up). */
typedef struct ks_mm_cid_area {
    int32_t index;             /* the area's index: the cid (or cpu_id) that selects it */
    int32_t object;            /* its cache object, -1 while no thread has touched it */
    int32_t lines;             /* its lines (256 for 16 KiB); 0 while untouched */
    int32_t llc;               /* the LLC holding most of its lines (cache or cores), -1: none */
    int32_t llc_lines;         /* how many lines llc holds */
    int32_t cold_lines;        /* lines no cache holds: the next touch reads DRAM */
    int32_t core;              /* the core holding most lines Exclusive/Modified, -1: none */
    int32_t core_lines;
} ks_mm_cid_area;
_Static_assert(sizeof(ks_mm_cid_area) == 32, "ks_mm_cid_area: 8 x int32");

typedef struct ks_mm_cid_lesson {
    uint64_t now_ns;
    uint64_t step;
    uint64_t log_first_seq;    /* ks_mm_cid_log_first_seq */
    uint64_t log_records;      /* address of ks_mm_cid_log_records() (a pointer, widened) */
    uint64_t bursts;           /* address of ks_sim_burst_costs() (0 if none yet) */
    uint64_t frame;            /* address of the ks_sim_frame this call refreshed */
    uint32_t log_count;        /* ks_mm_cid_log_count */
    uint32_t burst_count;      /* ks_sim_burst_count */
    int32_t mm_status;         /* KS_OK, or KS_ERR_NOT_FOUND: no live mm with that tgid */
    int32_t nr_cpus;           /* pcpu rows and area records that follow */
    int32_t mask_bytes;        /* (nr_cpus + 7) / 8 */
    uint32_t cidmask_off;      /* byte offsets from the start of the block */
    uint32_t cpus_allowed_off;
    uint32_t pcpu_off;
    uint32_t areas_off;
    uint32_t size;             /* bytes written (ks_mm_cid_lesson_size) */
    ks_mm_cid_mm mm;           /* as ks_mm_cid_mm_get; tgid -1 unless mm_status is KS_OK */
} ks_mm_cid_lesson;
_Static_assert(sizeof(ks_mm_cid_lesson) == 152, "ks_mm_cid_lesson: 6 x u64 + 10 x 32 + mm");

/* Bytes ks_mm_cid_lesson_get writes for this simulation (0 if it runs no mm_cid model). */
uint32_t ks_mm_cid_lesson_size(const ks_sim *sim);
/* Fills the lesson view of process tgid into out (8-byte aligned); KS_ERR_RANGE if len is
 * below ks_mm_cid_lesson_size, KS_ERR_NOT_FOUND if the simulation runs no mm_cid model. */
int32_t ks_mm_cid_lesson_get(ks_sim *sim, int32_t tgid, void *out, uint32_t len);

/* "KEEP_PCPU_CID", ... ; "?" if out of range. */
const char *ks_mm_cid_path_name(int32_t path);
/* One sentence: what the branch does and what `bound` holds for it. */
const char *ks_mm_cid_path_help(int32_t path);

/* ---- ks_sim_model_view_get: the request and what each view writes ---------------------- */

typedef struct ks_mm_cid_view_request {
    int32_t view;              /* KS_MM_CID_VIEW_* */
    int32_t tgid;              /* the process, for the per-process views */
    int32_t arg;               /* MASK: KS_MM_CID_MASK_*; PATH: a ks_mm_cid_path */
    int32_t reserved;
} ks_mm_cid_view_request;
_Static_assert(sizeof(ks_mm_cid_view_request) == 16, "ks_mm_cid_view_request: 4 x int32");

#define KS_MM_CID_VIEW_LESSON_SIZE 0  /* u32: ks_mm_cid_lesson_size */
#define KS_MM_CID_VIEW_LESSON 1       /* the lesson block of tgid (ks_mm_cid_lesson_get);
                                         len >= ks_mm_cid_lesson_size */
#define KS_MM_CID_VIEW_MM 2           /* ks_mm_cid_mm of tgid (ks_mm_cid_mm_get) */
#define KS_MM_CID_VIEW_MASK 3         /* (nr_cpu_ids + 7) / 8 bytes (ks_mm_cid_mask_get) */
#define KS_MM_CID_VIEW_PCPU 4         /* nr_cpu_ids ks_mm_cid_pcpu rows (ks_mm_cid_pcpu_get) */
#define KS_MM_CID_VIEW_LOG 5          /* ks_mm_cid_log_view */
#define KS_MM_CID_VIEW_PATH 6         /* "NAME\0help\0" of path arg (ks_mm_cid_path_name/_help) */

/* Where the allocation log is (ks_mm_cid_log_first_seq / _count / _records in one). */
typedef struct ks_mm_cid_log_view {
    uint64_t first_seq;
    uint64_t records;          /* address of the first record (a pointer, widened) */
    uint32_t count;
    uint32_t reserved;
} ks_mm_cid_log_view;
_Static_assert(sizeof(ks_mm_cid_log_view) == 24, "ks_mm_cid_log_view: 2 x u64 + 2 x u32");

#endif
