/*
 * kscope/native/cost.h: the cost model v2's functions (the types are kscope/cost.h's).
 * Native only: the backend, the C tests and tools call them; the browser's wasm build
 * does not export them until a browser view calls one (scripts/check-exports.mjs).
 */
#ifndef KSCOPE_NATIVE_COST_H
#define KSCOPE_NATIVE_COST_H

#include "kscope/cost.h"

/* The preset's figures (a documented generic set for imported topologies). */
KS_API int32_t ks_topology_cost_params(const ks_topology *topo, ks_cost_params *out);


/* Costs one burst. KS_ERR_INVALID_ARG when an argument is NULL, params are unusable
 * (clock <= 0, demand_mlp < 1, a negative figure, n_cstates out of [0, 4]) or the sweep is
 * (n_groups out of [0, KS_COST_MAX_GROUPS], where/state/order/flags out of range, a
 * negative rate, offset or first_touch_pages, more than 2^32 - 1 lines). */
KS_API int32_t ks_cost_sweep_run(const ks_cost_params *params, const ks_cost_sweep *sweep,
                                 ks_cost_result *out);

/* ---- a contended line and a queued lock -------------------------------------- */

/* n accessors each touch one line over and over (a store or an atomic each time, or a
 * load after another accessor's store), think_ns of other work between touches; the
 * line moves between them at the given distance (KS_SRC_SAME_LLC_CORE ...). Result:
 * the mean time of one touch (core + transfer + contention). */
KS_API int32_t ks_cost_contended_line(const ks_cost_params *params, int32_t accessors,
                                      int32_t distance, double think_ns, ks_cost_result *out);

/* One acquisition of a queued (MCS-style) spinlock that finds `waiters` ahead of it:
 * each earlier waiter holds it for hold_ns of work plus cs_lines lines it fetches
 * from the previous holder, then hands it on; this one spins until its turn, takes
 * the hand-off, and runs its own critical section. Hand-offs and lines move at the
 * given distance. */
KS_API int32_t ks_cost_mcs_acquire(const ks_cost_params *params, int32_t waiters,
                                   int32_t distance, double hold_ns, int32_t cs_lines,
                                   ks_cost_result *out);

/* A sweep of `object` from `cpu` at now_ns, described from the v1 cache model's line
 * state (src/machine/cost_from_cache.c says how): fills sweep->groups, n_groups and
 * since_own_touch_ns; the caller sets the other fields (order, is_store, idle_ns,
 * background, first_touch_pages). core_idle_ns[core] is how long each core (by
 * topology core id) has been idle at now_ns, 0 if running; NULL: every holder busy.
 * KS_ERR_INVALID_ARG for a NULL cache or sweep, or a cpu / object out of range. */
KS_API int32_t ks_cost_sweep_from_cache(const ks_cache *cache, int32_t cpu, int32_t object,
                                        uint64_t now_ns, const uint64_t *core_idle_ns,
                                        ks_cost_sweep *sweep);

/* One request for a line at now_ns whose data comes from `source` (ks_cache_source, as
 * the v1 cache model found it). needs_transfer = 1 (a load of a line Modified in another
 * cache, a store or locked RMW that must fetch or invalidate another copy): the request
 * takes the first instant >= now_ns at which one transfer from source fits between the
 * line's reserved transfers (first come, first served in time: a line moves to one
 * requester at a time), and reserves it; out's parts are CONTENTION (the wait) and the
 * source's part (REMOTE for another core, LLC, DRAM...). needs_transfer = 0 (own cache, or
 * a clean copy read): no queue, the source's latency alone. KS_ERR_INVALID_ARG on NULL, a
 * source out of range or a negative time. */
KS_API int32_t ks_cost_line_request(const ks_cost_params *params, ks_cost_line_server *line,
                                    double now_ns, int32_t source, int32_t needs_transfer,
                                    ks_cost_result *out);

#endif
