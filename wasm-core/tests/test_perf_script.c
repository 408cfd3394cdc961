/*
 * The perf script / perf sched timehist decoder on real text: three public
 * corpus files (perf 3.13, 4.15, 5.11) and this VM's perf 6.1 in several -F
 * layouts (tests/fixtures/README.md says how they were made). Expected
 * counts come from grep/awk on the files, written beside each number.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "trace_test_util.h"
#include "kscope/perf.h"

static ks_event_log *decode_chunked(const char *text, int32_t len, int32_t chunk, ks_perf_stats *st,
                                    int32_t expect)
{
    ks_event_log *log = NULL;
    ks_perf_decoder *dec = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_perf_decoder_new(&dec), KS_OK);
    int32_t status = KS_OK;
    for (int32_t at = 0; status == KS_OK && at < len; at += chunk ? chunk : len) {
        int32_t n = chunk && len - at > chunk ? chunk : len - at;
        status = ks_perf_decoder_feed(dec, text + at, n, log);
    }
    if (status == KS_OK)
        status = ks_perf_decoder_finish(dec, log);
    CHECK_EQ_INT(status, expect);
    ks_perf_decoder_stats(dec, st);
    ks_perf_decoder_free(dec);
    return log;
}

/* A file in one feed, and in 7-byte and 64 KiB chunks: the same records and counters. */
static ks_event_log *decode_file(const char *path, ks_perf_stats *st, int32_t expect)
{
    int32_t len = 0;
    char *text = fixture_read(path, &len);
    CHECK(text != NULL);
    if (!text)
        text = calloc(1, 1);
    ks_event_log *whole = decode_chunked(text, len, 0, st, expect);
    static const int32_t chunks[] = { 7, 64 << 10 };
    for (uint32_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
        ks_perf_stats s;
        ks_event_log *log = decode_chunked(text, len, chunks[i], &s, expect);
        CHECK_EQ_INT(ks_event_log_count(log), ks_event_log_count(whole));
        CHECK_EQ_INT(tt_same_records(log, whole), ks_event_log_count(whole));
        CHECK(memcmp(&s, st, sizeof s) == 0);
        ks_event_log_free(log);
    }
    free(text);
    return whole;
}

/* perf 3.13 `perf script --header`, -a -g, cpu-clock, 32 CPUs (in ../shared/corpus/public):
 *   grep -c ' cpu-clock: *$' -> 200 (the MANIFEST says 218 stacks; the file has 200 sample lines)
 *   grep -c $'^\t' -> 2345;  grep -c '^#' -> 18;  grep -c '^$' -> 199
 *   java 11008 [001] 30143.481555: cpu-clock:
 *       ffffffff81001408 xen_hypercall_event_channel_op ([kernel.kallsyms])   (20 frames) */
static void corpus_flamegraph(void)
{
    ks_perf_stats st;
    ks_event_log *log = decode_file(CORPUS_DIR "perf-script__flamegraph__perf-numa-stacks-01.txt", &st, KS_OK);
    CHECK_EQ_INT(st.samples, 200);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cpu-clock"), 200);
    CHECK_EQ_INT(st.frame_lines, 2345);
    CHECK_EQ_INT(st.comment_lines, 18 + 199);
    CHECK_EQ_INT(st.malformed_lines, 0);
    CHECK_EQ_INT(st.nr_cpus, 32);
    CHECK_EQ_INT(st.format, KS_PERF_FORMAT_SCRIPT);
    CHECK_EQ_INT(st.columns, KS_PERF_CPU | KS_PERF_CALLCHAIN | KS_PERF_HEADER);
    const ks_event *first = tt_find(log, KS_EV_GENERIC, NULL, 0);
    CHECK(first != NULL);
    if (first) {
        CHECK_EQ_STR(first->comm, "java");
        CHECK_EQ_INT(first->pid, 11008);
        CHECK_EQ_INT(first->tgid, -1);
        CHECK_EQ_INT(first->cpu, 1);
        CHECK_EQ_INT(first->ts_ns, 30143481555000ull);
        CHECK_EQ_STR(tt_fields(log, first), "ip=ffffffff81001408 sym=xen_hypercall_event_channel_op "
                                            "dso=[kernel.kallsyms] stack_depth=20");
    }
    uint32_t cpus = 0;                          /* grep -oE '\[[0-9]{3}\]' | sort -u | wc -l -> 32 */
    const ks_event *ev = ks_event_log_data(log);
    for (int32_t c = 0; c < 32; c++)
        for (uint32_t i = 0; i < ks_event_log_count(log); i++)
            if (ev[i].cpu == c) {
                cpus++;
                break;
            }
    CHECK_EQ_INT(cpus, 32);
    ks_event_log_free(log);
}

/* perf 4.15 `perf script`, no header, with a period:  grep -c 'cpu-clock:' -> 556;
 * grep -c $'^\t' -> 2319
 *   simple-terminat     9 [000] 202513.231785:    1001001 cpu-clock:
 *                613 _Z5alphav (/workdir/simple-terminates)   ... 4 frames */
static void corpus_speedscope(void)
{
    ks_perf_stats st;
    ks_event_log *log = decode_file(CORPUS_DIR "perf-script__speedscope__system-wide.linux-perf.txt", &st, KS_OK);
    CHECK_EQ_INT(st.samples, 556);
    CHECK_EQ_INT(st.events, 556);
    CHECK_EQ_INT(st.frame_lines, 2319);
    CHECK_EQ_INT(st.malformed_lines, 0);
    CHECK_EQ_INT(st.nr_cpus, 0);
    CHECK_EQ_INT(st.columns, KS_PERF_CPU | KS_PERF_CALLCHAIN);
    const ks_event *first = tt_find(log, KS_EV_GENERIC, "cpu-clock", 0);
    CHECK(first != NULL);
    if (first) {
        CHECK_EQ_STR(first->comm, "simple-terminat");
        CHECK_EQ_INT(first->pid, 9);
        CHECK_EQ_STR(tt_fields(log, first), "period=1001001 ip=613 sym=_Z5alphav "
                                            "dso=/workdir/simple-terminates stack_depth=4");
    }
    ks_event_log_free(log);
}

/* perf 5.11 `perf script --header`, --call-graph dwarf, no CPU column (gunzipped into
 * build/fixtures by the Makefile):  grep -c ' cycles: *$' -> 312;  grep -c $'^\t' -> 4483
 *   perf  7971  2782.992243:          1 cycles:
 *       ffffffffa4c7c5c6 native_write_msr+0x6 ([kernel.kallsyms]) */
static void corpus_firefox_graphviz(void)
{
    ks_perf_stats st;
    ks_event_log *log = decode_file("build/fixtures/graphviz.perf", &st, KS_OK);
    CHECK_EQ_INT(st.samples, 312);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cycles"), 312);
    CHECK_EQ_INT(st.frame_lines, 4483);
    CHECK_EQ_INT(st.malformed_lines, 0);
    CHECK_EQ_INT(st.nr_cpus, 4);
    CHECK_EQ_INT(st.columns, KS_PERF_CALLCHAIN | KS_PERF_HEADER);
    const ks_event *first = tt_find(log, KS_EV_GENERIC, "cycles", 0);
    CHECK(first != NULL);
    if (first) {
        CHECK_EQ_INT(first->cpu, -1);
        CHECK_EQ_INT(first->pid, 7971);
        CHECK_EQ_INT(first->ts_ns, 2782992243000ull);
        CHECK_EQ_STR(tt_fields(log, first), "period=1 ip=ffffffffa4c7c5c6 sym=native_write_msr+0x6 "
                                            "dso=[kernel.kallsyms] stack_depth=14");
    }
    ks_event_log_free(log);
}

/* perf report text is a summary: refused with a clear status (both corpus files). */
static void corpus_perf_report_is_refused(void)
{
    static const char *const files[] = { "perf-report__catapult__perf_report_output.txt",
                                         "perf-report__tidesdb__perf_report.txt" };
    for (uint32_t i = 0; i < 2; i++) {
        char path[160];
        snprintf(path, sizeof path, CORPUS_DIR "%s", files[i]);
        ks_perf_stats st;
        ks_event_log *log = decode_file(path, &st, KS_ERR_PARSE);
        CHECK_EQ_INT(st.status, KS_ERR_PARSE);
        CHECK_EQ_INT(st.format, KS_PERF_FORMAT_REPORT);
        CHECK_EQ_STR(st.first_error.message, "perf report output is a summary, not a trace: use perf script");
        CHECK_EQ_INT(ks_event_log_count(log), 0);
        ks_event_log_free(log);
    }
}

/* perf 6.1 on this VM, sched and rseq tracepoints, --header (in tests/fixtures):
 *   grep -v '^#' F | awk '{print $5}' | sort | uniq -c ->
 *     27 sched_switch, 17 sched_waking, 12 sched_wakeup, 3 sched_wakeup_new, 3 sched_migrate_task,
 *     3 sched_process_fork, 4 sched_process_exit, 30 rseq_update (99);  grep -c '^#' -> 38
 *   sh  4661 [001]  3747.375556: sched:sched_process_fork: comm=sh pid=4661 child_comm=sh child_pid=4663
 *   sleep  4665 [001]  3747.386708: sched:sched_process_exit: comm=sleep pid=4665 prio=120 group_dead=true */
static void check_sched_counts(const ks_event_log *log, const ks_perf_stats *st)
{
    CHECK_EQ_INT(st->events, 99);
    CHECK_EQ_INT(st->generic_events, 0);
    CHECK_EQ_INT(st->malformed_lines, 0);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 27);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKING, NULL), 17);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP, NULL), 12);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP_NEW, NULL), 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_MIGRATE_TASK, NULL), 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_FORK, NULL), 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_EXIT, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_RSEQ_UPDATE, NULL), 30);
    const ks_event *fork = tt_find(log, KS_EV_SCHED_PROCESS_FORK, NULL, 0);
    CHECK(fork && fork->pid == 4661 && fork->u.sched_process_fork.child_pid == 4663 &&
          strcmp(fork->u.sched_process_fork.child_comm, "sh") == 0 && fork->ts_ns == 3747375556000ull);
    const ks_event *exit = tt_find(log, KS_EV_SCHED_PROCESS_EXIT, NULL, 0);
    CHECK(exit && exit->u.sched_process_exit.pid == 4665 && strcmp(exit->comm, "sleep") == 0);
}

static void real_61_tracepoints(void)
{
    ks_perf_stats a, b, c;
    ks_event_log *header = decode_file(FIXTURE_DIR "perf_6.1_sched_header.txt", &a, KS_OK);
    ks_event_log *no_cpu = decode_file(FIXTURE_DIR "perf_6.1_sched_F_no_cpu.txt", &b, KS_OK);
    ks_event_log *pid_tid = decode_file(FIXTURE_DIR "perf_6.1_sched_F_pid_tid.txt", &c, KS_OK);
    check_sched_counts(header, &a);
    check_sched_counts(no_cpu, &b);
    check_sched_counts(pid_tid, &c);
    CHECK_EQ_INT(a.nr_cpus, 2);
    CHECK_EQ_INT(a.comment_lines, 38);
    CHECK_EQ_INT(a.columns, KS_PERF_CPU | KS_PERF_HEADER);
    CHECK_EQ_INT(b.columns, 0);                 /* -F comm,tid,time,event,trace */
    CHECK_EQ_INT(c.columns, KS_PERF_CPU | KS_PERF_PID_TID);
    /* the three layouts differ only in the columns they print */
    const ks_event *x = ks_event_log_data(header), *y = ks_event_log_data(no_cpu), *z = ks_event_log_data(pid_tid);
    uint32_t same = 0;
    for (uint32_t i = 0; i < 99 && i < ks_event_log_count(no_cpu) && i < ks_event_log_count(pid_tid); i++) {
        ks_event e = y[i], f = z[i];
        e.cpu = x[i].cpu;                       /* no CPU column: -1 */
        f.tgid = x[i].tgid;                     /* pid/tid: the tgid is known */
        same += y[i].cpu == -1 && memcmp(&e, &x[i], sizeof e) == 0 && memcmp(&f, &x[i], sizeof f) == 0 &&
                (z[i].tgid > 0 || z[i].pid == 0);
    }
    CHECK_EQ_INT(same, 99);
    ks_event_log_free(header);
    ks_event_log_free(no_cpu);
    ks_event_log_free(pid_tid);
}

/* cpu-clock -g samples (trimmed to 25 blocks) and -G -F ...,ip,sym,dso (one line each):
 *   grep -c 'cpu-clock:' -> 25 and 30;  grep -c $'^\t' perf_6.1_cpu_clock_g.txt -> 146
 *   python  4595 [000]  3749.353615:    2004008 cpu-clock:  ffffffff821eb0e7 clear_page_erms ([kernel.kallsyms]) */
static void real_61_samples(void)
{
    ks_perf_stats a, b;
    ks_event_log *g = decode_file(FIXTURE_DIR "perf_6.1_cpu_clock_g.txt", &a, KS_OK);
    ks_event_log *one = decode_file(FIXTURE_DIR "perf_6.1_F_ip_sym.txt", &b, KS_OK);
    CHECK_EQ_INT(a.samples, 25);
    CHECK_EQ_INT(a.frame_lines, 146);
    CHECK_EQ_INT(b.samples, 30);
    CHECK_EQ_INT(b.frame_lines, 0);
    CHECK_EQ_INT(a.malformed_lines + b.malformed_lines, 0);
    CHECK_EQ_STR(tt_fields(g, tt_find(g, KS_EV_GENERIC, "cpu-clock", 0)),
                 "period=2004008 ip=ffffffff821eb0e7 sym=clear_page_erms+0x7 dso=[kernel.kallsyms] stack_depth=11");
    CHECK_EQ_STR(tt_fields(one, tt_find(one, KS_EV_GENERIC, "cpu-clock", 0)),
                 "period=2004008 ip=ffffffff821eb0e7 sym=clear_page_erms dso=[kernel.kallsyms] stack_depth=1");
    ks_event_log_free(g);
    ks_event_log_free(one);
}

/* perf sched timehist, plain and -w -M (in tests/fixtures):
 *   grep -cE '^ +[0-9]+\.[0-9]+ \[' -> 37 and 57;  -wM: grep -c 'awakened:' -> 16, 'migrated:' -> 4
 *       3694.727017 [0000]  migration/0[18]                     0.000      0.005      0.026 */
static void real_61_timehist(void)
{
    ks_perf_stats a, b;
    ks_event_log *plain = decode_file(FIXTURE_DIR "perf_6.1_timehist.txt", &a, KS_OK);
    ks_event_log *wm = decode_file(FIXTURE_DIR "perf_6.1_timehist_wM.txt", &b, KS_OK);
    CHECK_EQ_INT(a.format, KS_PERF_FORMAT_TIMEHIST);
    CHECK_EQ_INT(tt_count(plain, KS_EV_GENERIC, "sched_timehist"), 37);
    CHECK_EQ_INT(tt_count(wm, KS_EV_GENERIC, "sched_timehist"), 57);
    CHECK_EQ_INT(a.comment_lines, 3);
    CHECK_EQ_INT(a.malformed_lines + b.malformed_lines, 0);
    const ks_event *mig = tt_find(plain, KS_EV_GENERIC, "sched_timehist", 1);
    CHECK(mig != NULL);
    if (mig) {
        CHECK_EQ_STR(mig->comm, "migration/0");
        CHECK_EQ_INT(mig->pid, 18);
        CHECK_EQ_INT(mig->cpu, 0);
        CHECK_EQ_INT(mig->ts_ns, 3694727017000ull);
        CHECK_EQ_STR(tt_fields(plain, mig), "wait_time=0.000 sch_delay=0.005 run_time=0.026");
    }
    uint32_t awakened = 0, migrated = 0;
    const ks_event *ev = ks_event_log_data(wm);
    for (uint32_t i = 0; i < ks_event_log_count(wm); i++) {
        awakened += strncmp(tt_fields(wm, &ev[i]), "note=awakened: ", 15) == 0;
        migrated += strncmp(tt_fields(wm, &ev[i]), "note=migrated: ", 15) == 0;
    }
    CHECK_EQ_INT(awakened, 16);
    CHECK_EQ_INT(migrated, 4);
    ks_event_log_free(plain);
    ks_event_log_free(wm);
}

static void malformed_lines_are_counted(void)
{
    static const char text[] =
        "            perf  3993 [000]  3694.726991:       sched:sched_switch: prev_comm=perf prev_pid=3993 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0\n"
        "\x7f" "ELF\x02\x01\x01\n"
        "            perf  3993 [000]  3694.726992:       sched:sched_switch: prev_comm=perf prev_pid=x\n"
        "just words here\n"
        "            perf  3993 [000]  3694.726993\n"
        "            perf  3993 [000]  3694.726994:       sched:sched_stat_runtime: comm=perf pid=3993 runtime=69143 [ns]\n";
    ks_perf_stats st;
    ks_event_log *log = decode_chunked(text, (int32_t)sizeof text - 1, 0, &st, KS_OK);
    CHECK_EQ_INT(st.lines, 6);
    CHECK_EQ_INT(st.malformed_lines, 4);
    CHECK_EQ_INT(st.first_error.line, 2);
    CHECK_EQ_STR(st.first_error.field, "line");
    CHECK_EQ_INT(st.events, 3);                 /* the broken switch is kept as generic */
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 1);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_switch"), 1);
    CHECK_EQ_STR(tt_fields(log, tt_find(log, KS_EV_GENERIC, "sched_stat_runtime", 0)),
                 "comm=perf pid=3993 runtime=69143 [ns]");
    ks_event_log_free(log);
    CHECK_EQ_INT(ks_perf_decoder_new(NULL), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_perf_decode(NULL, 3, NULL, NULL), KS_ERR_INVALID_ARG);
}

const test_case perf_script_tests[] = {
    { "perf script: corpus FlameGraph (perf 3.13, --header, -g)", corpus_flamegraph },
    { "perf script: corpus speedscope (perf 4.15, period, no header)", corpus_speedscope },
    { "perf script: corpus Firefox profiler (perf 5.11, no CPU column)", corpus_firefox_graphviz },
    { "perf script: perf report files are refused with a clear status", corpus_perf_report_is_refused },
    { "perf script: 6.1 tracepoints in three -F layouts", real_61_tracepoints },
    { "perf script: 6.1 samples with and without callchains", real_61_samples },
    { "perf sched timehist: plain and -w -M", real_61_timehist },
    { "perf script: malformed lines are counted", malformed_lines_are_counted },
    { 0 },
};
