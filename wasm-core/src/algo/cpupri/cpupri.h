/*
 * Internal: the cpupri model's state and the functions its files share (not the public
 * API: that is include/kscope/cpupri/cpupri.h, the view formats).
 *
 * Files (each opens with its essay):
 *   cpupri.c       the ks_sched_ops table: variants, init (cpupri_init + rq_online_rt for
 *                  every CPU), the rt_prio_changed hook, snapshots
 *   cpupri_vec.c   convert_prio, cpupri_set and the per-level search of each layout,
 *                  cpupri_find_fitness: the kernel's kernel/sched/cpupri.c
 *   cpupri_rt.c    find_lowest_rq and cpumask_any_and_distribute: kernel/sched/rt.c,
 *                  lib/cpumask.c
 *   cpupri_mem.c   the memory the kernel touches: one cache-model object per allocation,
 *                  each access a v1 cache access (per-word counters) and a request to the
 *                  line's server (cost model v2), and perf c2c's rows
 *   cpupri_view.c  view_get
 *
 * All state is one calloc'd block with no pointers (a snapshot is a byte copy), sized at
 * the bounds below; the c2c rows live in the same block.
 */
#ifndef KSCOPE_ALGO_CPUPRI_H
#define KSCOPE_ALGO_CPUPRI_H

#include <stdint.h>

#include "kscope/cpupri/cpupri.h"
#include "kscope/native/cost.h"
#include "../../sched/sched_ops.h"

#define CPUPRI_LEVELS 101          /* CPUPRI_NR_PRIORITIES = MAX_RT_PRIO + 1, cpupri.h v6.12 */
#define CPUPRI_INVALID (-1)
#define CPUPRI_NORMAL 0
#define CPUPRI_HIGHER 100
#define CPUPRI_MAX_NODES 8
#define CPUPRI_MAX_CPUS CPUMASK_MAX_CPUS
#define CPUPRI_MAX_LINES 1024      /* line servers: every line of every object (init fails beyond) */
#define CPUPRI_MAX_ROWS 4096       /* c2c rows (line, word, symbol) */
#define CPUPRI_ROW_HASH 8192       /* open addressing over the rows (power of two) */
#define CPUPRI_LDLAT_CYCLES 30     /* perf c2c record's default x86 ldlat (perf-c2c(1)) */

/* The symbols perf c2c would print for each access (inlined code carries its caller's). */
typedef enum cpupri_site {
    SITE_CPUPRI_SET = 0,           /* cpumask_set_cpu / atomic_inc / ... inlined in cpupri_set */
    SITE_FIND_FITNESS,             /* __cpupri_find's atomic_read(count), inlined */
    SITE_FIND_FIRST_AND_BIT,       /* cpumask_any_and -> _find_first_and_bit */
    SITE_BITMAP_AND,               /* cpumask_and -> __bitmap_and */
    SITE_FIND_FIRST_AND_AND_BIT,   /* the seed's cpumask_first_and_and (VERIFY the symbol) */
    SITE_MEMCPY,                   /* the seed's cpumask_copy of a 480-bit mask */
    SITE_BITMAP_INTERSECTS,        /* kscope's cpumask_intersects -> __bitmap_intersects */
    SITE_BITMAP_OR,                /* kscope's cpumask_or -> __bitmap_or */
    SITE_ENQUEUE_PUSHABLE,         /* rt_set_overload, inlined in enqueue_pushable_task */
    SITE_DEQUEUE_PUSHABLE,         /* rt_clear_overload, inlined in dequeue_pushable_task */
    SITE_COUNT
} cpupri_site;

extern const char *const cpupri_site_names[SITE_COUNT];

typedef enum cpupri_kind { ACC_LOAD = 0, ACC_STORE = 1, ACC_RMW = 2 } cpupri_kind;

/* One kind of memory the kernel allocates (a cache-model object). */
typedef struct cpupri_object {
    int32_t cache_id;              /* ks_cache object id */
    int32_t level, node;           /* what it holds (-1: not one level / node) */
    int32_t first_server;          /* its lines' servers: [first_server, + lines) */
    int32_t lines;
    char name[40];
} cpupri_object;

typedef struct cpupri_row {        /* ks_cpupri_c2c_row without the names */
    int32_t object;                /* index into objects[] */
    uint32_t offset;               /* word-aligned byte offset in the object */
    int32_t site;
    uint32_t loads, sampled_loads, local_hitm, remote_hitm, stores, store_l1_hit,
        store_l1_miss;
    double load_cycles_sum, wait_cycles_sum;
} cpupri_row;

/* A cpupri_set still becoming visible to other CPUs (its four steps, timed). */
typedef struct cpupri_inflight {
    int32_t oldpri, newpri, old_node, new_node;
    double t_new_bit, t_new_count, t_old_count, t_old_bit;   /* visible from; 0 = no step */
    double t_end;
} cpupri_inflight;

typedef struct cpupri_state {
    int32_t variant, flags, nr_cpus, nr_nodes;
    int32_t mask_bytes;            /* cpumask_size(): 8 x ceil(nr_cpus / 64) */
    int32_t nwords;                /* 64-bit words of a mask */
    /* the committed state (what memory holds once every step is visible) */
    int32_t count[CPUPRI_LEVELS][CPUPRI_MAX_NODES];      /* [L][0]: the level's count, unless
                                                            pernode-kscope (per node) */
    cpumask mask[CPUPRI_LEVELS][CPUPRI_MAX_NODES];       /* [L][0] global; [L][n] pernode */
    int32_t cpu_to_pri[CPUPRI_MAX_CPUS];
    int32_t cpu_node[CPUPRI_MAX_CPUS];                   /* kscope: node block of the bit */
    int32_t node_of[CPUPRI_MAX_CPUS];                    /* cpu_to_node() */
    int32_t core_of[CPUPRI_MAX_CPUS], llc_of[CPUPRI_MAX_CPUS];
    cpumask node_cpus[CPUPRI_MAX_NODES];                 /* cpumask_of_node() */
    int32_t distribute_prev[CPUPRI_MAX_CPUS];            /* per-CPU distribute_cpu_mask_prev */
    cpupri_inflight inflight[CPUPRI_MAX_CPUS];
    cpumask inflight_cpus;                               /* CPUs whose inflight may be active */
    cpumask setters;                                     /* CPUs that ran cpupri_set */
    double cpu_free_at[CPUPRI_MAX_CPUS];                 /* the CPU's last access ends */
    double cpu_kernel_ns[CPUPRI_MAX_CPUS];               /* modelled access time per CPU */
    /* memory */
    int32_t nr_objects, nr_servers, obj_pri_to_cpu, obj_cpu_to_pri;
    int32_t obj_root_domain, obj_rto_mask;               /* rd's rto_count line, rd->rto_mask */
    int32_t rto_count, reserved2;                        /* atomic_t rd->rto_count */
    cpumask rto_mask;
    int32_t obj_mask[CPUPRI_LEVELS][CPUPRI_MAX_NODES];   /* bitmap objects (-1 none) */
    int32_t obj_block[CPUPRI_MAX_NODES];                 /* kscope's node blocks */
    cpupri_object objects[CPUPRI_LEVELS * CPUPRI_MAX_NODES + 4];
    ks_cost_line_server servers[CPUPRI_MAX_LINES];
    ks_cost_params cost;
    int32_t nr_rows, reserved;
    cpupri_row rows[CPUPRI_MAX_ROWS];
    int32_t row_hash[CPUPRI_ROW_HASH];                   /* row index + 1, 0 = empty */
    /* counters */
    uint64_t sets, finds, finds_found, nodes_scanned, finds_changed, accesses, overload_changes;
    double access_ns, wait_ns;
} cpupri_state;

/* cpupri.c */
extern const ks_sched_ops cpupri_ops;

/* cpupri_vec.c */
int32_t cpupri_convert_prio(int32_t prio);
/* cpupri_set(cp, cpu, newprio) at t on behalf of `by` (the CPU executing it). */
void cpupri_set(cpupri_state *st, ks_sim *sim, int32_t by, int32_t cpu, int32_t newprio,
                double t);
/* cpupri_find(cp, p, lowest_mask) run by this_cpu at t for a task of kernel prio `prio`
 * allowed on `allowed`: 1 and *lowest (if non-NULL) if a lower level has an allowed CPU.
 * *nodes_scanned as kscope_cpupri_find counts it; *changed = 1 when an in-flight set
 * changed the answer (what the fully committed state would give). */
int32_t cpupri_find(cpupri_state *st, ks_sim *sim, int32_t this_cpu, int32_t prio,
                    const cpumask *allowed, cpumask *lowest, double t, int32_t *nodes_scanned);
/* The answer on the committed state, without memory accesses (the reference). */
int32_t cpupri_find_committed(const cpupri_state *st, int32_t prio, const cpumask *allowed,
                              cpumask *lowest);

/* cpupri_rt.c */
int32_t cpupri_find_lowest_rq(void *state, ks_sim *sim, int32_t task, int32_t prev_cpu);
void cpupri_rt_overload_changed(void *state, ks_sim *sim, int32_t cpu, int32_t overloaded);

/* cpupri_mem.c */
int32_t cpupri_mem_init(cpupri_state *st, ks_sim *sim);
/* One access of len bytes at offset of objects[obj] by cpu starting no earlier than t;
 * returns when it completes (ns). */
double cpupri_mem_access(cpupri_state *st, ks_sim *sim, int32_t cpu, int32_t obj,
                         uint32_t offset, uint32_t len, int32_t kind, int32_t site, double t);
/* A scan loading words [0, nwords) of objects[obj] at base: one line fetch, every word
 * charged its latency ("words of one scan share one miss"). Returns completion time. */
double cpupri_mem_scan(cpupri_state *st, ks_sim *sim, int32_t cpu, int32_t obj, uint32_t base,
                       int32_t nwords, int32_t site, double t);

/* cpupri_view.c */
int32_t cpupri_view_get(void *state, ks_sim *sim, void *buf, uint32_t len);

#endif
