/*
 * First touch: the page faults of a burst that writes pages the process has not
 * written before.
 *
 * The hardware and the kernel. An anonymous page, or a private page of a file
 * mapping, that the process never wrote is not yet its own: the PTE is absent
 * (anonymous: the first access faults in a zero-filled page) or read-only on a
 * shared page (a MAP_PRIVATE file mapping, or the zero page after a read). The
 * first store takes a page fault: the kernel allocates a page, fills it (zeroes, or
 * copies the shared page: copy-on-write, mm/memory.c do_anonymous_page() /
 * wp_page_copy()), installs the PTE and returns. One fault per 4 KiB page, each a
 * trap, a page allocation, a 4 KiB fill and a TLB update: microseconds, against
 * nanoseconds per line for the sweep itself. The fill leaves the page's lines in
 * this core's caches, so the sweep that follows hits them (the caller places them
 * in KS_WHERE_OWN_PRIVATE).
 *
 * Why a burst can do that. librseq's rseq_mempool (compudj/librseq
 * src/rseq-mempool.c, read at 95febd5e, the benchmark's commit): a per-CPU pool's
 * default populate policy is RSEQ_MEMPOOL_POPULATE_COW_INIT. Each CPU's range
 * (stride 64 KiB, max_nr_cpus of them) is a MAP_PRIVATE mapping of one memfd that
 * holds the init values; rseq_mempool_percpu_zmalloc() zeroes the init copy and
 * only reads the per-CPU copies (rseq_percpu_zero_item() skips items that already
 * read as zero, "to eliminate useless COW"). So until some thread writes index k's
 * item, its pages are the shared init pages: the first write to each takes a COW
 * fault. Seed 000's benchmark (tests/basic_percpu_benchmark.c) creates its pool
 * with no attributes, so it gets this policy: an index that no thread swept yet
 * costs 4 faults (16 KiB) on its first sweep, once per process.
 *
 * The figure. first_touch_ns_per_page, per machine (cost_tables.c): the fault
 * and the fill of one page. `kscope calibrate` measures it as
 * (sweep16k.first_touch - sweep16k.hot) / 4 pages.
 *
 * Simplified: every first-touch page costs the same (no THP, no per-fault lock
 * contention on mmap_lock between threads faulting at once, no NUMA placement);
 * a fault does not overlap the other misses of the burst (the trap serialises).
 */
#include "cost_internal.h"

void cost_first_touch(const ks_cost_params *p, const ks_cost_sweep *sw, ks_cost_result *out)
{
    out->pages_faulted = (uint32_t)sw->first_touch_pages;
    out->part_ns[KS_COST_FIRST_TOUCH] = (double)sw->first_touch_pages * (double)p->first_touch_ns_per_page;
}
