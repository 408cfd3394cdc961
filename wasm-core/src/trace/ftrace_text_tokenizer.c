/*
 * The ftrace text tokenizer: lines out of chunks, the event line's context
 * prefix, payload fields and numbers (see ftrace_text_tokenizer.h). Every
 * function is total: bad input is reported, never read past its length.
 *
 * The context prefix is what trace_print_context() prints before each event,
 * in the four layouts options/record-tgid and options/irq-info give, plus
 * trace-cmd report's (which has no flags unless asked for with -l):
 *
 *            bash-28486   [001]   1273.423231: ...                  tracefs, plain
 *            bash-28486   [000] .....  1273.007543: ...             + irq-info
 *            bash-28486   (  28486) [001]   1273.287357: ...        + record-tgid
 *          <idle>-0       (-------) [000] d..2.  1273.158575: ...   both; no tgid known
 *            <...>-1701  [001]    76.211513: sched_switch:    ...    trace-cmd report
 *
 * The comm is printed right-aligned in 16 columns and may itself hold blanks
 * and dashes ("my load-x-28497"), so the prefix is read from its one reliable
 * landmark, the "[cpu]" column: the first "[digits]" that has "-pid" (and an
 * optional "(tgid)") right before it. The pid is the number after the last
 * dash before that column; the comm is everything before that dash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_text_tokenizer.h"

/* ---- lines from chunks ------------------------------------------------------ */

int32_t ft_lines_init(ft_lines *a)
{
    *a = (ft_lines){ 0 };
    a->carry = malloc(KS_FTRACE_MAX_LINE);
    return a->carry ? KS_OK : KS_ERR_NO_MEMORY;
}

void ft_lines_free(ft_lines *a)
{
    free(a->carry);
    a->carry = NULL;
}

/* Appends n bytes to the carried line, or marks it too long. */
static void carry_bytes(ft_lines *a, const char *at, int32_t n)
{
    if (a->too_long || a->carry_len + n > KS_FTRACE_MAX_LINE) {
        a->too_long = true;
        return;
    }
    memcpy(a->carry + a->carry_len, at, (size_t)n);
    a->carry_len += n;
}

/* Hands out the carried line and empties the carry (its bytes stay valid until
 * the next call appends). */
static text_span take_carry(ft_lines *a, bool *too_long)
{
    text_span line = { a->carry, a->carry_len };
    *too_long = a->too_long;
    a->carry_len = 0;
    a->too_long = false;
    return line;
}

static text_span drop_cr(text_span line)
{
    if (line.len > 0 && line.at[line.len - 1] == '\r')
        line.len--;
    return line;
}

bool ft_lines_next(ft_lines *a, const char **chunk, int32_t *len, text_span *line,
                   bool *too_long)
{
    if (*len <= 0)
        return false;
    const char *nl = memchr(*chunk, '\n', (size_t)*len);
    if (!nl) {                                  /* a partial line: keep it for later */
        carry_bytes(a, *chunk, *len);
        *chunk += *len;
        *len = 0;
        return false;
    }
    int32_t n = (int32_t)(nl - *chunk);
    if (a->carry_len > 0 || a->too_long) {      /* the end of a carried line */
        carry_bytes(a, *chunk, n);
        *line = take_carry(a, too_long);
    } else {                                    /* a whole line inside the chunk */
        *too_long = n > KS_FTRACE_MAX_LINE;
        *line = (text_span){ *chunk, *too_long ? KS_FTRACE_MAX_LINE : n };
    }
    *chunk += n + 1;
    *len -= n + 1;
    *line = drop_cr(*line);
    return true;
}

bool ft_lines_flush(ft_lines *a, text_span *line, bool *too_long)
{
    if (a->carry_len == 0 && !a->too_long)
        return false;
    *line = drop_cr(take_carry(a, too_long));
    return true;
}

/* ---- small span helpers --------------------------------------------------------- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_ident(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && is_digit(c));
}

text_span ft_skip_blanks(text_span s)
{
    while (s.len > 0 && is_blank(s.at[0])) {
        s.at++;
        s.len--;
    }
    return s;
}

text_span ft_word(text_span s)
{
    int32_t n = 0;
    while (n < s.len && !is_blank(s.at[n]))
        n++;
    return (text_span){ s.at, n };
}

static text_span span_drop(text_span s, int32_t n)
{
    return (text_span){ s.at + n, s.len - n };
}

bool ft_cut_key(text_span *s, const char *key)
{
    int32_t n = (int32_t)strlen(key);
    if (s->len <= n || memcmp(s->at, key, (size_t)n) != 0 || s->at[n] != '=')
        return false;
    *s = span_drop(*s, n + 1);
    return true;
}

int32_t ft_key_len(text_span s)
{
    int32_t n = 0;
    while (n < s.len && is_ident(s.at[n], n == 0))
        n++;
    return n > 0 && n < s.len && s.at[n] == '=' ? n : 0;
}

int32_t ft_find_key(text_span s, const char *key)
{
    int32_t n = (int32_t)strlen(key);
    for (int32_t i = 0; i + n + 1 < s.len; i++)
        if (s.at[i] == ' ' && memcmp(s.at + i + 1, key, (size_t)n) == 0 && s.at[i + n + 1] == '=')
            return i;
    return -1;
}

/* Decimal digits -> u64; false if empty, not all digits, or too big. */
static bool parse_u64(text_span s, uint64_t *out)
{
    if (s.len == 0 || s.len > 19)
        return false;
    uint64_t v = 0;
    for (int32_t i = 0; i < s.len; i++) {
        if (!is_digit(s.at[i]))
            return false;
        v = v * 10 + (uint64_t)(s.at[i] - '0');
    }
    *out = v;
    return true;
}

bool ft_parse_timestamp(text_span s, uint64_t *ns)
{
    text_span sec, frac;
    if (!span_split(s, '.', &sec, &frac))
        return parse_u64(s, ns);                /* trace_clock=counter: a plain count */
    uint64_t secs, part;
    if (!parse_u64(sec, &secs) || secs > UINT64_MAX / 1000000000u - 1 || frac.len > 9 ||
        !parse_u64(frac, &part))
        return false;
    for (int32_t i = frac.len; i < 9; i++)
        part *= 10;
    *ns = secs * 1000000000u + part;
    return true;
}

bool ft_parse_int64(text_span s, int64_t *out)
{
    bool negative = span_cut_prefix(&s, "-");
    uint64_t v = 0;
    if (span_cut_prefix(&s, "0x") || span_cut_prefix(&s, "0X")) {
        if (s.len == 0 || s.len > 16)
            return false;
        for (int32_t i = 0; i < s.len; i++) {
            char c = s.at[i];
            int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
            if (d < 0)
                return false;
            v = v << 4 | (uint64_t)d;
        }
    } else if (!parse_u64(s, &v)) {
        return false;
    }
    if (v > (uint64_t)INT64_MAX)
        return false;
    *out = negative ? -(int64_t)v : (int64_t)v;
    return true;
}

void ft_copy_comm(char *dst, text_span s)
{
    memset(dst, 0, KS_COMM_LEN);
    if (s.len > 0)      /* an empty span may have no text at all (s.at NULL: memcpy's UB) */
        memcpy(dst, s.at, (size_t)(s.len < KS_COMM_LEN - 1 ? s.len : KS_COMM_LEN - 1));
}

void ft_quote(text_span s, char *out, int32_t cap)
{
    int32_t n = s.len < cap - 1 ? s.len : cap - 1;
    for (int32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s.at[i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    out[n > 0 ? n : 0] = '\0';
}

/* ---- the event line's context prefix ------------------------------------------ */

static bool fail(ft_token_error *err, text_span line, const char *at, const char *field,
                 const char *fmt, text_span got)
{
    char quoted[41];
    ft_quote(got, quoted, sizeof quoted);
    err->column = (int32_t)(at - line.at) + 1;
    err->field = field;
    snprintf(err->message, sizeof err->message, fmt, quoted);
    return false;
}

/* Reads "comm-pid [(tgid)] " backwards from the '[' at line.at[open]; true if it is there. */
static bool read_back_to_comm(text_span line, int32_t open, ft_line_head *h)
{
    int32_t i = open;
    while (i > 0 && is_blank(line.at[i - 1]))
        i--;
    h->has_tgid = false;
    h->tgid = (text_span){ line.at + i, 0 };
    if (i > 0 && line.at[i - 1] == ')') {       /* "(  28497)" or "(-------)" */
        int32_t close = i - 1, j = close;
        while (j > 0 && line.at[j - 1] != '(' && (is_digit(line.at[j - 1]) ||
               is_blank(line.at[j - 1]) || line.at[j - 1] == '-'))
            j--;
        if (j == 0 || line.at[j - 1] != '(')
            return false;
        h->has_tgid = true;
        h->tgid = span_trim((text_span){ line.at + j, close - j });
        i = j - 1;
        while (i > 0 && is_blank(line.at[i - 1]))
            i--;
    }
    int32_t end = i;
    while (i > 0 && is_digit(line.at[i - 1]))
        i--;
    if (i == end || i == 0 || line.at[i - 1] != '-')
        return false;
    h->pid = (text_span){ line.at + i, end - i };
    h->comm = ft_skip_blanks((text_span){ line.at, i - 1 });
    return true;
}

/* Finds the "[cpu]" column that follows "comm-pid"; *after is the text past its ']'. */
static bool find_cpu_column(text_span line, ft_line_head *h, text_span *after)
{
    for (int32_t open = 0; open < line.len; open++) {
        const char *bracket = memchr(line.at + open, '[', (size_t)(line.len - open));
        if (!bracket)
            return false;
        open = (int32_t)(bracket - line.at);
        int32_t close = open + 1;
        while (close < line.len && is_digit(line.at[close]))
            close++;
        if (close == open + 1 || close >= line.len || line.at[close] != ']')
            continue;
        if (!read_back_to_comm(line, open, h))
            continue;
        h->cpu = (text_span){ line.at + open + 1, close - open - 1 };
        *after = span_drop(line, close + 1);
        return true;
    }
    return false;
}

bool ft_tokenize_head(text_span line, ft_line_head *h, ft_token_error *err)
{
    *h = (ft_line_head){ 0 };
    text_span rest;
    if (!find_cpu_column(line, h, &rest))
        return fail(err, line, line.at, "comm-pid [cpu]",
                    "expected 'comm-pid [cpu]' at the start of an event line, got '%s'", line);
    rest = ft_skip_blanks(rest);
    text_span word = ft_word(rest);
    if (word.len > 0 && !is_digit(word.at[0])) {        /* irq-info flags: "d..2." */
        if (word.len < 4 || word.len > 5)
            return fail(err, line, word.at, "flags",
                        "expected 4 or 5 irq-info flags like 'd..2.', got '%s'", word);
        h->flags = word;
        rest = ft_skip_blanks(span_drop(rest, word.len));
        word = ft_word(rest);
    }
    if (word.len < 2 || word.at[word.len - 1] != ':' ||
        !ft_parse_timestamp((text_span){ word.at, word.len - 1 }, &h->ts_ns))
        return fail(err, line, word.at, "timestamp",
                    "expected a timestamp like '1273.158974:', got '%s'", word);
    h->timestamp = (text_span){ word.at, word.len - 1 };
    rest = ft_skip_blanks(span_drop(rest, word.len));
    int32_t n = 0;
    while (n < rest.len && rest.at[n] != ':' && !is_blank(rest.at[n]))
        n++;
    if (n == 0 || n == rest.len || rest.at[n] != ':')
        return fail(err, line, rest.at, "event name",
                    "expected 'event_name:', got '%s'", ft_word(rest));
    h->name = (text_span){ rest.at, n };
    h->payload = span_trim(span_drop(rest, n + 1));
    return true;
}

/* ---- sched_switch prev_state --------------------------------------------------- */

char ft_prev_state_letter(int32_t i, int64_t *bit)
{
    static const char letters[] = "SDTtXZPI";  /* bit i: TASK_INTERRUPTIBLE .. TASK_REPORT_IDLE */
    if (i < 0 || i >= (int32_t)sizeof letters - 1)
        return 0;
    *bit = (int64_t)1 << i;
    return letters[i];
}

static bool letter_bit(char c, int64_t *bit)
{
    for (int32_t i = 0; ft_prev_state_letter(i, bit); i++)
        if (ft_prev_state_letter(i, bit) == c)
            return true;
    return false;
}

bool ft_parse_prev_state(text_span s, int64_t *out)
{
    if (s.len > 0 && (is_digit(s.at[0]) || s.at[0] == '-'))
        return ft_parse_int64(s, out);          /* trace-cmd: the raw number */
    int64_t state = 0;
    if (s.len > 0 && s.at[s.len - 1] == '+') {
        state |= KS_PREV_STATE_PREEMPTED;
        s.len--;
    }
    if (span_equals(s, "R")) {
        *out = state;
        return true;
    }
    for (int32_t i = 0; i < s.len; i += 2) {    /* "S", "S|D", ... */
        int64_t bit;
        if (!letter_bit(s.at[i], &bit) || (i + 1 < s.len && s.at[i + 1] != '|') || i + 1 == s.len - 1)
            return false;
        state |= bit;
    }
    *out = state;
    return s.len > 0;
}
