/*
 * A small JSON reader: tokenizer -> recursive-descent parser -> flat value tree.
 *
 * Example input (a workload file):
 *
 *     {"name": "seed000", "duration_ms": 200,
 *      "processes": [{"kind": "intermittent", "comm": "bench", "threads": 8}]}
 *
 * The tokenizer cuts the text into punctuation, strings, numbers and the three
 * literals, tracking line and column. The parser builds json_values in
 * document order, keeps a stack of the keys and indices it is inside (for the
 * field path of an error message) and refuses nesting deeper than
 * JSON_MAX_DEPTH, so hostile input cannot exhaust the C stack.
 */
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokenizer ---------------------------------------------------------- */

typedef enum token_kind {
    TOK_END = 0,
    TOK_PUNCT,          /* one of {}[]:, in `punct` */
    TOK_STRING,
    TOK_NUMBER,
    TOK_TRUE,
    TOK_FALSE,
    TOK_NULL,
    TOK_BAD,
} token_kind;

typedef struct token {
    token_kind kind;
    char punct;
    int32_t start, end;         /* byte range in the text */
    int32_t line, column;
} token;

typedef struct lexer {
    const char *text;
    int32_t len;
    int32_t pos;
    int32_t line;
    int32_t line_start;         /* byte offset where the current line starts */
} lexer;

static void skip_space(lexer *lx)
{
    while (lx->pos < lx->len) {
        char c = lx->text[lx->pos];
        if (c == '\n') {
            lx->line++;
            lx->line_start = lx->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        lx->pos++;
    }
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int32_t scan_digits(const lexer *lx, int32_t at)
{
    while (at < lx->len && is_digit(lx->text[at]))
        at++;
    return at;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; returns the end, or -1. */
static int32_t scan_number(const lexer *lx, int32_t at)
{
    if (at < lx->len && lx->text[at] == '-')
        at++;
    if (at >= lx->len || !is_digit(lx->text[at]))
        return -1;
    at = lx->text[at] == '0' ? at + 1 : scan_digits(lx, at);
    if (at < lx->len && lx->text[at] == '.') {
        int32_t end = scan_digits(lx, at + 1);
        if (end == at + 1)
            return -1;
        at = end;
    }
    if (at < lx->len && (lx->text[at] == 'e' || lx->text[at] == 'E')) {
        at++;
        if (at < lx->len && (lx->text[at] == '+' || lx->text[at] == '-'))
            at++;
        int32_t end = scan_digits(lx, at);
        if (end == at)
            return -1;
        at = end;
    }
    return at;
}

/* Finds the closing quote of the string starting at `at` (the opening quote); -1 if none. */
static int32_t scan_string(const lexer *lx, int32_t at)
{
    for (at++; at < lx->len; at++) {
        char c = lx->text[at];
        if (c == '"')
            return at + 1;
        if (c == '\\')
            at++;
        else if (c == '\n')
            return -1;
    }
    return -1;
}

static int literal_at(const lexer *lx, int32_t at, const char *word)
{
    int32_t n = (int32_t)strlen(word);
    return at + n <= lx->len && memcmp(lx->text + at, word, (size_t)n) == 0;
}

static token next_token(lexer *lx)
{
    skip_space(lx);
    token t = { .start = lx->pos, .line = lx->line, .column = lx->pos - lx->line_start + 1 };
    if (lx->pos >= lx->len) {
        t.kind = TOK_END;
        t.end = lx->pos;
        return t;
    }
    char c = lx->text[lx->pos];
    int32_t end = -1;
    if (strchr("{}[]:,", c) && c) {
        t.kind = TOK_PUNCT;
        t.punct = c;
        end = lx->pos + 1;
    } else if (c == '"') {
        t.kind = TOK_STRING;
        end = scan_string(lx, lx->pos);
    } else if (c == '-' || is_digit(c)) {
        t.kind = TOK_NUMBER;
        end = scan_number(lx, lx->pos);
    } else if (literal_at(lx, lx->pos, "true")) {
        t.kind = TOK_TRUE;
        end = lx->pos + 4;
    } else if (literal_at(lx, lx->pos, "false")) {
        t.kind = TOK_FALSE;
        end = lx->pos + 5;
    } else if (literal_at(lx, lx->pos, "null")) {
        t.kind = TOK_NULL;
        end = lx->pos + 4;
    }
    if (end < 0) {
        t.kind = TOK_BAD;
        end = lx->pos + 1;
    }
    t.end = end;
    lx->pos = end;
    return t;
}

/* ---- parser ------------------------------------------------------------- */

typedef struct path_frame {
    int32_t index;              /* array element index, or -1 inside an object */
    int32_t key;                /* object member key offset, or -1 */
} path_frame;

typedef struct parser {
    lexer lx;
    json_doc *doc;
    json_error *err;
    path_frame path[JSON_MAX_DEPTH + 1];
    int32_t depth;
    int failed;
} parser;

static void format_path(const parser *p, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int32_t i = 0; i < p->depth && n < cap; i++) {
        const path_frame *f = &p->path[i];
        int w = 0;
        if (f->index >= 0)
            w = snprintf(out + n, cap - n, "[%d]", (int)f->index);
        else if (f->key >= 0)
            w = snprintf(out + n, cap - n, "%s%s", n ? "." : "", p->doc->strings + f->key);
        if (w < 0)
            break;
        n += (size_t)w;
    }
}

static int32_t fail_at(parser *p, int32_t line, int32_t column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int32_t fail_at(parser *p, int32_t line, int32_t column, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = 1;
    if (!p->err)
        return -1;
    p->err->line = line;
    p->err->column = column;
    format_path(p, p->err->path, sizeof p->err->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
    va_end(ap);
    return -1;
}

static int32_t fail_token(parser *p, const token *t, const char *what)
{
    if (t->kind == TOK_END)
        return fail_at(p, t->line, t->column, "%s, got the end of the input", what);
    int32_t n = t->end - t->start;
    if (n > 20)
        n = 20;
    return fail_at(p, t->line, t->column, "%s, got '%.*s'", what, (int)n, p->lx.text + t->start);
}

static int32_t new_value(parser *p, int32_t type, const token *t)
{
    json_doc *d = p->doc;
    if (d->count == d->capacity) {
        int32_t capacity = d->capacity ? d->capacity * 2 : 64;
        json_value *grown = realloc(d->values, (size_t)capacity * sizeof *grown);
        if (!grown)
            return fail_at(p, t->line, t->column, "out of memory");
        d->values = grown;
        d->capacity = capacity;
    }
    json_value *v = &d->values[d->count];
    *v = (json_value){ .type = type, .line = t->line, .column = t->column,
                       .next = -1, .first = -1, .key = -1, .str = 0 };
    return d->count++;
}

static int reserve_strings(json_doc *d, int32_t more)
{
    if (d->strings_len + more <= d->strings_capacity)
        return 1;
    int32_t capacity = d->strings_capacity ? d->strings_capacity : 256;
    while (capacity < d->strings_len + more)
        capacity *= 2;
    char *grown = realloc(d->strings, (size_t)capacity);
    if (!grown)
        return 0;
    d->strings = grown;
    d->strings_capacity = capacity;
    return 1;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads 4 hex digits at s; -1 if they are not. */
static int32_t read_hex4(const char *s, int32_t avail)
{
    if (avail < 4)
        return -1;
    int32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(s[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static int32_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Decodes one "\..." escape at in[i] (the backslash); returns bytes consumed, or -1. */
static int32_t decode_escape(const char *in, int32_t avail, char *out, int32_t *written)
{
    static const char simple_from[] = "\"\\/bfnrt";
    static const char simple_to[] = "\"\\/\b\f\n\r\t";
    if (avail < 2)
        return -1;
    const char *hit = strchr(simple_from, in[1]);
    if (hit && in[1]) {
        out[0] = simple_to[hit - simple_from];
        *written = 1;
        return 2;
    }
    if (in[1] != 'u')
        return -1;
    int32_t cp = read_hex4(in + 2, avail - 2);
    if (cp < 0)
        return -1;
    int32_t used = 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {          /* high surrogate: needs its pair */
        int32_t lo = -1;
        if (avail >= 12 && in[6] == '\\' && in[7] == 'u')
            lo = read_hex4(in + 8, avail - 8);
        if (lo < 0xdc00 || lo > 0xdfff)
            return -1;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        used = 12;
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        return -1;
    }
    *written = put_utf8(out, (uint32_t)cp);
    return used;
}

/* Copies the string token's decoded text into the arena; returns its offset or -1. */
static int32_t intern_string(parser *p, const token *t)
{
    const char *in = p->lx.text + t->start + 1;
    int32_t n = t->end - t->start - 2;
    if (!reserve_strings(p->doc, n + 1))
        return fail_at(p, t->line, t->column, "out of memory");
    int32_t offset = p->doc->strings_len;
    char *out = p->doc->strings + offset;
    int32_t o = 0;
    for (int32_t i = 0; i < n;) {
        unsigned char c = (unsigned char)in[i];
        if (c < 0x20)
            return fail_at(p, t->line, t->column + 1 + i, "control character in a string");
        if (c != '\\') {
            out[o++] = (char)c;
            i++;
            continue;
        }
        int32_t written = 0;
        int32_t used = decode_escape(in + i, n - i, out + o, &written);
        if (used < 0)
            return fail_at(p, t->line, t->column + 1 + i, "invalid escape in a string");
        i += used;
        o += written;
    }
    out[o] = '\0';
    p->doc->strings_len += o + 1;
    return offset;
}

static int32_t parse_value(parser *p, token t);

static int32_t enter(parser *p, const token *t, int32_t index, int32_t key)
{
    if (p->depth >= JSON_MAX_DEPTH)
        return fail_at(p, t->line, t->column, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    p->path[p->depth++] = (path_frame){ .index = index, .key = key };
    return 0;
}

/* Links child after prev (or as the first child) of container. */
static void link_child(json_doc *d, int32_t container, int32_t prev, int32_t child)
{
    if (prev < 0)
        d->values[container].first = child;
    else
        d->values[prev].next = child;
    d->values[container].count++;
}

static int32_t parse_array(parser *p, const token *open)
{
    int32_t arr = new_value(p, JSON_ARRAY, open);
    if (arr < 0)
        return -1;
    token t = next_token(&p->lx);
    if (t.kind == TOK_PUNCT && t.punct == ']')
        return arr;
    for (int32_t prev = -1, index = 0;; index++) {
        if (enter(p, &t, index, -1) < 0)
            return -1;
        int32_t child = parse_value(p, t);
        if (child < 0)
            return -1;
        p->depth--;
        link_child(p->doc, arr, prev, child);
        prev = child;
        t = next_token(&p->lx);
        if (t.kind == TOK_PUNCT && t.punct == ']')
            return arr;
        if (t.kind != TOK_PUNCT || t.punct != ',')
            return fail_token(p, &t, "expected ',' or ']' in an array");
        t = next_token(&p->lx);
    }
}

static int32_t parse_member(parser *p, int32_t obj, int32_t prev, token key_tok)
{
    if (key_tok.kind != TOK_STRING)
        return fail_token(p, &key_tok, "expected a member name in double quotes");
    int32_t key = intern_string(p, &key_tok);
    if (key < 0)
        return -1;
    token colon = next_token(&p->lx);
    if (enter(p, &key_tok, -1, key) < 0)
        return -1;
    if (colon.kind != TOK_PUNCT || colon.punct != ':')
        return fail_token(p, &colon, "expected ':' after a member name");
    int32_t child = parse_value(p, next_token(&p->lx));
    if (child < 0)
        return -1;
    p->depth--;
    p->doc->values[child].key = key;
    p->doc->values[child].key_line = key_tok.line;
    p->doc->values[child].key_column = key_tok.column;
    link_child(p->doc, obj, prev, child);
    return child;
}

static int32_t parse_object(parser *p, const token *open)
{
    int32_t obj = new_value(p, JSON_OBJECT, open);
    if (obj < 0)
        return -1;
    token t = next_token(&p->lx);
    if (t.kind == TOK_PUNCT && t.punct == '}')
        return obj;
    for (int32_t prev = -1;;) {
        prev = parse_member(p, obj, prev, t);
        if (prev < 0)
            return -1;
        t = next_token(&p->lx);
        if (t.kind == TOK_PUNCT && t.punct == '}')
            return obj;
        if (t.kind != TOK_PUNCT || t.punct != ',')
            return fail_token(p, &t, "expected ',' or '}' in an object");
        t = next_token(&p->lx);
    }
}

static int32_t parse_number(parser *p, const token *t)
{
    char buf[64];
    int32_t n = t->end - t->start;
    if (n >= (int32_t)sizeof buf)
        return fail_at(p, t->line, t->column, "number too long");
    memcpy(buf, p->lx.text + t->start, (size_t)n);
    buf[n] = '\0';
    int32_t v = new_value(p, JSON_NUMBER, t);
    if (v >= 0)
        p->doc->values[v].number = strtod(buf, NULL);
    return v;
}

static int32_t parse_value(parser *p, token t)
{
    int32_t v;
    switch (t.kind) {
    case TOK_PUNCT:
        if (t.punct == '{')
            return parse_object(p, &t);
        if (t.punct == '[')
            return parse_array(p, &t);
        return fail_token(p, &t, "expected a value");
    case TOK_STRING:
        v = new_value(p, JSON_STRING, &t);
        if (v < 0)
            return -1;
        {
            int32_t off = intern_string(p, &t);
            if (off < 0)
                return -1;
            p->doc->values[v].str = off;
        }
        return v;
    case TOK_NUMBER:
        return parse_number(p, &t);
    case TOK_TRUE:
    case TOK_FALSE:
        v = new_value(p, JSON_BOOL, &t);
        if (v >= 0)
            p->doc->values[v].str = t.kind == TOK_TRUE;
        return v;
    case TOK_NULL:
        return new_value(p, JSON_NULL, &t);
    case TOK_BAD:
        if (p->lx.text[t.start] == '"')
            return fail_at(p, t.line, t.column, "unterminated string");
        return fail_token(p, &t, "expected a value");
    case TOK_END:
    default:
        return fail_token(p, &t, "expected a value");
    }
}

int32_t json_parse(const char *text, int32_t len, json_doc *doc, json_error *err)
{
    memset(doc, 0, sizeof *doc);
    if (err)
        memset(err, 0, sizeof *err);
    parser p = { .lx = { .text = text ? text : "", .len = text && len > 0 ? len : 0, .line = 1 },
                 .doc = doc, .err = err };
    if (parse_value(&p, next_token(&p.lx)) < 0)
        return -1;
    token t = next_token(&p.lx);
    if (t.kind != TOK_END) {
        fail_token(&p, &t, "expected the end of the input");
        return -1;
    }
    return 0;
}

void json_free(json_doc *doc)
{
    if (!doc)
        return;
    free(doc->values);
    free(doc->strings);
    memset(doc, 0, sizeof *doc);
}

int32_t json_member(const json_doc *doc, int32_t obj, const char *key)
{
    if (obj < 0 || doc->values[obj].type != JSON_OBJECT)
        return -1;
    for (int32_t c = doc->values[obj].first; c >= 0; c = doc->values[c].next)
        if (strcmp(doc->strings + doc->values[c].key, key) == 0)
            return c;
    return -1;
}

const char *json_string(const json_doc *doc, int32_t value)
{
    return doc->strings + doc->values[value].str;
}

const char *json_key(const json_doc *doc, int32_t value)
{
    int32_t key = doc->values[value].key;
    return key >= 0 ? doc->strings + key : "";
}

const char *json_type_name(int32_t type)
{
    static const char *const names[] = { "null", "a boolean", "a number", "a string",
                                         "an array", "an object" };
    return type >= 0 && type <= JSON_OBJECT ? names[type] : "?";
}
