/*
 * Internal: the hook points algorithm models plug into, like the kernel's
 * struct sched_class — plus the read-only view of the scheduler they may use.
 *
 * The scheduler core (core.c) calls these hooks where the kernel calls the
 * corresponding code, so a model can follow upstream closely. The families:
 *
 *     family      hook               kernel call site
 *     ----------  -----------------  ----------------------------------------------
 *     lifecycle   task_fork          sched_fork() / copy_process() (parent -1: a task
 *                                    that exists at t=0)
 *                 task_exit          do_exit()
 *                 switch_to          context_switch()
 *                 migrate            activate_task(ENQUEUE_MIGRATED) after set_task_cpu()
 *                 set_cpus_allowed   __do_set_cpus_allowed()
 *                 tick               sched_tick() (on CPUs running a task)
 *                 task_work_run      resume_user_mode_work() -> task_work_run(): the
 *                                    task returns to user space with work it queued
 *                                    (sched_task_work_add, task_work_add(TWA_RESUME))
 *     placement   select_cpu         select_task_rq(): override wakeup/fork placement
 *                 find_lowest_rq     find_lowest_rq() -> cpupri_find(): the RT target of
 *                                    select_task_rq_rt and push_rt_task (the pull side
 *                                    scans the overloaded CPUs, as pull_rt_task does)
 *                 rt_prio_changed    inc_rt_prio_smp() / dec_rt_prio_smp() -> cpupri_set():
 *                                    a CPU's highest queued-or-running RT priority changed
 *                 rt_overload_changed  rt_set_overload() / rt_clear_overload(): the CPU's bit
 *                                    of the root domain's RT overload mask (rto_mask) flipped
 *     balancing   balance            sched_balance_domains() for one CPU: replace the
 *                                    periodic balance
 *     allocator   kmem_cache_alloc   slab_alloc_node() on a CPU (SLUB's per-CPU sheaf caches)
 *                 kmem_cache_free    slab_free() on a CPU
 *     user ABI    rseq_cid           the concurrency id rseq reports to user space
 *                                    (rseq's concurrency-id field, and rseq_update's);
 *                                    also what a workload's index_by reads
 *     views       view_get           ks_sim_model_view_get: bytes the model's own
 *                                    decoder (frontend, backend) reads
 *     replay      grow               the trace-replay host (replay.c) grew its task or
 *                                    mm capacity: enlarge per-task / per-mm tables
 *
 * Each model's folder (src/algo/<name>/) says which kernel function each hook
 * stands for in its own header comment.
 *
 * Every hook is optional (NULL = nothing to do, or the core's default). Tasks and
 * CPUs are dense indices: task 0..sched_max_tasks()-1 (tid = sched_task_tid()), CPU
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

/* find_lowest_rq's "use the core's own search" answer */
#define SCHED_LOWEST_RQ_DEFAULT (-2)

typedef struct ks_sched_ops {
    const char *name;           /* "none", or the model's folder name (the part before ':') */

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
    /* The task, current on cpu, returns to user space with TIF_NOTIFY_RESUME set by
     * sched_task_work_add: run the work the model queued (the core clears the flag first;
     * rseq_update follows, as rseq_handle_notify_resume runs after task_work_run). The
     * simulator's tasks run in user space between events: they return after each
     * switch-in and after each tick that finds them running and does not preempt them
     * (a preempted task returns after its next switch-in). The replay host returns a task
     * at its rseq_update events (replay_return_to_user). */
    void (*task_work_run)(void *state, ks_sim *sim, int32_t task, int32_t cpu);


    /* ---- placement ---- */

    /* May override placement: returns a CPU (must be in the task's cpus_allowed; any
     * other value keeps `chosen`). wake_flags: SCHED_WF_*. */
    int32_t (*select_cpu)(void *state, ks_sim *sim, int32_t task, int32_t prev_cpu,
                          int32_t chosen, int32_t wake_flags);

    /* RT placement (the priority map): the CPU an RT task should go to, preferring prev_cpu, among
     * its allowed CPUs running lower-priority work. Return a CPU in the task's
     * cpus_allowed, -1 for "none runs lower-priority work", or SCHED_LOWEST_RQ_DEFAULT
     * (or any other value) for the core's own search (sched_find_lowest_rq). */
    int32_t (*find_lowest_rq)(void *state, ks_sim *sim, int32_t task, int32_t prev_cpu);

    /* The CPU's rt_rq->highest_prio.curr changed from old_prio to new_prio (kernel prio:
     * 0..98 for RT tasks, 99 = MAX_RT_PRIO-1 = no RT task queued or running), where the
     * kernel's inc_rt_prio_smp/dec_rt_prio_smp call cpupri_set: an RT enqueue above the
     * top, or the top RT task leaving (block, exit, migration, switch to a lower task).
     * The running RT task counts as queued, as in the kernel's RT class, so a switch
     * between two equal RT tasks is no change. At t=0 every CPU is at 99; a model that
     * starts later reads sched_rt_highest_prio(). */
    void (*rt_prio_changed)(void *state, ks_sim *sim, int32_t cpu, int32_t old_prio,
                            int32_t new_prio);

    /* The CPU became RT-overloaded (overloaded = 1) or stopped being so (0): where the
     * kernel's rt_set_overload / rt_clear_overload write rd->rto_mask and rd->rto_count.
     * The core's meaning is "has waiting RT tasks" (rq.c); 6.12 counts only pushable ones
     * (nr_cpus_allowed > 1), so a pinned waiting task flips it here and not in 6.12. */
    void (*rt_overload_changed)(void *state, ks_sim *sim, int32_t cpu, int32_t overloaded);

    /* ---- balancing ---- */

    /* Periodic balance of one CPU; return 1 if done (the default pull is skipped). */
    int32_t (*balance)(void *state, ks_sim *sim, int32_t cpu);

    /* ---- allocator (SLUB) ---- */

    /* task allocates one object of kmem cache `cache` (size bytes) on cpu. Returns the
     * object's id (>= 0, the model's own numbering: it stands for the pointer the
     * kmem_cache_alloc tracepoint prints), or -1 when the model has no object. */
    int32_t (*kmem_cache_alloc)(void *state, ks_sim *sim, int32_t cpu, int32_t task,
                                int32_t cache, uint32_t size);
    /* task frees object `object` of cache `cache` on cpu (possibly not the CPU that
     * allocated it: a remote free). */
    void (*kmem_cache_free)(void *state, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                            int32_t object);

    /* ---- what user space sees ---- */

    /* The task's concurrency id as rseq reports it (struct rseq's concurrency-id field),
     * or -1 when the model gives none. */
    int32_t (*rseq_cid)(const void *state, const ks_sim *sim, int32_t task);

    /* ---- views ---- */

    /* ks_sim_model_view_get: buf holds the caller's request (the model defines it: at
     * least its first 4 bytes say which view) and receives the view's bytes, in a format
     * the model's own decoders read. KS_OK or a KS_ERR_* status (kscope/sim.h). */
    int32_t (*view_get)(void *state, ks_sim *sim, void *buf, uint32_t len);

    /* ---- the trace-replay host (replay.c) ---- */

    /* The host's capacity grew to sched_max_tasks() tasks and sched_max_mms() mms (from
     * old_tasks / old_mms): grow per-task and per-mm tables, keep their entries, set the
     * new ones as init does. 0, or -1 out of memory. The simulator never calls it (its
     * sizes are fixed by the workload). */
    int32_t (*grow)(void *state, ks_sim *sim, int32_t old_tasks, int32_t old_mms);

    uint32_t (*snapshot_size)(const void *state);
    int32_t (*snapshot_save)(const void *state, void *buf, uint32_t len);
    int32_t (*snapshot_restore)(void *state, const void *buf, uint32_t len);
} ks_sched_ops;

/* The registry (sched_ops.c): the ops whose name matches `algo` up to its ':'
 * (NULL or "" = "none"); *variant points past the ':' (or at ""). NULL if unknown. */
const ks_sched_ops *sched_ops_find(const char *algo, const char **variant);
/* The algo "auto" resolves to when a process of the workload registers rseq. */
const char *sched_ops_auto_rseq(void);

/* ---- what a model may read (and the few things it may do) -------------- */

int32_t sched_nr_cpus(const ks_sim *sim);
int32_t sched_max_tasks(const ks_sim *sim);
int32_t sched_nr_tasks(const ks_sim *sim);          /* created so far */
int32_t sched_max_mms(const ks_sim *sim);
uint64_t sched_now(const ks_sim *sim);
/* cpu's rq->clock: sched_now() at that CPU's last update_rq_clock(), which an idle CPU
 * does not run until something wakes, enqueues on or balances it (src/sched/rq.c). */
uint64_t sched_rq_clock(const ks_sim *sim, int32_t cpu);
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
/* p->prio: 0..98 RT (99 - sched_priority), 100..139 fair (120 + nice) */
int32_t sched_task_prio(const ks_sim *sim, int32_t task);
int32_t sched_task_nr_cpus_allowed(const ks_sim *sim, int32_t task);
const cpumask *sched_task_cpus_allowed(const ks_sim *sim, int32_t task);

/* The plugged algorithm's state if the simulation runs `ops`, else NULL (for an
 * algorithm's public view functions, which get only the ks_sim). */
void *sched_algo_state(const ks_sim *sim, const ks_sched_ops *ops);

/* The core's RT placement (one machine-wide priority map): the allowed CPU at
 * the lowest priority level below the task's, prev_cpu first, then the nearest; -1 if
 * every allowed CPU runs higher RT work. For find_lowest_rq hooks that refine it. */
int32_t sched_find_lowest_rq(const ks_sim *sim, int32_t task, int32_t prev_cpu);

/* task_work_add(task, work, TWA_RESUME): sets the task's TIF_NOTIFY_RESUME, so the
 * task_work_run hook runs at its next return to user space (the model keeps which work). */
void sched_task_work_add(ks_sim *sim, int32_t task);
/* cpu's rt_rq->highest_prio.curr as rt_prio_changed last reported it (99: no RT task). */
int32_t sched_rt_highest_prio(const ks_sim *sim, int32_t cpu);

/* Adds an access the model made (e.g. to mm->cidmask) to the run's statistics. */
void sched_note_access(ks_sim *sim, const ks_access_cost *cost);

/* For balance hooks: moves a queued (runnable, not running) task to dst_cpu, emitting
 * sched_migrate_task on dst_cpu. KS_ERR_INVALID_ARG if it is not queued or not allowed. */
int32_t sched_move_queued_task(ks_sim *sim, int32_t task, int32_t dst_cpu);

#endif
