/*
 * Internal: what the three parts of the Parquet writer share (parquet_writer.c: the
 * file and the API; parquet_chunk.c: one column chunk -> compressed pages;
 * parquet_footer.c: the Thrift metadata). parquet_writer.c's essay describes the file.
 */
#ifndef KSCOPE_STORE_PARQUET_INTERNAL_H
#define KSCOPE_STORE_PARQUET_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <zstd.h>

#include "kscope/native/parquet.h"
#include "byte_buf.h"

/* parquet.thrift enums (parquet-format src/main/thrift/parquet.thrift) */
enum { PQ_INT32 = 1, PQ_INT64 = 2, PQ_BYTE_ARRAY = 6 };                  /* Type */
enum { PQ_CONVERTED_UTF8 = 0, PQ_CONVERTED_INT_8 = 15 };                 /* ConvertedType */
enum { PQ_OPTIONAL = 1 };                                                /* FieldRepetitionType */
enum { PQ_PLAIN = 0, PQ_RLE = 3, PQ_RLE_DICTIONARY = 8 };                /* Encoding */
enum { PQ_CODEC_ZSTD = 6 };                                              /* CompressionCodec */
enum { PQ_DATA_PAGE = 0, PQ_DICTIONARY_PAGE = 2 };                       /* PageType */

#define PAGE_VALUES (1u << 20)          /* rows per data page (a multiple of 64) */
#define PAGE_STRING_BYTES (64u << 20)   /* and, for plain strings, about this many bytes */

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

/* Sets w's message; returns status. */
int32_t pq_fail(ks_pq_writer *w, int32_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Encodes rows [row0, row0 + rows) of column c into pages appended to w->stage, and
 * fills ci (offsets relative to the stage). KS_OK, or a status with w's message set. */
int32_t pq_encode_chunk(ks_pq_writer *w, int32_t c, const ks_pq_column_data *col, uint32_t row0,
                        uint32_t rows, chunk_info *ci);

/* Appends the RowGroup of w->chunks (written at file offset base) to w->groups. */
void pq_put_row_group(ks_pq_writer *w, uint64_t base, uint32_t rows);

/* The whole FileMetaData (schema, row groups so far, key/values, created_by, orders). */
void pq_put_file_metadata(const ks_pq_writer *w, byte_buf *out);

#endif
