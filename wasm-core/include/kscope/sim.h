/*
 * kscope/sim.h: the simulated machine — a scheduler core over a topology and
 * a cache model, driven by a workload, stepped deterministically.
 *
 * One step = one event: ks_sim_step() produces exactly one ks_event (the same
 * records decoded real traces produce). Time and randomness are inputs: the
 * seeded RNG lives in the state, so the same (topology, workload, seed, algo)
 * gives the same event stream natively and in wasm.
 *
 * Algorithm models (src/algo/<name>/: concurrency ids, the RT priority map, SLUB per-CPU sheaf caches,
 * cache-aware balancing) plug into
 * the scheduler's hook points through a small ops table (src/sched/sched_ops.h),
 * selected by name in ks_sim_config.algo.
 *
 * Stepping back: ks_sim_seek() goes to any earlier step exactly (checkpoints +
 * replay inside the core), and ks_sim_snapshot_* save/restore the whole machine.
 */
#ifndef KSCOPE_SIM_H
#define KSCOPE_SIM_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/topology.h"
#include "kscope/cache.h"
#include "kscope/event.h"
#include "kscope/parse.h"

typedef struct ks_sim ks_sim;

/* Scheduling policies (the kernel's SCHED_* values). */
#define KS_SCHED_NORMAL 0
#define KS_SCHED_FIFO 1

/* Task states as the views show them. */
typedef enum ks_task_state {
    KS_TASK_RUNNING = 0,   /* on a CPU */
    KS_TASK_RUNNABLE,      /* on a runqueue, waiting */
    KS_TASK_SLEEPING,      /* blocked (timer, pipe, ...) */
    KS_TASK_DEAD,
} ks_task_state;

/* One CPU, as a view reads it. */
typedef struct ks_sim_cpu {
    int32_t cpu;
    int32_t curr_tid;      /* -1 when idle */
    int32_t nr_running;    /* including curr */
    int32_t rq_offset;     /* index of this CPU's first entry in ks_sim_frame.rq_tids */
    uint64_t busy_ns;      /* time spent running tasks since the start */
} ks_sim_cpu;
_Static_assert(sizeof(ks_sim_cpu) == 24, "ks_sim_cpu: 4 x int32 + u64");

/* One task, as a view reads it. */
typedef struct ks_sim_task {
    int32_t tid;
    int32_t tgid;          /* the process (mm) it belongs to */
    int32_t cpu;           /* CPU it runs or last ran on */
    int32_t state;         /* ks_task_state */
    int32_t policy;        /* KS_SCHED_* */
    int32_t prio;          /* kernel prio: 0..99 RT (lower is higher), 100..139 normal */
    int32_t nr_cpus_allowed;
    int32_t mm_cid;        /* rseq ABI field rseq->mm_cid: the plugged model's cid; -1 if none */
    uint64_t vruntime_ns;
    uint64_t sum_exec_ns;
    char comm[KS_COMM_LEN];
} ks_sim_task;
_Static_assert(sizeof(ks_sim_task) == 64, "ks_sim_task: 8 x int32 + 2 x u64 + comm");

/* The frame a view draws: one call (ks_sim_frame) refreshes it, typed arrays read it. */
typedef struct ks_sim_frame {
    uint64_t now_ns;
    uint64_t step;         /* events produced so far */
    int32_t nr_cpus;
    int32_t nr_tasks;
    int32_t nr_rq_tids;
    int32_t reserved;
    uint32_t cpus_off;     /* byte offsets from the frame's start */
    uint32_t tasks_off;
    uint32_t rq_tids_off;  /* int32 tids: each CPU's runnable tasks in pick order, curr excluded */
    uint32_t size;         /* total bytes */
} ks_sim_frame;
_Static_assert(sizeof(ks_sim_frame) == 48, "ks_sim_frame header: 48 bytes");

typedef struct ks_sim_config {
    uint64_t seed;
    const char *algo;           /* NULL/"none", "<model>:<variant>", or "auto": the registry's
                                 * model when a process registers rseq, else none (sim.c) */
    ks_cache_params cache;      /* eviction parameters (ks_cache_default_params) */
} ks_sim_config;

/* Builds a simulation of topo running the workload described by workload_json
 * (see src/sched/workload.c for the schema). On bad JSON or a bad field, returns
 * KS_ERR_PARSE with *err naming the line/column and field. The topology must
 * outlive the simulation. */
KS_API int32_t ks_sim_new(const ks_topology *topo, const char *workload_json, int32_t json_len,
                          const ks_sim_config *config, ks_sim **out, ks_parse_error *err);
KS_API void ks_sim_free(ks_sim *sim);

/* The algorithm the simulation runs, as ks_sim_config.algo names it, with "auto" resolved
 * ("<model>:<variant>" or "none"); valid while the simulation lives. */
KS_API const char *ks_sim_algo_name(const ks_sim *sim);

/* Produces the next event into *out; *produced = 0 when the workload has finished. */
KS_API int32_t ks_sim_step(ks_sim *sim, ks_event *out, int32_t *produced);

/* Stop conditions for ks_sim_run_until; a zero field is "no limit". The run stops
 * after the first event that meets any condition (time reached, type in type_mask,
 * tid matched) or after max_events. */
typedef struct ks_run_limit {
    uint64_t until_ns;
    uint32_t type_mask;         /* bit (1 << ks_event_type) */
    int32_t tid;                /* 0 = any */
    uint32_t max_events;
    uint32_t reserved;
} ks_run_limit;
_Static_assert(sizeof(ks_run_limit) == 24, "ks_run_limit: u64 + 4 x 32");

/* Runs until a limit; appends the events to log (may be NULL); *n = events produced. */
KS_API int32_t ks_sim_run_until(ks_sim *sim, const ks_run_limit *limit, ks_event_log *log,
                                uint32_t *n);

/* The same run, keeping only the last min(*n, tail_cap) events, oldest first, in the
 * caller's tail buffer: a playback frame is then this call + ks_sim_frame_get. */
KS_API int32_t ks_sim_run_until_tail(ks_sim *sim, const ks_run_limit *limit, ks_event *tail,
                                     uint32_t tail_cap, uint32_t *n);

/* Goes to step `step` exactly (backwards or forwards). */
KS_API int32_t ks_sim_seek(ks_sim *sim, uint64_t step);

/* Refreshes and returns the frame (valid until the next call on sim). */
KS_API const ks_sim_frame *ks_sim_frame_get(ks_sim *sim);

/* The cache model the simulation runs on (objects, line stats, places). */
KS_API ks_cache *ks_sim_cache(ks_sim *sim);

/* Summary statistics since the start. */
typedef struct ks_sim_stats {
    uint64_t now_ns;
    uint64_t events;
    uint64_t events_by_type[KS_EV_TYPE_COUNT];
    uint64_t access_ns;         /* total modelled memory-access time */
    uint64_t lines_from[KS_SRC_COUNT];
    uint64_t local_hitm;
    uint64_t remote_hitm;
} ks_sim_stats;
KS_API int32_t ks_sim_get_stats(const ks_sim *sim, ks_sim_stats *out);

/* One burst of an "intermittent" workload thread: a load+store sweep of one area
 * (the benchmark's unit of work, seed 000). Its modelled cost is the burst's runtime.
 * A warm-up (the workload's warmup_sweeps, before a thread's first measured burst) is
 * logged as one entry flagged KS_BURST_WARMUP, its cost the whole warm-up's. */
#define KS_BURST_WARMUP 1
typedef struct ks_burst_cost {
    uint64_t ts_ns;        /* when the burst started */
    int32_t tid;
    int32_t cpu;
    int32_t index;         /* area swept: the rseq cpu_id or mm_cid the thread read */
    int32_t flags;         /* KS_BURST_* */
    uint64_t cost_ns;      /* modelled cost of the sweep (of all the warm-up's sweeps) */
} ks_burst_cost;
_Static_assert(sizeof(ks_burst_cost) == 32, "ks_burst_cost: u64 + 4 x int32 + u64");

/* The bursts run so far (in start order) and their count; the array is valid until
 * the next call that steps, seeks or restores sim. */
KS_API uint32_t ks_sim_burst_count(const ks_sim *sim);
KS_API const ks_burst_cost *ks_sim_burst_costs(const ks_sim *sim);

/* The plugged model's own views, the one export every model shares: buf starts with the
 * request the model's decoder writes (its first int32 names the view; each model's
 * header, include/kscope/<model>.h, says what the rest of the request is and what
 * each view writes), and the view's bytes are written over it. KS_ERR_NOT_FOUND when the
 * model has no views (or the view names nothing), KS_ERR_RANGE when len is too small for
 * the request or the view, KS_ERR_INVALID_ARG for a NULL buffer. Pointers in a view are
 * valid until the next call that steps, seeks or restores sim. */
KS_API int32_t ks_sim_model_view_get(ks_sim *sim, void *buf, uint32_t len);

/* Whole-machine snapshot: size, save, restore (same workload and topology). */
KS_API uint32_t ks_sim_snapshot_size(const ks_sim *sim);
KS_API int32_t ks_sim_snapshot_save(const ks_sim *sim, void *buf, uint32_t len);
KS_API int32_t ks_sim_snapshot_restore(ks_sim *sim, const void *buf, uint32_t len);

#endif
