/* The Parquet writer (kscope/parquet.h): its encoders against hand-computed bytes
 * (Thrift compact, RLE/bit-packed hybrid), then a small file written and taken apart
 * (magic, footer length, the first page's header and decompressed body), then the
 * errors. Reading files back with real readers (pyarrow, DuckDB) is
 * backend/tests/test_parquet_writer.py's job. Files go to /tmp (MEMFS in the wasm build). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "check.h"
#include "kscope/native/parquet.h"
#include "../src/store/rle_hybrid.h"
#include "../src/store/thrift_compact.h"

/* buf's bytes == the n bytes given, printed on mismatch. */
static int same_bytes(const byte_buf *b, const uint8_t *want, size_t n)
{
    if (b->len == n && memcmp(b->data, want, n) == 0)
        return 1;
    printf("    got %zu bytes:", b->len);
    for (size_t i = 0; i < b->len && i < 80; i++)
        printf(" %02X", b->data[i]);
    printf("\n");
    return 0;
}
#define CHECK_BYTES(buf, ...)                                                   \
    do {                                                                        \
        static const uint8_t want_[] = { __VA_ARGS__ };                         \
        CHECK(same_bytes(&(buf), want_, sizeof want_));                         \
    } while (0)

static void thrift_varints_and_zigzag(void)
{
    byte_buf b = { 0 };
    tc_varint(&b, 0);
    tc_varint(&b, 127);
    tc_varint(&b, 128);
    tc_varint(&b, 300);
    CHECK_BYTES(b, 0x00, 0x7F, 0x80, 0x01, 0xAC, 0x02);
    CHECK_EQ_INT(tc_zigzag64(0), 0);
    CHECK_EQ_INT(tc_zigzag64(-1), 1);
    CHECK_EQ_INT(tc_zigzag64(1), 2);
    CHECK_EQ_INT(tc_zigzag64(-64), 127);
    CHECK(tc_zigzag64(INT64_MIN) == UINT64_MAX);
    bb_free(&b);
}

static void thrift_structs_lists_and_long_field_deltas(void)
{
    byte_buf b = { 0 };
    tc_writer t;
    tc_begin(&t, &b);
    tc_field_i32(&t, 1, 1);            /* 15 02 */
    tc_field_bool(&t, 3, 1);           /* delta 2, true: 21 */
    tc_field_struct(&t, 4);            /* delta 1, struct: 1C */
    tc_field_i64(&t, 1, -3);           /*   16 05 (ids restart inside) */
    tc_struct_end(&t);                 /*   00 */
    tc_field_list(&t, 5, TC_I32, 3);   /* 19 35 */
    tc_elem_i32(&t, 0);
    tc_elem_i32(&t, 3);
    tc_elem_i32(&t, 8);                /* 00 06 10 */
    tc_field_list(&t, 6, TC_BINARY, 20); /* 19 F8 14 */
    tc_field_i8(&t, 30, -1);           /* delta 24 > 15: 03 3C FF */
    tc_field_string(&t, 31, "ab");     /* 18 02 61 62 */
    tc_struct_end(&t);                 /* 00 */
    CHECK_BYTES(b, 0x15, 0x02, 0x21, 0x1C, 0x16, 0x05, 0x00, 0x19, 0x35, 0x00, 0x06, 0x10, 0x19, 0xF8, 0x14,
                0x03, 0x3C, 0xFF, 0x18, 0x02, 0x61, 0x62, 0x00);
    CHECK_EQ_INT(t.depth, 0);
    CHECK_EQ_INT(t.overflow, 0);
    bb_free(&b);
}

static void rle_levels_runs_and_groups(void)
{
    uint8_t bits[256] = { 0 };
    byte_buf b = { 0 };
    /* 10 present rows: one RLE run. */
    bits[0] = 0xFF, bits[1] = 0x03;
    rle_encode_levels(&b, bits, 10);
    CHECK_BYTES(b, 0x14, 0x01);
    /* 1, 0, 1: one bit-packed group, padded. */
    b.len = 0;
    memset(bits, 0, sizeof bits);
    bits[0] = 0x05;
    rle_encode_levels(&b, bits, 3);
    CHECK_BYTES(b, 0x03, 0x05);
    /* 1000 nulls: one run (1000 << 1 = 2000 = D0 0F). */
    b.len = 0;
    memset(bits, 0, sizeof bits);
    rle_encode_levels(&b, bits, 1000);
    CHECK_BYTES(b, 0xD0, 0x0F, 0x00);
    /* 16 present, a mixed group, 16 null, then 5 present in the tail:
     * RLE 16 x 1, packed 1 group, RLE 16 x 0, packed tail (RLE of 0 cannot take 1s). */
    b.len = 0;
    bits[0] = 0xFF, bits[1] = 0xFF, bits[2] = 0x5A, bits[3] = 0, bits[4] = 0, bits[5] = 0x1F;
    rle_encode_levels(&b, bits, 45);
    CHECK_BYTES(b, 0x20, 0x01, 0x03, 0x5A, 0x20, 0x00, 0x03, 0x1F);
    /* A uniform group between mixed ones stays packed; 512 mixed rows = 63 + 1 groups. */
    b.len = 0;
    memset(bits, 0x55, 64);
    bits[1] = 0xFF;
    rle_encode_levels(&b, bits, 512);
    CHECK_EQ_INT(b.len, 1 + 63 + 1 + 1);
    CHECK_EQ_INT(b.data[0], 0x7F);
    CHECK_EQ_INT(b.data[2], 0xFF);
    CHECK_EQ_INT(b.data[64], 0x03);
    CHECK_EQ_INT(b.data[65], 0x55);
    bb_free(&b);
}

static void rle_ids_spec_example_and_runs(void)
{
    byte_buf b = { 0 };
    uint32_t ids[40];
    for (uint32_t i = 0; i < 8; i++)
        ids[i] = i;
    rle_encode_ids(&b, ids, 8, 3);  /* Encodings.md: 0..7 in 3 bits = 88 C6 FA */
    CHECK_BYTES(b, 0x03, 0x88, 0xC6, 0xFA);
    b.len = 0;
    for (uint32_t i = 0; i < 20; i++)
        ids[i] = 5;
    rle_encode_ids(&b, ids, 20, 3);
    CHECK_BYTES(b, 0x28, 0x05);
    /* 10 x 2, then 0 1 3 (2 bits): RLE, then one padded group 0b00110100 0. */
    b.len = 0;
    for (uint32_t i = 0; i < 10; i++)
        ids[i] = 2;
    ids[10] = 0, ids[11] = 1, ids[12] = 3;
    rle_encode_ids(&b, ids, 13, 2);
    CHECK_BYTES(b, 0x14, 0x02, 0x03, 0x34, 0x00);
    /* A wide id takes ceil(width / 8) bytes in a run: 300 in 9 bits = 2C 01. */
    b.len = 0;
    for (uint32_t i = 0; i < 9; i++)
        ids[i] = 300;
    rle_encode_ids(&b, ids, 9, 9);
    CHECK_BYTES(b, 0x12, 0x2C, 0x01);
    CHECK_EQ_INT(rle_id_width(0), 1);
    CHECK_EQ_INT(rle_id_width(1), 1);
    CHECK_EQ_INT(rle_id_width(2), 1);
    CHECK_EQ_INT(rle_id_width(3), 2);
    CHECK_EQ_INT(rle_id_width(4), 2);
    CHECK_EQ_INT(rle_id_width(5), 3);
    CHECK_EQ_INT(rle_id_width(256), 8);
    CHECK_EQ_INT(rle_id_width(257), 9);
    bb_free(&b);
}

static void temp_path(char *out, size_t n, const char *what)
{
    int stack;
    snprintf(out, n, "/tmp/kscope-test-%s-%lx-%lx.parquet", what, (unsigned long)time(NULL),
             (unsigned long)(uintptr_t)&stack ^ (unsigned long)clock());
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = malloc(1 << 16);
    *len = data ? fread(data, 1, 1 << 16, f) : 0;
    fclose(f);
    return data;
}

static uint64_t get_varint(const uint8_t **p)
{
    uint64_t v = 0;
    for (int s = 0; s < 64; s += 7) {
        uint8_t c = *(*p)++;
        v |= (uint64_t)(c & 0x7F) << s;
        if (!(c & 0x80))
            break;
    }
    return v;
}

static void file_layout_and_first_page(void)
{
    char path[128];
    temp_path(path, sizeof path, "layout");
    ks_pq_column_spec spec = { "x", KS_PQ_I32, 1 };
    ks_pq_key_value kv = { "note", "hi" };
    ks_pq_writer *w = NULL;
    CHECK_EQ_INT(ks_pq_writer_open(path, &spec, 1, &kv, 1, 1, &w), KS_OK);
    int32_t values[3] = { 1, 99, 3 };
    uint8_t valid = 0x05;  /* 1, null, 3 */
    ks_pq_column_data col = { values, &valid, NULL, NULL };
    CHECK_EQ_INT(ks_pq_write_row_group(w, &col, 0, 3), KS_OK);
    CHECK_EQ_INT(ks_pq_writer_close(w), KS_OK);
    CHECK_EQ_INT(ks_pq_writer_rows(w), 3);
    CHECK_EQ_INT(ks_pq_writer_row_groups(w), 1);
    size_t len = 0;
    uint8_t *f = read_all(path, &len);
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ_INT(len, ks_pq_writer_bytes(w));
        CHECK(len > 12 && memcmp(f, "PAR1", 4) == 0 && memcmp(f + len - 4, "PAR1", 4) == 0);
        uint32_t footer = (uint32_t)f[len - 8] | (uint32_t)f[len - 7] << 8 | (uint32_t)f[len - 6] << 16 |
                          (uint32_t)f[len - 5] << 24;
        CHECK(footer > 0 && footer < len - 12);
        const uint8_t *foot = f + len - 8 - footer;
        CHECK(foot[0] == 0x15 && foot[1] == 0x02);  /* FileMetaData 1: version = 1 */
        /* PageHeader: type 0, uncompressed 14 (4 + 2 levels, 8 values), compressed z. */
        static const uint8_t head[] = { 0x15, 0x00, 0x15, 0x1C, 0x15 };
        CHECK(memcmp(f + 4, head, sizeof head) == 0);
        const uint8_t *p = f + 4 + sizeof head;
        uint64_t z = get_varint(&p) >> 1;
        /* DataPageHeader (5): 3 values, PLAIN, levels RLE, RLE. */
        static const uint8_t data_head[] = { 0x2C, 0x15, 0x06, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00 };
        CHECK(memcmp(p, data_head, sizeof data_head) == 0);
        p += sizeof data_head;
        uint8_t page[64];
        size_t n = ZSTD_decompress(page, sizeof page, p, (size_t)z);
        static const uint8_t want[] = { 2, 0, 0, 0, 0x03, 0x05, 1, 0, 0, 0, 3, 0, 0, 0 };
        CHECK(!ZSTD_isError(n) && n == sizeof want && memcmp(page, want, n) == 0);
        CHECK(p + z == foot);  /* the footer follows the only page */
    }
    free(f);
    ks_pq_writer_free(w);
    remove(path);
}

static void errors_are_reported(void)
{
    ks_pq_writer *w = NULL;
    ks_pq_column_spec specs[2] = { { "ids", KS_PQ_DICT32, 0 }, { "n", KS_PQ_I64, 1 } };
    CHECK_EQ_INT(ks_pq_writer_open("/tmp/x.parquet", specs, 2, NULL, 0, 1, NULL), KS_ERR_INVALID_ARG);
    /* A directory that does not exist: KS_ERR_IO naming the path and errno's text. */
    CHECK_EQ_INT(ks_pq_writer_open("/nonexistent-kscope-dir/e.parquet", specs, 2, NULL, 0, 1, &w), KS_ERR_IO);
    CHECK(strstr(ks_pq_writer_error(w), "/nonexistent-kscope-dir/e.parquet") != NULL);
    CHECK(strstr(ks_pq_writer_error(w), "No such file") != NULL);
    CHECK_EQ_INT(ks_pq_write_row_group(w, NULL, 0, 1), KS_ERR_IO);
    ks_pq_writer_free(w);
    ks_pq_column_spec bad = { "k", KS_PQ_KIND_COUNT, 0 };
    CHECK_EQ_INT(ks_pq_writer_open("/tmp/x.parquet", &bad, 1, NULL, 0, 1, &w), KS_ERR_INVALID_ARG);
    CHECK(strstr(ks_pq_writer_error(w), "column k: kind 6 out of range") != NULL);
    ks_pq_writer_free(w);
    CHECK_EQ_INT(ks_pq_writer_open(NULL, specs, 2, NULL, 0, 1, &w), KS_ERR_INVALID_ARG);
    ks_pq_writer_free(w);

    /* A dictionary id past the dictionary: KS_ERR_RANGE naming column and batch row;
     * the row group is refused whole and the writer goes on. */
    char path[128];
    temp_path(path, sizeof path, "errors");
    CHECK_EQ_INT(ks_pq_writer_open(path, specs, 2, NULL, 0, 1, &w), KS_OK);
    int32_t offsets[3] = { 0, 1, 3 };
    ks_pq_strings dict = { 2, offsets, "abc" };
    int32_t ids[4] = { 0, 1, 2, 1 };
    int64_t n[4] = { 5, 6, 7, 8 };
    ks_pq_column_data cols[2] = { { ids, NULL, NULL, &dict }, { n, NULL, NULL, NULL } };
    CHECK_EQ_INT(ks_pq_write_row_group(w, cols, 1, 3), KS_ERR_RANGE);
    CHECK(strstr(ks_pq_writer_error(w), "column ids: row 2: dictionary id 2 out of range") != NULL);
    uint64_t bytes = ks_pq_writer_bytes(w);
    CHECK_EQ_INT(ks_pq_write_row_group(w, cols, 0, 2), KS_OK);
    CHECK(ks_pq_writer_bytes(w) > bytes);
    cols[1].values = NULL;
    CHECK_EQ_INT(ks_pq_write_row_group(w, cols, 0, 2), KS_ERR_INVALID_ARG);
    CHECK(strstr(ks_pq_writer_error(w), "column n: no values") != NULL);
    /* All-null columns need no values, offsets or dictionary (nothing is read). */
    ks_pq_column_spec all_kinds[KS_PQ_KIND_COUNT] = {
        { "a", KS_PQ_I64, 1 }, { "b", KS_PQ_I32, 1 }, { "c", KS_PQ_I8, 1 },
        { "d", KS_PQ_DICT32, 1 }, { "e", KS_PQ_DICT8, 1 }, { "f", KS_PQ_STRING, 1 } };
    static uint8_t none[32];
    ks_pq_column_data nulls[KS_PQ_KIND_COUNT];
    for (int i = 0; i < KS_PQ_KIND_COUNT; i++)
        nulls[i] = (ks_pq_column_data){ NULL, none, NULL, NULL };
    char path2[128];
    temp_path(path2, sizeof path2, "nulls");
    ks_pq_writer *w2 = NULL;
    CHECK_EQ_INT(ks_pq_writer_open(path2, all_kinds, KS_PQ_KIND_COUNT, NULL, 0, 1, &w2), KS_OK);
    CHECK_EQ_INT(ks_pq_write_row_group(w2, nulls, 3, 200), KS_OK);
    CHECK_EQ_INT(ks_pq_writer_close(w2), KS_OK);
    ks_pq_writer_free(w2);
    remove(path2);
    CHECK_EQ_INT(ks_pq_writer_close(w), KS_OK);
    CHECK_EQ_INT(ks_pq_writer_rows(w), 2);
    CHECK_EQ_INT(ks_pq_write_row_group(w, cols, 0, 2), KS_ERR_INVALID_ARG);
    CHECK(strstr(ks_pq_writer_error(w), "closed") != NULL);
    ks_pq_writer_free(w);
    remove(path);
    CHECK_EQ_INT(ks_pq_write_row_group(NULL, cols, 0, 1), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_pq_writer_close(NULL), KS_ERR_INVALID_ARG);
}

const test_case parquet_tests[] = {
    { "parquet: thrift varints and zigzag", thrift_varints_and_zigzag },
    { "parquet: thrift structs, lists, long field deltas", thrift_structs_lists_and_long_field_deltas },
    { "parquet: RLE hybrid levels (runs, packed groups, 63-group cap)", rle_levels_runs_and_groups },
    { "parquet: RLE hybrid dictionary ids (spec example, runs, widths)", rle_ids_spec_example_and_runs },
    { "parquet: file layout, footer length, first page bytes", file_layout_and_first_page },
    { "parquet: errors named (path + errno, kind, id range, closed); all-null columns", errors_are_reported },
    { 0 },
};
