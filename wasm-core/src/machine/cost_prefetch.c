/*
 * Sequential prefetch within a 4 KiB page.
 *
 * The hardware. Both vendors' L2 stream prefetchers watch the misses of a page and,
 * once a few misses go one way, fetch the lines ahead of them; they never cross the
 * page's boundary, because the next virtual page can be anywhere physically
 * ([Intel-ORM]: "the streamer ... within the 4K page"; [AMD-SOG19h] likewise; see
 * cost_tables.c). A prefetch is tracked by the L2's miss queue (48 entries on Golden
 * Cove, 64 on Zen 4), not by the L1's few fill buffers (16 / 24): so a sweep in
 * address order keeps many more lines in flight than a walk through the same lines
 * in random order, and every new page starts over with demand misses.
 *
 * The model. In a page, the first prefetch_trigger_lines misses are demand misses
 * (overlapped up to demand_mlp); the page's other misses are prefetched (overlapped
 * up to prefetch_mlp). A random order is all demand misses. The missing lines are
 * assumed spread evenly over the pages, so demand misses = min(missing, pages x
 * trigger). The ownership trip of a store (cost_overlap.c) is always a demand miss.
 *
 * Simplified: the prefetcher's distance (how far ahead it runs) is taken as its
 * whole miss queue; a prefetch that arrives late still costs its latency through the
 * queue; the L1's own next-line prefetcher is not modelled separately; TLB misses at
 * page starts are charged by cost_tlb.c, not as a stall of the stream.
 */
#include "cost_internal.h"

uint32_t cost_pages(const ks_cost_params *p, int32_t page_offset, uint32_t lines)
{
    if (lines == 0)
        return 0;
    uint64_t page = p->page_bytes > 0 ? (uint64_t)p->page_bytes : 4096;
    uint64_t start = (uint64_t)(page_offset > 0 ? page_offset : 0) % page;
    uint64_t end = start + (uint64_t)lines * KS_CACHE_LINE;
    return (uint32_t)((end + page - 1) / page);
}

uint32_t cost_demand_misses(const ks_cost_params *p, int32_t order, uint32_t pages,
                            uint32_t missing)
{
    if (order != KS_ORDER_SEQUENTIAL)
        return missing;
    uint64_t trigger = p->prefetch_trigger_lines > 0 ? (uint64_t)p->prefetch_trigger_lines : 0;
    uint64_t demand = (uint64_t)pages * trigger;
    return demand < missing ? (uint32_t)demand : missing;
}
