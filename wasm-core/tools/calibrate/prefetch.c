/*
 * The prefetch effect: one 8-byte load per 64-byte line of a buffer larger than the LLC,
 * in address order (the stream prefetchers run ahead) vs in a random order (a full-period
 * LCG over the same lines: no stream to detect). Both are independent loads, so the
 * difference is prefetch (and page locality), not memory-level parallelism.
 */
#include "mem_common.h"

#include <stdio.h>

/* k lines in address order from line `from`. */
static double sequential(const char *buf, uint64_t from, uint64_t k)
{
    uint64_t sum = 0, t0 = calib_now_ns();
    for (uint64_t i = from; i < from + k; i++)
        sum += *(const uint64_t *)(buf + i * LINE);
    uint64_t dt = calib_now_ns() - t0;
    calib_sink += sum;
    return (double)dt / (double)k;
}

/* k lines in a random order over all n lines (the LCG goes on across trials). */
static double random_order(const char *buf, uint64_t n, uint64_t k)
{
    static uint64_t x = 99;
    uint64_t mask = n - 1, sum = 0, t0 = calib_now_ns();
    for (uint64_t i = 0; i < k; i++) {
        x = mem_lcg(x, mask);
        sum += *(const uint64_t *)(buf + x * LINE);
    }
    uint64_t dt = calib_now_ns() - t0;
    calib_sink += sum;
    return (double)dt / (double)k;
}

void bench_prefetch(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    int trials = o->quick ? 15 : 101;
    uint64_t k = 1u << 14;   /* lines per trial: a 1 MiB slice */
    size_t bytes = mem_big_bytes(o);
    uint64_t n = bytes / LINE;
    char *buf = calib_alloc(bytes, 1);
    double seq[CALIB_MAX_TRIALS], rnd[CALIB_MAX_TRIALS], ratio[CALIB_MAX_TRIALS];
    char detail[128];
    for (int t = 0; t < trials; t++) {
        seq[t] = sequential(buf, ((uint64_t)t * 2 * k) % (n - k + 1), k);  /* fresh slices */
        rnd[t] = random_order(buf, n, k);
        ratio[t] = rnd[t] / seq[t];
    }
    snprintf(detail, sizeof detail, "one load per line, address order, 1 MiB slices of %zu MiB", bytes >> 20);
    calib_emit("prefetch.sequential", "ns", seq, trials, detail);
    snprintf(detail, sizeof detail, "one load per line, random order, %zu MiB", bytes >> 20);
    calib_emit("prefetch.random", "ns", rnd, trials, detail);
    calib_emit("prefetch.gain", "x", ratio, trials, "random / sequential ns per line, per trial");
    calib_free(buf, bytes);
}
