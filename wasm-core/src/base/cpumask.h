/*
 * Internal: fixed-size CPU bitmaps, the model of the kernel's struct cpumask.
 *
 * A cpumask holds up to CPUMASK_MAX_CPUS bits (1024, the largest machine a
 * topology may describe here). Every operation takes the number of 64-bit
 * words that matter for the machine at hand (cpumask_words(nr_cpus)), so a
 * 384-CPU scan touches 6 words, not 16. Bits past nr_cpus stay zero.
 *
 * The scans the scheduler needs are the kernel's: first set bit of (a & b),
 * and the "wrap" search select_idle_cpu() does, which starts at a given CPU and
 * wraps around so different wakers spread over different idle CPUs.
 */
#ifndef KSCOPE_BASE_CPUMASK_H
#define KSCOPE_BASE_CPUMASK_H

#include <stdbool.h>
#include <stdint.h>

#define CPUMASK_MAX_CPUS 1024
#define CPUMASK_WORDS (CPUMASK_MAX_CPUS / 64)

typedef struct cpumask {
    uint64_t bits[CPUMASK_WORDS];
} cpumask;

static inline int32_t cpumask_words(int32_t nr_cpus)
{
    return (nr_cpus + 63) / 64;
}

static inline void cpumask_set(cpumask *m, int32_t cpu)
{
    m->bits[cpu >> 6] |= 1ull << (cpu & 63);
}

static inline void cpumask_clear_cpu(cpumask *m, int32_t cpu)
{
    m->bits[cpu >> 6] &= ~(1ull << (cpu & 63));
}

static inline bool cpumask_test(const cpumask *m, int32_t cpu)
{
    return (m->bits[cpu >> 6] >> (cpu & 63)) & 1;
}

static inline bool cpumask_empty(const cpumask *m, int32_t nwords)
{
    for (int32_t w = 0; w < nwords; w++)
        if (m->bits[w])
            return false;
    return true;
}

/* Number of set bits. */
int32_t cpumask_weight(const cpumask *m, int32_t nwords);

/* Lowest CPU set in both a and b (b may be NULL: a alone), or -1. */
int32_t cpumask_first_and(const cpumask *a, const cpumask *b, int32_t nwords);

/* Lowest CPU >= start set in a & b, wrapping past the end to 0 (for_each_cpu_wrap), or -1. */
int32_t cpumask_next_and_wrap(const cpumask *a, const cpumask *b, int32_t start, int32_t nwords);

/* Whether a & b has any bit set. */
bool cpumask_intersects(const cpumask *a, const cpumask *b, int32_t nwords);

/* Whether every bit of a is set in b. */
bool cpumask_subset(const cpumask *a, const cpumask *b, int32_t nwords);

/* dst = a & b (dst may alias a or b). */
void cpumask_and(cpumask *dst, const cpumask *a, const cpumask *b, int32_t nwords);

#endif
