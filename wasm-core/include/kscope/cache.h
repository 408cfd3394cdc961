/*
 * kscope/cache.h: the cache-line cost model.
 *
 * Simulated memory is a set of named objects (`mm->cidmask`, the per-cid
 * 16 KiB data areas, `cpupri_vec[p].mask`, `barn->lock`, ...) laid out in
 * 64-byte lines. Every load or store from a CPU updates that line's coherence
 * state, tracked per core's private caches (L1d+L2) and per LLC, and returns
 * its cost in cycles and ns from the preset's latency table:
 *
 *     own L1 < own L2 < own LLC < another core's cache in the same LLC
 *            < another LLC, same socket < another socket < local DRAM < remote DRAM
 *
 * (DRAM may be cheaper than a cross-socket transfer on some machines: the table
 * says, the model does not assume an order beyond the private < LLC < remote chain.)
 *
 * Eviction is a documented time decay: a copy nobody touched for longer than
 * capacity / background-traffic-rate is gone (ks_cache_params). This is how a
 * 16 KiB area "goes cold" while other work runs between two bursts.
 *
 * Per line and per 8-byte word the model counts loads, stores and local and
 * remote HITM (a load that hits a line Modified in another core's cache, in the
 * same / another NUMA node) — the columns `perf c2c` reports.
 */
#ifndef KSCOPE_CACHE_H
#define KSCOPE_CACHE_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/topology.h"

#define KS_CACHE_LINE 64
#define KS_CACHE_WORD 8

/* Where an access was served from: indexes ks_access_cost.lines_from. */
typedef enum ks_cache_source {
    KS_SRC_L1 = 0,
    KS_SRC_L2,
    KS_SRC_LLC,            /* own LLC, clean or owned by no private cache */
    KS_SRC_SAME_LLC_CORE,  /* another core's private cache, same LLC */
    KS_SRC_OTHER_LLC,      /* another LLC, same socket */
    KS_SRC_OTHER_SOCKET,   /* a cache in another socket */
    KS_SRC_DRAM_LOCAL,
    KS_SRC_DRAM_REMOTE,
    KS_SRC_COUNT
} ks_cache_source;

/* Load-to-use latencies in core cycles, per source; attached to each preset. */
typedef struct ks_latency_table {
    int32_t core_mhz;                   /* converts cycles to ns */
    int32_t cycles[KS_SRC_COUNT];       /* indexed by ks_cache_source */
} ks_latency_table;
_Static_assert(sizeof(ks_latency_table) == 36, "ks_latency_table: 9 x int32");

/* The preset's latency table (a documented generic table for imported topologies). */
KS_API int32_t ks_topology_latency(const ks_topology *topo, ks_latency_table *out);

/* Eviction by time decay. A copy in a core's L1d survives l1d_bytes / private rate ns
 * untouched, in L2 l2_bytes / private rate, in the LLC l3_bytes / llc rate. Rates are
 * bytes of other work per microsecond; 0 means "never evicted". */
typedef struct ks_cache_params {
    int32_t private_background_bytes_per_us;
    int32_t llc_background_bytes_per_us;
    int32_t track_words;                /* 1: keep per-8-byte-word counters */
    int32_t reserved;
} ks_cache_params;
_Static_assert(sizeof(ks_cache_params) == 16, "ks_cache_params: 4 x int32");

/* The defaults, with their sources documented in src/machine/cache_model.c. */
KS_API void ks_cache_default_params(ks_cache_params *out);

/* Result of one access (possibly several lines). */
typedef struct ks_access_cost {
    uint64_t cycles;
    uint64_t ns;
    uint32_t lines;
    uint32_t lines_from[KS_SRC_COUNT];  /* how many lines came from each source */
    uint32_t local_hitm;
    uint32_t remote_hitm;
    uint32_t reserved;
} ks_access_cost;
_Static_assert(sizeof(ks_access_cost) == 64, "ks_access_cost: 2 x u64 + 12 x u32");

/* perf c2c-style counters of one line or word. */
typedef struct ks_line_stats {
    uint32_t loads;
    uint32_t stores;
    uint32_t local_hitm;
    uint32_t remote_hitm;
} ks_line_stats;
_Static_assert(sizeof(ks_line_stats) == 16, "ks_line_stats: 4 x u32");

/* Where a line lives now, for views ("which LLC holds this area"). */
typedef struct ks_line_place {
    int32_t owner_core;    /* core holding it Modified/Exclusive, -1 if none */
    int32_t owner_llc;     /* LLC of owner_core, or the LLC that last held it; -1 if uncached */
    int32_t sharers;       /* number of private caches holding a valid copy */
    int32_t state;         /* 0 = I, 1 = S, 2 = E, 3 = M (as seen machine-wide) */
} ks_line_place;
_Static_assert(sizeof(ks_line_place) == 16, "ks_line_place: 4 x int32");

typedef struct ks_cache ks_cache;

KS_API int32_t ks_cache_new(const ks_topology *topo, const ks_cache_params *params, ks_cache **out);
KS_API void ks_cache_free(ks_cache *cache);

/* Registers a named object of size_bytes (rounded up to whole lines) whose DRAM home
 * is home_node. *out_id receives its id (dense, from 0). */
KS_API int32_t ks_cache_add_object(ks_cache *cache, const char *name, uint32_t size_bytes,
                                   int32_t home_node, int32_t *out_id);
KS_API int32_t ks_cache_object_count(const ks_cache *cache);
KS_API const char *ks_cache_object_name(const ks_cache *cache, int32_t object);
KS_API uint32_t ks_cache_object_lines(const ks_cache *cache, int32_t object);

/* A load (is_store = 0) or store of len bytes at offset in object, from cpu, at now_ns.
 * Costs add up line by line (no memory-level parallelism: a simplification). */
KS_API int32_t ks_cache_access(ks_cache *cache, int32_t cpu, int32_t object, uint32_t offset,
                               uint32_t len, int32_t is_store, uint64_t now_ns,
                               ks_access_cost *out);

/* Counters and placement, as contiguous arrays (one typed-array view each in JS):
 * line_stats/line_places have ks_cache_object_lines() entries, word_stats 8 per line
 * (NULL unless params.track_words). Valid until the next access. */
KS_API const ks_line_stats *ks_cache_line_stats(const ks_cache *cache, int32_t object);
KS_API const ks_line_stats *ks_cache_word_stats(const ks_cache *cache, int32_t object);
KS_API const ks_line_place *ks_cache_line_places(ks_cache *cache, int32_t object, uint64_t now_ns);

/* Whole-state snapshot for stepping back: size, save into buf, restore from buf. */
KS_API uint32_t ks_cache_snapshot_size(const ks_cache *cache);
KS_API int32_t ks_cache_snapshot_save(const ks_cache *cache, void *buf, uint32_t len);
KS_API int32_t ks_cache_snapshot_restore(ks_cache *cache, const void *buf, uint32_t len);

#endif
