/* The int32 -> int32 hash map of imap.h. */
#include <stdlib.h>

#include "imap.h"

static uint32_t imap_hash(int32_t k)
{
    uint32_t x = (uint32_t)k * 2654435761u;
    return x ^ (x >> 16);
}

int32_t imap_get(const imap *m, int32_t key, int32_t dflt)
{
    if (!m->cap)
        return dflt;
    for (uint32_t i = imap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == 0)
            return dflt;
        if (m->keys[i] == key + 1)
            return m->vals[i];
    }
}

static int imap_grow(imap *m)
{
    imap g = { .cap = m->cap ? m->cap * 2 : 64 };
    g.keys = calloc(g.cap, sizeof *g.keys);
    g.vals = calloc(g.cap, sizeof *g.vals);
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            imap_put(&g, m->keys[i] - 1, m->vals[i]);
    free(m->keys);
    free(m->vals);
    *m = g;
    return 0;
}

int imap_put(imap *m, int32_t key, int32_t val)
{
    if ((m->len + 1) * 2 > m->cap && imap_grow(m))
        return -1;
    for (uint32_t i = imap_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == 0) {
            m->keys[i] = key + 1;
            m->vals[i] = val;
            m->len++;
            return 0;
        }
        if (m->keys[i] == key + 1) {
            m->vals[i] = val;
            return 0;
        }
    }
}

void imap_free(imap *m)
{
    free(m->keys);
    free(m->vals);
    *m = (imap){ 0 };
}
