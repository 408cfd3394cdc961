/*
 * The generic text tokenizer: lines, fields, integers and cpulists as spans into
 * the caller's text (see text_tokenizer.h). Every function is total: bad input
 * is reported to the caller, never read past its length.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kscope/status.h"
#include "text_tokenizer.h"

line_reader line_reader_of(const char *text, int32_t len)
{
    line_reader r = { .text = text, .len = len };
    return r;
}

bool read_line(line_reader *r, text_span *line)
{
    if (r->pos >= r->len)
        return false;
    const char *start = r->text + r->pos;
    const char *nl = memchr(start, '\n', (size_t)(r->len - r->pos));
    int32_t len = nl ? (int32_t)(nl - start) : r->len - r->pos;
    r->pos += len + (nl ? 1 : 0);
    r->line++;
    if (len > 0 && start[len - 1] == '\r')
        len--;
    *line = (text_span){ start, len };
    return true;
}

text_span span_of(const char *s)
{
    return (text_span){ s, (int32_t)strlen(s) };
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

text_span span_trim(text_span s)
{
    while (s.len > 0 && is_blank(s.at[0])) {
        s.at++;
        s.len--;
    }
    while (s.len > 0 && is_blank(s.at[s.len - 1]))
        s.len--;
    return s;
}

bool span_equals(text_span s, const char *lit)
{
    return (size_t)s.len == strlen(lit) && memcmp(s.at, lit, (size_t)s.len) == 0;
}

bool span_cut_prefix(text_span *s, const char *prefix)
{
    int32_t n = (int32_t)strlen(prefix);
    if (s->len < n || memcmp(s->at, prefix, (size_t)n) != 0)
        return false;
    s->at += n;
    s->len -= n;
    return true;
}

bool span_split(text_span s, char sep, text_span *head, text_span *tail)
{
    const char *at = s.len > 0 ? memchr(s.at, sep, (size_t)s.len) : NULL;
    if (!at)
        return false;
    int32_t n = (int32_t)(at - s.at);
    *head = (text_span){ s.at, n };
    *tail = (text_span){ at + 1, s.len - n - 1 };
    return true;
}

int32_t split_fields(text_span line, char sep, text_span *fields, int32_t max)
{
    int32_t count = 0;
    text_span head;
    while (span_split(line, sep, &head, &line)) {
        if (count < max)
            fields[count] = head;
        count++;
    }
    if (count < max)
        fields[count] = line;
    return count + 1;
}

bool parse_int(text_span s, int32_t *out)
{
    bool negative = span_cut_prefix(&s, "-");
    if (s.len == 0 || s.len > 10)
        return false;
    int64_t v = 0;
    for (int32_t i = 0; i < s.len; i++) {
        if (s.at[i] < '0' || s.at[i] > '9')
            return false;
        v = v * 10 + (s.at[i] - '0');
    }
    if (v > INT32_MAX)
        return false;
    *out = (int32_t)(negative ? -v : v);
    return true;
}

int32_t next_cpu_range(text_span *rest, int32_t *lo, int32_t *hi)
{
    if (rest->len == 0)
        return 0;
    text_span item, lo_text, hi_text;
    if (!span_split(*rest, ',', &item, rest)) {
        item = *rest;           /* the last item */
        rest->len = 0;
    }
    if (!span_split(item, '-', &lo_text, &hi_text))
        lo_text = hi_text = item;
    if (!parse_int(lo_text, lo) || !parse_int(hi_text, hi) || *lo < 0 || *hi < *lo)
        return -1;
    return 1;
}

int32_t parse_fail(ks_parse_error *err, int32_t line, int32_t column, text_span field,
                   const char *fmt, ...)
{
    if (!err)
        return KS_ERR_PARSE;
    err->line = line;
    err->column_or_field = column;
    snprintf(err->field, sizeof err->field, "%.*s", SPAN_QUOTE(field));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return KS_ERR_PARSE;
}
