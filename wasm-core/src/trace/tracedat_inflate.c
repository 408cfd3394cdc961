/*
 * inflate: a zlib stream (RFC 1950) of deflate data (RFC 1951) -> bytes, for the
 * zlib-compressed blocks of trace.dat v7 files (tracedat_decompress.h).
 *
 * Why kscope's own: the browser build needs the same decoder as the native one, and
 * Debian's emscripten ships no prebuilt zlib port (-sUSE_ZLIB=1 wants to download and
 * build one, which its frozen cache refuses); no registry package we may fetch ships
 * zlib's C sources without a build step of its own. Deflate has not changed since
 * 1996 and decoding it takes ~250 lines of code, so both builds compile this file; the tests
 * check it against streams written by Debian's zlib (levels 0-9, every strategy,
 * stored, fixed and dynamic blocks) and against corrupt ones.
 *
 * Deflate in one paragraph: the data is a run of blocks, each starting with 3 bits
 * (BFINAL, BTYPE). BTYPE 0 is stored: skip to a byte boundary, LEN, ~LEN, LEN raw
 * bytes. BTYPE 1 and 2 are Huffman-coded: symbols 0-255 are literal bytes, 256 ends
 * the block, 257-285 are match lengths (3-258, with extra bits) each followed by a
 * distance symbol (0-29: 1-32768 back, with extra bits) - copy that many bytes from
 * that far back in the output (the copy may overlap itself). BTYPE 1 uses the fixed
 * code of the RFC; BTYPE 2 sends its two codes first, as code lengths that are
 * themselves Huffman-coded. Huffman codes are canonical: only each symbol's code
 * length is sent, codes are assigned in (length, symbol) order, and they are packed
 * most significant bit first while everything else is packed least significant bit
 * first. A zlib stream wraps that in a 2-byte header (method 8 = deflate, window size,
 * header check mod 31) and ends with the Adler-32 of the data, big-endian.
 *
 * Decoding walks the canonical code one bit at a time (count of codes per length,
 * symbols in code order), as Mark Adler's puff.c explains it; it is not zlib's
 * table-driven speed (2.2x slower on trace text, measured once: src/trace/README.md),
 * which a trace.dat's few MB of chunks do not need. Every read
 * and every copy is bounds-checked: a corrupt stream ends with a message, never reads
 * or writes outside the buffers.
 */
#include <stdio.h>
#include <string.h>

#include "tracedat_decompress.h"

#define MAXBITS 15              /* longest deflate code */
#define MAXLCODES 286           /* literal/length codes */
#define MAXDCODES 30            /* distance codes */
#define FIXLCODES 288           /* the fixed literal/length code has 288 symbols */

typedef struct inflate_state {
    const uint8_t *in;
    uint32_t in_len, in_pos;
    uint32_t bitbuf;            /* bits not used yet, lowest first */
    int32_t bitcnt;
    uint8_t *out;
    uint32_t out_len, out_pos;
    const char *err;            /* the first problem found (static text) */
} inflate_state;

/* A canonical Huffman code: how many codes of each length, and the symbols in code order. */
typedef struct huffman {
    uint16_t count[MAXBITS + 1];
    uint16_t symbol[FIXLCODES];
} huffman;

/* n (0..16) bits, least significant first; -1 at the end of the input. */
static int32_t bits(inflate_state *s, int32_t n)
{
    uint32_t v = s->bitbuf;
    while (s->bitcnt < n) {
        if (s->in_pos >= s->in_len) {
            s->err = "the deflate data ends before its last block does";
            return -1;
        }
        v |= (uint32_t)s->in[s->in_pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    s->bitbuf = n < 32 ? v >> n : 0;
    s->bitcnt -= n;
    return (int32_t)(v & ((1u << n) - 1));
}

/* One symbol of code h: the code's bits arrive most significant first. -1 on error. */
static int32_t decode(inflate_state *s, const huffman *h)
{
    int32_t code = 0, first = 0, index = 0;
    for (int32_t len = 1; len <= MAXBITS; len++) {
        int32_t b = bits(s, 1);
        if (b < 0)
            return -1;
        code |= b;
        int32_t count = h->count[len];
        if (code - count < first)               /* the code is one of this length */
            return h->symbol[index + (code - first)];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    s->err = "a Huffman code that the block's code table does not have";
    return -1;
}

/* Builds h from n code lengths. Returns 0 for a complete code, > 0 for an incomplete
 * one (codes left unused), < 0 for an over-subscribed one (more codes than fit). */
static int32_t construct(huffman *h, const uint16_t *length, int32_t n)
{
    memset(h->count, 0, sizeof h->count);
    for (int32_t sym = 0; sym < n; sym++)
        h->count[length[sym]]++;
    if (h->count[0] == n)                       /* no codes: complete, nothing to decode */
        return 0;
    int32_t left = 1;
    for (int32_t len = 1; len <= MAXBITS; len++) {
        left = (left << 1) - h->count[len];
        if (left < 0)
            return left;
    }
    uint16_t offs[MAXBITS + 1];
    offs[1] = 0;
    for (int32_t len = 1; len < MAXBITS; len++)
        offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
    for (int32_t sym = 0; sym < n; sym++)
        if (length[sym] != 0)
            h->symbol[offs[length[sym]]++] = (uint16_t)sym;
    return left;
}

static bool put_byte(inflate_state *s, uint8_t b)
{
    if (s->out_pos >= s->out_len) {
        s->err = "the data decompresses to more bytes than its header says";
        return false;
    }
    s->out[s->out_pos++] = b;
    return true;
}

/* A Huffman-coded block's symbols up to end-of-block. */
static bool codes(inflate_state *s, const huffman *lencode, const huffman *distcode)
{
    static const uint16_t lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                        35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
    static const uint8_t lext[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                      3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
    static const uint16_t dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                        257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                        8193, 12289, 16385, 24577 };
    static const uint8_t dext[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                      7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
    for (;;) {
        int32_t sym = decode(s, lencode);
        if (sym < 0)
            return false;
        if (sym < 256) {
            if (!put_byte(s, (uint8_t)sym))
                return false;
            continue;
        }
        if (sym == 256)
            return true;
        sym -= 257;
        if (sym >= 29) {
            s->err = "a length symbol beyond 285";
            return false;
        }
        int32_t extra = bits(s, lext[sym]);
        if (extra < 0)
            return false;
        uint32_t len = lbase[sym] + (uint32_t)extra;
        int32_t dsym = decode(s, distcode);
        if (dsym < 0)
            return false;
        if (dsym >= 30) {
            s->err = "a distance symbol beyond 29";
            return false;
        }
        extra = bits(s, dext[dsym]);
        if (extra < 0)
            return false;
        uint32_t dist = dbase[dsym] + (uint32_t)extra;
        if (dist > s->out_pos) {
            s->err = "a match that reaches back before the start of the data";
            return false;
        }
        if (len > s->out_len - s->out_pos) {
            s->err = "the data decompresses to more bytes than its header says";
            return false;
        }
        for (uint32_t i = 0; i < len; i++, s->out_pos++)   /* byte by byte: may overlap */
            s->out[s->out_pos] = s->out[s->out_pos - dist];
    }
}

static bool stored(inflate_state *s)
{
    s->bitbuf = 0;                              /* the rest of the current byte is padding */
    s->bitcnt = 0;
    if (s->in_len - s->in_pos < 4) {
        s->err = "a stored block's length is cut off";
        return false;
    }
    const uint8_t *at = s->in + s->in_pos;
    uint32_t len = at[0] | (uint32_t)at[1] << 8, nlen = at[2] | (uint32_t)at[3] << 8;
    if (len != (~nlen & 0xffff)) {
        s->err = "a stored block whose length and its complement disagree";
        return false;
    }
    s->in_pos += 4;
    if (s->in_len - s->in_pos < len) {
        s->err = "a stored block longer than the data left";
        return false;
    }
    if (len > s->out_len - s->out_pos) {
        s->err = "the data decompresses to more bytes than its header says";
        return false;
    }
    memcpy(s->out + s->out_pos, s->in + s->in_pos, len);
    s->in_pos += len;
    s->out_pos += len;
    return true;
}

static bool fixed(inflate_state *s)
{
    /* Built per block (a few hundred steps): no shared state, so decoders in several
     * threads never race. */
    huffman lencode, distcode;
    uint16_t lengths[FIXLCODES];
    int32_t sym = 0;
    for (; sym < 144; sym++) lengths[sym] = 8;
    for (; sym < 256; sym++) lengths[sym] = 9;
    for (; sym < 280; sym++) lengths[sym] = 7;
    for (; sym < FIXLCODES; sym++) lengths[sym] = 8;
    construct(&lencode, lengths, FIXLCODES);
    for (sym = 0; sym < MAXDCODES; sym++)
        lengths[sym] = 5;
    construct(&distcode, lengths, MAXDCODES);
    return codes(s, &lencode, &distcode);
}

static bool dynamic(inflate_state *s)
{
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    uint16_t lengths[MAXLCODES + MAXDCODES];
    huffman lencode, distcode;
    int32_t nlen = bits(s, 5), ndist = bits(s, 5), ncode = bits(s, 4);
    if (nlen < 0 || ndist < 0 || ncode < 0)
        return false;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > MAXLCODES || ndist > MAXDCODES) {
        s->err = "a dynamic block with more than 286 length or 30 distance codes";
        return false;
    }
    int32_t i = 0;
    for (; i < ncode; i++) {
        int32_t len = bits(s, 3);
        if (len < 0)
            return false;
        lengths[order[i]] = (uint16_t)len;
    }
    for (; i < 19; i++)
        lengths[order[i]] = 0;
    if (construct(&lencode, lengths, 19) != 0) {
        s->err = "a dynamic block whose code-length code is not complete";
        return false;
    }
    for (i = 0; i < nlen + ndist;) {
        int32_t sym = decode(s, &lencode);
        if (sym < 0)
            return false;
        if (sym < 16) {
            lengths[i++] = (uint16_t)sym;
            continue;
        }
        uint16_t len = 0;
        int32_t repeat;
        if (sym == 16) {                        /* the previous length, 3-6 times */
            if (i == 0) {
                s->err = "a dynamic block that repeats a length before the first";
                return false;
            }
            len = lengths[i - 1];
            repeat = bits(s, 2);
            repeat = repeat < 0 ? -1 : 3 + repeat;
        } else if (sym == 17) {                 /* zero, 3-10 times */
            repeat = bits(s, 3);
            repeat = repeat < 0 ? -1 : 3 + repeat;
        } else {                                /* zero, 11-138 times */
            repeat = bits(s, 7);
            repeat = repeat < 0 ? -1 : 11 + repeat;
        }
        if (repeat < 0)
            return false;
        if (i + repeat > nlen + ndist) {
            s->err = "a dynamic block whose code lengths run past their count";
            return false;
        }
        while (repeat--)
            lengths[i++] = len;
    }
    if (lengths[256] == 0) {
        s->err = "a dynamic block without an end-of-block code";
        return false;
    }
    /* An incomplete code is allowed only when it is a single code of length 1 (as zlib). */
    int32_t err = construct(&lencode, lengths, nlen);
    if (err < 0 || (err > 0 && nlen != lencode.count[0] + lencode.count[1])) {
        s->err = "a dynamic block with a broken literal/length code";
        return false;
    }
    err = construct(&distcode, lengths + nlen, ndist);
    if (err < 0 || (err > 0 && ndist != distcode.count[0] + distcode.count[1])) {
        s->err = "a dynamic block with a broken distance code";
        return false;
    }
    return codes(s, &lencode, &distcode);
}

static uint32_t adler32(const uint8_t *data, uint32_t len)
{
    uint32_t a = 1, b = 0;
    while (len > 0) {
        uint32_t n = len < 5552 ? len : 5552;   /* the most bytes before b can overflow */
        len -= n;
        while (n--) {
            a += *data++;
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    return b << 16 | a;
}

static bool fail_at(const inflate_state *s, const char *what, char *msg, int32_t cap)
{
    snprintf(msg, (size_t)cap, "zlib: %s (at byte %u of %u of the compressed block)", what,
             s->in_pos, s->in_len);
    return false;
}

bool td_zlib_inflate(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len,
                     char *msg, int32_t msg_cap)
{
    inflate_state s = { .in = in, .in_len = in_len, .out = out, .out_len = out_len };
    if (in_len < 2)
        return fail_at(&s, "a block shorter than the 2-byte zlib header", msg, msg_cap);
    uint32_t cmf = in[0], flg = in[1];
    if ((cmf & 15) != 8 || (cmf >> 4) > 7 || (cmf << 8 | flg) % 31 != 0)
        return fail_at(&s, "not a zlib header (method 8, window <= 32 KiB, check mod 31)", msg, msg_cap);
    if (flg & 0x20)
        return fail_at(&s, "a stream that needs a preset dictionary", msg, msg_cap);
    s.in_pos = 2;
    int32_t last;
    do {
        last = bits(&s, 1);
        int32_t type = bits(&s, 2);
        bool ok = last >= 0 && type >= 0;
        if (ok && type == 0)
            ok = stored(&s);
        else if (ok && type == 1)
            ok = fixed(&s);
        else if (ok && type == 2)
            ok = dynamic(&s);
        else if (ok)
            s.err = "a block of type 3 (reserved)", ok = false;
        if (!ok)
            return fail_at(&s, s.err, msg, msg_cap);
    } while (!last);
    if (s.in_len - s.in_pos < 4)                /* the checksum starts at the next byte */
        return fail_at(&s, "the Adler-32 checksum after the data is cut off", msg, msg_cap);
    const uint8_t *at = in + s.in_pos;
    uint32_t want = (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | at[3];
    if (s.out_pos != out_len) {
        snprintf(msg, (size_t)msg_cap, "zlib: %u bytes decompressed, the block's header says %u",
                 s.out_pos, out_len);
        return false;
    }
    if (adler32(out, out_len) != want)
        return fail_at(&s, "the data does not match its Adler-32 checksum", msg, msg_cap);
    return true;
}
