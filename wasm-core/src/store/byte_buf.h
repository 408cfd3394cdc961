/*
 * Internal: a growable byte buffer, the one output type of the Parquet encoders.
 *
 * The writer keeps a few of these for its whole life (page, compressed page, row
 * group, footer) and empties them with `len = 0`, so steady-state writing
 * allocates nothing. Encoders ask for room once (bb_room: "n more bytes") and then
 * store through a plain pointer; a failed allocation sets `failed`, later requests
 * return NULL, and the writer checks once per page.
 */
#ifndef KSCOPE_STORE_BYTE_BUF_H
#define KSCOPE_STORE_BYTE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct byte_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed;     /* an allocation failed: the contents are incomplete */
} byte_buf;

/* Room for n more bytes at data + len (len unchanged); NULL if that cannot be had. */
static inline uint8_t *bb_room(byte_buf *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (n > b->cap - b->len) {
        if (n > SIZE_MAX / 2 - b->len) {
            b->failed = 1;
            return NULL;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return NULL;
        }
        b->data = p;
        b->cap = cap;
    }
    return b->data + b->len;
}

static inline void bb_put(byte_buf *b, const void *src, size_t n)
{
    uint8_t *p = bb_room(b, n);
    if (p && n) {
        memcpy(p, src, n);
        b->len += n;
    }
}

static inline void bb_byte(byte_buf *b, uint8_t v)
{
    uint8_t *p = bb_room(b, 1);
    if (p) {
        *p = v;
        b->len++;
    }
}

/* Little-endian 32-bit store at p (Parquet's lengths are little-endian on any host). */
static inline void bb_le32_at(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void bb_le32(byte_buf *b, uint32_t v)
{
    uint8_t *p = bb_room(b, 4);
    if (p) {
        bb_le32_at(p, v);
        b->len += 4;
    }
}

static inline void bb_free(byte_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

#endif
