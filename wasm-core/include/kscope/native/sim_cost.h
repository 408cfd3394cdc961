/*
 * kscope/native/sim_cost.h: a simulation's cost model, for native callers. The selection
 * and the bursts' parts (ks_sim_set_cost_model, ks_sim_burst_parts) are browser API since
 * the lesson's cost breakdown calls them (kscope/sim_cost.h); this header adds the cost
 * model's own functions (kscope/native/cost.h) that native callers use beside them.
 */
#ifndef KSCOPE_NATIVE_SIM_COST_H
#define KSCOPE_NATIVE_SIM_COST_H

#include "kscope/sim_cost.h"
#include "kscope/native/cost.h"

#endif
