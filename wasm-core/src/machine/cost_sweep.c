/*
 * The cost model v2's entry point: one burst (a sweep of an area's lines) costed
 * mechanism by mechanism (kscope/cost.h; the mechanisms are the other cost_*.c
 * files, each with its hardware behaviour and sources; docs/cost_model_v2.md).
 *
 *   1. residency   each group of lines: where it is now (C-state flush, capacity)
 *   2. prefetch    of the lines that miss L1, how many the stream prefetcher covers
 *   3. overlap     the memory time: core work, misses in flight, bandwidth
 *   4. TLB         page walks of the area's pages
 *   5. wake-up     the C-state's exit latency, if the burst's time includes it
 *   6. first touch page faults of pages the process writes for the first time
 *
 * The parts are added in index order into total_ns, so they sum to it exactly.
 */
#include <stddef.h>

#include "cost_internal.h"

static const char *const part_names[KS_COST_PARTS] = {
    [KS_COST_CORE] = "core",
    [KS_COST_L2] = "l2",
    [KS_COST_LLC] = "llc",
    [KS_COST_REMOTE] = "remote",
    [KS_COST_DRAM] = "dram",
    [KS_COST_RFO] = "rfo",
    [KS_COST_IDLE_FLUSH] = "idle_flush",
    [KS_COST_CAPACITY] = "capacity",
    [KS_COST_BANDWIDTH] = "bandwidth",
    [KS_COST_TLB] = "tlb",
    [KS_COST_CSTATE_EXIT] = "cstate_exit",
    [KS_COST_CONTENTION] = "contention",
    [KS_COST_LOCK_HANDOFF] = "lock_handoff",
    [KS_COST_LOCK_SPIN] = "lock_spin",
    [KS_COST_FIRST_TOUCH] = "first_touch",
};

const char *ks_cost_part_name(int32_t part)
{
    return part >= 0 && part < KS_COST_PARTS ? part_names[part] : NULL;
}

int cost_params_ok(const ks_cost_params *p)
{
    if (p->latency.core_mhz <= 0 || p->demand_mlp < 1 || p->prefetch_mlp < 0
        || p->prefetch_trigger_lines < 0 || p->page_bytes < KS_CACHE_LINE
        || p->sweep_cycles_per_line < 0 || p->stlb_entries < 0 || p->walk_levels < 0
        || p->walk_ns_measured < 0 || p->fabric_gbps_per_llc < 0 || p->dram_gbps_per_socket < 0
        || p->l1_bytes < 0 || p->l2_bytes < 0 || p->l3_bytes < 0
        || p->n_cstates < 0 || p->n_cstates > KS_COST_MAX_CSTATES || p->first_touch_ns_per_page < 0)
        return 0;
    for (int i = 0; i < KS_SRC_COUNT; i++)
        if (p->latency.cycles[i] < 0)
            return 0;
    for (int i = 0; i < p->n_cstates; i++)
        if (p->cstates[i].exit_ns < 0 || p->cstates[i].residency_ns < 0)
            return 0;
    return 1;
}

static int sweep_ok(const ks_cost_sweep *sw)
{
    if (sw->n_groups < 0 || sw->n_groups > KS_COST_MAX_GROUPS
        || (sw->order != KS_ORDER_SEQUENTIAL && sw->order != KS_ORDER_RANDOM)
        || (sw->is_store != 0 && sw->is_store != 1) || (sw->wake_in_burst != 0 && sw->wake_in_burst != 1)
        || sw->page_offset < 0 || sw->background_private_bytes_per_us < 0
        || sw->background_llc_bytes_per_us < 0 || sw->streams_per_llc < 0 || sw->streams_per_socket < 0
        || sw->first_touch_pages < 0)
        return 0;
    uint64_t lines = 0;
    for (int i = 0; i < sw->n_groups; i++) {
        const ks_cost_lines *g = &sw->groups[i];
        if (g->where < 0 || g->where >= KS_WHERE_COUNT || (g->state != KS_LINE_CLEAN && g->state != KS_LINE_DIRTY)
            || (g->home_remote != 0 && g->home_remote != 1))
            return 0;
        lines += g->lines;
    }
    return lines <= UINT32_MAX;
}

int32_t ks_cost_sweep_run(const ks_cost_params *p, const ks_cost_sweep *sw, ks_cost_result *out)
{
    if (!p || !sw || !out || !cost_params_ok(p) || !sweep_ok(sw))
        return KS_ERR_INVALID_ARG;
    *out = (ks_cost_result){ .cstate = cost_cstate_reached(p, sw->idle_ns) };

    cost_run runs[KS_COST_MAX_GROUPS * COST_RUNS_PER_GROUP];
    int n = 0;
    uint32_t lines = 0;
    for (int i = 0; i < sw->n_groups; i++) {
        n += cost_place_group(p, sw, &sw->groups[i], runs + n, out);
        lines += sw->groups[i].lines;
    }
    out->lines = lines;

    uint32_t missing = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].src != KS_SRC_L1)
            missing += runs[i].lines;
    uint32_t demand = cost_demand_misses(p, sw->order, cost_pages(p, sw->page_offset, lines), missing);
    out->lines_prefetched = missing - demand;
    cost_overlap(p, sw, runs, n, missing ? (double)demand / missing : 1.0, out);

    cost_tlb(p, sw, lines, out);
    if (sw->wake_in_burst && out->cstate >= 0)
        out->part_ns[KS_COST_CSTATE_EXIT] = (double)p->cstates[out->cstate].exit_ns;

    cost_first_touch(p, sw, out);

    double extra = out->part_ns[KS_COST_TLB] + out->part_ns[KS_COST_CSTATE_EXIT]
                 + out->part_ns[KS_COST_FIRST_TOUCH];
    out->serial_ns += extra;
    for (int i = 0; i < KS_COST_PARTS; i++)
        out->total_ns += out->part_ns[i];
    return KS_OK;
}
