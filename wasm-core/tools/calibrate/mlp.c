/*
 * Memory-level parallelism: the same random lines of a buffer larger than the LLC, loaded
 *   - dependently (a pointer chase: each address comes from the previous load), and
 *   - independently (addresses from a full-period LCG, so the core can issue the next
 *     loads before the earlier ones return).
 * misses in flight ~= dependent ns per load / independent ns per load.
 * Also the chase's latency with the working set in L1, L2 and the LLC, for the table's
 * per-level load-to-use figures. The buffers ask for transparent huge pages so the chase
 * measures the caches, not the TLB (pagewalk.c measures that).
 */
#include "mem_common.h"

#include <stdio.h>

static double independent(const char *buf, uint64_t n_lines, uint64_t k)
{
    static uint64_t x = 12345;   /* each trial goes on where the last stopped: new lines */
    uint64_t mask = n_lines - 1, sum = 0;
    uint64_t t0 = calib_now_ns();
    for (uint64_t i = 0; i < k; i++) {
        x = mem_lcg(x, mask);
        sum += *(const uint64_t *)(buf + x * LINE + 8);
    }
    uint64_t dt = calib_now_ns() - t0;
    calib_sink += sum;
    return (double)dt / (double)k;
}

static void level(const char *id, const char *detail, size_t bytes, int trials, uint64_t k)
{
    double s[CALIB_MAX_TRIALS];
    void *buf = calib_alloc(bytes, 1);
    uint64_t n = bytes / LINE;
    void **start = mem_link_cycle(buf, (uint32_t)n, 7);
    for (int t = 0; t < trials; t++) {
        /* one whole lap untimed first: on a shared CPU other tasks evict the set between
         * trials; the timed loads are then the level's, not the eviction's */
        mem_chase(&start, n);
        s[t] = mem_chase(&start, k);
    }
    calib_emit(id, "ns", s, trials, detail);
    calib_free(buf, bytes);
}

void bench_mlp(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    int trials = o->quick ? 15 : 101;
    uint64_t k = 20000;   /* loads per trial of L1 and L2 (40-160 us); a quarter for the LLC */
    size_t l1 = mem_cache_bytes(0, 32u << 10), l2 = mem_cache_bytes(2, 1u << 20);
    char detail[128];
    snprintf(detail, sizeof detail, "dependent chase in %zu KiB (half the L1d)", l1 / 2048);
    level("latency.l1", detail, l1 / 2, trials, k);
    snprintf(detail, sizeof detail, "dependent chase in %zu KiB (half the L2)", l2 / 2048);
    level("latency.l2", detail, l2 / 2, trials, k);
    snprintf(detail, sizeof detail, "dependent chase in %zu KiB (4 x L2, inside the LLC)", l2 * 4 / 1024);
    level("latency.llc", detail, l2 * 4, trials, k / 4);

    size_t bytes = mem_big_bytes(o);
    uint64_t n = bytes / LINE;
    void *buf = calib_alloc(bytes, 1);
    void **start = mem_link_cycle(buf, (uint32_t)n, 11);
    double dep[CALIB_MAX_TRIALS], ind[CALIB_MAX_TRIALS], ratio[CALIB_MAX_TRIALS];
    mem_chase(&start, k / 8);
    for (int t = 0; t < trials; t++) {
        dep[t] = mem_chase(&start, 1000);
        ind[t] = independent(buf, n, 10000);
        ratio[t] = dep[t] / ind[t];
    }
    snprintf(detail, sizeof detail, "dependent chase over %zu MiB of random lines", bytes >> 20);
    calib_emit("latency.dram", "ns", dep, trials, detail);
    snprintf(detail, sizeof detail, "independent loads of the same %zu MiB, random lines", bytes >> 20);
    calib_emit("mlp.independent", "ns", ind, trials, detail);
    calib_emit("mlp.misses_in_flight", "x", ratio, trials,
               "dependent / independent ns per load, per trial: misses the core overlaps");
    calib_free(buf, bytes);
}
