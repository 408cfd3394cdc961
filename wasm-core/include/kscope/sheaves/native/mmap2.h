/*
 * kscope/sheaves/native/mmap2.h: the will-it-scale mmap2 workload on the SLUB sheaves
 * model (native only: the repro's batch runs; the browser steps the model through the
 * generic simulator instead).
 *
 * One run: nr_tasks processes, each pinned like will-it-scale places them, each looping
 * mmap + munmap of a private 128 MiB file mapping (tests/mmap2.c). Per iteration the
 * allocator sees (measured on this host's 6.18 kernel with the kmem tracepoints, call
 * sites read in linux-source-7.3; docs/models/sheaves.md):
 *   mmap    vm_area_alloc                   kmem_cache_alloc(vm_area_struct)
 *           mas_preallocate                 kmem_cache_alloc(maple_node) x maple_allocs_mmap
 *           mas_store_prealloc -> ma_free_rcu  kfree_rcu(maple_node) x maple_rcu_mmap
 *   munmap  mas_store_gfp (detach + store)  kmem_cache_alloc(maple_node) x maple_allocs_munmap
 *           mas_wr_node_store -> ma_free_rcu   kfree_rcu(maple_node) x maple_rcu_munmap
 *           vms_complete_munmap_vmas        kmem_cache_free(vm_area_struct)
 * and work_ns of everything else (one measured figure, split half and half).
 *
 * Time is simulated per CPU in ns; locks are FIFO queues in that time, every wait, hand-off,
 * critical section and line transfer costed by the cost model v2 (kscope/cost.h) with the
 * preset's figures. Nothing in a run is fitted to a published figure.
 */
#ifndef KSCOPE_SHEAVES_NATIVE_MMAP2_H
#define KSCOPE_SHEAVES_NATIVE_MMAP2_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/native/cost.h"
#include "kscope/sheaves/sheaves.h"

typedef enum ks_sheaves_variant {
    KS_SHEAVES_NOFIX = 0,     /* v6.18 .. v6.19-rc4 (f0b9d8eb98df): the empty main goes to the barn */
    KS_SHEAVES_FIX = 1,       /* the fix as committed (Babka's form; in linux-source-7.3) */
    KS_SHEAVES_FIX_V2 = 2,    /* Hao Li's v2 as posted (an early return before the put) */
    KS_SHEAVES_BASELINE = 3,  /* 3accabda4: vm_area_struct on sheaves, maple_node not */
    KS_SHEAVES_VARIANT_COUNT
} ks_sheaves_variant;

typedef enum ks_sheaves_placement {
    KS_SHEAVES_WIS_CORES = 0, /* will-it-scale default: task i -> hwloc core i mod ncores */
    KS_SHEAVES_WIS_PUS = 1,   /* will-it-scale -m: task i -> hwloc PU i mod npus (siblings adjacent) */
} ks_sheaves_placement;

typedef struct ks_sheaves_mmap2_config {
    char preset[32];              /* topology preset, e.g. "gnr-2s-snc" */
    int32_t variant;              /* ks_sheaves_variant */
    int32_t nospare;              /* bug toggle: no spare sheaf anywhere */
    int32_t placement;            /* ks_sheaves_placement */
    int32_t nr_tasks;             /* 1 .. CPUs of the preset */
    int32_t maple_capacity;       /* sheaf_capacity of maple_node (kernel: 32) */
    int32_t vma_capacity;         /* sheaf_capacity of vm_area_struct (kernel: 32) */
    int32_t barn_max;             /* MAX_FULL_SHEAVES = MAX_EMPTY_SHEAVES (kernel: 10) */
    int32_t maple_allocs_mmap, maple_rcu_mmap, maple_allocs_munmap, maple_rcu_munmap;
    uint32_t seed;                /* get_any_partial's remote_node_defrag_ratio draw */
    uint64_t work_ns;             /* everything but the two caches' allocator, per iteration */
    uint64_t rcu_gp_ns;           /* grace period (callbacks run at the second GP end after queueing) */
    uint64_t warmup_ns, measure_ns;
    uint64_t new_slab_ns;         /* page allocator: one slab (ASSUMPTION, said in the repro) */
    uint64_t kzalloc_sheaf_ns;    /* alloc_empty_sheaf's kzalloc (ASSUMPTION) */
    uint64_t barn_hold_ns;        /* core work inside barn->lock (ASSUMPTION) */
    uint64_t list_hold_ns;        /* core work inside list_lock per slab taken or returned (ASSUMPTION) */
    uint64_t fastpath_ns;         /* alloc_from_pcs / free_to_pcs / a freelist pop, core only (ASSUMPTION) */
    uint64_t tick_ns;             /* the scheduling-clock tick (CONFIG_HZ=250: 4 ms): RCU's softirq runs there */
} ks_sheaves_mmap2_config;

typedef struct ks_sheaves_mmap2_result {
    uint64_t iterations;          /* mmap+munmap pairs completed in the measured window, all tasks */
    double ops_per_sec_per_task;  /* will-it-scale's per_process_ops */
    double cpu_ns;                /* CPU time of all tasks in the window */
    uint64_t fn[KS_SHEAVES_FN_COUNT];   /* maple_node's counted calls in the window */
    uint64_t vma_fn[KS_SHEAVES_FN_COUNT]; /* vm_area_struct's */
    double part_ns[KS_COST_PARTS];  /* allocator time by cost part, all tasks, window */
    double barn_wait_ns, list_wait_ns; /* spinning on barn->lock / list_lock (in part_ns' lock_spin) */
    uint64_t barn_acquisitions, list_acquisitions;
    uint64_t barn_full_hits;      /* barn_replace_empty_sheaf calls that got a full sheaf */
    uint64_t sheaves_live_max;    /* largest number of maple_node sheaves at once */
    uint64_t events;              /* simulation steps (for the benchmark) */
} ks_sheaves_mmap2_result;

/* A counter's kernel function name ("barn_put_empty_sheaf"); NULL out of range. */
KS_API const char *ks_sheaves_fn_name(int32_t fn);

/* Fills a config with the kernel's values and the documented defaults (see the repro). */
KS_API void ks_sheaves_mmap2_defaults(ks_sheaves_mmap2_config *cfg);

/* Runs one point. KS_ERR_INVALID_ARG for a bad config (unknown preset, nr_tasks out of
 * range, capacity < 1 or > 1024, zero measure window, ...), KS_ERR_NO_MEMORY. */
KS_API int32_t ks_sheaves_mmap2_run(const ks_sheaves_mmap2_config *cfg,
                                    ks_sheaves_mmap2_result *out);

#endif
