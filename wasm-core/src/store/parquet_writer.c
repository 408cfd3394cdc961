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
 * Nulls are cheap (most typed columns are null in most rows): see parquet_chunk.c.
 *
 * A row group is encoded entirely in memory (pages compressed into one staging
 * buffer) before one write; a bad id or offset therefore rejects the row group and
 * leaves the writer usable. A failed write (disk full) is sticky: the file is broken.
 * Buffers live as long as the writer. Hosts are little-endian (x86, arm, wasm):
 * integer values are copied as they are in memory (checked at open).
 *
 * The parts: parquet_writer.c (this file: the API, the file, the row group staging),
 * parquet_chunk.c (a column chunk -> pages), parquet_footer.c (Thrift metadata),
 * rle_hybrid.c and thrift_compact.c (the two encodings), parquet_internal.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet_internal.h"

#define MAGIC "PAR1"

/* ---- errors ------------------------------------------------------------------------ */

int32_t pq_fail(ks_pq_writer *w, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
    return status;
}

static int32_t fail_io(ks_pq_writer *w)
{
    w->broken = pq_fail(w, KS_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
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
        return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: no columns");
    for (int32_t i = 0; i < n; i++) {
        if (!columns[i].name || !columns[i].name[0])
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %d has no name", i);
        if (columns[i].kind < 0 || columns[i].kind >= KS_PQ_KIND_COUNT)
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column %s: kind %d out of range 0..%d",
                        columns[i].name, columns[i].kind, KS_PQ_KIND_COUNT - 1);
        for (int32_t j = 0; j < i; j++)
            if (strcmp(columns[i].name, columns[j].name) == 0)
                return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: column name %s appears twice",
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
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    if (!path)
        return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: no path");
    const uint16_t one = 1;
    if (*(const uint8_t *)&one != 1)
        return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: big-endian hosts are not supported");
    int32_t st = check_specs(w, columns, n_columns);
    if (st)
        return st;
    if (n_key_values < 0 || (n_key_values > 0 && !key_values))
        return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: %s: bad key/value list", path);
    for (int32_t i = 0; i < n_key_values; i++)
        if (!key_values[i].key)
            return pq_fail(w, KS_ERR_INVALID_ARG, "parquet writer: %s: key/value %d has no key", path, i);
    w->cols = calloc((size_t)n_columns, sizeof *w->cols);
    w->chunks = calloc((size_t)n_columns, sizeof *w->chunks);
    w->kv = calloc((size_t)n_key_values * 2 + 1, sizeof *w->kv);
    w->zstd = ZSTD_createCCtx();
    if (!w->cols || !w->chunks || !w->kv || !w->zstd)
        return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    w->n_cols = n_columns;
    for (int32_t i = 0; i < n_columns; i++) {
        w->cols[i] = (pq_column){ copy_str(columns[i].name), columns[i].kind, columns[i].statistics };
        if (!w->cols[i].name)
            return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    }
    w->n_kv = n_key_values;
    for (int32_t i = 0; i < n_key_values; i++) {
        w->kv[2 * i] = copy_str(key_values[i].key);
        w->kv[2 * i + 1] = key_values[i].value ? copy_str(key_values[i].value) : NULL;
        if (!w->kv[2 * i] || (key_values[i].value && !w->kv[2 * i + 1]))
            return pq_fail(w, KS_ERR_NO_MEMORY, "parquet writer: out of memory");
    }
    w->level = compression_level;
    w->f = fopen(path, "wb");
    if (!w->f) {
        w->broken = pq_fail(w, KS_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
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

/* ---- row groups ------------------------------------------------------------------------ */

static int32_t usable(ks_pq_writer *w)
{
    if (w->broken)
        return w->broken;
    if (w->closed)
        return pq_fail(w, KS_ERR_INVALID_ARG, "%s: the writer is closed", w->path);
    if (!w->f)
        return pq_fail(w, KS_ERR_INVALID_ARG, "%s: the writer is not open", w->path);
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
        return pq_fail(w, KS_ERR_INVALID_ARG, "%s: no column data", w->path);
    if ((uint64_t)row0 + rows > UINT32_MAX)
        return pq_fail(w, KS_ERR_RANGE, "%s: rows %u + %u past the largest batch row", w->path, row0, rows);
    w->stage.len = 0;
    w->stage.failed = w->page.failed = w->zpage.failed = w->header.failed = 0;
    for (int32_t c = 0; c < w->n_cols; c++)
        if ((st = pq_encode_chunk(w, c, &columns[c], row0, rows, &w->chunks[c])))
            return st;
    size_t groups_len = w->groups.len;
    pq_put_row_group(w, w->bytes, rows);
    if (w->groups.failed) {
        w->groups.failed = 0;
        w->groups.len = groups_len;
        return pq_fail(w, KS_ERR_NO_MEMORY, "%s: out of memory", w->path);
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

/* ---- footer ---------------------------------------------------------------------------- */

int32_t ks_pq_writer_close(ks_pq_writer *w)
{
    if (!w)
        return KS_ERR_INVALID_ARG;
    int32_t st = usable(w);
    if (st)
        return st;
    byte_buf foot = { 0 };
    pq_put_file_metadata(w, &foot);
    if (foot.failed) {
        bb_free(&foot);
        return pq_fail(w, KS_ERR_NO_MEMORY, "%s: out of memory", w->path);
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
