/*
 * Internal: a writer of Apache Thrift's compact protocol, the encoding of every
 * Parquet header and of the file footer (parquet-format's parquet.thrift defines
 * the structs; this file knows nothing about them).
 *
 * The compact protocol in brief (Thrift's doc/specs/thrift-compact-protocol.md):
 *
 *   integers   i16/i32/i64: zigzag ((n << 1) ^ (n >> 63)) then ULEB128 varint;
 *              i8 ("byte"): one raw byte
 *   binary     varint length, then the bytes (strings are UTF-8 binaries)
 *   field      one byte (delta << 4 | type) when the id is 1..15 above the previous
 *              field's id in the same struct, else the type byte and the id as a
 *              zigzag varint; a bool field's value is its type (1 true, 2 false)
 *   struct     its fields, then a STOP byte 0x00; field ids restart inside
 *   list       one byte (size << 4 | element type) for size < 15, else
 *              (0xF0 | element type) and the size as a varint; then the elements
 *              without field headers (struct elements end with STOP each)
 *   union      a struct with exactly one field set
 *
 * Example: struct { 1: i32 version = 1 } is 15 02 00 (field 1 delta 1 type i32=5,
 * zigzag(1) = 2, STOP).
 *
 * Nesting is tracked on a small stack of "previous field id"s. Everything goes to a
 * byte_buf; allocation failure shows as its `failed` flag.
 */
#ifndef KSCOPE_STORE_THRIFT_COMPACT_H
#define KSCOPE_STORE_THRIFT_COMPACT_H

#include <stdint.h>

#include "byte_buf.h"

/* Compact protocol type codes. */
enum {
    TC_BOOL_TRUE = 1,
    TC_BOOL_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_SET = 10,
    TC_MAP = 11,
    TC_STRUCT = 12,
};

#define TC_MAX_DEPTH 16

typedef struct tc_writer {
    byte_buf *out;
    int depth;                       /* open structs (the outermost is depth 1) */
    int16_t last[TC_MAX_DEPTH];      /* previous field id per open struct */
    int overflow;                    /* nesting deeper than TC_MAX_DEPTH (a bug) */
} tc_writer;

/* Starts writing the outermost struct to out (its fields follow; end with tc_struct_end). */
void tc_begin(tc_writer *w, byte_buf *out);

/* The raw pieces (exposed for tests and for hand-built lists). */
void tc_varint(byte_buf *b, uint64_t v);
static inline uint64_t tc_zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void tc_field_i32(tc_writer *w, int16_t id, int32_t v);
void tc_field_i64(tc_writer *w, int16_t id, int64_t v);
void tc_field_i8(tc_writer *w, int16_t id, int8_t v);
void tc_field_bool(tc_writer *w, int16_t id, int v);
void tc_field_binary(tc_writer *w, int16_t id, const void *p, uint32_t n);
void tc_field_string(tc_writer *w, int16_t id, const char *s);

/* A struct-valued field: its fields follow, then tc_struct_end. */
void tc_field_struct(tc_writer *w, int16_t id);
/* A list-valued field of n elements of elem_type; the elements follow. */
void tc_field_list(tc_writer *w, int16_t id, uint8_t elem_type, uint32_t n);

/* List elements. */
void tc_elem_i32(tc_writer *w, int32_t v);
void tc_elem_string(tc_writer *w, const char *s);
void tc_elem_struct(tc_writer *w);      /* then its fields, then tc_struct_end */

/* Ends the innermost open struct (writes STOP). */
void tc_struct_end(tc_writer *w);

#endif
