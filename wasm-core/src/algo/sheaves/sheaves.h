/*
 * Internal: the SLUB sheaves model's state and its functions (src/algo/sheaves/).
 *
 * What is modelled, and from which kernel (linux-source-7.3 read for this model; the
 * v6.18 .. v6.19-rc4 forms from the seed's patch context and its call graphs):
 *
 *   struct kmem_cache      shv_cache: sheaf_capacity, objects per slab (calculate_order),
 *                          min_partial (set_min_partial), cpu_partial_slabs (6.x
 *                          set_cpu_partial + slub_set_cpu_partial)
 *   slub_percpu_sheaves    shv_pcs {main, spare, rcu_free}: sheaf indices, -1 = NULL
 *   struct slab_sheaf      shv_sheaf: size, node (set for call_rcu), who wrote it last
 *   struct node_barn       shv_barn: full and empty lists (LIFO, as list_add and
 *                          list_first_entry make them), nr_full, nr_empty, its lock
 *   kmem_cache_node        shv_node: free objects on the partial list, list_lock
 *   kmem_cache_cpu (<=6.19) shv_cpuslab: free objects in the cpu slab and its cpu
 *                          partial slabs, how many partial slabs it holds
 *
 * Simplifications (each said where it is made, and in docs/models/sheaves.md):
 * objects are counted, not named (the slab layer keeps counts per node and CPU, not
 * freelists); the partial slabs a refill takes are assumed half free; objects freed to
 * slabs go to the freeing CPU's node; empty slabs are never discarded (discard_slab and
 * the page allocator's free path are not modelled); no interrupts, so every local
 * trylock succeeds and no slow path races with another on its CPU; tasks are pinned, so
 * nothing migrates between dropping and re-taking the per-CPU lock.
 *
 * Time: each CPU has its own clock (ns). A function that does work advances the clock
 * of the CPU it runs on by what the cost model v2 says the work costs (shv_charge); a
 * lock acquisition waits in the lock's FIFO in simulated time (lock.c). Only what
 * happens inside the measured window is added to the counters (shv_model.measuring).
 */
#ifndef KSCOPE_ALGO_SHEAVES_SHEAVES_H
#define KSCOPE_ALGO_SHEAVES_SHEAVES_H

#include <stddef.h>
#include <stdint.h>

#include "kscope/native/cost.h"
#include "kscope/topology.h"
#include "kscope/sheaves/sheaves.h"
#include "kscope/sheaves/native/mmap2.h"

#define SHV_NONE (-1)
#define SHV_CACHES 2          /* the workload's caches */
#define SHV_VMA 0             /* vm_area_struct */
#define SHV_MAPLE 1           /* maple_node */
#define SHV_RCU_RING 8        /* pending kfree_rcu batches per CPU (caches without sheaves) */

/* ---- locks (lock.c) --------------------------------------------------------------- */

typedef struct shv_hold {     /* one holder's turn: [start, end) on the lock's timeline */
    uint64_t start, end;
    int32_t cpu, pad;
} shv_hold;

typedef struct shv_lock {
    char name[32];            /* "barn:maple_node:node1" */
    shv_hold *turns;          /* future and current turns, sorted by start */
    int32_t n, cap;
    int32_t last_cpu;         /* holder of the last turn dropped from the timeline */
    int32_t is_barn;          /* 1: a barn->lock, 0: a list_lock */
    uint64_t acquisitions;
    double wait_ns;
} shv_lock;

/* ---- sheaves and the barn ---------------------------------------------------------- */

typedef struct shv_sheaf {
    uint32_t size;            /* objects held */
    int32_t next;             /* barn list / RCU queue / free pool link */
    int32_t node;             /* sheaf->node: set when handed to call_rcu */
    int32_t last_cpu;         /* the CPU that wrote its header and array last (cost) */
    int32_t filled_by;        /* the CPU whose objects it holds (the objects' lines, cost) */
    int32_t in_use;           /* 0: in the model's free pool */
    uint64_t due_ns;          /* in an RCU queue: when its grace period has ended */
} shv_sheaf;

typedef struct shv_pcs {
    int32_t main, spare, rcu_free;
} shv_pcs;

typedef struct shv_barn {
    int32_t full_head, empty_head;
    uint32_t nr_full, nr_empty;
    int32_t lock;             /* index into shv_model.locks */
    int32_t pad;
} shv_barn;

typedef struct shv_node {
    int64_t free_objs;        /* free objects in the node's partial slabs */
    int32_t list_lock;
    int32_t last_flusher;     /* CPU that last freed objects into this node's slabs */
} shv_node;

typedef struct shv_cpuslab {
    int64_t free_objs;        /* free objects of the cpu slab and the cpu partial slabs */
    int32_t partial_slabs;    /* slabs on the cpu partial list */
    int32_t src_cpu;          /* who last wrote those objects' free pointers (cost) */
} shv_cpuslab;

typedef struct shv_rcu_batch {  /* kfree_rcu objects of a cache without sheaves */
    uint64_t due_ns;
    int64_t count;
} shv_rcu_batch;

typedef struct shv_cache {
    char name[24];
    uint32_t object_size;
    uint32_t capacity;        /* sheaf_capacity; 0: no sheaves (kfree_rcu batches, cpu slab) */
    uint32_t objs_per_slab;
    uint32_t min_partial;
    uint32_t cpu_partial_slabs;
    uint32_t object_lines;
    shv_pcs *pcs;             /* per CPU */
    shv_barn *barn;           /* per node */
    shv_node *node;           /* per node */
    shv_cpuslab *cpu;         /* per CPU */
    int32_t *rcu_head, *rcu_tail; /* per CPU: sheaves waiting for their grace period */
    shv_rcu_batch *batches;   /* per CPU x SHV_RCU_RING */
    uint64_t fn[KS_SHEAVES_FN_COUNT];
    uint64_t barn_full_hits;
    int64_t sheaves_live, sheaves_live_max;
} shv_cache;

/* ---- the model ----------------------------------------------------------------------- */

typedef struct shv_model {
    ks_topology *topo;        /* owned, when built from cfg.preset; else NULL */
    const ks_cpu *cpus;
    int32_t nr_cpus, nr_nodes;
    int32_t node_socket[64];  /* socket of each node (get_any_partial: same socket first) */
    ks_cost_params cost;
    ks_sheaves_mmap2_config cfg;   /* variant, toggles, figures */

    shv_sheaf *sheaves;
    int32_t n_sheaves, cap_sheaves, free_sheaf;

    shv_lock *locks;
    int32_t n_locks, cap_locks;

    shv_cache caches[SHV_CACHES];

    uint64_t *clock;          /* per CPU */
    uint64_t *rcu_tick;       /* per CPU: the last tick whose RCU softirq ran (rcu_sheaf.c) */
    uint64_t now;             /* the earliest clock of a CPU still to run: the timeline's past */
    int32_t measuring;        /* 1: counters count */
    uint64_t rng;

    /* cost tables (cost v2, computed once) */
    double trip_ns[KS_SRC_COUNT];         /* one line moved from that distance */
    double obj_ns[SHV_CACHES][KS_SRC_COUNT]; /* one object's lines (allocation) */
    double *xfer_ns;                      /* [KS_SRC_COUNT][max lines + 1]: a sheaf's lines */
    int32_t xfer_max_lines;

    /* results in the window */
    double part_ns[KS_COST_PARTS];
    double barn_wait_ns, list_wait_ns;
    uint64_t barn_acq, list_acq;
} shv_model;

/* model.c */
/* topo NULL: the config's preset (then owned by the model). */
int32_t shv_model_init(shv_model *m, const ks_sheaves_mmap2_config *cfg, const ks_topology *topo);
void shv_model_free(shv_model *m);
int32_t shv_distance(const shv_model *m, int32_t a, int32_t b);   /* KS_SRC_* */
void shv_charge(shv_model *m, int32_t cpu, int32_t part, double ns);
void shv_count(shv_model *m, int32_t cache, int32_t fn);
int32_t shv_sheaf_new(shv_model *m, int32_t cache, int32_t cpu);  /* SHV_NONE: no memory */
void shv_sheaf_release(shv_model *m, int32_t cache, int32_t sheaf);
void shv_sheaf_take(shv_model *m, int32_t cache, int32_t cpu, int32_t sheaf);   /* lines move to cpu */
int32_t shv_node_of(const shv_model *m, int32_t cpu);
uint32_t shv_rand(shv_model *m);

/* lock.c: spin_lock + work + spin_unlock in simulated time */
int32_t shv_lock_new(shv_model *m, const char *name, int32_t is_barn);
void shv_lock_run(shv_model *m, int32_t lock, int32_t cpu, double hold_ns, int32_t cs_lines);
void shv_locks_prune(shv_model *m, uint64_t before);

/* barn.c */
int32_t shv_barn_get_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node);
void shv_barn_put_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node, int32_t sheaf);
void shv_barn_put_full_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node, int32_t sheaf);
int32_t shv_barn_replace_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node,
                                     int32_t empty);
#define SHV_E2BIG (-2)
#define SHV_ENOMEM (-3)
int32_t shv_barn_replace_full_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node,
                                    int32_t full);

/* slabs.c: the slab layer under the sheaves (<= 6.19: cpu slab + cpu partial) */
void shv_slab_alloc_bulk(shv_model *m, int32_t c, int32_t cpu, uint32_t n);
void shv_slab_free_bulk(shv_model *m, int32_t c, int32_t cpu, uint32_t n);

/* refill.c */
int32_t shv_refill_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf);
int32_t shv_alloc_empty_sheaf(shv_model *m, int32_t c, int32_t cpu);
int32_t shv_alloc_full_sheaf(shv_model *m, int32_t c, int32_t cpu);
void shv_free_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf);
void shv_sheaf_flush_unused(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf);

/* pcs.c */
void shv_kmem_cache_alloc(shv_model *m, int32_t c, int32_t cpu);
void shv_kmem_cache_free(shv_model *m, int32_t c, int32_t cpu);
void shv_pcs_replace_empty_main(shv_model *m, int32_t c, int32_t cpu);
void shv_pcs_replace_full_main(shv_model *m, int32_t c, int32_t cpu);

/* rcu_sheaf.c */
void shv_kfree_rcu(shv_model *m, int32_t c, int32_t cpu);
void shv_rcu_run_due(shv_model *m, int32_t cpu);
uint64_t shv_rcu_due(const shv_model *m, uint64_t queued_ns);

/* sheaves_ops.c */
int32_t shv_parse_algo(const char *variant, ks_sheaves_mmap2_config *cfg);
const uint64_t *shv_plugin_counters(const void *state);

#endif
