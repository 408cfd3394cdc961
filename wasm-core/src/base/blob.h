/*
 * Internal: bounded byte writer/reader for snapshots.
 *
 * One serializer serves both "how big?" and "write it": a blob_writer with a
 * NULL buffer only counts. Readers never run past the end: a short or bad
 * buffer sets `bad` and later reads return zeros, so restore code checks once.
 */
#ifndef KSCOPE_BASE_BLOB_H
#define KSCOPE_BASE_BLOB_H

#include <stdint.h>
#include <string.h>

typedef struct blob_writer {
    uint8_t *buf;       /* NULL: count only */
    uint32_t cap;
    uint32_t pos;
    int bad;            /* set when buf was too small */
} blob_writer;

typedef struct blob_reader {
    const uint8_t *buf;
    uint32_t len;
    uint32_t pos;
    int bad;            /* set when a read ran past the end */
} blob_reader;

static inline void blob_put(blob_writer *w, const void *data, uint32_t n)
{
    if (w->buf) {
        if (w->pos + n > w->cap || w->pos + n < w->pos) {
            w->bad = 1;
            return;
        }
        if (n)
            memcpy(w->buf + w->pos, data, n);
    }
    w->pos += n;
}

static inline void blob_put_u32(blob_writer *w, uint32_t v)
{
    blob_put(w, &v, sizeof v);
}

static inline void blob_put_u64(blob_writer *w, uint64_t v)
{
    blob_put(w, &v, sizeof v);
}

/* Returns a pointer to the next n bytes (NULL and `bad` if there are fewer). */
static inline const void *blob_take(blob_reader *r, uint32_t n)
{
    if (r->bad || r->pos + n > r->len || r->pos + n < r->pos) {
        r->bad = 1;
        return NULL;
    }
    const void *p = r->buf + r->pos;
    r->pos += n;
    return p;
}

static inline void blob_get(blob_reader *r, void *out, uint32_t n)
{
    const void *p = blob_take(r, n);
    if (p && n)
        memcpy(out, p, n);
    else if (n)
        memset(out, 0, n);
}

static inline uint32_t blob_get_u32(blob_reader *r)
{
    uint32_t v;
    blob_get(r, &v, sizeof v);
    return v;
}

static inline uint64_t blob_get_u64(blob_reader *r)
{
    uint64_t v;
    blob_get(r, &v, sizeof v);
    return v;
}

#endif
