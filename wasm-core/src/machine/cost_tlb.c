/*
 * TLB misses and page walks.
 *
 * The hardware. Every load needs its page's translation. The second-level TLB holds
 * a few thousand 4 KiB translations (2048 on Golden Cove, 3072 on Zen 4: [Intel-ORM],
 * [CnC-Zen4] in cost_tables.c); a miss walks the page table, reading one entry per
 * level (4 with 4-level paging [paging]), except the levels the paging-structure
 * caches still hold (Intel SDM Vol. 3A 4.10.3): usually only the last-level entry
 * (the PTE), which is itself a cached line. The loads of a page cannot start before
 * its translation, so a walk is on the burst's critical path at every new page.
 *
 * Three cases, by what happened to this core since it last touched the area:
 *  - it idled into a C-state that flushes the TLB (Linux marks Intel's C6 states
 *    CPUIDLE_FLAG_TLB_FLUSHED [intel_idle]; AMD's CC6 likewise [C6-flush]): every
 *    page walks, with the paging-structure caches gone too: walk_levels dependent
 *    reads, each from the LLC the flush wrote them to, or from memory if the LLC's
 *    background traffic has evicted them since;
 *  - it never touched the area (since_own_touch_ns == KS_COST_NEVER, e.g. a thread
 *    that just migrated here): every page walks; the upper levels are taken as cached
 *    (the process's other pages use them) and the PTE line comes from the LLC
 *    (ASSUMPTION: another core's walk left it there);
 *  - otherwise other work on this core evicts translations by capacity: the
 *    background streams a new page per page_bytes (ASSUMPTION: streaming, not
 *    scattered), and a translation survives with exp(-pages / stlb_entries) as in
 *    cost_residency.c; a walk reads the PTE from the L2 if the L2 kept it, else
 *    from the LLC.
 * Within one sweep the walks share their reads: the first walk leaves the upper levels
 * in the paging-structure caches, and a 64-byte line of the last level holds the
 * PTEs of 8 consecutive pages (8-byte entries [paging]), so after the first walk a
 * page whose PTE shares a line already read costs one L1 hit, and only a page that
 * starts a new PTE line reads that line from where the case above says (the area's
 * first page is taken to start a PTE line: ASSUMPTION).
 * A per-machine measured walk (ks_cost_params.walk_ns_measured, from `kscope
 * calibrate`'s pagewalk.cost: an STLB miss whose PTE is cached) replaces the
 * last two cases' figure; the C6 case keeps its derivation (calibrate cannot force C6).
 *
 * Simplified: walks do not overlap each other (cores have 2-4 walkers, but a sweep
 * asks for one page at a time); no huge pages (the seed's pools are 4 KiB pages); no
 * 5-level paging; no instruction-side TLB.
 */
#include "cost_internal.h"

/* 8-byte page-table entries in a 64-byte line [paging]. */
#define PTES_PER_LINE (KS_CACHE_LINE / 8)

static uint32_t round_share(uint32_t n, double fraction)
{
    double v = (double)n * fraction + 0.5;
    return v <= 0 ? 0 : v >= n ? n : (uint32_t)v;
}

/* walked pages, the first walk costing `first`, a page starting a new PTE line `line`,
 * any other an L1 hit. */
static double walks_ns(const ks_cost_params *p, uint32_t walked, double first, double line)
{
    if (walked == 0)
        return 0.0;
    uint32_t new_lines = (walked + PTES_PER_LINE - 1) / PTES_PER_LINE - 1;
    uint32_t hits = walked - 1 - new_lines;
    return first + (double)new_lines * line + (double)hits * cost_trip_ns(p, KS_SRC_L1);
}

void cost_tlb(const ks_cost_params *p, const ks_cost_sweep *sw, uint32_t lines, ks_cost_result *out)
{
    uint32_t pages = cost_pages(p, sw->page_offset, lines);
    out->pages = pages;
    if (pages == 0)
        return;
    double llc = cost_trip_ns(p, KS_SRC_LLC), l2 = cost_trip_ns(p, KS_SRC_L2);
    int32_t cs = cost_cstate_reached(p, sw->idle_ns);
    uint32_t walked;
    double first, line;
    if (cs >= 0 && p->cstates[cs].flushes_tlb) {
        double f = cost_survival(cost_background_bytes(sw->background_llc_bytes_per_us, sw->idle_ns),
                                 (double)p->l3_bytes);
        double per_level = f * llc + (1.0 - f) * cost_trip_ns(p, KS_SRC_DRAM_LOCAL);
        walked = pages;
        first = (double)(p->walk_levels > 0 ? p->walk_levels : 1) * per_level;
        line = per_level;
    } else if (sw->since_own_touch_ns == KS_COST_NEVER) {
        walked = pages;
        first = line = p->walk_ns_measured > 0 ? (double)p->walk_ns_measured : llc;
    } else {
        uint64_t ran = sw->since_own_touch_ns > sw->idle_ns ? sw->since_own_touch_ns - sw->idle_ns : 0;
        double bytes = cost_background_bytes(sw->background_private_bytes_per_us, ran);
        double page = p->page_bytes > 0 ? (double)p->page_bytes : 4096.0;
        double kept = cost_survival(bytes / page, (double)p->stlb_entries);
        walked = pages - round_share(pages, kept);
        double in_l2 = cost_survival(bytes, (double)p->l2_bytes);
        first = line = p->walk_ns_measured > 0 ? (double)p->walk_ns_measured
                                               : in_l2 * l2 + (1.0 - in_l2) * llc;
    }
    out->pages_walked = walked;
    out->part_ns[KS_COST_TLB] += walks_ns(p, walked, first, line);
}
