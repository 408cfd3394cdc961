/*
 * DRAM read bandwidth of one core: sum every 64-bit word of a buffer larger than the LLC
 * (gcc -O2 vectorises the loop), 1 MiB per trial, GB/s = bytes / elapsed.
 */
#include "mem_common.h"

#include <stdio.h>

void bench_bandwidth(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    int trials = o->quick ? 15 : 101;
    size_t bytes = mem_big_bytes(o), slice = 1u << 20, words = slice / 8;
    const uint64_t *buf = calib_alloc(bytes, 1);
    double s[CALIB_MAX_TRIALS];
    char detail[96];
    for (int t = 0; t < trials; t++) {
        /* a fresh 1 MiB slice each trial, 2 MiB apart: not left in the caches by the last */
        const uint64_t *from = buf + (((size_t)t * 2 * slice) % (bytes - slice + 1)) / 8;
        uint64_t sum = 0, t0 = calib_now_ns();
        for (size_t i = 0; i < words; i++)
            sum += from[i];
        uint64_t dt = calib_now_ns() - t0;
        calib_sink += sum;
        s[t] = (double)slice / (double)dt;   /* bytes per ns = GB/s */
    }
    snprintf(detail, sizeof detail, "one core reads 1 MiB slices of %zu MiB sequentially", bytes >> 20);
    calib_emit("bandwidth.dram_read", "GB/s", s, trials, detail);
    calib_free((void *)buf, bytes);
}
