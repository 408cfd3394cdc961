/* Pieces shared by the memory-latency benchmarks (mlp.c, prefetch.c, pagewalk.c). */
#ifndef KSCOPE_CALIB_MEM_H
#define KSCOPE_CALIB_MEM_H

#include "calib.h"

#define LINE 64

/* Links the lines of buf (n lines) into one random cycle: the first word of each line
 * points to the next. Returns the first line. */
void **mem_link_cycle(void *buf, uint32_t n, uint64_t seed);
/* Follows the chain for k loads from *cursor (left where it stopped, so the next trial
 * loads new lines); returns ns per load. */
double mem_chase(void ***cursor, uint64_t k);
/* The "big" buffer size: beyond the LLC, so loads go to DRAM (quick: 32 MiB, inside a big LLC: a smoke run). */
size_t mem_big_bytes(const calib_opts *o);
/* A cache size of cpu 0 from sysfs (index: 0 L1d, 2 L2, 3 L3), in bytes; fallback if absent. */
size_t mem_cache_bytes(int index, size_t fallback);
/* Full-period LCG step modulo a power of two (mask = n - 1). */
static inline uint64_t mem_lcg(uint64_t x, uint64_t mask)
{
    return (x * 6364136223846793005ULL + 1442695040888963407ULL) & mask;
}

#endif
