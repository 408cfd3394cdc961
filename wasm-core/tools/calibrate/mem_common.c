/* Pieces shared by the memory-latency benchmarks (see mem_common.h). */
#include "mem_common.h"

#include <stdio.h>
#include <stdlib.h>

void **mem_link_cycle(void *buf, uint32_t n, uint64_t seed)
{
    uint32_t *next = malloc((size_t)n * sizeof *next);
    if (!next) {
        fprintf(stderr, "kscope-calibrate: out of memory\n");
        exit(1);
    }
    calib_cycle(next, n, seed);
    char *base = buf;
    for (uint32_t i = 0; i < n; i++)
        *(void **)(base + (size_t)i * LINE) = base + (size_t)next[i] * LINE;
    free(next);
    return (void **)base;
}

double mem_chase(void ***cursor, uint64_t k)
{
    void **p = *cursor;
    uint64_t t0 = calib_now_ns();
    for (uint64_t i = 0; i < k; i++)
        p = (void **)*p;
    uint64_t dt = calib_now_ns() - t0;
    *cursor = p;
    return (double)dt / (double)k;
}

size_t mem_big_bytes(const calib_opts *o)
{
    return o->quick ? (32u << 20) : (1024u << 20);
}

size_t mem_cache_bytes(int index, size_t fallback)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    FILE *f = fopen(path, "r");
    if (!f)
        return fallback;
    unsigned long v = 0;
    char unit = 0;
    int got = fscanf(f, "%lu%c", &v, &unit);
    fclose(f);
    if (got < 1 || v == 0)
        return fallback;
    if (unit == 'K')
        v <<= 10;
    else if (unit == 'M')
        v <<= 20;
    return (size_t)v;
}
