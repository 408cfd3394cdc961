/*
 * Thrift compact protocol writer (see thrift_compact.h for the encoding).
 */
#include <string.h>

#include "thrift_compact.h"

void tc_varint(byte_buf *b, uint64_t v)
{
    uint8_t *p = bb_room(b, 10);
    if (!p)
        return;
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    b->len += n;
}

static void push(tc_writer *w)
{
    if (w->depth >= TC_MAX_DEPTH) {
        w->overflow = 1;
        return;
    }
    w->last[w->depth++] = 0;
}

void tc_begin(tc_writer *w, byte_buf *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    push(w);
}

static void field_header(tc_writer *w, int16_t id, uint8_t type)
{
    if (w->depth <= 0) {
        w->overflow = 1;
        return;
    }
    int16_t *last = &w->last[w->depth - 1];
    int delta = id - *last;
    if (delta > 0 && delta <= 15) {
        bb_byte(w->out, (uint8_t)(delta << 4 | type));
    } else {
        bb_byte(w->out, type);
        tc_varint(w->out, tc_zigzag64(id));
    }
    *last = id;
}

void tc_field_i32(tc_writer *w, int16_t id, int32_t v)
{
    field_header(w, id, TC_I32);
    tc_varint(w->out, tc_zigzag64(v));
}

void tc_field_i64(tc_writer *w, int16_t id, int64_t v)
{
    field_header(w, id, TC_I64);
    tc_varint(w->out, tc_zigzag64(v));
}

void tc_field_i8(tc_writer *w, int16_t id, int8_t v)
{
    field_header(w, id, TC_BYTE);
    bb_byte(w->out, (uint8_t)v);
}

void tc_field_bool(tc_writer *w, int16_t id, int v)
{
    field_header(w, id, v ? TC_BOOL_TRUE : TC_BOOL_FALSE);
}

void tc_field_binary(tc_writer *w, int16_t id, const void *p, uint32_t n)
{
    field_header(w, id, TC_BINARY);
    tc_varint(w->out, n);
    bb_put(w->out, p, n);
}

void tc_field_string(tc_writer *w, int16_t id, const char *s)
{
    tc_field_binary(w, id, s, (uint32_t)strlen(s));
}

void tc_field_struct(tc_writer *w, int16_t id)
{
    field_header(w, id, TC_STRUCT);
    push(w);
}

void tc_field_list(tc_writer *w, int16_t id, uint8_t elem_type, uint32_t n)
{
    field_header(w, id, TC_LIST);
    if (n < 15) {
        bb_byte(w->out, (uint8_t)(n << 4 | elem_type));
    } else {
        bb_byte(w->out, (uint8_t)(0xF0 | elem_type));
        tc_varint(w->out, n);
    }
}

void tc_elem_i32(tc_writer *w, int32_t v)
{
    tc_varint(w->out, tc_zigzag64(v));
}

void tc_elem_string(tc_writer *w, const char *s)
{
    size_t n = strlen(s);
    tc_varint(w->out, n);
    bb_put(w->out, s, n);
}

void tc_elem_struct(tc_writer *w)
{
    push(w);
}

void tc_struct_end(tc_writer *w)
{
    bb_byte(w->out, 0);  /* STOP */
    if (w->depth > 0)
        w->depth--;
    else
        w->overflow = 1;
}
