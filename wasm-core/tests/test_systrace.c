/*
 * The systrace HTML wrapper on the public trappy page, hand-made pages cut
 * at awkward places, and the format detector over every corpus file.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "trace_test_util.h"
#include "kscope/systrace.h"
#include "kscope/trace_detect.h"

static ks_event_log *decode_chunked(const char *html, int32_t len, int32_t chunk, ks_systrace_stats *st)
{
    ks_event_log *log = NULL;
    ks_systrace_decoder *dec = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_systrace_decoder_new(&dec), KS_OK);
    for (int32_t at = 0; at < len; at += chunk ? chunk : len) {
        int32_t n = chunk && len - at > chunk ? chunk : len - at;
        CHECK_EQ_INT(ks_systrace_decoder_feed(dec, html + at, n, log), KS_OK);
    }
    CHECK_EQ_INT(ks_systrace_decoder_finish(dec, log), KS_OK);
    CHECK_EQ_INT(ks_systrace_decoder_stats(dec, st), KS_OK);
    ks_systrace_decoder_free(dec);
    return log;
}

/* trappy trace_surfaceflinger.html: one ftrace text block (line 589), one JSON block.
 *   grep -oE '\] +[^ ]* *[0-9]+\.[0-9]+: [a-zA-Z0-9_]+:' F | awk '{print $NF}' | sort | uniq -c ->
 *     715 sched_switch, 621 cpu_idle, 421 sched_wakeup, 366 sugov_set_iowait_boost,
 *     160 tracing_mark_write, 104 cpu_frequency, 88 clock_set_rate, 31 sched_blocked_reason (2506)
 *   grep -c 'prev_state=x' -> 3  (a pre-4.14 letter: reported, kept as generic records) */
static void corpus_trappy(void)
{
    int32_t len = 0;
    char *html = fixture_read(CORPUS_DIR "systrace-html__trappy__trace_surfaceflinger.html", &len);
    CHECK(html != NULL);
    if (!html)
        return;
    ks_systrace_stats st;
    ks_event_log *log = decode_chunked(html, len, 0, &st);
    CHECK_EQ_INT(st.text_blocks, 1);
    CHECK_EQ_INT(st.json_blocks, 1);
    CHECK_EQ_INT(st.first_text_line, 589);
    CHECK_EQ_INT(st.html_lines, 3111);          /* wc -l */
    CHECK_EQ_INT(st.ftrace.events, 2506);
    CHECK_EQ_INT(st.ftrace.nr_cpus, 8);
    CHECK_EQ_INT(st.ftrace.malformed_lines, 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL) + tt_count(log, KS_EV_GENERIC, "sched_switch"), 715);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_switch"), 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cpu_idle"), 621);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP, NULL), 421);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sugov_set_iowait_boost"), 366);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "tracing_mark_write"), 160);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cpu_frequency"), 104);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "clock_set_rate"), 88);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_blocked_reason"), 31);
    static const int32_t chunks[] = { 1, 7, 64 << 10 };
    for (uint32_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        ks_systrace_stats s;
        ks_event_log *other = decode_chunked(html, len, chunks[i], &s);
        CHECK_EQ_INT(ks_event_log_count(other), ks_event_log_count(log));
        CHECK_EQ_INT(tt_same_records(other, log), ks_event_log_count(log));
        CHECK(memcmp(&s, &st, sizeof s) == 0);
        ks_event_log_free(other);
    }
    ks_event_log_free(log);
    free(html);
}

/* Two text blocks (the first without a final newline), a JSON block, a "</scr" inside the
 * text, upper-case tags, a script that is not trace data. */
static void handmade_pages(void)
{
    static const char html[] =
        "<!DOCTYPE html><html><script>var a = 1 < 2;</script>\n"
        "<SCRIPT class=\"trace-data\" type=\"application/text\">\n"
        "# tracer: nop\n"
        "            bash-1   [000] .....   1.000001: print: </scr not an end\n"
        "            bash-1   [000] .....   1.000002: sched_waking: comm=a pid=2 prio=120 target_cpu=001</Script>"
        "<script class=\"trace-data\">{\"traceEvents\": [\"</scr\"]}</script>\n"
        "<script class=\"trace-data\">\n"
        "            bash-1   [001] .....   1.000003: sched_wakeup: comm=a pid=2 prio=120 target_cpu=001\n"
        "</script></html>\n";
    int32_t len = (int32_t)sizeof html - 1;
    ks_systrace_stats one;
    ks_event_log *a = decode_chunked(html, len, 0, &one);
    CHECK_EQ_INT(one.text_blocks, 2);
    CHECK_EQ_INT(one.json_blocks, 1);
    CHECK_EQ_INT(one.first_text_line, 3);
    CHECK_EQ_INT(one.ftrace.events, 3);
    CHECK_EQ_INT(one.ftrace.malformed_lines, 0);
    CHECK_EQ_STR(tt_fields(a, tt_find(a, KS_EV_GENERIC, "print", 0)), "</scr not an end");
    CHECK_EQ_INT(tt_count(a, KS_EV_SCHED_WAKING, NULL), 1);
    CHECK_EQ_INT(tt_count(a, KS_EV_SCHED_WAKEUP, NULL), 1);
    for (int32_t chunk = 1; chunk <= 13; chunk += 3) {
        ks_systrace_stats s;
        ks_event_log *b = decode_chunked(html, len, chunk, &s);
        CHECK_EQ_INT(tt_same_records(b, a), 3);
        CHECK(memcmp(&s, &one, sizeof s) == 0);
        ks_event_log_free(b);
    }
    ks_event_log_free(a);
}

/* Every corpus file, the fixtures and the generated inputs, from their first 64 KiB. */
static void detector_names_every_format(void)
{
    static const struct { const char *path; int32_t format; const char *name; } files[] = {
        { CORPUS_DIR "atrace-text__catapult__decompressed_atrace_data.txt", KS_TRACE_FTRACE_TEXT, "ftrace-text" },
        { CORPUS_DIR "trace-cmd-report__lisa__trace_txt.txt", KS_TRACE_TRACE_CMD_REPORT, "trace-cmd-report" },
        { CORPUS_DIR "systrace-html__trappy__trace_surfaceflinger.html", KS_TRACE_SYSTRACE_HTML, "systrace-html" },
        { CORPUS_DIR "trace-dat__lisa__sched_load.dat", KS_TRACE_TRACE_DAT, "trace.dat" },
        { CORPUS_DIR "perf-script__flamegraph__perf-numa-stacks-01.txt", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { CORPUS_DIR "perf-script__speedscope__system-wide.linux-perf.txt", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { CORPUS_DIR "perf-report__catapult__perf_report_output.txt", KS_TRACE_PERF_REPORT, "perf-report" },
        { CORPUS_DIR "perf-report__tidesdb__perf_report.txt", KS_TRACE_PERF_REPORT, "perf-report" },
        { "build/fixtures/amdgpu.dat", KS_TRACE_TRACE_DAT, "trace.dat" },
        { "build/fixtures/graphviz.perf", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { FIXTURE_DIR "tracecmd_6.18_v7_zstd.dat", KS_TRACE_TRACE_DAT, "trace.dat" },
        { FIXTURE_DIR "tracecmd_6.18_v6.dat.gz", KS_TRACE_GZIP, "gzip" },
        { FIXTURE_DIR "ftrace_6.18_tgid_irq.txt", KS_TRACE_FTRACE_TEXT, "ftrace-text" },
        { FIXTURE_DIR "ftrace_6.18_noirq.txt", KS_TRACE_FTRACE_TEXT, "ftrace-text" },
        { FIXTURE_DIR "perf_6.1_sched_header.txt", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { FIXTURE_DIR "perf_6.1_sched_F_no_cpu.txt", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { FIXTURE_DIR "perf_6.1_cpu_clock_g.txt", KS_TRACE_PERF_SCRIPT, "perf-script" },
        { FIXTURE_DIR "perf_6.1_timehist.txt", KS_TRACE_PERF_SCHED_TIMEHIST, "perf-sched-timehist" },
        { FIXTURE_DIR "perf_6.1_timehist_wM.txt", KS_TRACE_PERF_SCHED_TIMEHIST, "perf-sched-timehist" },
    };
    for (uint32_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int32_t len = 0;
        char *head = fixture_read(files[i].path, &len);
        CHECK(head != NULL);
        if (!head)
            continue;
        int32_t got = ks_trace_detect(head, len < 65536 ? len : 65536);
        if (got != files[i].format)
            printf("    %s: detected %s\n", files[i].path, ks_trace_format_name(got));
        CHECK_EQ_INT(got, files[i].format);
        CHECK_EQ_STR(ks_trace_format_name(got), files[i].name);
        free(head);
    }
    /* a zip, perf.data, binary garbage, plain prose, nothing */
    CHECK_EQ_INT(ks_trace_detect("PK\x03\x04\x14\x00", 6), KS_TRACE_ZIP);
    CHECK_EQ_INT(ks_trace_detect("PERFILE2\x68\x00", 10), KS_TRACE_PERF_DATA);
    CHECK_EQ_INT(ks_trace_detect("\x89PNG\r\n\x1a\n\x00\x00", 10), KS_TRACE_UNKNOWN);
    CHECK_EQ_INT(ks_trace_detect("Dear diary,\nit rained.\n", 23), KS_TRACE_UNKNOWN);
    CHECK_EQ_INT(ks_trace_detect("", 0), KS_TRACE_UNKNOWN);
    /* kscope capture's own header: its "# kscope:" lines, however many, open ftrace text */
    CHECK_EQ_INT(ks_trace_detect("# kscope: capture=1\n# kscope: kernel=6.18\n", 42), KS_TRACE_FTRACE_TEXT);
    static char long_comments[64 * 1024];
    int32_t at = 0;
    while (at + 40 < (int32_t)sizeof long_comments - 200)
        at += snprintf(long_comments + at, 40, "# cpu%d/topology/core_id\t%d\n", at % 512, at % 7);
    for (int32_t i = 0; i < 2; i++)     /* the detector reads past a last line that may be cut */
        at += snprintf(long_comments + at, 160,
                       "  my load-x-28498   (  28497) [001] .....  1273.169857: sched_waking: comm=a pid=1 prio=120 target_cpu=001\n");
    CHECK_EQ_INT(ks_trace_detect(long_comments, at), KS_TRACE_FTRACE_TEXT);
    CHECK_EQ_INT(ks_trace_detect(NULL, 5), KS_TRACE_UNKNOWN);
    CHECK_EQ_STR(ks_trace_format_name(KS_TRACE_UNKNOWN), "unknown");
    CHECK(ks_trace_format_name(KS_TRACE_FORMAT_COUNT) == NULL);
    CHECK(ks_trace_format_name(-1) == NULL);
}

const test_case systrace_tests[] = {
    { "systrace: corpus trappy page, one feed and 1/7/64K-byte chunks", corpus_trappy },
    { "systrace: blocks and end tags cut anywhere", handmade_pages },
    { "trace detect: every corpus file and fixture", detector_names_every_format },
    { 0 },
};
