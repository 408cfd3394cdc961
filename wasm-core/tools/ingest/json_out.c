/*
 * json_out.c: JSON strings, keys and parse errors for kscope-ingest's report; a
 * UTF-8 check and repair shared with the string columns (see json_out.h).
 */
#include "json_out.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none starts there.
 * Rules of RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF. */
static uint32_t utf8_sequence(const unsigned char *s, uint32_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    uint32_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (uint32_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

int utf8_valid(const char *src, uint32_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    uint32_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t k = utf8_sequence(s + i, len - i);
        if (k == 0)
            return 0;
        i += k;
    }
    return 1;
}

uint32_t utf8_sanitize(const char *src, uint32_t len, char *dst)
{
    const unsigned char *s = (const unsigned char *)src;
    uint32_t i = 0, o = 0;
    while (i < len) {
        uint32_t k = utf8_sequence(s + i, len - i);
        if (k == 0) {
            memcpy(dst + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(dst + o, s + i, k);
            o += k;
            i += k;
        }
    }
    return o;
}

void json_string(FILE *out, const char *s, int64_t len)
{
    uint32_t n = len < 0 ? (uint32_t)strlen(s) : (uint32_t)len;
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', out);
    uint32_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc(c, out);
            i++;
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
            i++;
        } else {
            uint32_t k = utf8_sequence(p + i, n - i);
            if (k == 0) {
                fputs("\xEF\xBF\xBD", out);
                i++;
            } else {
                fwrite(p + i, 1, k, out);
                i += k;
            }
        }
    }
    fputc('"', out);
}

void json_key(FILE *out, const char *key)
{
    json_string(out, key, -1);
    fputc(':', out);
}

void json_parse_error(FILE *out, const ks_parse_error *err)
{
    fprintf(out, "{\"line\":%d,\"column\":%d,\"field\":", err->line, err->column_or_field);
    json_string(out, err->field, (int64_t)strnlen(err->field, sizeof err->field));
    fputs(",\"message\":", out);
    json_string(out, err->message, (int64_t)strnlen(err->message, sizeof err->message));
    fputc('}', out);
}
