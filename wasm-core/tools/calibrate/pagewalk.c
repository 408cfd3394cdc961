/*
 * Page-walk cost: two pointer chases over the same number of lines (8192, 512 KiB: in
 * the L2 or LLC either way), in random order,
 *   - spread: one line per 4 KiB page, over 8192 pages (32 MiB, more pages than the
 *     second-level TLB maps: most loads miss the TLB and walk the page table);
 *   - packed: 64 lines per page, 128 pages (the TLB maps them all).
 * The buffers forbid huge pages (MADV_NOHUGEPAGE). walk cost = spread - packed, per load.
 */
#include "mem_common.h"

#include <stdio.h>
#include <stdlib.h>

#define PAGE 4096
#define LINES 8192u

/* Links LINES lines into one random cycle; line i sits at byte offset off(i). */
static void **link(char *buf, int spread)
{
    uint32_t *next = malloc(LINES * sizeof *next);
    if (!next)
        exit(1);
    calib_cycle(next, LINES, 5);
    for (uint32_t i = 0; i < LINES; i++) {
        size_t at = spread ? (size_t)i * PAGE + (i % 64) * LINE : (size_t)i * LINE;
        size_t to = spread ? (size_t)next[i] * PAGE + (next[i] % 64) * LINE : (size_t)next[i] * LINE;
        *(void **)(buf + at) = buf + to;
    }
    free(next);
    return (void **)buf;
}

void bench_pagewalk(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    int trials = o->quick ? 15 : 101;
    size_t spread_bytes = (size_t)LINES * PAGE, packed_bytes = (size_t)LINES * LINE;
    char *spread = calib_alloc(spread_bytes, 0), *packed = calib_alloc(packed_bytes, 0);
    void **s0 = link(spread, 1), **p0 = link(packed, 0);
    double sp[CALIB_MAX_TRIALS], pk[CALIB_MAX_TRIALS], walk[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        /* a whole lap untimed, then a timed one: the lines are in the caches either way (other
         * tasks on this CPU evict them between trials); the spread lap still misses the TLB
         * (more pages than it maps, visited in a cycle) and the packed one does not */
        mem_chase(&s0, LINES);
        sp[t] = mem_chase(&s0, LINES);
        mem_chase(&p0, LINES);
        pk[t] = mem_chase(&p0, LINES);
        walk[t] = sp[t] - pk[t];
    }
    calib_emit("pagewalk.spread", "ns", sp, trials, "chase, 8192 lines one per 4 KiB page (TLB misses)");
    calib_emit("pagewalk.packed", "ns", pk, trials, "chase, the same 8192 lines packed in 128 pages");
    calib_emit("pagewalk.cost", "ns", walk, trials, "spread - packed per load: one TLB miss's page walk");
    calib_free(spread, spread_bytes);
    calib_free(packed, packed_bytes);
}
