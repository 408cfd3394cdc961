/*
 * The format detector (see include/kscope/trace_detect.h): magic bytes first,
 * then the first lines of text, each judged by the shape the decoders read:
 *
 *     "\x17\x08Dtracing"                      trace.dat
 *     "PERFILE2", 1f 8b, "PK\x03\x04"         perf.data, gzip, zip
 *     <!DOCTYPE html> / <html                 systrace HTML
 *     # tracer: nop                           ftrace text
 *     version = 6 / cpus=6                    trace-cmd report
 *     # Samples: 1K of event 'cycles'         perf report (# Events:, # Overhead, # Children)
 *     time  cpu  task name  wait time ...     perf sched timehist
 *     comm-pid [cpu] ... ts: event:           ftrace text (the ftrace tokenizer reads it)
 *     comm pid [cpu] time: event:             perf script (the perf tokenizer reads it)
 */
#include <string.h>

#include "kscope/trace_detect.h"
#include "perf_script_tokenizer.h"

static const char *const format_names[KS_TRACE_FORMAT_COUNT] = {
    [KS_TRACE_UNKNOWN] = "unknown",
    [KS_TRACE_FTRACE_TEXT] = "ftrace-text",
    [KS_TRACE_TRACE_CMD_REPORT] = "trace-cmd-report",
    [KS_TRACE_TRACE_DAT] = "trace.dat",
    [KS_TRACE_PERF_SCRIPT] = "perf-script",
    [KS_TRACE_PERF_SCHED_TIMEHIST] = "perf-sched-timehist",
    [KS_TRACE_SYSTRACE_HTML] = "systrace-html",
    [KS_TRACE_PERF_REPORT] = "perf-report",
    [KS_TRACE_PERF_DATA] = "perf.data",
    [KS_TRACE_GZIP] = "gzip",
    [KS_TRACE_ZIP] = "zip",
};

const char *ks_trace_format_name(int32_t format)
{
    return format >= 0 && format < KS_TRACE_FORMAT_COUNT ? format_names[format] : NULL;
}

static bool has_prefix(const char *head, int32_t len, const char *magic, int32_t n)
{
    return len >= n && memcmp(head, magic, (size_t)n) == 0;
}

/* Case-insensitive search of an ASCII word in the head. */
static bool contains_nocase(const char *head, int32_t len, const char *word)
{
    int32_t n = (int32_t)strlen(word);
    for (int32_t i = 0; i + n <= len; i++) {
        int32_t k = 0;
        while (k < n && (head[i + k] | 0x20) == (word[k] | 0x20))
            k++;
        if (k == n)
            return true;
    }
    return false;
}

static bool line_has(text_span line, const char *word)
{
    int32_t n = (int32_t)strlen(word);
    for (int32_t i = 0; i + n <= line.len; i++)
        if (memcmp(line.at + i, word, (size_t)n) == 0)
            return true;
    return false;
}

int32_t ks_trace_detect(const char *head, int32_t len)
{
    if (!head || len <= 0)
        return KS_TRACE_UNKNOWN;
    if (has_prefix(head, len, "\x17\x08\x44tracing", 10))
        return KS_TRACE_TRACE_DAT;
    if (has_prefix(head, len, "PERFILE2", 8) || has_prefix(head, len, "PERFFILE", 8))
        return KS_TRACE_PERF_DATA;
    if (has_prefix(head, len, "\x1f\x8b", 2))
        return KS_TRACE_GZIP;
    if (has_prefix(head, len, "PK\x03\x04", 4))
        return KS_TRACE_ZIP;
    int32_t scan = len < 4096 ? len : 4096;
    if (contains_nocase(head, scan, "<!doctype html") || contains_nocase(head, scan, "<html"))
        return KS_TRACE_SYSTRACE_HTML;
    bool perf_header = false;
    line_reader r = line_reader_of(head, len);
    text_span line;
    /* Up to 400 lines that are not comments: a capture's "#" metadata header may be long. */
    for (int32_t n = 0; read_line(&r, &line) && n < 400;) {
        if (r.pos >= len && len > 64 && line.len > 0)
            break;                              /* a cut last line says nothing sure */
        for (int32_t i = 0; i < line.len; i++) {
            unsigned char c = (unsigned char)line.at[i];
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                return KS_TRACE_UNKNOWN;        /* binary */
        }
        text_span t = span_trim(line);
        if (t.len == 0)
            continue;
        if (t.at[0] == '#') {
            text_span s = t;
            if (span_cut_prefix(&s, "# tracer:") || span_cut_prefix(&s, "# kscope:"))
                return KS_TRACE_FTRACE_TEXT;    /* "# kscope:" opens kscope capture's header */
            if (line_has(t, "# Samples:") || line_has(t, "# Events:") || line_has(t, "# Overhead") ||
                line_has(t, "# Children") || line_has(t, "# Total Lost Samples"))
                return KS_TRACE_PERF_REPORT;
            perf_header |= line_has(t, "# ========") || line_has(t, "# captured on");
            continue;
        }
        n++;
        text_span s = t;
        if (span_cut_prefix(&s, "version =") || span_cut_prefix(&s, "cpus="))
            return KS_TRACE_TRACE_CMD_REPORT;
        if (line_has(t, "task name") && line_has(t, "wait time"))
            return KS_TRACE_PERF_SCHED_TIMEHIST;
        ps_timehist_row row;
        if (ps_tokenize_timehist(line, &row))
            return KS_TRACE_PERF_SCHED_TIMEHIST;
        ft_line_head fh;
        ft_token_error err;
        if (ft_tokenize_head(line, &fh, &err))
            return KS_TRACE_FTRACE_TEXT;
        ps_head ph;
        if (ps_tokenize_head(line, &ph, &err))
            return KS_TRACE_PERF_SCRIPT;
        if (line.len > 0 && (line.at[0] == ' ' || line.at[0] == '\t'))
            continue;                           /* a callchain or a wrapped line */
        return KS_TRACE_UNKNOWN;
    }
    return perf_header ? KS_TRACE_PERF_SCRIPT : KS_TRACE_UNKNOWN;
}
