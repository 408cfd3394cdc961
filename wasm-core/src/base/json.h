/*
 * Internal: a small JSON reader (RFC 8259) for workload files.
 *
 * json_parse() turns text into a flat array of values (a tree by indices:
 * containers point at their first child, children at their next sibling), each
 * carrying the line and column where it starts, so a later schema check can
 * point the user at the exact spot of a bad field. Strings are decoded
 * (escapes, \u with surrogate pairs -> UTF-8) into one NUL-separated arena.
 *
 * Syntax errors come back as a json_error with the line, the column and the
 * field path reached so far ("processes[0].threads"), never as a crash.
 */
#ifndef KSCOPE_BASE_JSON_H
#define KSCOPE_BASE_JSON_H

#include <stdint.h>

typedef enum json_type {
    JSON_NULL = 0,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} json_type;

typedef struct json_value {
    int32_t type;       /* json_type */
    int32_t line;       /* 1-based line and column where the value starts */
    int32_t column;
    int32_t next;       /* next sibling in the parent container, -1 if last */
    int32_t first;      /* array/object: first child, -1 if empty */
    int32_t count;      /* array/object: number of children */
    int32_t key;        /* object member: offset of its key in strings, -1 otherwise */
    int32_t key_line;   /* object member: where its key starts */
    int32_t key_column;
    int32_t str;        /* string: offset of its text in strings; bool: 0 or 1 */
    double number;
} json_value;

typedef struct json_doc {
    json_value *values; /* values[0] is the root */
    int32_t count;
    int32_t capacity;
    char *strings;      /* NUL-terminated texts back to back */
    int32_t strings_len;
    int32_t strings_capacity;
} json_doc;

#define JSON_PATH_LEN 64
#define JSON_MAX_DEPTH 32

typedef struct json_error {
    int32_t line;
    int32_t column;
    char path[JSON_PATH_LEN];   /* field path reached, e.g. "processes[0].threads" */
    char message[96];
} json_error;

/* Parses len bytes of text into *doc (free with json_free, also after an error).
 * Returns 0, or -1 with *err filled. */
int32_t json_parse(const char *text, int32_t len, json_doc *doc, json_error *err);
void json_free(json_doc *doc);

/* The member of object `obj` named key, or -1. */
int32_t json_member(const json_doc *doc, int32_t obj, const char *key);

/* The text of a string value / of a member's key. */
const char *json_string(const json_doc *doc, int32_t value);
const char *json_key(const json_doc *doc, int32_t value);

/* Name of a type for messages ("a number", "an array", ...). */
const char *json_type_name(int32_t type);

#endif
