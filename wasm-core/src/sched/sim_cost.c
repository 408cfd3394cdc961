/*
 * Which cost model prices the simulation's bursts (kscope/native/sim_cost.h), and the
 * per-burst parts of v2's breakdown. The pricing itself is the driver's (driver.c,
 * sweep()); this file holds the selection and the accessors.
 *
 * The selection is configuration, like the cache parameters: it is folded into the
 * config hash, so a snapshot of a v2 run does not restore into a v1 simulation. It
 * can only change before the first step; the step-0 checkpoint is retaken with the
 * new hash (its state is unchanged).
 */
#include <string.h>

#include "sim_internal.h"

static uint64_t mix(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int32_t ks_sim_set_cost_model(ks_sim *sim, int32_t model, const ks_cost_params *params)
{
    if (!sim || sim->core.step != 0 || (model != KS_COST_MODEL_V1 && model != KS_COST_MODEL_V2))
        return KS_ERR_INVALID_ARG;
    ks_cost_params p;
    int32_t rc = params ? (p = *params, KS_OK) : ks_topology_cost_params(sim->topo, &p);
    if (rc != KS_OK)
        return rc;
    ks_cost_sweep probe = { 0 };
    ks_cost_result r;
    if (ks_cost_sweep_run(&p, &probe, &r) != KS_OK)    /* the same checks as every burst's */
        return KS_ERR_INVALID_ARG;
    sim->cost_model = model;
    sim->cost_params = p;
    sim->config_hash = mix(mix(sim->config_hash, &model, sizeof model), &p, sizeof p);
    sim_checkpoints_free(sim);
    return sim_checkpoint_take(sim);
}

int32_t ks_sim_cost_model(const ks_sim *sim)
{
    return sim && sim->cost_model == KS_COST_MODEL_V2 ? KS_COST_MODEL_V2 : KS_COST_MODEL_V1;
}

const ks_cost_parts *ks_sim_burst_parts(const ks_sim *sim)
{
    return sim ? sim->burst_parts : NULL;
}
