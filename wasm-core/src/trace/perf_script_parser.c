/*
 * The perf script parser and the streaming decoder: tokenized lines ->
 * ks_event records -> the sink (see include/kscope/perf.h).
 *
 * A line is one of:
 *
 *     # nrcpus online : 32                                   --header block (CPU count)
 *     # Samples: 1K of event 'cycles'                        perf report: refused
 *     perf  3993 [000]  3694.726991: sched:sched_switch: prev_comm=...    a tracepoint event
 *     java 11008 [001] 30143.481555: cpu-clock:              a sample; its callchain follows
 *     \tffffffff81001408 xen_hypercall_event_channel_op ([kernel.kallsyms])   a callchain frame
 *     <blank>                                                the end of a sample's block
 *         3694.727017 [0000]  migration/0[18]   0.000  0.005  0.026        a timehist row
 *                time    cpu  task name   wait time  sch delay   run time  timehist headers
 *
 * A sample is held until its block ends (a blank line, the next event line or
 * the end of the text), so its record can say how deep its callchain was.
 * Malformed lines are counted (the first one described with its line number)
 * and never stop the decoder; a typed tracepoint whose fields do not read is
 * kept as a generic record with its text, as the ftrace decoder does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_common.h"
#include "perf_script_tokenizer.h"
#include "kscope/trace_detect.h"

#define PS_FIELDS 512               /* a sample's "period=... ip=... sym=... dso=..." */

struct ks_perf_decoder {
    line_stream in;                 /* its scratch: a record's fields text */
    ks_perf_stats stats;
    bool refused;                   /* perf report: nothing more is decoded */
    bool in_callchain;              /* frames below an event line go to it */
    bool pending;                   /* a sample waiting for the end of its block */
    ks_event sample;
    char sample_name[64];
    char sample_fields[PS_FIELDS];
    int32_t sample_len;
    int32_t depth;
};

/* ---- errors and counters ----------------------------------------------------------- */

static void note_malformed(ks_perf_decoder *dec, int32_t column, const char *field,
                           const char *message)
{
    ks_perf_stats *st = &dec->stats;
    trace_note_line(&st->first_error, &st->malformed_lines, st->lines, column, field, message);
}

static int32_t append(ks_perf_decoder *dec, ks_event_log *sink, const ks_event *ev,
                      const char *name, const char *fields)
{
    return trace_append(sink, ev, name, fields, &dec->stats.events, &dec->stats.generic_events);
}

static void copy_span(char *dst, int32_t cap, text_span s)
{
    int32_t n = s.len < cap - 1 ? s.len : cap - 1;
    memcpy(dst, s.at, (size_t)(n > 0 ? n : 0));
    dst[n > 0 ? n : 0] = '\0';
}

/* ---- samples -------------------------------------------------------------------------- */

static void sample_put(ks_perf_decoder *dec, const char *key, text_span value)
{
    if (value.len == 0)
        return;
    int32_t room = PS_FIELDS - dec->sample_len;
    int32_t n = snprintf(dec->sample_fields + dec->sample_len, (size_t)room, "%s%s=%.*s",
                         dec->sample_len ? " " : "", key, value.len, value.at);
    dec->sample_len += n < room ? n : room - 1;
}

/* The leaf frame's ip, sym and dso go into the sample's fields. */
static void sample_frame(ks_perf_decoder *dec, const ps_frame *f)
{
    if (dec->depth++ > 0)
        return;
    sample_put(dec, "ip", f->ip);
    sample_put(dec, "sym", f->sym);
    sample_put(dec, "dso", f->dso);
}

/* Appends the pending sample, if any:  "period=1001001 ip=... sym=... dso=... stack_depth=20". */
static int32_t flush_sample(ks_perf_decoder *dec, ks_event_log *sink)
{
    dec->in_callchain = false;
    if (!dec->pending)
        return KS_OK;
    dec->pending = false;
    char depth[16];
    snprintf(depth, sizeof depth, "%d", dec->depth);
    sample_put(dec, "stack_depth", span_of(depth));
    dec->stats.samples++;
    return append(dec, sink, &dec->sample, dec->sample_name, dec->sample_fields);
}

/* ---- header and table lines ---------------------------------------------------------------- */

/* "# Samples: 1K of event 'cycles'", "# Events: 825  cycles", "# Overhead  Command ...". */
static bool is_report_line(text_span line)
{
    static const char *const marks[] = { "# Samples:", "# Events:", "# Overhead", "# Children",
                                         "# Total Lost Samples:" };
    for (uint32_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
        text_span s = line;
        if (span_cut_prefix(&s, marks[i]))
            return true;
    }
    return false;
}

/* "# nrcpus online : 32"; true if the line is perf report's (decoding stops). */
static bool read_comment(ks_perf_decoder *dec, text_span line)
{
    text_span s = line, value;
    if (is_report_line(line)) {
        dec->refused = true;
        dec->stats.format = KS_PERF_FORMAT_REPORT;
        dec->stats.status = KS_ERR_PARSE;
        dec->stats.first_error.line = (int32_t)dec->stats.lines;
        dec->stats.first_error.column_or_field = 1;
        snprintf(dec->stats.first_error.field, sizeof dec->stats.first_error.field, "perf report");
        snprintf(dec->stats.first_error.message, sizeof dec->stats.first_error.message,
                 "perf report output is a summary, not a trace: use perf script");
        return true;
    }
    if (span_cut_prefix(&s, "# ========"))
        dec->stats.columns |= KS_PERF_HEADER;
    s = line;
    int32_t n;
    if (span_cut_prefix(&s, "# nrcpus online") && span_split(s, ':', &value, &s) &&
        parse_int(span_trim(s), &n) && n > 0)
        dec->stats.nr_cpus = n;
    return false;
}

/* perf sched timehist's column headers: "time    cpu  task name ...", "[tid/pid]", "-----". */
static bool is_timehist_header(text_span line)
{
    text_span t = span_trim(line);
    if (t.len > 0 && t.at[0] == '-' && strspn(t.at, "- ") >= (size_t)t.len)
        return true;
    for (int32_t i = 0; i + 9 <= t.len; i++)
        if (memcmp(t.at + i, "task name", 9) == 0 || memcmp(t.at + i, "[tid/pid]", 9) == 0)
            return true;
    return false;
}

/*     3694.727017 [0000]  migration/0[18]                     0.000      0.005      0.026
 *     3694.726985 [0000]  perf[3993]                                      awakened: migration/0[18] */
static int32_t decode_timehist(ks_perf_decoder *dec, text_span line, const ps_timehist_row *row,
                               ks_event_log *sink)
{
    ks_event ev = { .type = KS_EV_GENERIC };
    text_span name;
    int32_t tid, pid;
    if (!ft_parse_timestamp(row->time, &ev.ts_ns) || !parse_int(row->cpu, &ev.cpu) ||
        !ps_split_task(row->task, &name, &tid, &pid) ||
        (row->note.len == 0 && row->numbers.len == 0)) {
        char msg[128];
        snprintf(msg, sizeof msg, "expected 'time [cpu] task[tid] wait sch_delay run', got '%.*s'",
                 SPAN_QUOTE(row->task));
        note_malformed(dec, (int32_t)(row->task.at - line.at) + 1, "timehist", msg);
        return KS_OK;
    }
    dec->stats.format = KS_PERF_FORMAT_TIMEHIST;
    ev.pid = tid;
    ev.tgid = pid;
    ft_copy_comm(ev.comm, name);
    char *f = dec->in.scratch;
    if (row->note.len > 0) {
        snprintf(f, KS_FTRACE_MAX_LINE, "note=%.*s", row->note.len, row->note.at);
    } else {
        text_span rest = row->numbers, w[3];
        int32_t n = 0;
        for (; n < 3 && rest.len > 0; n++) {
            w[n] = ft_word(rest);
            rest = ft_skip_blanks((text_span){ rest.at + w[n].len, rest.len - w[n].len });
        }
        if (n == 3)
            snprintf(f, KS_FTRACE_MAX_LINE, "wait_time=%.*s sch_delay=%.*s run_time=%.*s",
                     w[0].len, w[0].at, w[1].len, w[1].at, w[2].len, w[2].at);
        else
            snprintf(f, KS_FTRACE_MAX_LINE, "times=%.*s", row->numbers.len, row->numbers.at);
    }
    return append(dec, sink, &ev, "sched_timehist", f);
}

/* ---- event lines ------------------------------------------------------------------------------ */

/* The context columns into ev; false with *err if a number does not read. */
static bool read_context(text_span line, const ps_head *h, ks_event *ev, ft_token_error *err)
{
    ev->cpu = -1;
    ev->pid = -1;
    ev->tgid = -1;
    struct { text_span s; int32_t *out; const char *field; } nums[] = {
        { h->cpu, &ev->cpu, "cpu" }, { h->tid, &ev->pid, "tid" }, { h->pid, &ev->tgid, "pid" },
    };
    for (uint32_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (nums[i].s.len > 0 && !parse_int(nums[i].s, nums[i].out)) {
            err->column = (int32_t)(nums[i].s.at - line.at) + 1;
            err->field = nums[i].field;
            snprintf(err->message, sizeof err->message, "expected a number, got '%.*s'",
                     SPAN_QUOTE(nums[i].s));
            return false;
        }
    if (ev->pid == 0)
        ev->tgid = 0;                           /* the idle task */
    ft_parse_timestamp(h->time, &ev->ts_ns);    /* checked by the tokenizer */
    ft_copy_comm(ev->comm, h->comm);
    return true;
}

/*         perf  3993 [000]  3694.726991:       sched:sched_switch: prev_comm=perf prev_pid=3993 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0
 *   simple-terminat     9 [000] 202513.231785:    1001001 cpu-clock:
 *           python  4595 [000]  3749.353615:    2004008 cpu-clock:  ffffffff821eb0e7 clear_page_erms ([kernel.kallsyms]) */
static int32_t decode_event_line(ks_perf_decoder *dec, text_span line, ks_event_log *sink)
{
    ps_head h;
    ft_token_error err = { 0 };
    ks_event ev = { 0 };
    if (!ps_tokenize_head(line, &h, &err) || !read_context(line, &h, &ev, &err)) {
        note_malformed(dec, err.column, err.field, err.message);
        return KS_OK;
    }
    dec->stats.format = KS_PERF_FORMAT_SCRIPT;
    dec->stats.columns |= (h.cpu.len ? KS_PERF_CPU : 0) | (h.pid.len ? KS_PERF_PID_TID : 0);
    dec->in_callchain = true;
    text_span system, name;
    if (ps_is_tracepoint(h.event, &system, &name)) {
        char tp[48];
        copy_span(tp, sizeof tp, name);
        ev.type = (uint32_t)ks_event_type_from_name(tp);
        if (ev.type != KS_EV_GENERIC) {
            if (ft_parse_tracepoint(h.payload, &ev, &err))
                return append(dec, sink, &ev, NULL, NULL);
            note_malformed(dec, (int32_t)(h.payload.at - line.at) + err.column + 1, err.field,
                           err.message);
            ev.type = KS_EV_GENERIC;
            memset(&ev.u, 0, sizeof ev.u);
        }
        char *fields = dec->in.scratch;
        copy_span(fields, KS_FTRACE_MAX_LINE, h.payload);
        copy_span(tp, sizeof tp, name);
        return append(dec, sink, &ev, tp, fields);
    }
    dec->pending = true;                        /* a sample: held until its block ends */
    dec->sample = ev;
    dec->sample_len = 0;
    dec->sample_fields[0] = '\0';
    dec->depth = 0;
    copy_span(dec->sample_name, sizeof dec->sample_name, h.event);
    sample_put(dec, "period", h.period);
    ps_frame inline_ip;                         /* -F ip,sym without a callchain: on this line */
    char pad[KS_FTRACE_MAX_LINE < 4096 ? KS_FTRACE_MAX_LINE : 4096];
    if (h.payload.len > 0 && h.payload.len + 1 < (int32_t)sizeof pad) {
        pad[0] = '\t';
        memcpy(pad + 1, h.payload.at, (size_t)h.payload.len);
        if (ps_tokenize_frame((text_span){ pad, h.payload.len + 1 }, &inline_ip))
            sample_frame(dec, &inline_ip);
    }
    return KS_OK;
}

static int32_t decode_line(void *self, text_span line, bool too_long, ks_event_log *sink)
{
    ks_perf_decoder *dec = self;
    dec->stats.lines++;
    if (dec->refused)
        return KS_OK;
    if (too_long) {
        char message[64];
        snprintf(message, sizeof message, "a line longer than %d bytes", KS_FTRACE_MAX_LINE);
        note_malformed(dec, KS_FTRACE_MAX_LINE + 1, "line", message);
        return KS_OK;
    }
    for (int32_t i = 0; i < line.len; i++) {
        unsigned char c = (unsigned char)line.at[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            char message[64];
            snprintf(message, sizeof message, "binary data (byte 0x%02x) in a text trace", c);
            note_malformed(dec, i + 1, "line", message);
            return flush_sample(dec, sink);
        }
    }
    text_span text = span_trim(line);
    if (text.len == 0 || text.at[0] == '#') {
        int32_t status = flush_sample(dec, sink);
        dec->stats.comment_lines++;
        if (text.len > 0 && read_comment(dec, text))
            return KS_ERR_PARSE;
        return status;
    }
    ps_frame frame;
    ps_timehist_row row;
    if (dec->in_callchain && ps_tokenize_frame(line, &frame)) {
        dec->stats.frame_lines++;
        dec->stats.columns |= KS_PERF_CALLCHAIN;
        if (dec->pending)
            sample_frame(dec, &frame);
        return KS_OK;
    }
    int32_t status = flush_sample(dec, sink);
    if (status != KS_OK)
        return status;
    if (ps_tokenize_timehist(line, &row))
        return decode_timehist(dec, line, &row, sink);
    if (is_timehist_header(line)) {
        dec->stats.format = KS_PERF_FORMAT_TIMEHIST;
        dec->stats.comment_lines++;
        return KS_OK;
    }
    if (dec->stats.format == KS_PERF_FORMAT_TIMEHIST) {   /* summaries after the table */
        dec->stats.comment_lines++;
        return KS_OK;
    }
    text_span first = ft_word(text);
    if (text.at[0] >= '0' && text.at[0] <= '9' && first.at[first.len - 1] == '%') {
        read_comment(dec, span_of("# Overhead"));  /* "29.86%  bloom_filter ..." without a header */
        return KS_ERR_PARSE;
    }
    return decode_event_line(dec, line, sink);
}

/* ---- the public API ---------------------------------------------------------------------------- */

int32_t ks_perf_decoder_new(ks_perf_decoder **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_perf_decoder *dec = calloc(1, sizeof *dec);
    if (!dec || line_stream_init(&dec->in) != KS_OK) {
        free(dec);
        *out = NULL;
        return KS_ERR_NO_MEMORY;
    }
    *out = dec;
    return KS_OK;
}

void ks_perf_decoder_free(ks_perf_decoder *dec)
{
    if (!dec)
        return;
    line_stream_free(&dec->in);
    free(dec);
}

int32_t ks_perf_decoder_feed(ks_perf_decoder *dec, const char *chunk, int32_t len, ks_event_log *sink)
{
    if (!dec || !sink || len < 0 || (!chunk && len > 0))
        return KS_ERR_INVALID_ARG;
    if (dec->refused)
        return KS_ERR_PARSE;
    return line_stream_feed(&dec->in, chunk, len, decode_line, dec, sink);
}

int32_t ks_perf_decoder_finish(ks_perf_decoder *dec, ks_event_log *sink)
{
    if (!dec || !sink)
        return KS_ERR_INVALID_ARG;
    if (dec->refused)
        return KS_ERR_PARSE;
    int32_t status = line_stream_finish(&dec->in, decode_line, dec, sink);
    return status == KS_OK ? flush_sample(dec, sink) : status;
}

int32_t ks_perf_decoder_stats(const ks_perf_decoder *dec, ks_perf_stats *out)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    *out = dec->stats;
    return KS_OK;
}

int32_t ks_perf_decode(const char *text, int32_t len, ks_event_log *sink, ks_perf_stats *stats)
{
    return trace_decode_whole(KS_TRACE_PERF_SCRIPT, text, len, sink, stats, (int32_t)sizeof *stats);
}
