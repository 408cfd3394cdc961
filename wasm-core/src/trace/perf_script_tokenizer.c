/*
 * The perf script tokenizer (see perf_script_tokenizer.h). Every function is
 * total: it reads within the span it is given.
 *
 * An event line is read from its one reliable landmark, the time column
 * ("3694.726991:", a number with a fraction and a colon): what stands before
 * it is "[cpu]", "pid/tid" or "tid" and the comm (which may hold blanks, so it
 * is everything left over); what follows is an optional period and the event
 * name with its colon, then the payload.
 */
#include <stdio.h>
#include <string.h>

#include "perf_script_tokenizer.h"

#define PS_MAX_TOKENS 32

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool all_digits(text_span s)
{
    for (int32_t i = 0; i < s.len; i++)
        if (!is_digit(s.at[i]))
            return false;
    return s.len > 0;
}

static bool is_hex(text_span s)
{
    for (int32_t i = 0; i < s.len; i++) {
        char c = s.at[i];
        if (!is_digit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F'))
            return false;
    }
    return s.len > 0;
}

/* Cuts s at blanks into at most max tokens; returns the count. */
static int32_t tokens_of(text_span s, text_span *tok, int32_t max)
{
    int32_t n = 0, i = 0;
    while (n < max) {
        while (i < s.len && is_blank(s.at[i]))
            i++;
        if (i >= s.len)
            break;
        int32_t start = i;
        while (i < s.len && !is_blank(s.at[i]))
            i++;
        tok[n++] = (text_span){ s.at + start, i - start };
    }
    return n;
}

/* "3694.726991" (digits, '.', digits). */
static bool is_time(text_span s)
{
    const char *dot = memchr(s.at, '.', (size_t)s.len);
    if (!dot || dot == s.at || dot == s.at + s.len - 1)
        return false;
    text_span sec = { s.at, (int32_t)(dot - s.at) }, frac = { dot + 1, s.len - sec.len - 1 };
    return all_digits(sec) && all_digits(frac) && frac.len <= 9;
}

/* "[000]" -> "000". */
static bool cpu_column(text_span t, text_span *cpu)
{
    if (t.len < 3 || t.at[0] != '[' || t.at[t.len - 1] != ']')
        return false;
    *cpu = (text_span){ t.at + 1, t.len - 2 };
    return all_digits(*cpu);
}

static text_span span_end_at(text_span from, const char *end)
{
    return (text_span){ from.at, (int32_t)(end - from.at) };
}

bool ps_tokenize_head(text_span line, ps_head *h, ft_token_error *err)
{
    memset(h, 0, sizeof *h);
    text_span tok[PS_MAX_TOKENS];
    int32_t n = tokens_of(line, tok, PS_MAX_TOKENS), t = -1;
    for (int32_t i = 0; i < n && i < 16; i++)
        if (tok[i].len > 1 && tok[i].at[tok[i].len - 1] == ':' &&
            is_time((text_span){ tok[i].at, tok[i].len - 1 })) {
            t = i;
            break;
        }
    if (t < 0) {
        err->column = 1;
        err->field = "time";
        snprintf(err->message, sizeof err->message,
                 "expected 'comm pid [cpu] time: event:', found no 'seconds.fraction:' time");
        return false;
    }
    h->time = (text_span){ tok[t].at, tok[t].len - 1 };
    int32_t k = t - 1;
    if (k >= 0 && cpu_column(tok[k], &h->cpu))
        k--;
    if (k >= 0) {
        text_span pid, tid;
        if (span_split(tok[k], '/', &pid, &tid) && all_digits(pid) && all_digits(tid)) {
            h->pid = pid;
            h->tid = tid;
            k--;
        } else if (all_digits(tok[k]) && k > 0) {   /* a lone number after a comm: the tid */
            h->tid = tok[k];
            k--;
        }
    }
    if (k >= 0)
        h->comm = span_trim(span_end_at(line, tok[k].at + tok[k].len));
    int32_t e = t + 1;
    if (e + 1 < n && all_digits(tok[e])) {
        h->period = tok[e];
        e++;
    }
    if (e >= n || tok[e].len < 2 || tok[e].at[tok[e].len - 1] != ':') {
        err->column = (int32_t)((e < n ? tok[e].at : line.at + line.len) - line.at) + 1;
        err->field = "event";
        text_span got = e < n ? tok[e] : (text_span){ "", 0 };
        snprintf(err->message, sizeof err->message, "expected 'event:' after the time, got '%.*s'",
                 SPAN_QUOTE(got));
        return false;
    }
    h->event = (text_span){ tok[e].at, tok[e].len - 1 };
    const char *after = tok[e].at + tok[e].len;
    h->payload = span_trim((text_span){ after, (int32_t)(line.at + line.len - after) });
    return true;
}

bool ps_is_tracepoint(text_span event, text_span *system, text_span *name)
{
    if (!span_split(event, ':', system, name) || system->len == 0 || name->len == 0)
        return false;
    if (name->len <= 6 && strspn(name->at, "ukhpPGHISDWe") >= (size_t)name->len)
        return false;                           /* cycles:u, cycles:ppp: modifiers */
    return true;
}

bool ps_tokenize_frame(text_span line, ps_frame *f)
{
    if (line.len == 0 || !is_blank(line.at[0]))
        return false;
    text_span rest = ft_skip_blanks(line);
    text_span ip = ft_word(rest);
    if (!is_hex(ip))
        return false;
    rest = span_trim((text_span){ ip.at + ip.len, rest.len - ip.len });
    *f = (ps_frame){ ip, rest, { rest.at + rest.len, 0 } };
    if (rest.len >= 2 && rest.at[rest.len - 1] == ')') {
        int32_t open = rest.len - 2, depth = 1;
        for (; open >= 0; open--) {             /* the matching '(' of the trailing "(dso)" */
            depth += rest.at[open] == ')';
            depth -= rest.at[open] == '(';
            if (depth == 0)
                break;
        }
        if (open >= 0) {
            f->dso = (text_span){ rest.at + open + 1, rest.len - open - 2 };
            f->sym = span_trim((text_span){ rest.at, open });
        }
    }
    return true;
}

bool ps_tokenize_timehist(text_span line, ps_timehist_row *row)
{
    memset(row, 0, sizeof *row);
    text_span tok[2];
    if (tokens_of(line, tok, 2) < 2 || !is_time(tok[0]) || !cpu_column(tok[1], &row->cpu))
        return false;
    row->time = tok[0];
    const char *after = tok[1].at + tok[1].len;
    text_span rest = span_trim((text_span){ after, (int32_t)(line.at + line.len - after) });
    static const char *const notes[] = { "awakened:", "migrated:" };
    for (uint32_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        int32_t at = -1, n = (int32_t)strlen(notes[i]);
        for (int32_t j = 0; j + n <= rest.len; j++)
            if (memcmp(rest.at + j, notes[i], (size_t)n) == 0 && (j == 0 || is_blank(rest.at[j - 1]))) {
                at = j;
                break;
            }
        if (at >= 0) {
            row->note = (text_span){ rest.at + at, rest.len - at };
            rest = span_trim((text_span){ rest.at, at });
            break;
        }
    }
    int32_t end = rest.len;                     /* trailing numbers: wait, sch delay, run time */
    for (;;) {
        int32_t i = end;
        while (i > 0 && !is_blank(rest.at[i - 1]))
            i--;
        text_span word = { rest.at + i, end - i };
        if (i == 0 || !is_time(word))
            break;
        end = i;
        while (end > 0 && is_blank(rest.at[end - 1]))
            end--;
    }
    row->task = span_trim((text_span){ rest.at, end });
    row->numbers = span_trim((text_span){ rest.at + end, rest.len - end });
    return row->task.len > 0;
}

bool ps_split_task(text_span task, text_span *name, int32_t *tid, int32_t *pid)
{
    *tid = *pid = -1;
    *name = task;
    if (span_equals(task, "<idle>") || span_equals(task, "swapper")) {
        *tid = *pid = 0;                        /* the idle task (-w rows print "swapper") */
        return true;
    }
    if (task.len < 3 || task.at[task.len - 1] != ']')
        return task.len > 0;                    /* a name without ids: tid unknown */
    int32_t open = task.len - 2;
    while (open >= 0 && task.at[open] != '[')
        open--;
    if (open < 0)
        return false;
    text_span ids = { task.at + open + 1, task.len - open - 2 }, a, b;
    *name = (text_span){ task.at, open };
    if (span_split(ids, '/', &a, &b))
        return parse_int(a, tid) && parse_int(b, pid);
    return parse_int(ids, tid);
}
