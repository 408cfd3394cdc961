/*
 * Internal: the pieces of the cost model v2 (kscope/cost.h), one mechanism per file:
 *
 *   cost_residency.c   where a group of lines is now: C-state flush, capacity eviction
 *   cost_prefetch.c    which misses the stream prefetcher covers (4 KiB pages)
 *   cost_overlap.c     misses in flight and bandwidth: the burst's memory time, and
 *                      how it splits into the parts
 *   cost_tlb.c         page walks
 *   cost_fault.c       first-touch page faults
 *   cost_contention.c  a line with N accessors (a closed queue)
 *   cost_mcs.c         a queued spinlock's hand-off
 *   cost_sweep.c       the entry point that puts them together; part names
 *   cost_tables.c      the per-machine figures (with latency_tables.c)
 */
#ifndef KSCOPE_MACHINE_COST_INTERNAL_H
#define KSCOPE_MACHINE_COST_INTERNAL_H

#include <stdint.h>

#include "kscope/native/cost.h"

/* A group of lines after residency: where its first trip goes, and why. */
typedef struct cost_run {
    uint32_t lines;
    int32_t src;        /* ks_cache_source of the first trip; KS_SRC_L1 = a hit */
    int32_t rfo_src;    /* source of the ownership trip, -1 if none */
    int32_t reason;     /* ks_cost_part the first trip's time is charged to */
    int32_t hitm;       /* 1: the first trip reads a line Modified elsewhere */
} cost_run;

/* At most this many runs come out of one group (see cost_residency.c). */
#define COST_RUNS_PER_GROUP 6

/* cost_residency.c */
int32_t cost_cstate_reached(const ks_cost_params *p, uint64_t idle_ns);
/* Fraction of lines still resident after `bytes` of other data passed through a cache
 * of `capacity` bytes (1 when bytes == 0). */
double cost_survival(double bytes, double capacity);
/* Bytes a background rate (bytes per us) moves in ns. */
double cost_background_bytes(int32_t bytes_per_us, uint64_t ns);
/* Splits group g of the sweep into runs; returns how many (<= COST_RUNS_PER_GROUP) and
 * adds to out's lines_idle_flushed / lines_capacity_evicted. */
int cost_place_group(const ks_cost_params *p, const ks_cost_sweep *sw, const ks_cost_lines *g,
                     cost_run *runs, ks_cost_result *out);

/* cost_prefetch.c */
uint32_t cost_pages(const ks_cost_params *p, int32_t page_offset, uint32_t lines);
/* Of `missing` lines spread over `pages` pages, how many are demand misses (the rest
 * are prefetched). */
uint32_t cost_demand_misses(const ks_cost_params *p, int32_t order, uint32_t pages,
                            uint32_t missing);

/* cost_overlap.c: the memory time of the runs with demand_fraction of their first
 * trips demand misses; fills part_ns (CORE, the runs' reasons, RFO, BANDWIDTH),
 * serial_ns, overlap_saved_ns, bound. */
void cost_overlap(const ks_cost_params *p, const ks_cost_sweep *sw, const cost_run *runs, int n,
                  double demand_fraction, ks_cost_result *out);

/* Latency of one trip to src, in ns, at the table's clock. */
double cost_trip_ns(const ks_cost_params *p, int32_t src);

/* cost_tlb.c: page walks of the sweep: fills part_ns[KS_COST_TLB], pages, pages_walked. */
void cost_tlb(const ks_cost_params *p, const ks_cost_sweep *sw, uint32_t lines, ks_cost_result *out);

/* cost_fault.c: the page faults of first-touch pages: part_ns[KS_COST_FIRST_TOUCH], pages_faulted. */
void cost_first_touch(const ks_cost_params *p, const ks_cost_sweep *sw, ks_cost_result *out);

/* cost_sweep.c: 1 if params can be used. */
int cost_params_ok(const ks_cost_params *p);

#endif
