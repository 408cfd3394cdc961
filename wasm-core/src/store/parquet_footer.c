/*
 * The Parquet writer's metadata, in Thrift's compact protocol (thrift_compact.h):
 * one RowGroup per row group as it is written (kept in w->groups until close), and
 * the FileMetaData footer at close, with
 *
 *   schema        root group "schema" + one OPTIONAL leaf per column (type,
 *                 converted type and logical type per kind)
 *   row_groups    per chunk: ColumnMetaData (type, encodings, path, codec ZSTD,
 *                 value count, sizes, page offsets, statistics, page encoding stats)
 *   key_value_metadata (e.g. ARROW:schema), created_by, column_orders
 *                 (TypeDefinedOrder per column: min_value/max_value are meaningful)
 *
 * Field ids in the comments are parquet-format's src/main/thrift/parquet.thrift.
 */
#include <stdio.h>
#include <string.h>

#include "parquet_internal.h"
#include "thrift_compact.h"

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
void pq_put_row_group(ks_pq_writer *w, uint64_t base, uint32_t rows)
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

/* parquet.thrift FileMetaData: 1 version, 2 schema, 3 num_rows, 4 row_groups,
 * 5 key_value_metadata, 6 created_by, 7 column_orders (union ColumnOrder: 1 TYPE_ORDER). */
void pq_put_file_metadata(const ks_pq_writer *w, byte_buf *out)
{
    tc_writer t;
    tc_begin(&t, out);                                             /* FileMetaData */
    tc_field_i32(&t, 1, 1);                                        /* version */
    put_schema(&t, w);                                             /* 2: schema */
    tc_field_i64(&t, 3, (int64_t)w->rows);                         /* num_rows */
    tc_field_list(&t, 4, TC_STRUCT, w->row_groups);                /* row_groups */
    bb_put(out, w->groups.data, w->groups.len);
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
    if (t.overflow)  /* unbalanced nesting: a bug, reported rather than written */
        out->failed = 1;
}
