/*
 * json_out.h: the few JSON writing helpers kscope-ingest's report needs.
 *
 * The report goes to stdout as one JSON object (backend/kscope/ingest/native_ingest.py
 * reads it). Strings come from traces (generic event names, decoder messages), so
 * they are escaped, and bytes that are not UTF-8 become U+FFFD, as Python's
 * decode("utf-8", "replace") would make them.
 */
#ifndef KSCOPE_INGEST_JSON_OUT_H
#define KSCOPE_INGEST_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>
#include "kscope/parse.h"

/* s as a JSON string literal (quotes included); len < 0: up to the NUL. */
void json_string(FILE *out, const char *s, int64_t len);

/* "key": (the key escaped) */
void json_key(FILE *out, const char *key);

/* A parse error as {"line","column","field","message"} (line 0: none, or the input as a whole). */
void json_parse_error(FILE *out, const ks_parse_error *err);

/* Copies src[0..len) to dst as valid UTF-8 (each bad byte becomes U+FFFD, 3 bytes);
 * dst must hold 3 * len bytes. Returns the bytes written. */
uint32_t utf8_sanitize(const char *src, uint32_t len, char *dst);

/* 1 if src[0..len) is valid UTF-8. */
int utf8_valid(const char *src, uint32_t len);

#endif
