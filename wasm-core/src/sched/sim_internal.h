/*
 * Internal: the simulator's state, shared by the files of src/sched/.
 *
 * Everything that changes while the simulation runs lives in flat arrays of
 * plain structs indexed by dense ids (task, CPU, timer slot, workload
 * process), never behind pointers: a snapshot is a handful of memcpys, and the
 * hot path never allocates. What never changes after ks_sim_new (the parsed
 * workload, topology masks, the affinity table) sits beside it and is not
 * saved.
 *
 *     ks_sim
 *      ├─ config:  topo, workload, ops, masks (LLC/node/socket/core/affinity)
 *      ├─ state:   core (clock, step, rng, stats, idle/overload masks)
 *      │           tasks[max_tasks]   rqs[nr_cpus]   timers (indexed heap)
 *      │           drivers[nr_procs]  order[] area_obj[]  pending events ring
 *      │           algo state         cache model (ks_cache)
 *      └─ history: burst log, checkpoints, frame buffer (not state)
 */
#ifndef KSCOPE_SCHED_SIM_INTERNAL_H
#define KSCOPE_SCHED_SIM_INTERNAL_H

#include <stdint.h>

#include "kscope/sim.h"
#include "kscope/native/sim_cost.h"
#include "../base/cpumask.h"
#include "../base/rng.h"
#include "sched_ops.h"

/* ---- tunables (kernel defaults they stand for in parentheses) ----------- */

#define SCHED_SLICE_NS 3000000ull           /* fair slice, 3 ms (base_slice 0.75 ms x 4) */
#define SCHED_WAKEUP_GRAN_NS 1000000ull     /* wakeup preemption margin, 1 ms */
#define SCHED_SLEEPER_CREDIT_NS 3000000ull  /* vruntime credit on wakeup, 3 ms (latency/2) */
#define SCHED_TICK_NS 4000000ull            /* scheduler tick + periodic balance, HZ=250 */
#define SCHED_NORMAL_PRIO 120               /* nice 0 */
#define SCHED_TID_BASE 1000                 /* tid of task 0 */

/* prev_state values in sched_switch (TASK_REPORT bits as ftrace stores them). */
#define PREV_STATE_RUNNING 0x100            /* preempted: "R+" (TASK_REPORT_MAX, as 6.x prints it) */
#define PREV_STATE_SLEEPING 1               /* TASK_INTERRUPTIBLE: "S" */
#define PREV_STATE_ZOMBIE 0x20              /* EXIT_ZOMBIE: "Z", the exiting task's last switch */

/* ---- the parsed workload (workload.c) ----------------------------------- */

typedef enum wl_kind {
    WL_INTERMITTENT = 0,
    WL_PERIODIC_RT,
    WL_PIPE_PAIRS,
    WL_FORK_CHURN,
} wl_kind;

typedef struct wl_process {
    int32_t kind;               /* wl_kind */
    char comm[KS_COMM_LEN];
    int32_t rseq;               /* threads register rseq (glibc >= 2.35 does by default) */
    uint64_t start_ns;
    int32_t threads;            /* intermittent, periodic_rt */
    int32_t pinned;             /* intermittent: one-per-core */
    int32_t cpus_off;           /* explicit "cpus": offset into workload.cpus */
    int32_t nr_cpus;            /* ... and count; 0 = none given */
    int32_t area_bytes;         /* intermittent */
    int32_t index_by_cid;       /* intermittent: index by the rseq concurrency id */
    uint64_t delay_ns;          /* intermittent */
    int32_t order_fixed;        /* intermittent: "order": "fixed" (librseq's pacing) */
    int32_t warmup_sweeps;      /* intermittent: unmeasured sweeps before the first burst */
    int32_t loops;              /* intermittent: measured bursts per thread, 0 = no end */
    int32_t rt_priority;        /* periodic_rt: 1..99 (sched_priority) */
    uint64_t period_ns;         /* periodic_rt */
    uint64_t runtime_ns;        /* periodic_rt */
    uint64_t phase_spread_ns;   /* periodic_rt: threads' phases spread over [0, this) */
    int32_t groups;             /* pipe_pairs */
    int32_t pairs;              /* pipe_pairs: pairs_per_group */
    int32_t messages;           /* pipe_pairs */
    uint64_t work_ns;           /* pipe_pairs */
    int32_t children;           /* fork_churn */
    int32_t concurrency;        /* fork_churn */
    uint64_t child_runtime_ns;  /* fork_churn */
    uint64_t fork_ns;           /* fork_churn: parent work per fork */
} wl_process;

/* An intermittent thread's sched_setaffinity() during the run (workload "repin"). */
typedef struct wl_repin {
    int32_t proc;               /* index into workload.procs */
    int32_t thread;             /* the process's thread, 0-based */
    uint64_t at_ns;
    int32_t cpus_off;           /* its CPUs: offset into workload.cpus */
    int32_t nr_cpus;            /* ... and count (>= 1) */
} wl_repin;

typedef struct workload {
    char name[64];
    uint64_t duration_ns;
    int32_t nr_procs;
    wl_process *procs;
    int32_t *cpus;              /* all "cpus" lists back to back */
    int32_t nr_cpu_entries;
    wl_repin *repins;           /* all processes' "repin" entries, in file order */
    int32_t nr_repins;
} workload;

/* Parses and validates a workload; KS_ERR_PARSE with *err on any problem. */
int32_t workload_parse(const char *json, int32_t len, const ks_topology *topo, workload *out,
                       ks_parse_error *err);
void workload_free(workload *wl);

/* Tasks and mms (processes) the workload can ever have. */
int32_t workload_max_tasks(const workload *wl);
int32_t workload_max_mms(const workload *wl);

/* ---- dynamic state ------------------------------------------------------ */

enum task_flags {
    TF_RSEQ = 1 << 0,           /* registered rseq: rseq_update on every switch-in */
    TF_BURST_PENDING = 1 << 1,  /* intermittent: run a burst at the next switch-in */
    TF_WAIT_CHILD = 1 << 2,     /* fork_churn parent blocked in wait() */
    TF_WARMUP = 1 << 3,         /* intermittent: the burst running now is the warm-up */
    TF_RENDEZVOUS = 1 << 4,     /* intermittent (fixed): the start rendezvous */
    TF_SPINNING = 1 << 5,       /* intermittent (fixed): done, spinning in the exit rendezvous */
    TF_NOTIFY_RESUME = 1 << 6,  /* TIF_NOTIFY_RESUME: task_work queued (sched_task_work_add) runs
                                   at the task's next return to user space */
};

typedef struct sim_task {
    int32_t tid, tgid, mm;
    int32_t proc;               /* workload process (driver) index */
    int32_t role;               /* driver-defined: thread number */
    int32_t policy;             /* KS_SCHED_* */
    int32_t prio;               /* kernel prio: 0..98 RT, 120 normal */
    int32_t state;              /* ks_task_state */
    int32_t cpu;                /* runs / is queued / last ran on */
    int32_t mask;               /* cpus_allowed: index into ks_sim.masks */
    int32_t nr_cpus_allowed;
    int32_t rq_next, rq_prev;   /* runqueue links (-1) */
    int32_t flags;              /* task_flags */
    int32_t counter;            /* driver-defined: messages, periods, ... */
    int32_t parent;             /* task index, -1 */
    int64_t vruntime;           /* fair: virtual runtime (nice-0 weight: real ns) */
    uint64_t sum_exec;
    uint64_t work_left;         /* ns of CPU work left before the driver's next decision */
    uint64_t exec_start;        /* when the current run segment started */
    uint64_t slice_start;       /* when the current fair slice started */
    char comm[KS_COMM_LEN];
} sim_task;

typedef struct sim_rq {
    int32_t curr;               /* task index, -1 = idle */
    int32_t head, tail;         /* queued tasks in pick order: RT by prio, then fair by vruntime */
    int32_t nr_queued_rt;
    int32_t nr_queued_fair;
    int32_t need_resched;       /* a preemption deferred until the running driver code returns */
    int64_t min_vruntime;
    uint64_t busy_ns;
    uint64_t clock;             /* rq->clock: the time at its last update_rq_clock (rq.c) */
    uint64_t idle_since;        /* when the CPU last went idle (0: idle from the start) */
    uint64_t idle_end;          /* when that idle period ended (< idle_since: idle now) */
    int32_t rt_published;       /* rq_rt_level() as last reported to rt_prio_changed (140: none) */
    int32_t reserved;
} sim_rq;

typedef struct sim_driver {
    int32_t first_task;         /* the process's tasks at t=0 are [first_task, +nr_initial) */
    int32_t nr_initial;
    int32_t mask;               /* affinity of its unpinned tasks */
    int32_t mm_base;            /* first mm index */
    int32_t pos;                /* intermittent: position in the round's order */
    int32_t round;
    int32_t order_off;          /* intermittent: offset into order[] */
    int32_t area_off;           /* intermittent: offset into area_obj[] (nr_cpus entries) */
    int32_t forked, alive;      /* fork_churn */
    int32_t timer_cpu;          /* the CPU the driver timer fires on */
    int32_t finished;           /* intermittent: threads done with their loops */
} sim_driver;

/* Scalars of the state, saved with one copy. */
typedef struct sim_core {
    uint64_t now;
    uint64_t step;
    uint64_t timer_seq;         /* tie-break of timers armed for the same ns */
    rng_state rng;
    int32_t nr_tasks;
    int32_t finished;
    int32_t deferring_cpu;      /* CPU whose curr is running driver code, -1 */
    uint32_t nr_bursts;
    cpumask idle;               /* CPUs with no curr */
    cpumask fair_overload;      /* CPUs with queued (waiting) fair tasks */
    cpumask rt_overload;        /* CPUs with queued RT tasks (the kernel's rto_mask) */
    cpumask rt_curr;            /* CPUs running an RT task */
    int32_t oom;                /* the pending-event ring could not grow */
    int32_t reserved;
    uint64_t nohz_next_blocked; /* nohz.next_blocked: next blocked-load update of idle CPUs */
    ks_sim_stats stats;
} sim_core;

/* Indexed binary min-heap of timer slots keyed by (expires, seq). */
typedef struct sim_timers {
    int32_t nr_slots;
    int32_t size;
    int32_t *heap;              /* slot ids, heap-ordered */
    int32_t *pos;               /* per slot: index in heap, -1 if not armed */
    uint64_t *expires;          /* per slot */
    uint64_t *seq;              /* per slot */
} sim_timers;

/* Pending events of the current action, handed out one per step. */
typedef struct event_ring {
    ks_event *ev;
    uint32_t head, count, capacity;
} event_ring;

typedef struct checkpoint {
    uint64_t step;
    uint32_t size;
    uint8_t *data;
} checkpoint;

struct ks_sim {
    /* configuration: fixed after ks_sim_new */
    const ks_topology *topo;
    const ks_cpu *cpu_info;
    int32_t nr_cpus, nwords;
    int32_t nr_llcs, nr_nodes, nr_sockets, nr_cores;
    workload wl;
    const ks_sched_ops *ops;
    void *algo;
    char algo_name[64];         /* the algorithm run, "auto" resolved (ks_sim_algo_name) */
    uint64_t seed;
    uint64_t config_hash;
    int32_t max_tasks, max_mms;
    cpumask *masks;             /* affinity: [0] all CPUs, [1 + c] CPU c alone, then per process */
    int32_t nr_masks;
    cpumask *llc_mask, *node_mask, *socket_mask, *core_mask;
    char (*idle_comm)[KS_COMM_LEN];  /* "swapper/N" */
    ks_cache *cache;
    ks_cache_params cache_params; /* as given: v2 reads its background rates */
    int32_t cost_model;         /* KS_COST_MODEL_V1 (default) or _V2: what prices a burst (sim_cost.c) */
    int32_t cost_reserved;
    ks_cost_params cost_params; /* v2's figures (the preset's unless the caller gave them) */
    uint64_t *core_idle_ns;     /* scratch [nr_cores]: each core's idle time, for v2's sweep */
    int32_t slot_task0, slot_driver0, slot_tick;   /* timer slot ranges; CPU slots are 0.. */
    int32_t slot_repin0;        /* workload "repin" k: slot_repin0 + k (just before the tick) */
    int32_t *repin_mask;        /* workload "repin" k: its affinity, index into masks */

    /* state */
    sim_core core;
    sim_task *tasks;
    sim_rq *rqs;
    sim_timers timers;
    sim_driver *drivers;
    int32_t *order;
    int32_t nr_order;
    int32_t *area_obj;
    int32_t nr_area;
    event_ring pending;

    /* history and views: not state */
    ks_burst_cost *bursts;
    ks_cost_parts *burst_parts; /* parallel to bursts: v2's parts of each (zeros under v1) */
    uint32_t bursts_valid;      /* entries known to be on this run's trajectory */
    uint32_t bursts_capacity;
    checkpoint *ckpts;
    int32_t nr_ckpts, cap_ckpts;
    uint64_t ckpt_every;
    uint64_t ckpt_bytes;
    uint8_t *frame;
    uint32_t frame_capacity;
};

/* ---- timer.c ------------------------------------------------------------ */

int32_t timers_init(sim_timers *t, int32_t nr_slots);
void timers_free(sim_timers *t);
void timer_arm(ks_sim *s, int32_t slot, uint64_t expires);
void timer_cancel(ks_sim *s, int32_t slot);
int32_t timer_first(const sim_timers *t);           /* slot, -1 if none */
uint64_t timer_expires(const sim_timers *t, int32_t slot);

/* ---- rq.c --------------------------------------------------------------- */

void rq_enqueue(ks_sim *s, int32_t cpu, int32_t task, int head);
void rq_dequeue(ks_sim *s, int32_t cpu, int32_t task);
void rq_set_curr(ks_sim *s, int32_t cpu, int32_t task);
void rq_update_min_vruntime(ks_sim *s, int32_t cpu);
void rq_update_clock(ks_sim *s, int32_t cpu);           /* update_rq_clock(): rq->clock = now */
/* The nohz blocked-load update, which updates every idle CPU's rq clock (rq.c), at most
 * every 32 ms: cpu has just switched from a task to idle (nohz_newidle_balance), or a busy
 * cpu's tick has run (nohz_balancer_kick). */
void rq_newidle_blocked_update(ks_sim *s, int32_t cpu);
void rq_tick_blocked_kick(ks_sim *s, int32_t cpu);
/* The simulator's assumption of kernel housekeeping elsewhere on the machine: the same
 * update at every tick once it is due (rq.c). */
void rq_housekeeping_tick(ks_sim *s);
int32_t rq_nr_running(const ks_sim *s, int32_t cpu);    /* curr + queued */
int32_t rq_rt_level(const ks_sim *s, int32_t cpu);      /* highest RT prio, or 140 */

/* ---- core.c: the scheduler ---------------------------------------------- */

static inline int task_is_rt(const sim_task *p)
{
    return p->policy == KS_SCHED_FIFO;
}

static inline const cpumask *task_mask(const ks_sim *s, int32_t task)
{
    return &s->masks[s->tasks[task].mask];
}

ks_event *sched_emit(ks_sim *s, uint32_t type, int32_t cpu);
void sched_update_curr(ks_sim *s, int32_t cpu);
void sched_schedule(ks_sim *s, int32_t cpu, int64_t prev_state, int preempt);
void sched_wake(ks_sim *s, int32_t task, int32_t waker_cpu);
void sched_block(ks_sim *s, int32_t task);
void sched_exit(ks_sim *s, int32_t task, int32_t notify);
int32_t sched_fork(ks_sim *s, int32_t parent, int32_t new_mm);
void sched_wake_new(ks_sim *s, int32_t task, int32_t parent_cpu);
void sched_set_work(ks_sim *s, int32_t task, uint64_t ns);
void sched_cpu_timer(ks_sim *s, int32_t cpu);
void sched_tick(ks_sim *s);
/* The concurrency id the plugged model gives the task (what rseq reports), -1 none. */
int32_t sched_task_rseq_cid(const ks_sim *s, int32_t task);
/* The allocator family: task allocates one object of kmem cache `cache` (size bytes) on
 * cpu, or frees one there, through the model's kmem_cache_alloc / kmem_cache_free hooks.
 * The object's id (>= 0), or -1 when the model keeps none (no allocator model, or bad
 * arguments). No workload action calls them yet: the allocator models (SLUB per-CPU sheaf caches)
 * bring the workload actions with them; tests/test_sched_hooks.c drives them. */
int32_t sched_kmem_cache_alloc(ks_sim *s, int32_t cpu, int32_t task, int32_t cache, uint32_t size);
void sched_kmem_cache_free(ks_sim *s, int32_t cpu, int32_t task, int32_t cache, int32_t object);

/* ---- driver.c: workload behaviour --------------------------------------- */

int32_t driver_setup(ks_sim *s);                        /* creates the t=0 tasks */
void driver_arm_starts(ks_sim *s);
void driver_timer(ks_sim *s, int32_t proc);
void driver_repin(ks_sim *s, int32_t k);                /* workload "repin" k is due */
void driver_task_timer(ks_sim *s, int32_t task);
void driver_work_done(ks_sim *s, int32_t task);
void driver_switch_in(ks_sim *s, int32_t task);
int32_t driver_count_order(const workload *wl);
int32_t driver_count_area(const workload *wl, int32_t nr_cpus);

/* ---- snapshot.c --------------------------------------------------------- */

int32_t sim_checkpoint_take(ks_sim *s);
void sim_checkpoints_free(ks_sim *s);
int32_t sim_step_internal(ks_sim *s, ks_event *out, int32_t *produced);

/* ---- check.c: invariants for tests -------------------------------------- */

/* 0 if the scheduler's invariants hold; else -1 with a reason in why. */
int32_t sim_check_invariants(const ks_sim *s, char *why, int32_t why_len);

#endif
