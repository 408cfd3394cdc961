/*
 * A small Parquet writer for the event store (kscope/parquet.h).
 *
 * Parquet (github.com/apache/parquet-format) stores a table column by column. Rows
 * are cut into row groups; within a row group each column is one column chunk, a
 * run of pages; each page has a Thrift-encoded header and a (here ZSTD-compressed)
 * body. After the last row group comes the footer, a Thrift FileMetaData saying
 * where every chunk is, its size, encodings and statistics, plus the schema. The file
 * starts and ends with the magic "PAR1"; the footer's length sits just before the
 * final magic, so a reader seeks to the end, reads 8 bytes, then the footer.
 *
 *   +------+--------------------------------------------------+--------+-----+------+
 *   | PAR1 | row group 0            | row group 1 | ...       | footer | len | PAR1 |
 *   +------+--------------------------------------------------+--------+-----+------+
 *          | chunk col 0 | chunk col 1 | ...                  | FileMetaData (Thrift
 *          |                                                   compact): schema, rows,
 *          | dictionary page (dictionary kinds only)            row groups -> column
 *          |   PageHeader | ZSTD(PLAIN strings the chunk uses)  chunks -> offsets,
 *          | data page(s), <= 1 Mi values each                   sizes, statistics;
 *          |   PageHeader | ZSTD( 4-byte len | definition       key/value metadata,
 *          |                      levels (RLE hybrid, width 1)   created_by,
 *          |                      | values )                     column_orders
 *
 * What this writer emits (all of it read back by pyarrow and DuckDB in the tests):
 *   - flat schema: a root group, one OPTIONAL leaf per column; INT64, INT32, INT32 with
 *     logical INTEGER(8, signed) (converted type INT_8), BYTE_ARRAY with logical STRING
 *     (converted type UTF8);
 *   - data page v1: definition levels (max level 1, so bit width 1) as a 4-byte length
 *     and the RLE/bit-packed hybrid; no repetition levels (flat schema);
 *   - values: integers PLAIN (little-endian, non-null values only); strings PLAIN (4-byte
 *     length, bytes) or, for dictionary kinds, RLE_DICTIONARY: one byte of bit width
 *     then the RLE hybrid of chunk-local ids. The chunk's dictionary page holds only
 *     the strings that chunk uses, in order of first use, PLAIN-encoded; a global id is
 *     mapped to its local id through a table stamped with a per-chunk generation (no
 *     clearing between chunks);
 *   - statistics (when asked): null_count, min_value/max_value (plain little-endian,
 *     strings as raw bytes), the deprecated min/max too for integers (signed order is
 *     theirs), and column_orders = TypeDefinedOrder for every column.
 *
 * Nulls are cheap: the chunk's slice of the validity bitmap is copied once to a
 * zero-padded, bit-0-aligned buffer; all-present and all-null chunks skip it entirely
 * (one RLE run per page); otherwise present values are gathered 64 rows per bitmap
 * word (whole words copied at once, empty words skipped, others bit by bit).
 *
 * A row group is encoded entirely in memory (pages compressed into one staging
 * buffer) before one write; a bad id or offset therefore rejects the row group and
 * leaves the writer usable. A failed write (disk full) is sticky: the file is broken.
 * Buffers live as long as the writer. Hosts are little-endian (x86, arm, wasm):
 * integer values are copied as they are in memory (checked at open).
 *
 * Field ids below are parquet-format's src/main/thrift/parquet.thrift.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "kscope/parquet.h"
#include "byte_buf.h"
#include "rle_hybrid.h"
#include "thrift_compact.h"

/* parquet.thrift enums */
enum { PQ_INT32 = 1, PQ_INT64 = 2, PQ_BYTE_ARRAY = 6 };                  /* Type */
enum { PQ_CONVERTED_UTF8 = 0, PQ_CONVERTED_INT_8 = 15 };                 /* ConvertedType */
enum { PQ_OPTIONAL = 1 };                                                /* FieldRepetitionType */
enum { PQ_PLAIN = 0, PQ_RLE = 3, PQ_RLE_DICTIONARY = 8 };                /* Encoding */
enum { PQ_CODEC_ZSTD = 6 };                                              /* CompressionCodec */
enum { PQ_DATA_PAGE = 0, PQ_DICTIONARY_PAGE = 2 };                       /* PageType */

#define PAGE_VALUES (1u << 20)          /* rows per data page (a multiple of 64) */
#define PAGE_STRING_BYTES (64u << 20)   /* and, for plain strings, about this many bytes */
#define MAGIC "PAR1"

typedef struct pq_column {
    char *name;
    int32_t kind;
    int32_t statistics;
} pq_column;

/* What the footer needs about one column chunk of the row group being written. */
typedef struct chunk_info {
    uint64_t dict_offset, data_offset;  /* relative to the row group's first byte */
    uint64_t uncompressed, compressed;  /* all pages, headers included */
    uint32_t data_pages;
    int has_dict;
    uint64_t nulls;
    int has_minmax;
    int64_t imin, imax;                                 /* integer kinds */
    const char *smin, *smax;                            /* string kinds: caller's bytes */
    uint32_t smin_len, smax_len;
} chunk_info;

struct ks_pq_writer {
    FILE *f;
    char *path;
    pq_column *cols;
    int32_t n_cols;
    char **kv;                  /* key, value (NULL: none), key, value, ... */
    int32_t n_kv;
    int level;
    ZSTD_CCtx *zstd;
    uint64_t rows, bytes;
    uint32_t row_groups;
    int closed;
    int32_t broken;             /* a sticky status (failed write): the file is unusable */
    byte_buf page, zpage, header, stage, groups;
    chunk_info *chunks;
    uint8_t *bits;              /* the chunk's validity, bit 0 = its first row, zero-padded */
    size_t bits_cap;
    void *vals;                 /* a page's present integer values, gathered (8-byte aligned) */
    size_t vals_cap;            /* in int64 units */
    uint32_t *ids;              /* the chunk's local dictionary ids, present rows only */
    size_t ids_cap;
    uint32_t *stamp, *local, *used;   /* global id -> (generation, local id); local -> global */
    uint32_t map_cap, gen;
    char err[512];
};

/* ---- errors ------------------------------------------------------------------------ */

static int32_t fail(ks_pq_writer *w, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    return status;
}

static int32_t fail_io(ks_pq_writer *w)
{
    w->broken = fail(w, KS_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    return w->broken;
}

/* ---- open / free ------------------------------------------------------------------- */

static char *copy_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static int32_t check_specs(ks_pq_writer *w, const ks_pq_column_spec *columns, int32_t n)
{
    if (!columns || n < 1)
        return fail(w, KS_ERR_INVALID_ARG, "parquet writer: no columns");
    for (int32_t i = 0; i < n; i++) {
        if (!columns[i].name || !columns[i].name[0])
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %d has no name", i);
        if (columns[i].kind < 0 || columns[i].kind >= KS_PQ_KIND_COUNT)
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: kind %d out of range 0..%d",
                        columns[i].name, columns[i].kind, KS_PQ_KIND_COUNT - 1);
        for (int32_t j = 0; j < i; j++)
            if (strcmp(columns[i].name, columns[j].name) == 0)
                return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column name %s appears twice",
                            columns[i].name);
    }
    return KS_OK;
}

int32_t ks_pq_writer_open(const char *path, const ks_pq_column_spec *columns, int32_t n_columns,
                          const ks_pq_key_value *key_values, int32_t n_key_values,
                          int32_t compression_level, ks_pq_writer **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    ks_pq_writer *w = calloc(1, sizeof *w);
    if (!w)
        return KS_ERR_NO_MEMORY;
    *out = w;
    w->path = copy_str(path ? path : "(null)");
    if (!w->path)
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    if (!path)
        return fail(w, KS_ERR_INVALID_ARG, "parquet writer: no path");
    const uint16_t one = 1;
    if (*(const uint8_t *)&one != 1)
        return fail(w, KS_ERR_INVALID_ARG, "parquet writer: big-endian hosts are not supported");
    int32_t st = check_specs(w, columns, n_columns);
    if (st)
        return st;
    if (n_key_values < 0 || (n_key_values > 0 && !key_values))
        return fail(w, KS_ERR_INVALID_ARG, "parquet writer: %s: bad key/value list", path);
    for (int32_t i = 0; i < n_key_values; i++)
        if (!key_values[i].key)
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: %s: key/value %d has no key", path, i);
    w->cols = calloc((size_t)n_columns, sizeof *w->cols);
    w->chunks = calloc((size_t)n_columns, sizeof *w->chunks);
    w->kv = calloc((size_t)n_key_values * 2 + 1, sizeof *w->kv);
    w->zstd = ZSTD_createCCtx();
    if (!w->cols || !w->chunks || !w->kv || !w->zstd)
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    w->n_cols = n_columns;
    for (int32_t i = 0; i < n_columns; i++) {
        w->cols[i] = (pq_column){ copy_str(columns[i].name), columns[i].kind, columns[i].statistics };
        if (!w->cols[i].name)
            return fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    }
    w->n_kv = n_key_values;
    for (int32_t i = 0; i < n_key_values; i++) {
        w->kv[2 * i] = copy_str(key_values[i].key);
        w->kv[2 * i + 1] = key_values[i].value ? copy_str(key_values[i].value) : NULL;
        if (!w->kv[2 * i] || (key_values[i].value && !w->kv[2 * i + 1]))
            return fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    }
    w->level = compression_level;
    w->f = fopen(path, "wb");
    if (!w->f) {
        w->broken = fail(w, KS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        return w->broken;
    }
    if (fwrite(MAGIC, 1, 4, w->f) != 4)
        return fail_io(w);
    w->bytes = 4;
    return KS_OK;
}

void ks_pq_writer_free(ks_pq_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    for (int32_t i = 0; i < w->n_cols; i++)
        free(w->cols[i].name);
    if (w->kv)
        for (int32_t i = 0; i < 2 * w->n_kv; i++)
            free(w->kv[i]);
    free(w->kv);
    free(w->cols);
    free(w->chunks);
    free(w->path);
    ZSTD_freeCCtx(w->zstd);
    bb_free(&w->page);
    bb_free(&w->zpage);
    bb_free(&w->header);
    bb_free(&w->stage);
    bb_free(&w->groups);
    free(w->bits);
    free(w->vals);
    free(w->ids);
    free(w->stamp);
    free(w->local);
    free(w->used);
    free(w);
}

uint64_t ks_pq_writer_rows(const ks_pq_writer *w) { return w ? w->rows : 0; }
uint32_t ks_pq_writer_row_groups(const ks_pq_writer *w) { return w ? w->row_groups : 0; }
uint64_t ks_pq_writer_bytes(const ks_pq_writer *w) { return w ? w->bytes : 0; }
const char *ks_pq_writer_error(const ks_pq_writer *w) { return w ? w->err : "parquet writer: no writer"; }

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
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    if (w->page.len > INT32_MAX / 2)
        return fail(w, KS_ERR_RANGE, "parquet writer: column %s: a page of %zu bytes is too large",
                    w->cols[c].name, w->page.len);
    size_t bound = ZSTD_compressBound(w->page.len);
    w->zpage.len = 0;
    uint8_t *z = bb_room(&w->zpage, bound);
    if (!z)
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    size_t zlen = ZSTD_compressCCtx(w->zstd, z, bound, w->page.data, w->page.len, w->level);
    if (ZSTD_isError(zlen))
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: zstd: %s", w->cols[c].name,
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
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
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
                return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
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
            return fail(w, KS_ERR_RANGE, "parquet writer: column %s: row %u: string offsets %d..%d", \
                        w->cols[c].name, row0 + (r), o0_, o1_);                              \
        uint32_t n_ = (uint32_t)(o1_ - o0_);                                                 \
        uint8_t *p_ = bb_room(&w->page, 4 + (size_t)n_);                                     \
        if (!p_)                                                                             \
            return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name); \
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
        return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
    if (cap > w->map_cap) {  /* the stamps grew: local and used follow */
        uint32_t *local = realloc(w->local, cap * sizeof *w->local);
        if (local)
            w->local = local;
        uint32_t *used = local ? realloc(w->used, cap * sizeof *w->used) : NULL;
        if (!used)
            return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", w->cols[c].name);
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
            return fail(w, KS_ERR_RANGE,                                                    \
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
            return fail(w, KS_ERR_RANGE, "parquet writer: column %s: dictionary string %u has offsets %d..%d",
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

/* ---- row groups ------------------------------------------------------------------------ */

static int32_t encode_chunk(ks_pq_writer *w, int32_t c, const ks_pq_column_data *col, uint32_t row0,
                            uint32_t rows, chunk_info *ci)
{
    const pq_column *spec = &w->cols[c];
    memset(ci, 0, sizeof *ci);
    uint64_t present = rows;
    const uint8_t *bits = NULL;
    if (col->valid) {
        if (!load_bits(w, col->valid, row0, rows, &present))
            return fail(w, KS_ERR_NO_MEMORY, "parquet writer: column %s: out of memory", spec->name);
        bits = w->bits;
    }
    ci->nulls = rows - present;
    if (present && !col->values)
        return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no values", spec->name);
    switch (spec->kind) {
    case KS_PQ_I64:
        return int_chunk(w, c, (const int64_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_I32:
        return int_chunk(w, c, (const int32_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_I8:
        return int_chunk(w, c, (const int8_t *)col->values + (present ? row0 : 0), bits, present, rows, ci);
    case KS_PQ_STRING:
        if (present && !col->offsets)
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no offsets", spec->name);
        return string_chunk(w, c, col->values, col->offsets + (present ? row0 : 0), bits, present, row0, rows, ci);
    default: { /* KS_PQ_DICT32, KS_PQ_DICT8 */
        const ks_pq_strings *d = col->dict;
        if (present && !d)
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: no dictionary", spec->name);
        if (d && d->count && (!d->offsets || !d->bytes))
            return fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: dictionary without offsets or bytes",
                        spec->name);
        const void *v = present == 0 ? NULL
                        : spec->kind == KS_PQ_DICT8 ? (const void *)((const int8_t *)col->values + row0)
                                                    : (const void *)((const int32_t *)col->values + row0);
        return dict_chunk(w, c, v, d, bits, present, row0, rows, ci);
    }
    }
}

static int physical_type(int32_t kind)
{
    return kind == KS_PQ_I64 ? PQ_INT64 : kind <= KS_PQ_I8 ? PQ_INT32 : PQ_BYTE_ARRAY;
}

/* parquet.thrift Statistics: 1 max, 2 min (deprecated, signed order: integers only),
 * 3 null_count, 5 max_value, 6 min_value, 7 is_max_value_exact, 8 is_min_value_exact. */
static void put_statistics(tc_writer *t, int32_t kind, const chunk_info *ci)
{
    tc_field_struct(t, 12);
    if (ci->has_minmax && kind <= KS_PQ_I8) {
        uint8_t lo[8], hi[8];
        uint32_t n = kind == KS_PQ_I64 ? 8 : 4;
        for (uint32_t i = 0; i < n; i++) {
            lo[i] = (uint8_t)((uint64_t)ci->imin >> (8 * i));
            hi[i] = (uint8_t)((uint64_t)ci->imax >> (8 * i));
        }
        tc_field_binary(t, 1, hi, n);
        tc_field_binary(t, 2, lo, n);
        tc_field_i64(t, 3, (int64_t)ci->nulls);
        tc_field_binary(t, 5, hi, n);
        tc_field_binary(t, 6, lo, n);
    } else if (ci->has_minmax) {
        tc_field_i64(t, 3, (int64_t)ci->nulls);
        tc_field_binary(t, 5, ci->smax, ci->smax_len);
        tc_field_binary(t, 6, ci->smin, ci->smin_len);
    } else {
        tc_field_i64(t, 3, (int64_t)ci->nulls);
    }
    if (ci->has_minmax) {
        tc_field_bool(t, 7, 1);
        tc_field_bool(t, 8, 1);
    }
    tc_struct_end(t);
}

/* Appends the RowGroup (parquet.thrift RowGroup, ColumnChunk, ColumnMetaData) of the
 * chunks just written at file offset `base` to w->groups. */
static void put_row_group(ks_pq_writer *w, uint64_t base, uint32_t rows)
{
    tc_writer t;
    tc_begin(&t, &w->groups);
    uint64_t total_uncompressed = 0, total_compressed = 0;
    tc_field_list(&t, 1, TC_STRUCT, (uint32_t)w->n_cols);        /* RowGroup.columns */
    for (int32_t c = 0; c < w->n_cols; c++) {
        const chunk_info *ci = &w->chunks[c];
        int32_t kind = w->cols[c].kind;
        tc_elem_struct(&t);                                        /* ColumnChunk */
        tc_field_i64(&t, 2, 0);                                    /* file_offset: 0, no outside metadata */
        tc_field_struct(&t, 3);                                    /* meta_data: ColumnMetaData */
        tc_field_i32(&t, 1, physical_type(kind));                  /* type */
        tc_field_list(&t, 2, TC_I32, ci->has_dict ? 3 : 2);        /* encodings */
        tc_elem_i32(&t, PQ_PLAIN);
        tc_elem_i32(&t, PQ_RLE);
        if (ci->has_dict)
            tc_elem_i32(&t, PQ_RLE_DICTIONARY);
        tc_field_list(&t, 3, TC_BINARY, 1);                        /* path_in_schema */
        tc_elem_string(&t, w->cols[c].name);
        tc_field_i32(&t, 4, PQ_CODEC_ZSTD);                        /* codec */
        tc_field_i64(&t, 5, rows);                                 /* num_values */
        tc_field_i64(&t, 6, (int64_t)ci->uncompressed);            /* total_uncompressed_size */
        tc_field_i64(&t, 7, (int64_t)ci->compressed);              /* total_compressed_size */
        tc_field_i64(&t, 9, (int64_t)(base + ci->data_offset));    /* data_page_offset */
        if (ci->has_dict)
            tc_field_i64(&t, 11, (int64_t)(base + ci->dict_offset)); /* dictionary_page_offset */
        if (w->cols[c].statistics)
            put_statistics(&t, kind, ci);                          /* 12: statistics */
        tc_field_list(&t, 13, TC_STRUCT, ci->has_dict ? 2 : 1);    /* encoding_stats */
        if (ci->has_dict) {
            tc_elem_struct(&t);                                    /* PageEncodingStats */
            tc_field_i32(&t, 1, PQ_DICTIONARY_PAGE);               /* page_type */
            tc_field_i32(&t, 2, PQ_PLAIN);                         /* encoding */
            tc_field_i32(&t, 3, 1);                                /* count */
            tc_struct_end(&t);
        }
        tc_elem_struct(&t);
        tc_field_i32(&t, 1, PQ_DATA_PAGE);
        tc_field_i32(&t, 2, ci->has_dict ? PQ_RLE_DICTIONARY : PQ_PLAIN);
        tc_field_i32(&t, 3, (int32_t)ci->data_pages);
        tc_struct_end(&t);
        tc_struct_end(&t);                                         /* ColumnMetaData */
        tc_struct_end(&t);                                         /* ColumnChunk */
        total_uncompressed += ci->uncompressed;
        total_compressed += ci->compressed;
    }
    tc_field_i64(&t, 2, (int64_t)total_uncompressed);              /* total_byte_size */
    tc_field_i64(&t, 3, rows);                                     /* num_rows */
    tc_field_i64(&t, 5, (int64_t)base);                            /* file_offset: first page */
    tc_field_i64(&t, 6, (int64_t)total_compressed);                /* total_compressed_size */
    tc_struct_end(&t);
}

static int32_t usable(ks_pq_writer *w)
{
    if (w->broken)
        return w->broken;
    if (w->closed)
        return fail(w, KS_ERR_INVALID_ARG, "%s: the writer is closed", w->path);
    if (!w->f)
        return fail(w, KS_ERR_INVALID_ARG, "%s: the writer is not open", w->path);
    return KS_OK;
}

int32_t ks_pq_write_row_group(ks_pq_writer *w, const ks_pq_column_data *columns, uint32_t row0, uint32_t rows)
{
    if (!w)
        return KS_ERR_INVALID_ARG;
    int32_t st = usable(w);
    if (st)
        return st;
    if (rows == 0)
        return KS_OK;
    if (!columns)
        return fail(w, KS_ERR_INVALID_ARG, "%s: no column data", w->path);
    if ((uint64_t)row0 + rows > UINT32_MAX)
        return fail(w, KS_ERR_RANGE, "%s: rows %u + %u past the largest batch row", w->path, row0, rows);
    w->stage.len = 0;
    w->stage.failed = w->page.failed = w->zpage.failed = w->header.failed = 0;
    for (int32_t c = 0; c < w->n_cols; c++)
        if ((st = encode_chunk(w, c, &columns[c], row0, rows, &w->chunks[c])))
            return st;
    size_t groups_len = w->groups.len;
    put_row_group(w, w->bytes, rows);
    if (w->groups.failed) {
        w->groups.failed = 0;
        w->groups.len = groups_len;
        return fail(w, KS_ERR_NO_MEMORY, "%s: out of memory", w->path);
    }
    if (fwrite(w->stage.data, 1, w->stage.len, w->f) != w->stage.len) {
        w->groups.len = groups_len;
        return fail_io(w);
    }
    w->bytes += w->stage.len;
    w->rows += rows;
    w->row_groups++;
    return KS_OK;
}

/* ---- footer ----------------------------------------------------------------------------- */

/* parquet.thrift SchemaElement: 1 type, 3 repetition_type, 4 name, 5 num_children,
 * 6 converted_type, 10 logicalType (union LogicalType: 1 STRING, 10 INTEGER). */
static void put_schema(tc_writer *t, const ks_pq_writer *w)
{
    tc_field_list(t, 2, TC_STRUCT, (uint32_t)w->n_cols + 1);      /* FileMetaData.schema */
    tc_elem_struct(t);                                             /* the root group */
    tc_field_string(t, 4, "schema");
    tc_field_i32(t, 5, w->n_cols);
    tc_struct_end(t);
    for (int32_t c = 0; c < w->n_cols; c++) {
        int32_t kind = w->cols[c].kind;
        tc_elem_struct(t);
        tc_field_i32(t, 1, physical_type(kind));
        tc_field_i32(t, 3, PQ_OPTIONAL);
        tc_field_string(t, 4, w->cols[c].name);
        if (kind == KS_PQ_I8) {
            tc_field_i32(t, 6, PQ_CONVERTED_INT_8);
            tc_field_struct(t, 10);                                /* LogicalType */
            tc_field_struct(t, 10);                                /* INTEGER: IntType */
            tc_field_i8(t, 1, 8);                                  /* bitWidth */
            tc_field_bool(t, 2, 1);                                /* isSigned */
            tc_struct_end(t);
            tc_struct_end(t);
        } else if (kind >= KS_PQ_DICT32) {
            tc_field_i32(t, 6, PQ_CONVERTED_UTF8);
            tc_field_struct(t, 10);                                /* LogicalType */
            tc_field_struct(t, 1);                                 /* STRING: StringType {} */
            tc_struct_end(t);
            tc_struct_end(t);
        }
        tc_struct_end(t);
    }
}

int32_t ks_pq_writer_close(ks_pq_writer *w)
{
    if (!w)
        return KS_ERR_INVALID_ARG;
    int32_t st = usable(w);
    if (st)
        return st;
    byte_buf foot = { 0 };
    tc_writer t;
    tc_begin(&t, &foot);                                           /* FileMetaData */
    tc_field_i32(&t, 1, 1);                                        /* version */
    put_schema(&t, w);                                             /* 2: schema */
    tc_field_i64(&t, 3, (int64_t)w->rows);                         /* num_rows */
    tc_field_list(&t, 4, TC_STRUCT, w->row_groups);                /* row_groups */
    bb_put(&foot, w->groups.data, w->groups.len);
    if (w->n_kv) {
        tc_field_list(&t, 5, TC_STRUCT, (uint32_t)w->n_kv);        /* key_value_metadata */
        for (int32_t i = 0; i < w->n_kv; i++) {
            tc_elem_struct(&t);                                    /* KeyValue */
            tc_field_string(&t, 1, w->kv[2 * i]);
            if (w->kv[2 * i + 1])
                tc_field_string(&t, 2, w->kv[2 * i + 1]);
            tc_struct_end(&t);
        }
    }
    char created_by[96];
    snprintf(created_by, sizeof created_by, "kscope-parquet-writer version %s", ks_version());
    tc_field_string(&t, 6, created_by);                            /* created_by */
    tc_field_list(&t, 7, TC_STRUCT, (uint32_t)w->n_cols);         /* column_orders */
    for (int32_t c = 0; c < w->n_cols; c++) {
        tc_elem_struct(&t);                                        /* union ColumnOrder */
        tc_field_struct(&t, 1);                                    /* TYPE_ORDER: TypeDefinedOrder {} */
        tc_struct_end(&t);
        tc_struct_end(&t);
    }
    tc_struct_end(&t);
    if (foot.failed || t.overflow) {
        bb_free(&foot);
        return fail(w, KS_ERR_NO_MEMORY, "%s: out of memory", w->path);
    }
    uint8_t tail[8];
    bb_le32_at(tail, (uint32_t)foot.len);
    memcpy(tail + 4, MAGIC, 4);
    int ok = fwrite(foot.data, 1, foot.len, w->f) == foot.len && fwrite(tail, 1, 8, w->f) == 8;
    w->bytes += foot.len + 8;
    bb_free(&foot);
    ok = fflush(w->f) == 0 && ok;
    FILE *f = w->f;
    w->f = NULL;
    if (!ok) {
        fail_io(w);
        fclose(f);
        return w->broken;
    }
    if (fclose(f) != 0)
        return fail_io(w);
    w->closed = 1;
    return KS_OK;
}
