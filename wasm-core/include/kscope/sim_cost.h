/*
 * kscope/sim_cost.h: which cost model prices a simulation's bursts, and each burst's
 * cost by mechanism (cost model v2's parts, kscope/cost.h).
 *
 * v1 (the default) charges a burst what the cache model's accesses cost, one line after
 * another (kscope/cache.h). v2 keeps v1's line state (where each line is) and prices the
 * burst with the cost model v2 (kscope/native/cost.h): overlapped misses, prefetch,
 * C-state flushes of idle cores, capacity eviction by the background traffic (the cache
 * params' rates, an explicit workload parameter), page walks, and first-touch faults of
 * areas never written before (src/sched/driver.c, src/sched/sim_cost.c say how).
 * Browser API: the lesson's cost breakdown selects v2 and reads each burst's parts.
 */
#ifndef KSCOPE_SIM_COST_H
#define KSCOPE_SIM_COST_H

#include "kscope/sim.h"
#include "kscope/cost.h"

#define KS_COST_MODEL_V1 1
#define KS_COST_MODEL_V2 2

/* Selects the model that prices sim's bursts: KS_COST_MODEL_V1 or _V2, with v2's
 * figures (NULL: the topology's preset, ks_topology_cost_params). Only before the first
 * step (a run prices all its bursts one way): KS_ERR_INVALID_ARG after it, for an
 * unknown model, or for params ks_cost_sweep_run would reject. Snapshots of a run
 * restore only into a simulation with the same model and figures. */
KS_API int32_t ks_sim_set_cost_model(ks_sim *sim, int32_t model, const ks_cost_params *params);
KS_API int32_t ks_sim_cost_model(const ks_sim *sim);

/* The parts of each burst, parallel to ks_sim_burst_costs (ks_sim_burst_count entries;
 * a warm-up's are all its sweeps'). Under v1 every part is 0. Valid until the next call
 * that steps, seeks or restores sim. */
KS_API const ks_cost_parts *ks_sim_burst_parts(const ks_sim *sim);

#endif
