/* CPU bitmaps: see cpumask.h. */
#include "cpumask.h"

int32_t cpumask_weight(const cpumask *m, int32_t nwords)
{
    int32_t n = 0;
    for (int32_t w = 0; w < nwords; w++)
        n += __builtin_popcountll(m->bits[w]);
    return n;
}

/* Lowest set bit of word w of (a & b) at or after bit `from` (0..63), or -1. */
static int32_t first_in_word(const cpumask *a, const cpumask *b, int32_t w, int32_t from)
{
    uint64_t x = a->bits[w] & (b ? b->bits[w] : ~0ull);
    x &= ~0ull << from;
    return x ? w * 64 + __builtin_ctzll(x) : -1;
}

int32_t cpumask_first_and(const cpumask *a, const cpumask *b, int32_t nwords)
{
    for (int32_t w = 0; w < nwords; w++) {
        int32_t cpu = first_in_word(a, b, w, 0);
        if (cpu >= 0)
            return cpu;
    }
    return -1;
}

int32_t cpumask_next_and_wrap(const cpumask *a, const cpumask *b, int32_t start, int32_t nwords)
{
    if (start < 0 || start >= nwords * 64)
        start = 0;
    int32_t w0 = start >> 6;
    int32_t cpu = first_in_word(a, b, w0, start & 63);
    if (cpu >= 0)
        return cpu;
    for (int32_t i = 1; i <= nwords; i++) {
        int32_t w = (w0 + i) % nwords;
        cpu = first_in_word(a, b, w, 0);
        if (cpu >= 0)
            return cpu;
    }
    return -1;
}

bool cpumask_intersects(const cpumask *a, const cpumask *b, int32_t nwords)
{
    for (int32_t w = 0; w < nwords; w++)
        if (a->bits[w] & b->bits[w])
            return true;
    return false;
}

bool cpumask_subset(const cpumask *a, const cpumask *b, int32_t nwords)
{
    for (int32_t w = 0; w < nwords; w++)
        if (a->bits[w] & ~b->bits[w])
            return false;
    return true;
}

void cpumask_and(cpumask *dst, const cpumask *a, const cpumask *b, int32_t nwords)
{
    for (int32_t w = 0; w < nwords; w++)
        dst->bits[w] = a->bits[w] & b->bits[w];
}
