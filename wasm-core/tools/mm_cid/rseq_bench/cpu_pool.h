/*
 * A per-index memory pool laid out and populated the way librseq's rseq_mempool does by
 * default (src/rseq-mempool.c at compudj/librseq 95febd5, the commit that added
 * tests/basic_percpu_benchmark.c; re-implemented here, not copied):
 *
 * - one "range": a stride (64 KiB, RSEQ_MEMPOOL_STRIDE) per possible CPU, aligned on the
 *   stride, plus one stride of "init values"; an item of index i is at
 *   base + i x stride + item offset;
 * - populate policy COW_INIT (the default): the init values are a shared mapping of a memfd;
 *   every index's stride is a private (copy-on-write) mapping of the same memfd;
 * - zmalloc zeroes the init values and, per index, writes only where the item is not
 *   already zero: reading the untouched private mapping sees the (zero) memfd page, so no
 *   index is written and none gets a page of its own.
 *
 * So an index's pages are populated lazily: the first write through an index copies each
 * 4 KiB page (a minor fault per page). A never-used index first-touches fresh pages.
 */
#ifndef KSCOPE_CPU_POOL_H
#define KSCOPE_CPU_POOL_H

#include <stddef.h>

#define CPU_POOL_STRIDE ((size_t)1 << 16)   /* RSEQ_MEMPOOL_STRIDE: 64 KiB */

typedef enum { POOL_COW_INIT, POOL_PREFAULT } cpu_pool_policy;

typedef struct cpu_pool {
    char *base;           /* index 0's stride */
    char *init;           /* the init values (shared memfd mapping) */
    char *mapping;        /* what to unmap */
    size_t mapping_len;
    size_t item_len;      /* rounded up to a power of two, as librseq does */
    int max_index;        /* possible CPUs (librseq's rseq_get_max_nr_cpus()) */
    cpu_pool_policy policy;
} cpu_pool;

/* Creates the pool and allocates one zeroed item (offset 0); 0 ok, -1 (message printed).
 * POOL_PREFAULT additionally writes every index's item once (for comparison: no lazy pages). */
int cpu_pool_create(cpu_pool *pool, size_t item_len, cpu_pool_policy policy);
void cpu_pool_destroy(cpu_pool *pool);

static inline char *cpu_pool_item(const cpu_pool *pool, int index)
{
    return pool->base + (size_t)index * CPU_POOL_STRIDE;
}

/* The number of possible CPUs (/sys/devices/system/cpu/possible: highest + 1). */
int possible_cpus(void);

#endif
