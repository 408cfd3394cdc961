/*
 * One column chunk of a row group -> compressed pages (the encoding half of the
 * Parquet writer; parquet_writer.c's essay shows the file).
 *
 *   integers      data page(s): levels | PLAIN values of the present rows
 *   plain strings data page(s): levels | PLAIN byte arrays (4-byte length, bytes)
 *   dictionary    dictionary page: PLAIN byte arrays of the strings this chunk uses,
 *                 in order of first use; data page(s): levels | bit width byte |
 *                 RLE hybrid of the chunk-local ids (RLE_DICTIONARY)
 *
 * Levels are the definition levels (1 present, 0 null) as a 4-byte length and the
 * RLE/bit-packed hybrid (rle_hybrid.h). A data page holds at most 1 Mi rows (page
 * starts stay multiples of 64), plain strings also about 64 MiB.
 *
 * Nulls are cheap: the chunk's slice of the validity bitmap is copied once to a
 * zero-padded, bit-0-aligned buffer (w->bits); all-present and all-null chunks need
 * no per-row work for levels (one RLE run per page); otherwise present values are
 * gathered 64 rows per bitmap word: all-ones words copied whole, zero words skipped,
 * the rest bit by bit (count trailing zeros).
 *
 * Global dictionary ids map to local ids through a table indexed by global id and
 * stamped with a per-chunk generation, so nothing is cleared between chunks; ids out
 * of the dictionary's range are refused with the column and batch row.
 *
 * Everything is compressed with one reused ZSTD_CCtx at the writer's level; all
 * scratch buffers live as long as the writer.
 */
#include <stdlib.h>
#include <string.h>

#include "parquet_internal.h"
#include "rle_hybrid.h"
#include "thrift_compact.h"

/* ---- scratch ----------------------------------------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    size_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return 0;
    *p = q;
    *cap = n;
    return 1;
}

/* Copies rows [row0, row0 + rows) of an Arrow bitmap to w->bits (bit 0 = row0, zero
 * padding to the next 8 bytes and 8 more); returns the number of set bits. */
static int load_bits(ks_pq_writer *w, const uint8_t *valid, uint32_t row0, uint32_t rows, uint64_t *present)
{
    size_t nbytes = ((size_t)rows + 7) / 8, padded = ((nbytes + 7) & ~(size_t)7) + 8;
    if (!grow((void **)&w->bits, &w->bits_cap, padded, 1))
        return 0;
    const uint8_t *src = valid + (row0 >> 3);
    unsigned shift = row0 & 7;
    size_t src_len = (((uint64_t)row0 + rows + 7) >> 3) - (row0 >> 3);
    uint8_t *dst = w->bits;
    if (shift == 0) {
        memcpy(dst, src, nbytes);
    } else {
        for (size_t i = 0; i < nbytes; i++)
            dst[i] = (uint8_t)((src[i] >> shift) | (i + 1 < src_len ? src[i + 1] << (8 - shift) : 0));
    }
    if (rows & 7)
        dst[nbytes - 1] &= (uint8_t)((1u << (rows & 7)) - 1);
    memset(dst + nbytes, 0, padded - nbytes);
    uint64_t count = 0;
    for (size_t i = 0; i < padded; i += 8) {
        uint64_t word;
        memcpy(&word, dst + i, 8);
        count += (uint64_t)__builtin_popcountll(word);
    }
    *present = count;
    return 1;
}

static uint32_t count_bits(const uint8_t *bits, uint32_t a, uint32_t b)
{
    uint32_t count = 0;
    for (uint32_t i = a / 64; (uint64_t)i * 64 < b; i++) {
        uint64_t word;
        memcpy(&word, bits + (size_t)i * 8, 8);
        count += (uint32_t)__builtin_popcountll(word);
    }
    return count;
}

/* For each present row i in [a, b) (a a multiple of 64): BODY. */
#define FOR_EACH_PRESENT(bits, a, b, i, BODY)                                 \
    for (uint32_t wi_ = (a) / 64; (uint64_t)wi_ * 64 < (b); wi_++) {          \
        uint64_t word_;                                                        \
        memcpy(&word_, (bits) + (size_t)wi_ * 8, 8);                           \
        while (word_) {                                                        \
            uint32_t i = wi_ * 64 + (uint32_t)__builtin_ctzll(word_);          \
            word_ &= word_ - 1;                                                \
            BODY                                                               \
        }                                                                      \
    }

/* ---- pages --------------------------------------------------------------------------- */

/* Compresses w->page into the staging buffer behind its PageHeader (parquet.thrift
 * PageHeader: 1 type, 2 uncompressed_page_size, 3 compressed_page_size, 5
 * data_page_header / 7 dictionary_page_header). */
static int32_t emit_page(ks_pq_writer *w, int32_t c, int type, uint32_t num_values, int encoding,
                         chunk_info *ci)
{
    if (w->page.failed)
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    if (w->page.len > INT32_MAX / 2)
        return pq_fail(w, KS_ERR_RANGE, "parquet writer: column %s: a page of %zu bytes is too large",
                    w->cols[c].name, w->page.len);
    size_t bound = ZSTD_compressBound(w->page.len);
    w->zpage.len = 0;
    uint8_t *z = bb_room(&w->zpage, bound);
    if (!z)
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    size_t zlen = ZSTD_compressCCtx(w->zstd, z, bound, w->page.data, w->page.len, w->level);
    if (ZSTD_isError(zlen))
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: zstd: %s", w->cols[c].name,
                    ZSTD_getErrorName(zlen));
    w->header.len = 0;
    tc_writer t;
    tc_begin(&t, &w->header);
    tc_field_i32(&t, 1, type);
    tc_field_i32(&t, 2, (int32_t)w->page.len);
    tc_field_i32(&t, 3, (int32_t)zlen);
    if (type == PQ_DATA_PAGE) {
        tc_field_struct(&t, 5);                       /* DataPageHeader */
        tc_field_i32(&t, 1, (int32_t)num_values);     /* num_values, nulls included */
        tc_field_i32(&t, 2, encoding);                /* encoding */
        tc_field_i32(&t, 3, PQ_RLE);                  /* definition_level_encoding */
        tc_field_i32(&t, 4, PQ_RLE);                  /* repetition_level_encoding */
        tc_struct_end(&t);
    } else {
        tc_field_struct(&t, 7);                       /* DictionaryPageHeader */
        tc_field_i32(&t, 1, (int32_t)num_values);     /* num_values */
        tc_field_i32(&t, 2, encoding);                /* encoding */
        tc_field_bool(&t, 3, 0);                      /* is_sorted */
        tc_struct_end(&t);
    }
    tc_struct_end(&t);
    if (type == PQ_DATA_PAGE && ci->data_pages++ == 0)
        ci->data_offset = w->stage.len;
    if (type == PQ_DICTIONARY_PAGE)
        ci->dict_offset = w->stage.len;
    bb_put(&w->stage, w->header.data, w->header.len);
    bb_put(&w->stage, z, zlen);
    if (w->header.failed || w->stage.failed)
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    ci->uncompressed += w->header.len + w->page.len;
    ci->compressed += w->header.len + zlen;
    return KS_OK;
}

/* Definition levels of page rows [a, b) into w->page: 4-byte length, RLE hybrid. */
static void page_levels(ks_pq_writer *w, const uint8_t *bits, uint64_t present, uint32_t rows,
                        uint32_t a, uint32_t b)
{
    w->page.len = 0;
    uint8_t *len = bb_room(&w->page, 4);
    if (!len)
        return;
    w->page.len = 4;
    if (present == rows || present == 0) {  /* one run */
        tc_varint(&w->page, (uint64_t)(b - a) << 1);
        bb_byte(&w->page, present != 0);
    } else {
        rle_encode_levels(&w->page, bits + a / 8, b - a);
    }
    if (!w->page.failed)
        bb_le32_at(w->page.data, (uint32_t)(w->page.len - 4));
}

/* ---- integer chunks ------------------------------------------------------------------ */

/* Gathers the present values of rows [a, b) (of the slice starting at v) to dst, as OUT_T. */
#define GATHER(OUT_T, dst, v, bits, all, a, b)                                 \
    do {                                                                       \
        if (all) {                                                             \
            for (uint32_t r_ = (a); r_ < (b); r_++)                            \
                *dst++ = (OUT_T)(v)[r_];                                       \
            break;                                                             \
        }                                                                      \
        for (uint32_t wi_ = (a) / 64; (uint64_t)wi_ * 64 < (b); wi_++) {       \
            uint64_t word_;                                                    \
            memcpy(&word_, (bits) + (size_t)wi_ * 8, 8);                       \
            if (word_ == ~(uint64_t)0) {                                       \
                for (uint32_t r_ = wi_ * 64; r_ < wi_ * 64 + 64; r_++)         \
                    *dst++ = (OUT_T)(v)[r_];                                   \
                continue;                                                      \
            }                                                                  \
            while (word_) {                                                    \
                *dst++ = (OUT_T)(v)[wi_ * 64 + (uint32_t)__builtin_ctzll(word_)]; \
                word_ &= word_ - 1;                                            \
            }                                                                  \
        }                                                                      \
    } while (0)

static void minmax64(const int64_t *v, size_t n, chunk_info *ci)
{
    if (!n)
        return;
    int64_t lo = ci->has_minmax ? ci->imin : v[0], hi = ci->has_minmax ? ci->imax : v[0];
    for (size_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    ci->imin = lo, ci->imax = hi, ci->has_minmax = 1;
}

static void minmax32(const int32_t *v, size_t n, chunk_info *ci)
{
    if (!n)
        return;
    int32_t lo = v[0], hi = v[0];
    for (size_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (!ci->has_minmax || lo < ci->imin)
        ci->imin = lo;
    if (!ci->has_minmax || hi > ci->imax)
        ci->imax = hi;
    ci->has_minmax = 1;
}

static int32_t int_chunk(ks_pq_writer *w, int32_t c, const void *values, const uint8_t *bits,
                         uint64_t present, uint32_t rows, chunk_info *ci)
{
    int32_t kind = w->cols[c].kind;
    int stats = w->cols[c].statistics, all = present == rows;
    size_t width = kind == KS_PQ_I64 ? 8 : 4;
    for (uint32_t a = 0; a < rows; a += PAGE_VALUES) {
        uint32_t b = rows - a > PAGE_VALUES ? a + PAGE_VALUES : rows;
        page_levels(w, bits, present, rows, a, b);
        uint32_t n = present == 0 ? 0 : all ? b - a : count_bits(bits, a, b);
        /* The page's values, aligned: the caller's own when all rows are present (I64,
         * I32), else gathered to w->vals (the page buffer is not aligned after the levels). */
        const void *src = NULL;
        if (n && all && kind != KS_PQ_I8) {
            src = (const char *)values + (size_t)a * width;
        } else if (n) {
            if (!grow(&w->vals, &w->vals_cap, n, sizeof(int64_t)))
                return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
            src = w->vals;
            if (kind == KS_PQ_I64) {
                int64_t *dst = w->vals;
                GATHER(int64_t, dst, (const int64_t *)values, bits, 0, a, b);
            } else if (kind == KS_PQ_I32) {
                int32_t *dst = w->vals;
                GATHER(int32_t, dst, (const int32_t *)values, bits, 0, a, b);
            } else { /* KS_PQ_I8: INT32 physical, sign-extended */
                int32_t *dst = w->vals;
                GATHER(int32_t, dst, (const int8_t *)values, bits, all, a, b);
            }
        }
        if (n && stats && kind == KS_PQ_I64)
            minmax64(src, n, ci);
        else if (n && stats)
            minmax32(src, n, ci);
        bb_put(&w->page, src, (size_t)n * width);
        int32_t st = emit_page(w, c, PQ_DATA_PAGE, b - a, PQ_PLAIN, ci);
        if (st)
            return st;
    }
    return KS_OK;
}

/* ---- string chunks -------------------------------------------------------------------- */

static int str_less(const char *a, uint32_t an, const char *b, uint32_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c < 0 || (c == 0 && an < bn);
}

static void minmax_str(chunk_info *ci, const char *s, uint32_t n)
{
    if (!ci->has_minmax || str_less(s, n, ci->smin, ci->smin_len))
        ci->smin = s, ci->smin_len = n;
    if (!ci->has_minmax || str_less(ci->smax, ci->smax_len, s, n))
        ci->smax = s, ci->smax_len = n;
    ci->has_minmax = 1;
}

/* KS_PQ_STRING: PLAIN byte arrays. values/offsets are the slice's (row 0 = row0). */
static int32_t string_chunk(ks_pq_writer *w, int32_t c, const char *bytes, const int32_t *offsets,
                            const uint8_t *bits, uint64_t present, uint32_t row0, uint32_t rows,
                            chunk_info *ci)
{
    int stats = w->cols[c].statistics, all = present == rows;
    for (uint32_t a = 0, b; a < rows; a = b) {
        b = rows - a > PAGE_VALUES ? a + PAGE_VALUES : rows;
        while (present && b - a > 64 && (int64_t)offsets[b] - offsets[a] > (int64_t)PAGE_STRING_BYTES) {
            uint32_t half = ((b - a) / 2) & ~63u;
            if (!half)
                break;
            b = a + half;
        }
        page_levels(w, bits, present, rows, a, b);
#define PUT_STRING(r)                                                                        \
    {                                                                                        \
        int32_t o0_ = offsets[r], o1_ = offsets[(r) + 1];                                    \
        if (o0_ < 0 || o1_ < o0_)                                                            \
            return pq_fail(w, KS_ERR_RANGE, "parquet writer: column %s: row %u: string offsets %d..%d", \
                        w->cols[c].name, row0 + (r), o0_, o1_);                              \
        uint32_t n_ = (uint32_t)(o1_ - o0_);                                                 \
        uint8_t *p_ = bb_room(&w->page, 4 + (size_t)n_);                                     \
        if (!p_)                                                                             \
            return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name); \
        bb_le32_at(p_, n_);                                                                  \
        memcpy(p_ + 4, bytes + o0_, n_);                                                     \
        w->page.len += 4 + (size_t)n_;                                                       \
        if (stats)                                                                           \
            minmax_str(ci, bytes + o0_, n_);                                                 \
    }
        if (all) {
            for (uint32_t r = a; r < b; r++)
                PUT_STRING(r)
        } else if (present) {
            FOR_EACH_PRESENT(bits, a, b, r, PUT_STRING(r))
        }
#undef PUT_STRING
        int32_t st = emit_page(w, c, PQ_DATA_PAGE, b - a, PQ_PLAIN, ci);
        if (st)
            return st;
    }
    return KS_OK;
}

/* ---- dictionary chunks ---------------------------------------------------------------- */

/* Maps the present rows' global ids to local ids (w->ids), listing the used global ids
 * in order of first use (w->used); returns the number used in *k. */
static int32_t map_ids(ks_pq_writer *w, int32_t c, const void *values, const ks_pq_strings *dict,
                       const uint8_t *bits, uint64_t present, uint32_t row0, uint32_t rows, uint32_t *k)
{
    uint32_t count = dict ? dict->count : 0;
    size_t cap = w->map_cap;
    if (!grow((void **)&w->ids, &w->ids_cap, present ? present : 1, sizeof *w->ids) ||
        !grow((void **)&w->stamp, &cap, count ? count : 1, sizeof *w->stamp))
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    if (cap > w->map_cap) {  /* the stamps grew: local and used follow */
        uint32_t *local = realloc(w->local, cap * sizeof *w->local);
        if (local)
            w->local = local;
        uint32_t *used = local ? realloc(w->used, cap * sizeof *w->used) : NULL;
        if (!used)
            return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
        w->used = used;
        memset(w->stamp + w->map_cap, 0, (cap - w->map_cap) * sizeof *w->stamp);
        w->map_cap = (uint32_t)cap;
    }
    if (++w->gen == 0) {
        memset(w->stamp, 0, w->map_cap * sizeof *w->stamp);
        w->gen = 1;
    }
    uint32_t gen = w->gen, used = 0, n = 0, *ids = w->ids, *stamp = w->stamp, *local = w->local;
#define MAP_ROW(r)                                                                          \
    {                                                                                       \
        int64_t g_ = ids8 ? ((const int8_t *)values)[r] : ((const int32_t *)values)[r];     \
        if (g_ < 0 || g_ >= count)                                                          \
            return pq_fail(w, KS_ERR_RANGE,                                                    \
                        "parquet writer: column %s: row %u: dictionary id %lld out of range " \
                        "(the dictionary has %u strings)", w->cols[c].name, row0 + (r),       \
                        (long long)g_, count);                                              \
        if (stamp[g_] != gen) {                                                             \
            stamp[g_] = gen;                                                                \
            local[g_] = used;                                                               \
            w->used[used++] = (uint32_t)g_;                                                 \
        }                                                                                   \
        ids[n++] = local[g_];                                                               \
    }
    int ids8 = w->cols[c].kind == KS_PQ_DICT8;
    if (present == rows) {
        for (uint32_t r = 0; r < rows; r++)
            MAP_ROW(r)
    } else if (present) {
        FOR_EACH_PRESENT(bits, 0, rows, r, MAP_ROW(r))
    }
#undef MAP_ROW
    *k = used;
    return KS_OK;
}

static int32_t dict_chunk(ks_pq_writer *w, int32_t c, const void *values, const ks_pq_strings *dict,
                          const uint8_t *bits, uint64_t present, uint32_t row0, uint32_t rows,
                          chunk_info *ci)
{
    uint32_t k = 0;
    int32_t st = map_ids(w, c, values, dict, bits, present, row0, rows, &k);
    if (st)
        return st;
    /* The dictionary page: the used strings, PLAIN, in local id order. */
    w->page.len = 0;
    for (uint32_t j = 0; j < k; j++) {
        uint32_t g = w->used[j];
        int32_t o0 = dict->offsets[g], o1 = dict->offsets[g + 1];
        if (o0 < 0 || o1 < o0)
            return pq_fail(w, KS_ERR_RANGE, "parquet writer: column %s: dictionary string %u has offsets %d..%d",
                        w->cols[c].name, g, o0, o1);
        bb_le32(&w->page, (uint32_t)(o1 - o0));
        bb_put(&w->page, dict->bytes + o0, (size_t)(o1 - o0));
        if (w->cols[c].statistics)
            minmax_str(ci, dict->bytes + o0, (uint32_t)(o1 - o0));
    }
    ci->has_dict = 1;
    if ((st = emit_page(w, c, PQ_DICTIONARY_PAGE, k, PQ_PLAIN, ci)))
        return st;
    int width = rle_id_width(k);
    uint32_t done = 0;
    for (uint32_t a = 0; a < rows; a += PAGE_VALUES) {
        uint32_t b = rows - a > PAGE_VALUES ? a + PAGE_VALUES : rows;
        page_levels(w, bits, present, rows, a, b);
        uint32_t n = present == 0 ? 0 : present == rows ? b - a : count_bits(bits, a, b);
        bb_byte(&w->page, (uint8_t)width);
        rle_encode_ids(&w->page, w->ids + done, n, width);
        done += n;
        if ((st = emit_page(w, c, PQ_DATA_PAGE, b - a, PQ_RLE_DICTIONARY, ci)))
            return st;
    }
    return KS_OK;
}

/* ---- a column chunk ------------------------------------------------------------------ */

int32_t pq_encode_chunk(ks_pq_writer *w, int32_t c, const ks_pq_column_data *col, uint32_t row0,
                        uint32_t rows, chunk_info *ci)
{
    const pq_column *spec = &w->cols[c];
    memset(ci, 0, sizeof *ci);
    uint64_t present = rows;
    const uint8_t *bits = NULL;
    if (col->valid) {
        if (!load_bits(w, col->valid, row0, rows, &present))
            return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", spec->name);
        bits = w->bits;
    }
    ci->nulls = rows - present;
    if (present && !col->values)
        return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no values", spec->name);
    switch (spec->kind) {
    case KS_PQ_I64:
        return int_chunk(w, c, (const int64_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_I32:
        return int_chunk(w, c, (const int32_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_I8:
        return int_chunk(w, c, (const int8_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_STRING:
        if (present && !col->offsets)
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no offsets", spec->name);
        return string_chunk(w, c, col->values, col->offsets + (present ? row0 : 0), bits, present, row0, rows, ci);
    default: { /* KS_PQ_DICT32, KS_PQ_DICT8 */
        const ks_pq_strings *d = col->dict;
        if (present && !d)
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no dictionary", spec->name);
        if (d && d->count && (!d->offsets || !d->bytes))
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: dictionary without offsets or bytes",
                        spec->name);
        const void *v = present == 0 ? NULL
                        : spec->kind == KS_PQ_DICT8 ? (const void *)((const int8_t *)col->values + row0)
                                                    : (const void *)((const int32_t *)col->values + row0);
        return dict_chunk(w, c, v, d, bits, present, row0, rows, ci);
    }
    }
}
