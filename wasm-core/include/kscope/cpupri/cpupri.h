/*
 * kscope/cpupri/cpupri.h: what the cpupri model's views read from a simulation that runs
 * the RT priority map (algo "cpupri:global", "cpupri:pernode", "cpupri:pernode-kscope";
 * "+unordered_set" drops cpupri_set's ordering, the bug toggle; see src/algo/cpupri/ for
 * the model and its sources).
 *
 * The browser and the backend read it through the one generic export,
 * ks_sim_model_view_get (kscope/sim.h): the caller writes a ks_cpupri_view_request at the
 * start of its buffer and gets the view's bytes back in the same buffer:
 *
 *     KS_CPUPRI_VIEW_SUMMARY  one ks_cpupri_summary: counts of sets and searches, the
 *                             modelled time of every access (and its waiting part)
 *     KS_CPUPRI_VIEW_C2C      ks_cpupri_c2c_row[]: perf c2c's per-offset, per-symbol rows
 *                             for every line the model touched, from row `first` on,
 *                             as many as fit (the summary's nr_rows says how many exist)
 *     KS_CPUPRI_VIEW_LEVELS   int32_t per CPU: its cpupri level (cp->cpu_to_pri)
 *
 * Every view answers KS_ERR_RANGE when the buffer is too small for one item, and the
 * generic export answers KS_ERR_NOT_FOUND when the simulation runs another model.
 */
#ifndef KSCOPE_CPUPRI_H
#define KSCOPE_CPUPRI_H

#include <stdint.h>
#include "kscope/status.h"

typedef enum ks_cpupri_variant {
    KS_CPUPRI_GLOBAL = 0,          /* v6.12 stock: one bitmap and one count per level */
    KS_CPUPRI_PERNODE = 1,         /* seed 001 (Pan Deng v2 4/4): node bitmaps, global counts */
    KS_CPUPRI_PERNODE_KSCOPE = 2,  /* kscope-patches/cpupri-per-node 0001: node blocks */
} ks_cpupri_variant;

#define KS_CPUPRI_FLAG_UNORDERED_SET 1   /* "+unordered_set": the bug toggle */

typedef enum ks_cpupri_view {
    KS_CPUPRI_VIEW_SUMMARY = 1,
    KS_CPUPRI_VIEW_C2C = 2,
    KS_CPUPRI_VIEW_LEVELS = 3,
} ks_cpupri_view;

typedef struct ks_cpupri_view_request {
    int32_t view;                  /* ks_cpupri_view */
    int32_t first;                 /* KS_CPUPRI_VIEW_C2C: first row */
} ks_cpupri_view_request;
_Static_assert(sizeof(ks_cpupri_view_request) == 8, "ks_cpupri_view_request: 2 x int32");

typedef struct ks_cpupri_summary {
    int32_t variant;               /* ks_cpupri_variant */
    int32_t flags;                 /* KS_CPUPRI_FLAG_* */
    int32_t nr_cpus, nr_nodes;
    int32_t nr_rows;               /* c2c rows (KS_CPUPRI_VIEW_C2C) */
    int32_t mask_bytes;            /* cpumask_size(): one level's bitmap */
    int32_t set_cpus;              /* CPUs that ran cpupri_set (the lines' writers) */
    int32_t reserved;
    uint64_t sets;                 /* cpupri_set calls that changed a level */
    uint64_t finds;                /* cpupri_find calls */
    uint64_t finds_found;          /* ... that returned a level */
    uint64_t nodes_scanned;        /* bitmaps loaded, as kscope_cpupri_find counts them */
    uint64_t finds_changed_by_inflight;  /* answers an in-flight cpupri_set changed */
    uint64_t accesses;             /* modelled loads, stores and locked RMWs */
    uint64_t mask_line_served;     /* the hottest bitmap line's queued requests */
    double access_ns;              /* their modelled time, summed over CPUs */
    double wait_ns;                /* of which waiting behind other requests of a line */
    double mask_line_busy_ns;      /* the hottest bitmap line's transfer time (its utilisation) */
    double mask_line_wait_ns;      /* ... and its requests' summed waits */
    double now_ns;                 /* the simulation time of this view */
} ks_cpupri_summary;
_Static_assert(sizeof(ks_cpupri_summary) == 8 * 4 + 7 * 8 + 5 * 8,
               "ks_cpupri_summary: no hidden padding");

/*
 * One perf c2c row: an 8-byte word of a line, and the kernel symbol that touched it.
 * Loads are "sampled" as perf's default x86 load event does (ldlat=30: latency >= 30
 * cycles); load_cycles_sum is over sampled loads, so load_cycles_sum / sampled_loads is
 * the row's "Load cycles". Stores are all counted; store_l1_hit are stores to a line the
 * CPU owned (a locked RMW's store after its own read for ownership is one).
 */
typedef struct ks_cpupri_c2c_row {
    char object[40];               /* "cpupri_vec[0].mask", "cpupri_vec[0].masks[1]", ... */
    char symbol[32];               /* "_find_first_and_bit", "__bitmap_and", "cpupri_set" */
    int32_t level;                 /* cpupri level of the object, -1 if none */
    int32_t node;                  /* node of a per-node object, -1 if global */
    uint32_t offset;               /* byte offset of the word in the object */
    uint32_t line_offset;          /* offset of the word in its 64-byte line ("Data offset") */
    uint32_t loads, sampled_loads;
    uint32_t local_hitm, remote_hitm;
    uint32_t stores, store_l1_hit, store_l1_miss;
    uint32_t reserved;
    double load_cycles_sum;        /* over sampled loads */
    double wait_cycles_sum;        /* of which waiting behind other requests of the line */
} ks_cpupri_c2c_row;
_Static_assert(sizeof(ks_cpupri_c2c_row) == 40 + 32 + 12 * 4 + 2 * 8,
               "ks_cpupri_c2c_row: no hidden padding");

#endif
