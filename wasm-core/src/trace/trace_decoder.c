/*
 * trace_decoder.c: the decoder registry and the one interface over every trace decoder
 * (see include/kscope/trace_decoder.h).
 *
 * Each decoder is described once, in a decoder_ops table: how to make, feed, finish and
 * free it, and how its own stats map onto the common ones. by_format[] says which
 * decoder reads which detected format; nothing else in kscope makes that choice.
 * Adding a format is adding its ops and one line of by_format[].
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/ftrace.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/trace_decoder.h"
#include "kscope/trace_detect.h"
#include "kscope/tracedat.h"
#include "decoder_common.h"

typedef struct decoder_ops {
    const char *name;
    int32_t stats_size;
    int32_t (*make)(void **out);
    void (*destroy)(void *d);
    /* by offset (trace.dat): want + feed_at; front to back (text): feed. */
    int32_t (*want)(const void *d, int64_t *offset, int32_t *len);
    int32_t (*feed_at)(void *d, int64_t offset, const char *chunk, int32_t len, ks_event_log *sink);
    int32_t (*feed)(void *d, const char *chunk, int32_t len, ks_event_log *sink);
    int32_t (*finish)(void *d, ks_event_log *sink);
    int32_t (*stats)(const void *d, void *out);
    void (*common)(const void *format_stats, ks_trace_stats *out);
} decoder_ops;

/* ---- the four decoders, adapted (typed wrappers: no function pointer casts) ---------- */

static void common_of_ftrace(const ks_ftrace_stats *s, ks_trace_stats *out)
{
    out->events = s->events;
    out->generic_events = s->generic_events;
    out->malformed = s->malformed_lines;
    out->lost_events = s->lost_events;
    out->nr_cpus = s->nr_cpus;
    out->lines = s->lines;
    out->first_error = s->first_error;
}

static int32_t ftrace_make(void **out) { return ks_ftrace_decoder_new((ks_ftrace_decoder **)out); }
static void ftrace_destroy(void *d) { ks_ftrace_decoder_free(d); }
static int32_t ftrace_feed(void *d, const char *c, int32_t n, ks_event_log *s) { return ks_ftrace_decoder_feed(d, c, n, s); }
static int32_t ftrace_finish(void *d, ks_event_log *s) { return ks_ftrace_decoder_finish(d, s); }
static int32_t ftrace_stats(const void *d, void *out) { return ks_ftrace_decoder_stats(d, out); }
static void ftrace_common(const void *st, ks_trace_stats *out) { common_of_ftrace(st, out); }

static int32_t perf_make(void **out) { return ks_perf_decoder_new((ks_perf_decoder **)out); }
static void perf_destroy(void *d) { ks_perf_decoder_free(d); }
static int32_t perf_feed(void *d, const char *c, int32_t n, ks_event_log *s) { return ks_perf_decoder_feed(d, c, n, s); }
static int32_t perf_finish(void *d, ks_event_log *s) { return ks_perf_decoder_finish(d, s); }
static int32_t perf_stats(const void *d, void *out) { return ks_perf_decoder_stats(d, out); }
static void perf_common(const void *st, ks_trace_stats *out)
{
    const ks_perf_stats *s = st;
    out->status = s->status;
    out->events = s->events;
    out->generic_events = s->generic_events;
    out->malformed = s->malformed_lines;
    out->nr_cpus = s->nr_cpus;
    out->lines = s->lines;
    out->first_error = s->first_error;
}

static int32_t systrace_make(void **out) { return ks_systrace_decoder_new((ks_systrace_decoder **)out); }
static void systrace_destroy(void *d) { ks_systrace_decoder_free(d); }
static int32_t systrace_feed(void *d, const char *c, int32_t n, ks_event_log *s) { return ks_systrace_decoder_feed(d, c, n, s); }
static int32_t systrace_finish(void *d, ks_event_log *s) { return ks_systrace_decoder_finish(d, s); }
static int32_t systrace_stats(const void *d, void *out) { return ks_systrace_decoder_stats(d, out); }
static void systrace_common(const void *st, ks_trace_stats *out)
{
    common_of_ftrace(&((const ks_systrace_stats *)st)->ftrace, out);
}

static int32_t tracedat_make(void **out) { return ks_tracedat_decoder_new((ks_tracedat_decoder **)out); }
static void tracedat_destroy(void *d) { ks_tracedat_decoder_free(d); }
static int32_t tracedat_want(const void *d, int64_t *o, int32_t *n) { return ks_tracedat_decoder_want(d, o, n); }
static int32_t tracedat_feed_at(void *d, int64_t o, const char *c, int32_t n, ks_event_log *s)
{
    return ks_tracedat_decoder_feed(d, o, c, n, s);
}
static int32_t tracedat_finish(void *d, ks_event_log *s) { return ks_tracedat_decoder_finish(d, s); }
static int32_t tracedat_stats(const void *d, void *out) { return ks_tracedat_decoder_stats(d, out); }
static void tracedat_common(const void *st, ks_trace_stats *out)
{
    const ks_tracedat_stats *s = st;
    out->status = s->status;
    out->events = s->events;
    out->generic_events = s->generic_events;
    out->malformed = s->malformed;
    out->lost_events = s->lost_events;
    out->nr_cpus = s->nr_cpus;
    out->bytes_fed = s->bytes_fed;
    out->error_offset = s->error_offset;
    out->first_error = s->first_error;
}

static const decoder_ops ftrace_ops = {
    "ftrace", sizeof(ks_ftrace_stats), ftrace_make, ftrace_destroy, NULL, NULL, ftrace_feed,
    ftrace_finish, ftrace_stats, ftrace_common,
};
static const decoder_ops perf_ops = {
    "perf", sizeof(ks_perf_stats), perf_make, perf_destroy, NULL, NULL, perf_feed,
    perf_finish, perf_stats, perf_common,
};
static const decoder_ops systrace_ops = {
    "systrace", sizeof(ks_systrace_stats), systrace_make, systrace_destroy, NULL, NULL, systrace_feed,
    systrace_finish, systrace_stats, systrace_common,
};
static const decoder_ops tracedat_ops = {
    "trace.dat", sizeof(ks_tracedat_stats), tracedat_make, tracedat_destroy, tracedat_want,
    tracedat_feed_at, NULL, tracedat_finish, tracedat_stats, tracedat_common,
};

/* ---- the registry: which decoder reads which detected format ------------------------- */

static const decoder_ops *const by_format[KS_TRACE_FORMAT_COUNT] = {
    [KS_TRACE_FTRACE_TEXT] = &ftrace_ops,
    [KS_TRACE_TRACE_CMD_REPORT] = &ftrace_ops,
    [KS_TRACE_TRACE_DAT] = &tracedat_ops,
    [KS_TRACE_PERF_SCRIPT] = &perf_ops,
    [KS_TRACE_PERF_SCHED_TIMEHIST] = &perf_ops,
    [KS_TRACE_SYSTRACE_HTML] = &systrace_ops,
};

static const decoder_ops *ops_of(int32_t format)
{
    return format >= 0 && format < KS_TRACE_FORMAT_COUNT ? by_format[format] : NULL;
}

const char *ks_trace_format_decoder(int32_t format)
{
    const decoder_ops *ops = ops_of(format);
    return ops ? ops->name : NULL;
}

/* ---- the interface ------------------------------------------------------------------- */

struct ks_trace_decoder {
    const decoder_ops *ops;
    void *inner;
    int32_t format;
    int32_t piece;              /* text: bytes asked for at once */
    int64_t fed;                /* text: bytes fed so far (the next wanted offset) */
    bool ended;                 /* text: a 0-byte feed said the file ends */
    bool stopped;               /* a feed returned KS_ERR_PARSE: nothing more is wanted */
};

int32_t ks_trace_decoder_new(int32_t format, ks_trace_decoder **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    const decoder_ops *ops = ops_of(format);
    if (!ops)
        return KS_ERR_NOT_FOUND;
    ks_trace_decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return KS_ERR_NO_MEMORY;
    int32_t status = ops->make(&dec->inner);
    if (status != KS_OK) {
        free(dec);
        return status;
    }
    dec->ops = ops;
    dec->format = format;
    dec->piece = KS_TRACE_PIECE;
    *out = dec;
    return KS_OK;
}

int32_t ks_trace_decoder_open(const char *head, int32_t len, int32_t *format, ks_trace_decoder **out)
{
    if (!out || len < 0 || (!head && len > 0))
        return KS_ERR_INVALID_ARG;
    int32_t found = ks_trace_detect(head, len);
    if (format)
        *format = found;
    return ks_trace_decoder_new(found, out);
}

void ks_trace_decoder_free(ks_trace_decoder *dec)
{
    if (!dec)
        return;
    dec->ops->destroy(dec->inner);
    free(dec);
}

int32_t ks_trace_decoder_format(const ks_trace_decoder *dec)
{
    return dec ? dec->format : KS_TRACE_UNKNOWN;
}

const char *ks_trace_decoder_name(const ks_trace_decoder *dec)
{
    return dec ? dec->ops->name : NULL;
}

int32_t ks_trace_decoder_set_piece(ks_trace_decoder *dec, int32_t bytes)
{
    if (!dec || bytes < 1)
        return KS_ERR_INVALID_ARG;
    dec->piece = bytes;
    return KS_OK;
}

int32_t ks_trace_decoder_want(const ks_trace_decoder *dec, int64_t *offset, int32_t *len)
{
    if (!dec || !offset || !len)
        return KS_ERR_INVALID_ARG;
    if (dec->ops->want && !dec->stopped)
        return dec->ops->want(dec->inner, offset, len);
    *offset = dec->fed;
    *len = dec->ended || dec->stopped ? 0 : dec->piece;
    return KS_OK;
}

int32_t ks_trace_decoder_feed(ks_trace_decoder *dec, int64_t offset, const char *chunk, int32_t len,
                              ks_event_log *sink)
{
    if (!dec || !sink || len < 0 || (!chunk && len > 0))
        return KS_ERR_INVALID_ARG;
    int32_t status;
    if (dec->ops->feed_at) {
        status = dec->ops->feed_at(dec->inner, offset, chunk, len, sink);
    } else {
        if (offset != dec->fed)
            return KS_ERR_RANGE;
        if (len == 0) {
            dec->ended = true;
            return KS_OK;
        }
        dec->fed += len;
        status = dec->ops->feed(dec->inner, chunk, len, sink);
    }
    dec->stopped |= status == KS_ERR_PARSE;
    return status;
}

int32_t ks_trace_decoder_finish(ks_trace_decoder *dec, ks_event_log *sink)
{
    if (!dec || !sink)
        return KS_ERR_INVALID_ARG;
    dec->ended = true;
    return dec->ops->finish(dec->inner, sink);
}

int32_t ks_trace_decoder_format_stats_size(const ks_trace_decoder *dec)
{
    return dec ? dec->ops->stats_size : 0;
}

int32_t ks_trace_decoder_format_stats(const ks_trace_decoder *dec, void *out, int32_t size)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    if (size != dec->ops->stats_size)
        return KS_ERR_RANGE;
    return dec->ops->stats(dec->inner, out);
}

int32_t ks_trace_decoder_stats(const ks_trace_decoder *dec, ks_trace_stats *out)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    union {
        ks_ftrace_stats ftrace;
        ks_perf_stats perf;
        ks_systrace_stats systrace;
        ks_tracedat_stats tracedat;
    } own;
    int32_t status = dec->ops->stats(dec->inner, &own);
    if (status != KS_OK)
        return status;
    memset(out, 0, sizeof *out);
    out->format = dec->format;
    out->bytes_fed = dec->fed;
    out->error_offset = -1;
    dec->ops->common(&own, out);
    return KS_OK;
}

void *ks_trace_decoder_inner(const ks_trace_decoder *dec)
{
    return dec ? dec->inner : NULL;
}

/* ---- a whole file in memory (the one-call ks_*_decode functions) ----------------------- */

int32_t trace_decode_whole(int32_t format, const char *data, int32_t len, ks_event_log *sink,
                           void *format_stats, int32_t stats_size)
{
    if (len < 0 || (!data && len > 0) || !sink)
        return KS_ERR_INVALID_ARG;
    ks_trace_decoder *dec = NULL;
    int32_t status = ks_trace_decoder_new(format, &dec);
    if (status == KS_OK)
        status = ks_trace_decoder_set_piece(dec, len > 0 ? len : 1);
    int64_t off;
    int32_t want;
    while (status == KS_OK && ks_trace_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        int64_t n = off >= len ? 0 : len - off < want ? len - off : want;
        status = ks_trace_decoder_feed(dec, off, n ? data + off : NULL, (int32_t)n, sink);
    }
    if (status == KS_OK)
        status = ks_trace_decoder_finish(dec, sink);
    if (dec && format_stats)
        ks_trace_decoder_format_stats(dec, format_stats, stats_size);
    ks_trace_decoder_free(dec);
    return status;
}
