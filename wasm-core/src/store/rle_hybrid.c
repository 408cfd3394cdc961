/*
 * RLE / bit-packed hybrid encoders (see rle_hybrid.h for the format).
 *
 * Levels are encoded a group of 8 rows (one bitmap byte) at a time: 0x00 and 0xFF
 * bytes extend or start RLE runs, other bytes go into bit-packed runs, and while
 * an RLE run is open whole 64-bit words of 0 or ~0 extend it 64 rows at a time, so
 * an all-present or all-null million-row page costs ~16 K word compares.
 */
#include <string.h>

#include "rle_hybrid.h"
#include "thrift_compact.h"   /* tc_varint: the same ULEB128 */

#define MAX_PACKED_GROUPS 63  /* (63 << 1) | 1 = 0x7F: a one-byte header */

int rle_id_width(uint32_t count)
{
    int w = 1;
    while (w < 32 && count > 1 && count - 1 >= (1u << w))
        w++;
    return w;
}

/* ---- levels (bit width 1) ----------------------------------------------------- */

typedef struct level_state {
    byte_buf *out;
    int mode;            /* 0 none, 1 RLE run open, 2 bit-packed run open */
    int value;           /* RLE run's value */
    uint64_t count;      /* RLE run's length */
    size_t header;       /* bit-packed run: offset of its header byte in out */
    int groups;          /* bit-packed run: groups so far */
} level_state;

static void level_close(level_state *s)
{
    if (s->mode == 1) {
        tc_varint(s->out, s->count << 1);
        bb_byte(s->out, (uint8_t)s->value);
    } else if (s->mode == 2 && !s->out->failed) {
        s->out->data[s->header] = (uint8_t)(s->groups << 1 | 1);
    }
    s->mode = 0;
}

static void level_rle(level_state *s, int value, uint32_t count)
{
    if (s->mode == 1 && s->value == value) {
        s->count += count;
        return;
    }
    level_close(s);
    s->mode = 1;
    s->value = value;
    s->count = count;
}

static void level_packed(level_state *s, uint8_t group)
{
    if (s->mode != 2 || s->groups == MAX_PACKED_GROUPS) {
        level_close(s);
        if (!bb_room(s->out, 1))
            return;
        s->header = s->out->len++;
        s->mode = 2;
        s->groups = 0;
    }
    bb_byte(s->out, group);
    s->groups++;
}

void rle_encode_levels(byte_buf *out, const uint8_t *bits, uint32_t n)
{
    level_state s = { .out = out };
    uint32_t full = n / 8, k = 0;
    while (k < full) {
        /* Fast path: an open RLE run and a whole word (64 rows) of its value. */
        if (s.mode == 1 && k + 8 <= full) {
            uint64_t word;
            memcpy(&word, bits + k, 8);
            if (word == (s.value ? ~(uint64_t)0 : 0)) {
                s.count += 64;
                k += 8;
                continue;
            }
        }
        uint8_t g = bits[k];
        if (g == 0x00 || g == 0xFF) {
            /* Inside a bit-packed run, one uniform group is cheaper packed (1 byte)
             * than as a run (2 bytes + a new packed header): only two in a row
             * (16 equal rows) switch to RLE. */
            if (s.mode == 2 && !(k + 1 < full && bits[k + 1] == g))
                level_packed(&s, g);
            else
                level_rle(&s, g & 1, 8);
        } else {
            level_packed(&s, g);
        }
        k++;
    }
    uint32_t tail = n & 7;
    if (tail) {
        uint8_t mask = (uint8_t)((1u << tail) - 1), g = bits[full] & mask;
        if ((g == 0 || g == mask) && (s.mode == 0 || (s.mode == 1 && s.value == (g != 0))))
            level_rle(&s, g != 0, tail);
        else
            level_packed(&s, g);
    }
    level_close(&s);
}

/* ---- dictionary ids ------------------------------------------------------------ */

static void ids_rle(byte_buf *out, uint32_t value, uint32_t count, int width)
{
    tc_varint(out, (uint64_t)count << 1);
    uint8_t *p = bb_room(out, 4);
    if (!p)
        return;
    int bytes = (width + 7) / 8;
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(value >> (8 * i));
    out->len += (size_t)bytes;
}

/* Packs 8 ids of `width` bits into width bytes at p, LSB first. */
static inline void pack8(uint8_t *p, const uint32_t *v, int width)
{
    uint64_t acc = 0;
    int bits = 0;
    for (int i = 0; i < 8; i++) {
        acc |= (uint64_t)v[i] << bits;
        bits += width;
        while (bits >= 8) {
            *p++ = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
}

/* Length of the run of equal values at ids[i], counting at most `cap`. */
static inline uint32_t run_at(const uint32_t *ids, uint32_t i, uint32_t n, uint32_t cap)
{
    uint32_t v = ids[i], j = i + 1, end = n - i > cap ? i + cap : n;
    while (j < end && ids[j] == v)
        j++;
    return j - i;
}

void rle_encode_ids(byte_buf *out, const uint32_t *ids, uint32_t n, int width)
{
    uint32_t i = 0;
    while (i < n) {
        uint32_t run = run_at(ids, i, n, UINT32_MAX);
        if (run >= 8) {
            ids_rle(out, ids[i], run, width);
            i += run;
            continue;
        }
        /* A bit-packed run from i until a run of 8 equal ids starts on a group
         * boundary, the ids end, or the run is full. */
        uint8_t *p = bb_room(out, 1 + (size_t)MAX_PACKED_GROUPS * (size_t)width);
        if (!p)
            return;
        int groups = 0;
        uint8_t *g = p + 1;
        for (;;) {
            if (n - i >= 8) {
                pack8(g, ids + i, width);
            } else {
                uint32_t last[8] = { 0 };
                memcpy(last, ids + i, (n - i) * sizeof *ids);
                pack8(g, last, width);
            }
            g += width;
            groups++;
            i = n - i > 8 ? i + 8 : n;
            if (i >= n || groups == MAX_PACKED_GROUPS || run_at(ids, i, n, 8) == 8)
                break;
        }
        p[0] = (uint8_t)(groups << 1 | 1);
        out->len += (size_t)(g - p);
    }
}
