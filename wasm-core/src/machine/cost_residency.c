/*
 * Residency: where a group of lines is by the time the burst touches it.
 *
 * The caller says where the lines were left (this core's private caches, another
 * core's, an LLC, memory), in what state, how long ago, and how long the holding core
 * has idled since. Two mechanisms move them before the burst comes:
 *
 * 1. A deep C-state empties the private caches. An idle CPU's governor (menu/teo)
 *    picks the deepest state whose target residency fits the idle it expects; a
 *    core in C6 (Intel) or CC6 (AMD) is power-gated, so its L1 and L2 are written
 *    back and emptied first, and its TLBs are lost [C6-flush], [intel_idle] in
 *    cost_tables.c. So after an idle longer than the C6 residency (800 us on
 *    Sapphire Rapids), every line this core held comes from the LLC, clean: one
 *    trip, Exclusive. If the holder is another core that idled that long, its dirty
 *    lines were written back to ITS LLC: they come from there, clean, in one trip,
 *    instead of a HITM plus an ownership trip.
 *    Simplified: the governor is an oracle (it predicts the idle it gets: true for a
 *    periodic sleeper, not for a first sleep); in a VM the host decides instead.
 *
 * 2. Other work evicts them by capacity. Background traffic is an explicit workload
 *    parameter (ks_cost_sweep.background_*_bytes_per_us, 0 = none): a core that runs
 *    other work streams that many bytes through its own L1/L2 while it runs (not
 *    while it idles); all the cores of an LLC stream their rate through it, idle or
 *    not. A line survives B bytes of other data through a cache of C bytes with
 *    probability (1 - 64/C)^(B/64) ~ exp(-B/C): each new line evicts a given
 *    resident one with probability 64/C under random replacement. DERIVED; real
 *    caches use LRU-like policies, for which survival is closer to a step at B = C
 *    (what cache_model.c's v1 decay uses); exp(-B/C) is the smooth middle. Lines that
 *    leave L2 land in the LLC as victims (Zen's L3 is a victim cache; Intel's
 *    non-inclusive L3 usually keeps L2 victims: ASSUMPTION for Intel).
 *
 * Counts are expected values, rounded per split: a group of n lines with survival f
 * keeps round(n * f) in place.
 *
 * Not modelled: the burst's own footprint evicting itself (an area larger than L1
 * still "hits" L1 if it was left there; the seeds' areas are 16 KiB), write-back
 * traffic of the evicted dirty lines, and which LLC ways other work really uses.
 */
#include <math.h>

#include "cost_internal.h"

int32_t cost_cstate_reached(const ks_cost_params *p, uint64_t idle_ns)
{
    int32_t reached = -1;
    if (idle_ns == 0)
        return -1;
    for (int32_t i = 0; i < p->n_cstates && i < KS_COST_MAX_CSTATES; i++)
        if ((uint64_t)p->cstates[i].residency_ns <= idle_ns)
            reached = i;
    return reached;
}

double cost_survival(double bytes, double capacity)
{
    if (bytes <= 0)
        return 1.0;
    if (capacity <= 0)
        return 0.0;
    return exp(-bytes / capacity);
}

double cost_background_bytes(int32_t bytes_per_us, uint64_t ns)
{
    return bytes_per_us > 0 ? (double)bytes_per_us * ((double)ns / 1000.0) : 0.0;
}

static uint32_t share(uint32_t n, double fraction)
{
    double v = floor((double)n * fraction + 0.5);
    return v <= 0 ? 0 : v >= n ? n : (uint32_t)v;
}

static int push(cost_run *runs, int n, uint32_t lines, int32_t src, int32_t rfo_src,
                int32_t reason, int32_t hitm)
{
    if (lines == 0)
        return n;
    runs[n] = (cost_run){ .lines = lines, .src = src, .rfo_src = rfo_src, .reason = reason,
                          .hitm = hitm };
    return n + 1;
}

static int32_t dram_src(const ks_cost_lines *g)
{
    return g->home_remote ? KS_SRC_DRAM_REMOTE : KS_SRC_DRAM_LOCAL;
}

/* `lines` sit in an LLC (`src` seen from the burst's core) for `ns`: those the LLC's
 * background evicts go to memory (charged to capacity; counted as evicted unless
 * they already were, on their way out of a private cache); the rest come from src,
 * charged to `reason`. */
static int from_llc(const ks_cost_params *p, const ks_cost_sweep *sw, const ks_cost_lines *g,
                    uint32_t lines, int32_t src, uint64_t ns, int32_t reason, cost_run *runs,
                    int n, ks_cost_result *out)
{
    double f = cost_survival(cost_background_bytes(sw->background_llc_bytes_per_us, ns),
                             (double)p->l3_bytes);
    uint32_t kept = share(lines, f);
    if (reason != KS_COST_CAPACITY)
        out->lines_capacity_evicted += lines - kept;
    n = push(runs, n, kept, src, -1, reason, 0);
    return push(runs, n, lines - kept, dram_src(g), -1, KS_COST_CAPACITY, 0);
}

/* The LLC a remote holder's lines fall into, seen from the burst's core. */
static int32_t holder_llc_src(int32_t where)
{
    switch (where) {
    case KS_WHERE_SAME_LLC_CORE: return KS_SRC_LLC;
    case KS_WHERE_OTHER_LLC: return KS_SRC_OTHER_LLC;
    default: return KS_SRC_OTHER_SOCKET;
    }
}

static int32_t holder_core_src(int32_t where)
{
    switch (where) {
    case KS_WHERE_SAME_LLC_CORE: return KS_SRC_SAME_LLC_CORE;
    case KS_WHERE_OTHER_LLC: return KS_SRC_OTHER_LLC;
    default: return KS_SRC_OTHER_SOCKET;
    }
}

static int own_private(const ks_cost_params *p, const ks_cost_sweep *sw, const ks_cost_lines *g,
                       cost_run *runs, ks_cost_result *out)
{
    int n = 0;
    int32_t cs = cost_cstate_reached(p, sw->idle_ns);
    if (cs >= 0 && p->cstates[cs].flushes_private) {
        out->lines_idle_flushed += g->lines;
        uint64_t in_llc = sw->idle_ns < g->age_ns ? sw->idle_ns : g->age_ns;
        return from_llc(p, sw, g, g->lines, KS_SRC_LLC, in_llc, KS_COST_IDLE_FLUSH, runs, n, out);
    }
    uint64_t ran = g->age_ns > sw->idle_ns ? g->age_ns - sw->idle_ns : 0;
    double b = cost_background_bytes(sw->background_private_bytes_per_us, ran);
    uint32_t in_l1 = share(g->lines, cost_survival(b, (double)p->l1_bytes));
    uint32_t in_priv = share(g->lines, cost_survival(b, (double)p->l2_bytes));
    if (in_priv < in_l1)
        in_priv = in_l1;
    n = push(runs, n, in_l1, KS_SRC_L1, -1, KS_COST_CORE, 0);
    n = push(runs, n, in_priv - in_l1, KS_SRC_L2, -1, KS_COST_L2, 0);
    uint32_t evicted = g->lines - in_priv;
    out->lines_capacity_evicted += evicted;
    return from_llc(p, sw, g, evicted, KS_SRC_LLC, g->age_ns, KS_COST_CAPACITY, runs, n, out);
}

static int other_core(const ks_cost_params *p, const ks_cost_sweep *sw, const ks_cost_lines *g,
                      cost_run *runs, ks_cost_result *out)
{
    int n = 0;
    int32_t cs = cost_cstate_reached(p, g->holder_idle_ns);
    int32_t llc_src = holder_llc_src(g->where);
    if (cs >= 0 && p->cstates[cs].flushes_private) {
        out->lines_idle_flushed += g->lines;
        uint64_t in_llc = g->holder_idle_ns < g->age_ns ? g->holder_idle_ns : g->age_ns;
        return from_llc(p, sw, g, g->lines, llc_src, in_llc, KS_COST_IDLE_FLUSH, runs, n, out);
    }
    uint64_t ran = g->age_ns > g->holder_idle_ns ? g->age_ns - g->holder_idle_ns : 0;
    double b = cost_background_bytes(sw->background_private_bytes_per_us, ran);
    uint32_t held = share(g->lines, cost_survival(b, (double)p->l2_bytes));
    int32_t src = holder_core_src(g->where);
    /* MESI: a read of a line another private cache holds leaves it Shared there (a
     * Modified one is supplied by its owner: a HITM); the store then needs ownership,
     * a second trip to invalidate that copy (Sorin, Hill & Wood, "A Primer on Memory
     * Consistency and Cache Coherence", 2nd ed. 2020, ch. 7: GetS then Upgrade/GetM). */
    n = push(runs, n, held, src, sw->is_store ? src : -1, KS_COST_REMOTE,
             g->state == KS_LINE_DIRTY);
    uint32_t evicted = g->lines - held;
    out->lines_capacity_evicted += evicted;
    return from_llc(p, sw, g, evicted, llc_src, g->age_ns, KS_COST_CAPACITY, runs, n, out);
}

int cost_place_group(const ks_cost_params *p, const ks_cost_sweep *sw, const ks_cost_lines *g,
                     cost_run *runs, ks_cost_result *out)
{
    switch (g->where) {
    case KS_WHERE_OWN_PRIVATE:
        return own_private(p, sw, g, runs, out);
    case KS_WHERE_OWN_LLC:
        return from_llc(p, sw, g, g->lines, KS_SRC_LLC, g->age_ns, KS_COST_LLC, runs, 0, out);
    case KS_WHERE_SAME_LLC_CORE:
    case KS_WHERE_OTHER_LLC:
    case KS_WHERE_OTHER_SOCKET:
        return other_core(p, sw, g, runs, out);
    default:
        return push(runs, 0, g->lines, dram_src(g), -1, KS_COST_DRAM, 0);
    }
}
