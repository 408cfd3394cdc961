/*
 * kscope/parse.h: where a text decoder gave up, and why.
 *
 * Every decoder that reads a user's text (lscpu output, sysfs dumps, traces)
 * takes an optional ks_parse_error and, when it returns KS_ERR_PARSE, fills it
 * so the user can fix the input without reading our code:
 *
 *     line 7, field "NODE": expected a number, got 'x'
 *
 * Layout (168 bytes, fixed-width fields only: shared with JS and Python):
 *
 *     0  line             i32      1-based input line; 0 = the input as a whole
 *     4  column_or_field  i32      1-based column (lscpu) or field (path=1, content=2)
 *     8  field            char[32] the column's or file's name, NUL-terminated
 *    40  message          char[128] what was wrong, NUL-terminated
 */
#ifndef KSCOPE_PARSE_H
#define KSCOPE_PARSE_H

#include <stdint.h>

typedef struct ks_parse_error {
    int32_t line;
    int32_t column_or_field;
    char field[32];
    char message[128];
} ks_parse_error;
_Static_assert(sizeof(ks_parse_error) == 168, "ks_parse_error is shared with JS and Python");

#endif
