/*
 * ks_trace_decoder (trace_decoder.h): the registry picks the decoder from the detected
 * format, one want/feed loop drives every format, and the records and stats are the
 * ones the format's own decoder gives.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "kscope/ftrace.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/trace_decoder.h"
#include "kscope/trace_detect.h"
#include "kscope/tracedat.h"

/* The one loop of trace_decoder.h over a file in memory, `piece` bytes at most per read. */
static int32_t drive(ks_trace_decoder *dec, const char *data, int32_t len, int32_t piece, ks_event_log *sink)
{
    CHECK_EQ_INT(ks_trace_decoder_set_piece(dec, piece), KS_OK);
    int64_t off;
    int32_t want, status = KS_OK;
    while (ks_trace_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        int32_t n = off >= len ? 0 : (int32_t)(len - off < want ? len - off : want);
        n = n > piece ? piece : n;
        status = ks_trace_decoder_feed(dec, off, n ? data + off : NULL, n, sink);
        if (status != KS_OK)
            break;
    }
    int32_t fin = ks_trace_decoder_finish(dec, sink);
    return status != KS_OK ? status : fin;
}

static bool same_records(const ks_event_log *a, const ks_event_log *b)
{
    uint32_t n = ks_event_log_count(a);
    if (n != ks_event_log_count(b))
        return false;
    const ks_event *x = ks_event_log_data(a), *y = ks_event_log_data(b);
    for (uint32_t i = 0; i < n; i++) {
        if (x[i].type == KS_EV_GENERIC) {
            if (y[i].type != KS_EV_GENERIC || x[i].ts_ns != y[i].ts_ns ||
                strcmp(ks_event_log_text(a, x[i].u.generic.name_off), ks_event_log_text(b, y[i].u.generic.name_off)) ||
                strcmp(ks_event_log_text(a, x[i].u.generic.fields_off), ks_event_log_text(b, y[i].u.generic.fields_off)))
                return false;
        } else if (memcmp(&x[i], &y[i], sizeof x[i]) != 0) {
            return false;
        }
    }
    return true;
}

typedef struct sample {
    const char *path;
    int32_t format;
    const char *decoder;
} sample;

static const sample samples[] = {
    { FIXTURE_DIR "ftrace_6.18_tgid_irq.txt", KS_TRACE_FTRACE_TEXT, "ftrace" },
    { FIXTURE_DIR "perf_6.1_cpu_clock_g.txt", KS_TRACE_PERF_SCRIPT, "perf" },
    { FIXTURE_DIR "perf_6.1_timehist.txt", KS_TRACE_PERF_SCHED_TIMEHIST, "perf" },
    { FIXTURE_DIR "tracecmd_6.18_v7_zlib.dat", KS_TRACE_TRACE_DAT, "trace.dat" },
    { CORPUS_DIR "systrace-html__trappy__trace_surfaceflinger.html", KS_TRACE_SYSTRACE_HTML, "systrace" },
};

/* The format's own one-call decoder: records and the common view of its stats. */
static int32_t own_decode(int32_t format, const char *data, int32_t len, ks_event_log *log, ks_trace_stats *c)
{
    memset(c, 0, sizeof *c);
    c->error_offset = -1;
    int32_t status;
    if (format == KS_TRACE_TRACE_DAT) {
        ks_tracedat_stats s;
        status = ks_tracedat_decode(data, len, log, &s);
        *c = (ks_trace_stats){ .status = s.status, .events = s.events, .generic_events = s.generic_events,
                               .malformed = s.malformed, .lost_events = s.lost_events, .nr_cpus = s.nr_cpus,
                               .bytes_fed = s.bytes_fed, .error_offset = s.error_offset, .first_error = s.first_error };
    } else if (format == KS_TRACE_PERF_SCRIPT || format == KS_TRACE_PERF_SCHED_TIMEHIST) {
        ks_perf_stats s;
        status = ks_perf_decode(data, len, log, &s);
        *c = (ks_trace_stats){ .status = s.status, .events = s.events, .generic_events = s.generic_events,
                               .malformed = s.malformed_lines, .nr_cpus = s.nr_cpus, .lines = s.lines,
                               .bytes_fed = len, .error_offset = -1, .first_error = s.first_error };
    } else {
        ks_systrace_stats sy;
        ks_ftrace_stats s;
        if (format == KS_TRACE_SYSTRACE_HTML) {
            status = ks_systrace_decode(data, len, log, &sy);
            s = sy.ftrace;
        } else {
            status = ks_ftrace_decode(data, len, log, &s);
        }
        *c = (ks_trace_stats){ .events = s.events, .generic_events = s.generic_events,
                               .malformed = s.malformed_lines, .lost_events = s.lost_events, .nr_cpus = s.nr_cpus,
                               .lines = s.lines, .bytes_fed = len, .error_offset = -1, .first_error = s.first_error };
    }
    c->format = format;
    return status;
}

static void every_format_through_one_loop(void)
{
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        int32_t len = 0;
        char *data = fixture_read(samples[i].path, &len);
        CHECK(data != NULL);
        if (!data)
            continue;
        ks_event_log *want_log = NULL;
        ks_trace_stats expect;
        CHECK_EQ_INT(ks_event_log_new(&want_log), KS_OK);
        CHECK_EQ_INT(own_decode(samples[i].format, data, len, want_log, &expect), KS_OK);
        CHECK(expect.events > 0);
        static const int32_t pieces[] = { 1 << 20, 4096, 333 };
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            int32_t format = -1;
            ks_trace_decoder *dec = NULL;
            CHECK_EQ_INT(ks_trace_decoder_open(data, len < 65536 ? len : 65536, &format, &dec), KS_OK);
            CHECK_EQ_INT(format, samples[i].format);
            if (!dec)
                continue;
            CHECK_EQ_INT(ks_trace_decoder_format(dec), samples[i].format);
            CHECK_EQ_STR(ks_trace_decoder_name(dec), samples[i].decoder);
            CHECK_EQ_STR(ks_trace_format_decoder(format), samples[i].decoder);
            ks_event_log *log = NULL;
            CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
            CHECK_EQ_INT(drive(dec, data, len, pieces[p], log), KS_OK);
            CHECK(same_records(log, want_log));
            ks_trace_stats got;
            CHECK_EQ_INT(ks_trace_decoder_stats(dec, &got), KS_OK);
            if (samples[i].format == KS_TRACE_TRACE_DAT)
                expect.bytes_fed = got.bytes_fed;       /* reads by offset: more with smaller pieces */
            CHECK(memcmp(&got, &expect, sizeof got) == 0);
            CHECK_EQ_INT(got.events, ks_event_log_count(log));
            /* The format's own stats, whole, at their own size only. */
            char own[512];
            int32_t size = ks_trace_decoder_format_stats_size(dec);
            CHECK(size >= (int32_t)sizeof(ks_ftrace_stats) && size <= (int32_t)sizeof own);
            CHECK_EQ_INT(ks_trace_decoder_format_stats(dec, own, size), KS_OK);
            CHECK_EQ_INT(ks_trace_decoder_format_stats(dec, own, size - 4), KS_ERR_RANGE);
            CHECK(ks_trace_decoder_inner(dec) != NULL);
            ks_event_log_free(log);
            ks_trace_decoder_free(dec);
        }
        ks_event_log_free(want_log);
        free(data);
    }
}

/* Formats that are recognised but not decoded have no decoder: the caller says why. */
static void no_decoder_for_summaries_and_archives(void)
{
    static const struct { const char *head; int32_t format; } heads[] = {
        { "# Samples: 1K of event 'cycles'\n# Overhead  Command\n", KS_TRACE_PERF_REPORT },
        { "PERFILE2\x68\0\0\0", KS_TRACE_PERF_DATA },
        { "\x1f\x8b\x08\0", KS_TRACE_GZIP },
        { "PK\x03\x04", KS_TRACE_ZIP },
        { "hello, world\n", KS_TRACE_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        int32_t format = -1;
        ks_trace_decoder *dec = (ks_trace_decoder *)1;
        CHECK_EQ_INT(ks_trace_decoder_open(heads[i].head, (int32_t)strlen(heads[i].head) + (i == 1 ? 4 : 0),
                                           &format, &dec), KS_ERR_NOT_FOUND);
        CHECK_EQ_INT(format, heads[i].format);
        CHECK(dec == NULL);
        CHECK(ks_trace_format_decoder(format) == NULL);
    }
    ks_trace_decoder *dec = NULL;
    CHECK_EQ_INT(ks_trace_decoder_new(KS_TRACE_FORMAT_COUNT, &dec), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_trace_decoder_new(-1, &dec), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_trace_decoder_new(KS_TRACE_FTRACE_TEXT, NULL), KS_ERR_INVALID_ARG);
}

/* Text is read front to back: a feed elsewhere is refused; a 0-byte feed ends the wants;
 * perf report text stops the decoder (KS_ERR_PARSE) and nothing more is wanted. */
static void text_offsets_and_stopping(void)
{
    ks_event_log *log = NULL;
    ks_trace_decoder *dec = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_trace_decoder_new(KS_TRACE_PERF_SCRIPT, &dec), KS_OK);
    int64_t off;
    int32_t want;
    CHECK_EQ_INT(ks_trace_decoder_want(dec, &off, &want), KS_OK);
    CHECK(off == 0 && want == KS_TRACE_PIECE);
    const char *line = "perf  3993/3993 [000]  3694.726991: cpu-clock:\n";
    int32_t n = (int32_t)strlen(line);
    CHECK_EQ_INT(ks_trace_decoder_feed(dec, 5, line, n, log), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_trace_decoder_feed(dec, 0, line, n, log), KS_OK);
    CHECK_EQ_INT(ks_trace_decoder_want(dec, &off, &want), KS_OK);
    CHECK(off == n && want == KS_TRACE_PIECE);
    const char *report = "# Samples: 1K of event 'cycles'\n";
    CHECK_EQ_INT(ks_trace_decoder_feed(dec, n, report, (int32_t)strlen(report), log), KS_ERR_PARSE);
    CHECK_EQ_INT(ks_trace_decoder_want(dec, &off, &want), KS_OK);
    CHECK_EQ_INT(want, 0);
    ks_trace_stats st;
    CHECK_EQ_INT(ks_trace_decoder_stats(dec, &st), KS_OK);
    CHECK_EQ_INT(st.status, KS_ERR_PARSE);
    CHECK_EQ_INT(st.format, KS_TRACE_PERF_SCRIPT);
    CHECK(st.bytes_fed == n + (int64_t)strlen(report));
    CHECK(st.first_error.message[0] != '\0');
    ks_trace_decoder_free(dec);

    CHECK_EQ_INT(ks_trace_decoder_new(KS_TRACE_FTRACE_TEXT, &dec), KS_OK);
    CHECK_EQ_INT(ks_trace_decoder_feed(dec, 0, NULL, 0, log), KS_OK);
    CHECK_EQ_INT(ks_trace_decoder_want(dec, &off, &want), KS_OK);
    CHECK(off == 0 && want == 0);
    CHECK_EQ_INT(ks_trace_decoder_set_piece(dec, 0), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_trace_decoder_feed(dec, 0, NULL, 3, log), KS_ERR_INVALID_ARG);
    ks_trace_decoder_free(dec);
    ks_event_log_free(log);
}

/* A truncated trace.dat: the common stats carry its status, offset and section. */
static void tracedat_errors_in_common_stats(void)
{
    int32_t len = 0;
    char *data = fixture_read(FIXTURE_DIR "tracecmd_6.18_v7_zlib.dat", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    ks_event_log *log = NULL;
    ks_trace_decoder *dec = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_trace_decoder_new(KS_TRACE_TRACE_DAT, &dec), KS_OK);
    CHECK_EQ_INT(drive(dec, data, 300, 1 << 16, log), KS_ERR_PARSE);
    ks_trace_stats st;
    CHECK_EQ_INT(ks_trace_decoder_stats(dec, &st), KS_OK);
    CHECK_EQ_INT(st.status, KS_ERR_PARSE);
    CHECK(st.error_offset >= 0);
    CHECK(st.first_error.field[0] != '\0');
    ks_trace_decoder_free(dec);
    ks_event_log_free(log);
    free(data);
}

const test_case trace_decoder_tests[] = {
    { "trace decoder: every format through one want/feed loop, same records and stats", every_format_through_one_loop },
    { "trace decoder: perf report, perf.data, gzip, zip, unknown have no decoder", no_decoder_for_summaries_and_archives },
    { "trace decoder: text read front to back; perf report stops it", text_offsets_and_stopping },
    { "trace decoder: a truncated trace.dat's error in the common stats", tracedat_errors_in_common_stats },
    { 0 },
};
