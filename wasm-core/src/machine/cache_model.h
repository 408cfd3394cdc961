/*
 * Internal: the state behind kscope/cache.h, shared by cache_model.c (the
 * model) and cache_snapshot.c (save/restore). See the essay at the top of
 * cache_model.c for what the fields mean.
 */
#ifndef KSCOPE_MACHINE_CACHE_MODEL_H
#define KSCOPE_MACHINE_CACHE_MODEL_H

#include <stdint.h>

#include "kscope/cache.h"

/* Bounded holder lists: at most this many private caches and LLCs hold a line at
 * once (the rest are treated as evicted; see "Approximations" in cache_model.c). */
#define LINE_PRIV_SLOTS 8
#define LINE_LLC_SLOTS 8
#define WORDS_PER_LINE (KS_CACHE_LINE / KS_CACHE_WORD)

/* Private-copy states (MESI without I: an invalid copy has no slot). */
enum { PRIV_S = 1, PRIV_E = 2, PRIV_M = 3 };

/* One 64-byte line's coherence state. Slots [0, n_priv) and [0, n_llc) are live;
 * times are the ns of the holder's last touch. No padding: snapshots memcpy it. */
typedef struct line_state {
    uint64_t priv_time[LINE_PRIV_SLOTS];
    uint64_t llc_time[LINE_LLC_SLOTS];
    uint16_t priv_core[LINE_PRIV_SLOTS];
    uint16_t llc_id[LINE_LLC_SLOTS];
    uint8_t priv_state[LINE_PRIV_SLOTS];
    uint8_t n_priv;
    uint8_t n_llc;
    uint8_t pad[6];
} line_state;
_Static_assert(sizeof(line_state) == 176, "line_state: no hidden padding");

typedef struct cache_object {
    char *name;
    uint32_t size_bytes;
    uint32_t lines;
    uint32_t first_line;        /* index into ks_cache.lines / line_stats */
    int32_t home_node;
} cache_object;

struct ks_cache {
    ks_cache_params params;
    ks_latency_table table;

    /* Topology, flattened so the access path is a few array loads. */
    int32_t cpus, cores, llcs, nodes, sockets;
    int32_t *cpu_core;          /* [cpus] */
    int32_t *cpu_node;          /* [cpus] */
    int32_t *core_llc;          /* [cores] */
    int32_t *core_node;         /* [cores] */
    int32_t *core_socket;       /* [cores] */
    int32_t *llc_socket;        /* [llcs] */
    int32_t *node_sockets;      /* [nodes * sockets]: the sockets a node's CPUs sit on */
    int32_t *node_socket_count; /* [nodes]: 0 for a node without CPUs */

    /* Cache sizes (bytes) and the residencies they give, in ns (UINT64_MAX: never
     * evicted), recomputed by cache_apply_params. */
    uint64_t l1_bytes, l2_bytes, l3_bytes;
    uint64_t l1_ns, l2_ns, llc_ns;

    int32_t n_objects, cap_objects;
    cache_object *objects;
    uint32_t n_lines, cap_lines;
    line_state *lines;
    ks_line_stats *line_stats;
    ks_line_stats *word_stats;  /* WORDS_PER_LINE per line, NULL unless track_words */
    ks_line_place *places;      /* scratch for ks_cache_line_places: max object lines */
    uint32_t cap_places;
};

/* cache_model.c: KS_OK if params are usable (rates >= 0, track_words 0 or 1). */
int32_t cache_check_params(const ks_cache_params *params);
/* cache_model.c: installs params and recomputes the residencies (new, restore). */
void cache_apply_params(ks_cache *cache, const ks_cache_params *params);
/* cache_model.c: frees the objects and per-line arrays (not the topology maps). */
void cache_free_objects(ks_cache *cache);

#endif
