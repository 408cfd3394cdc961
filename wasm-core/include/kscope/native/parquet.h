/*
 * kscope/parquet.h: a small Parquet writer for the event store.
 *
 * The store keeps events in one Parquet file per trace (backend/kscope/store/events.py
 * reads it with pyarrow, SQL reads it with DuckDB). Writing it with pyarrow meant a
 * Python process importing Arrow for every `kscope ingest`: ~0.35 s and ~100 MB before
 * the first byte was read. This writer covers exactly what the store needs and nothing
 * more:
 *
 *   - flat schema, every column OPTIONAL (Arrow fields are nullable), nulls given as
 *     Arrow validity bitmaps (bit i of byte i/8, LSB first, 1 = present);
 *   - physical types INT64, INT32 (also INT(8) logical: Arrow int8), BYTE_ARRAY UTF8;
 *   - strings either dictionary-encoded (each column chunk gets a dictionary page of
 *     the strings it uses) or plain;
 *   - data page v1, definition levels RLE/bit-packed hybrid, ZSTD-compressed pages;
 *   - min/max statistics on the columns that ask for them (the store's per-CPU time
 *     index reads the row groups' ts_ns and cpu statistics);
 *   - key/value metadata (the store puts pyarrow's ARROW:schema there, so readers
 *     get back the exact Arrow types: dictionary<int8, string> and so on).
 *
 * A row group is a slice [row0, row0 + rows) of caller-owned columns (the column
 * builder of kscope/columns.h groups a batch by CPU; each CPU's slice is one group).
 *
 * Plain C (stdio + libzstd): builds in both builds; the backend uses it natively.
 */
#ifndef KSCOPE_PARQUET_H
#define KSCOPE_PARQUET_H

#include <stdint.h>
#include "kscope/status.h"

typedef enum ks_pq_kind {
    KS_PQ_I64,      /* INT64; values int64_t */
    KS_PQ_I32,      /* INT32; values int32_t */
    KS_PQ_I8,       /* INT32 physical, logical INT(8, signed); values int8_t */
    KS_PQ_DICT32,   /* BYTE_ARRAY UTF8, dictionary-encoded; values int32_t ids into `dict` */
    KS_PQ_DICT8,    /* the same with int8_t ids (Arrow dictionary<int8, string>) */
    KS_PQ_STRING,   /* BYTE_ARRAY UTF8, plain; values: bytes, `offsets` int32_t[n + 1] */
    KS_PQ_KIND_COUNT
} ks_pq_kind;

typedef struct ks_pq_column_spec {
    const char *name;
    int32_t kind;            /* ks_pq_kind */
    int32_t statistics;      /* 1: write min/max (and null count) for each row group */
} ks_pq_column_spec;

/* A string table: string i is bytes[offsets[i] .. offsets[i + 1]). */
typedef struct ks_pq_strings {
    uint32_t count;
    const int32_t *offsets;  /* count + 1 entries */
    const char *bytes;
} ks_pq_strings;

/* One column of a batch (all row indexes below are batch rows). */
typedef struct ks_pq_column_data {
    const void *values;           /* per kind, see ks_pq_kind; a null row's value is ignored */
    const uint8_t *valid;         /* Arrow validity bitmap; NULL: every row present */
    const int32_t *offsets;       /* KS_PQ_STRING only: batch rows + 1 offsets into values */
    const ks_pq_strings *dict;    /* KS_PQ_DICT32 / KS_PQ_DICT8 only: id -> string */
} ks_pq_column_data;

typedef struct ks_pq_key_value {
    const char *key;
    const char *value;
} ks_pq_key_value;

typedef struct ks_pq_writer ks_pq_writer;

/* Creates `path` (truncating) for columns[0..n_columns-1]; key_values are copied and
 * written in the footer. compression_level: zstd's level (1 is the store's default).
 * *out is set whenever a writer could be allocated, also when open fails: its
 * ks_pq_writer_error says why (e.g. "x.parquet: cannot create: No such file or
 * directory", status KS_ERR_IO); free it either way. */
KS_API int32_t ks_pq_writer_open(const char *path, const ks_pq_column_spec *columns, int32_t n_columns,
                                 const ks_pq_key_value *key_values, int32_t n_key_values,
                                 int32_t compression_level, ks_pq_writer **out);

/* Appends one row group: rows [row0, row0 + rows) of each column (columns[i] matches
 * spec i). rows == 0 writes nothing. Bad column data (a dictionary id out of range:
 * KS_ERR_RANGE naming column and batch row) refuses the whole row group and the
 * writer stays usable; a failed write (KS_ERR_IO) leaves it failed for good. */
KS_API int32_t ks_pq_write_row_group(ks_pq_writer *w, const ks_pq_column_data *columns,
                                     uint32_t row0, uint32_t rows);

/* Writes the footer and closes the file (w stays readable: rows, bytes, error). */
KS_API int32_t ks_pq_writer_close(ks_pq_writer *w);

/* Frees w; a file not closed is closed without a footer (the caller deletes it). */
KS_API void ks_pq_writer_free(ks_pq_writer *w);

/* Rows and row groups written so far; bytes written so far (the file's size). */
KS_API uint64_t ks_pq_writer_rows(const ks_pq_writer *w);
KS_API uint32_t ks_pq_writer_row_groups(const ks_pq_writer *w);
KS_API uint64_t ks_pq_writer_bytes(const ks_pq_writer *w);

/* The last error's message ("" if none), e.g. "events.parquet: write failed: No space left". */
KS_API const char *ks_pq_writer_error(const ks_pq_writer *w);

#endif
