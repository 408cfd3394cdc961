/*
 * Internal: the generic text tokenizer, shared by the machine importers (lscpu,
 * sysfs) and the trace decoders (ftrace text, perf script).
 *
 * Imported text arrives as (pointer, length) from JS or Python, not as a C
 * string, so every token is a text_span into the caller's buffer: nothing is
 * copied and nothing needs a NUL. The importers pull lines from a
 * line_reader, cut them into spans, and turn spans into numbers and cpulists;
 * a span that is not what they expect becomes a ks_parse_error via
 * parse_fail().
 */
#ifndef KSCOPE_BASE_TEXT_TOKENIZER_H
#define KSCOPE_BASE_TEXT_TOKENIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "kscope/parse.h"

typedef struct text_span {
    const char *at;
    int32_t len;
} text_span;

typedef struct line_reader {
    const char *text;
    int32_t len;
    int32_t pos;
    int32_t line;               /* 1-based number of the line last read */
} line_reader;

line_reader line_reader_of(const char *text, int32_t len);

/* The next line without its "\n" or "\r\n"; false at the end of the text. */
bool read_line(line_reader *r, text_span *line);

text_span span_of(const char *s);
text_span span_trim(text_span s);
bool span_equals(text_span s, const char *lit);

/* If s starts with prefix, drops it from s and returns true. */
bool span_cut_prefix(text_span *s, const char *prefix);

/* Splits s at its first sep into *head and *tail; false (s untouched) if there is none. */
bool span_split(text_span s, char sep, text_span *head, text_span *tail);

/* Cuts line at every sep into fields[0..max-1]; returns how many fields it has
 * (which may exceed max; fields past max are not stored). */
int32_t split_fields(text_span line, char sep, text_span *fields, int32_t max);

/* A whole span as a decimal int32, optionally negative; false if it is anything else. */
bool parse_int(text_span s, int32_t *out);

/* Takes the next "lo" or "lo-hi" of a Linux cpulist ("0-42,172-214") off *rest.
 * Returns 1 with the range, 0 at the end, -1 if the text is not a cpulist. */
int32_t next_cpu_range(text_span *rest, int32_t *lo, int32_t *hi);

/* Fills *err (if not NULL) and returns KS_ERR_PARSE. column is 1-based, 0 if none. */
int32_t parse_fail(ks_parse_error *err, int32_t line, int32_t column, text_span field,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* For messages: at most this many bytes of a span, printed with "%.*s". */
#define SPAN_QUOTE(s) ((s).len > 40 ? 40 : (int)(s).len), (s).at

#endif
