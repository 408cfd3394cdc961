/*
 * Internal: the hook points algorithm models plug into, like the kernel's
 * struct sched_class — plus the read-only view of the scheduler they may use.
 *
 * The scheduler core (core.c) calls these hooks where the kernel calls the
 * corresponding code, so a model can follow upstream closely. For the mm_cid
 * family (Linux 6.12 / 6.13, src/algo/mm_cid.c):
 *
 *     hook               kernel call site                      mm_cid model
 *     ----------------   -----------------------------------   ------------------------------
 *     task_fork          sched_fork() / copy_process()         sched_mm_cid_fork, mm_init_cid
 *                        (parent -1: a task that exists at t=0) (mm_users++ when mm is shared)
 *     task_exit          do_exit()                             sched_mm_cid_exit_signals
 *     switch_to          context_switch() -> switch_mm_cid()   mm_cid_put_lazy(prev),
 *                                                              mm_cid_snapshot_time,
 *                                                              mm_cid_get(next)
 *     migrate            activate_task(ENQUEUE_MIGRATED)       sched_mm_cid_migrate_to (from the
 *                        after set_task_cpu()                  migrate_from CPU)
 *     set_cpus_allowed   __do_set_cpus_allowed()               mm_set_cpus_allowed (6.13)
 *     tick               sched_tick() -> task_tick_mm_cid()    task_mm_cid_work scan (every
 *                        (on CPUs running a task)              MM_CID_SCAN_DELAY; run in place)
 *     mm_cid             t->mm_cid, read by rseq on return     the cid reported in rseq_update
 *                        to user space                         and used by index_by "mm_cid"
 *
 * Other families use select_cpu (override wakeup placement: cache-aware
 * scheduling) and balance (replace the periodic balance of one CPU).
 *
 * Every hook is optional (NULL = nothing to do). Tasks and CPUs are dense
 * indices: task 0..sched_max_tasks()-1 (tid = sched_task_tid()), CPU
 * 0..sched_nr_cpus()-1, mm 0..sched_max_mms()-1 (one per process). `prev` or
 * `next` is -1 for the idle task. The algorithm's state is one opaque block
 * it allocates in init; snapshots copy it through the three snapshot hooks, so
 * it must hold no pointers into itself that a byte copy would break, and all
 * randomness must come from the state (there is no global state anywhere).
 */
#ifndef KSCOPE_SCHED_SCHED_OPS_H
#define KSCOPE_SCHED_SCHED_OPS_H

#include <stdint.h>

#include "kscope/cache.h"
#include "kscope/sim.h"
#include "kscope/topology.h"
#include "../base/cpumask.h"

/* wake_flags for select_cpu, as the kernel's WF_* */
#define SCHED_WF_TTWU 0x08      /* a wakeup */
#define SCHED_WF_FORK 0x04      /* placing a new task */

typedef struct ks_sched_ops {
    const char *name;           /* "none", "mm_cid", ... (the part before ':' in the config) */

    /* Creates the state (variant: the text after ':' in ks_sim_config.algo, "" if none).
     * Called once the tasks that exist at t=0 are set up, before their task_fork. */
    int32_t (*init)(ks_sim *sim, const char *variant, void **state);
    void (*release)(void *state);

    void (*task_fork)(void *state, ks_sim *sim, int32_t parent, int32_t child);
    void (*task_exit)(void *state, ks_sim *sim, int32_t task);
    void (*switch_to)(void *state, ks_sim *sim, int32_t prev, int32_t next, int32_t cpu);
    void (*migrate)(void *state, ks_sim *sim, int32_t task, int32_t from_cpu, int32_t to_cpu);
    void (*set_cpus_allowed)(void *state, ks_sim *sim, int32_t task);
    void (*tick)(void *state, ks_sim *sim, int32_t cpu, int32_t curr);

    /* Periodic balance of one CPU; return 1 if done (the default pull is skipped). */
    int32_t (*balance)(void *state, ks_sim *sim, int32_t cpu);

    /* May override placement: returns a CPU (must be in the task's cpus_allowed; any
     * other value keeps `chosen`). wake_flags: SCHED_WF_*. */
    int32_t (*select_cpu)(void *state, ks_sim *sim, int32_t task, int32_t prev_cpu,
                          int32_t chosen, int32_t wake_flags);

    /* The task's concurrency id, or -1. */
    int32_t (*mm_cid)(const void *state, const ks_sim *sim, int32_t task);

    uint32_t (*snapshot_size)(const void *state);
    int32_t (*snapshot_save)(const void *state, void *buf, uint32_t len);
    int32_t (*snapshot_restore)(void *state, const void *buf, uint32_t len);
} ks_sched_ops;

/* The registry (sched_ops.c): the ops whose name matches `algo` up to its ':'
 * (NULL or "" = "none"); *variant points past the ':' (or at ""). NULL if unknown. */
const ks_sched_ops *sched_ops_find(const char *algo, const char **variant);

/* ---- what a model may read (and the few things it may do) -------------- */

int32_t sched_nr_cpus(const ks_sim *sim);
int32_t sched_max_tasks(const ks_sim *sim);
int32_t sched_nr_tasks(const ks_sim *sim);          /* created so far */
int32_t sched_max_mms(const ks_sim *sim);
uint64_t sched_now(const ks_sim *sim);
const ks_topology *sched_topology(const ks_sim *sim);
const ks_cpu *sched_cpu_info(const ks_sim *sim, int32_t cpu);
ks_cache *sched_cache(ks_sim *sim);

int32_t sched_cpu_curr(const ks_sim *sim, int32_t cpu);     /* task index, -1 if idle */
int32_t sched_task_tid(const ks_sim *sim, int32_t task);
int32_t sched_task_tgid(const ks_sim *sim, int32_t task);
int32_t sched_task_mm(const ks_sim *sim, int32_t task);
int32_t sched_task_cpu(const ks_sim *sim, int32_t task);
int32_t sched_task_state(const ks_sim *sim, int32_t task);  /* ks_task_state */
int32_t sched_task_policy(const ks_sim *sim, int32_t task);
int32_t sched_task_nr_cpus_allowed(const ks_sim *sim, int32_t task);
const cpumask *sched_task_cpus_allowed(const ks_sim *sim, int32_t task);

/* The plugged algorithm's state if the simulation runs `ops`, else NULL (for an
 * algorithm's public view functions, which get only the ks_sim). */
void *sched_algo_state(const ks_sim *sim, const ks_sched_ops *ops);

/* Adds an access the model made (e.g. to mm->cidmask) to the run's statistics. */
void sched_note_access(ks_sim *sim, const ks_access_cost *cost);

/* For balance hooks: moves a queued (runnable, not running) task to dst_cpu, emitting
 * sched_migrate_task on dst_cpu. KS_ERR_INVALID_ARG if it is not queued or not allowed. */
int32_t sched_move_queued_task(ks_sim *sim, int32_t task, int32_t dst_cpu);

#endif
