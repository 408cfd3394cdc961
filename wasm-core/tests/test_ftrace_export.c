/*
 * The ftrace exporter: its text against this machine's 6.18 tracefs output,
 * and export -> decode -> export round trips over every event kind.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "kscope/ftrace.h"
#include "kscope/native/ftrace_export.h"
#include "sim_test_util.h"

/* The whole export of a log, NUL-terminated (free it), pulled `piece` bytes at a time. */
static char *export_log(const ks_event_log *log, int32_t nr_cpus, uint32_t flags, int32_t piece,
                        uint32_t *used_flags)
{
    ks_ftrace_exporter *x = NULL;
    CHECK_EQ_INT(ks_ftrace_exporter_new(log, nr_cpus, flags, &x), KS_OK);
    if (used_flags)
        *used_flags = ks_ftrace_exporter_flags(x);
    int32_t len = 0, cap = 4096, n = 0;
    char *text = malloc((size_t)cap);
    do {
        if (cap - len < piece + 1) {
            cap = cap * 2 + piece;
            text = realloc(text, (size_t)cap);
        }
        CHECK_EQ_INT(ks_ftrace_exporter_read(x, text + len, piece, &n), KS_OK);
        len += n;
    } while (n > 0);
    text[len] = '\0';
    ks_ftrace_exporter_free(x);
    return text;
}

static ks_event_log *decode(const char *text, ks_ftrace_stats *st)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_ftrace_decode(text, (int32_t)strlen(text), log, st), KS_OK);
    return log;
}

/* ---- against real 6.18 text --------------------------------------------------------- */

typedef struct fixture_variant {
    const char *file;
    uint32_t flags;
    uint32_t entries;           /* the header's entries-in-buffer of the capture */
} fixture_variant;

static const fixture_variant variants[] = {
    { "ftrace_6.18_tgid_irq.txt", KS_FTRACE_TGID | KS_FTRACE_IRQ_INFO, 825 },
    { "ftrace_6.18_irq.txt", KS_FTRACE_IRQ_INFO, 875 },
    { "ftrace_6.18_tgid_noirq.txt", KS_FTRACE_TGID, 857 },
    { "ftrace_6.18_noirq.txt", 0, 1044 },
};

/* The fixture's header (its leading '#' lines) is what format_header prints. */
static void header_matches_the_kernel(void)
{
    for (uint32_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char path[128];
        snprintf(path, sizeof path, FIXTURE_DIR "%s", variants[v].file);
        int32_t len = 0;
        char *text = fixture_read(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        int32_t header_len = 0;
        while (header_len < len && text[header_len] == '#')
            header_len += (int32_t)(strchr(text + header_len, '\n') - (text + header_len)) + 1;
        char buf[2048];
        int32_t written = 0;
        CHECK_EQ_INT(ks_ftrace_format_header(variants[v].entries, 2, variants[v].flags, buf,
                                             sizeof buf, &written), KS_OK);
        CHECK_EQ_INT(written, header_len);
        CHECK(memcmp(buf, text, (size_t)header_len) == 0);
        free(text);
    }
}

/* Decoding each 6.18 line and formatting it again gives the kernel's bytes, but
 * for what the model does not keep: the irq-info flags (printed "....."). */
static void event_lines_match_the_kernel(void)
{
    for (uint32_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        char path[128];
        snprintf(path, sizeof path, FIXTURE_DIR "%s", variants[v].file);
        int32_t len = 0;
        char *text = fixture_read(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        ks_ftrace_stats st;
        ks_event_log *log = decode(text, &st);
        const ks_event *ev = ks_event_log_data(log);
        uint32_t i = 0, compared = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#' || i >= ks_event_log_count(log))
                continue;
            char *flags = strstr(line, "] ");
            if ((variants[v].flags & KS_FTRACE_IRQ_INFO) && flags)
                memset(flags + 2, '.', 5);
            char buf[512];
            int32_t written = 0;
            CHECK_EQ_INT(ks_ftrace_format_event(&ev[i++], log, variants[v].flags, buf, sizeof buf,
                                                &written), KS_OK);
            buf[written > 0 ? written - 1 : 0] = '\0';      /* drop the "\n" */
            CHECK_EQ_STR(buf, line);
            compared++;
        }
        CHECK_EQ_INT(compared, ks_event_log_count(log));
        CHECK(compared >= 15);
        ks_event_log_free(log);
        free(text);
    }
}

/* ---- formatting details -------------------------------------------------------------- */

static ks_event switch_event(int64_t prev_state)
{
    ks_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts_ns = 5000000;
    ev.type = KS_EV_SCHED_SWITCH;
    ev.pid = ev.tgid = 7;
    strcpy(ev.comm, "t");
    strcpy(ev.u.sched_switch.prev_comm, "t");
    strcpy(ev.u.sched_switch.next_comm, "u");
    ev.u.sched_switch.prev_state = prev_state;
    return ev;
}

static void prev_state_prints_as_the_kernel_does(void)
{
    static const struct { int64_t state; const char *text; } cases[] = {
        { 0, "R" }, { KS_PREV_STATE_PREEMPTED, "R+" }, { 1, "S" }, { 2, "D" }, { 3, "S|D" },
        { 0x101, "S+" }, { 0x10, "X" }, { 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" },
        { 0x1ff, "S|D|T|t|X|Z|P|I+" }, { 4096, "4096" }, { -1, "-1" },
    };
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ks_event ev = switch_event(cases[i].state);
        char buf[256], want[64];
        int32_t written = 0;
        CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, 0, buf, sizeof buf, &written), KS_OK);
        snprintf(want, sizeof want, " prev_state=%s ==> ", cases[i].text);
        CHECK(strstr(buf, want) != NULL);
        ks_ftrace_stats st;
        ks_event_log *log = decode(buf, &st);
        CHECK_EQ_INT(st.malformed_lines, 0);
        CHECK_EQ_INT(ks_event_log_count(log), 1);
        if (ks_event_log_count(log) == 1)
            CHECK_EQ_INT(ks_event_log_data(log)->u.sched_switch.prev_state, cases[i].state);
        ks_event_log_free(log);
    }
}

static void timestamps_round_like_ns2usecs(void)
{
    static const struct { uint64_t ns; uint32_t flags; const char *text; } cases[] = {
        { 1999999500ull, 0, "]      2.000000: " },      /* "[%03d] " " %5lu.%06lu", (ns + 500) / 1000 */
        { 1999999499ull, 0, "]      1.999999: " },
        { 1999999499ull, KS_FTRACE_NSEC, "]      1.999999499: " },
        { 683202104223000ull, 0, "]  683202.104223: " },
        { 0, 0, "]      0.000000: " },
    };
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ks_event ev = switch_event(1);
        ev.ts_ns = cases[i].ns;
        char buf[256];
        int32_t written = 0;
        CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, cases[i].flags, buf, sizeof buf, &written), KS_OK);
        CHECK(strstr(buf, cases[i].text) != NULL);
    }
}

static void small_buffers_get_the_size_they_need(void)
{
    ks_event ev = switch_event(1);
    char buf[256];
    int32_t need = 0, written = 0;
    CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, KS_FTRACE_DEFAULT, buf, 10, &need), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, KS_FTRACE_DEFAULT, NULL, 0, &need), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, KS_FTRACE_DEFAULT, buf, need, &written), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, KS_FTRACE_DEFAULT, buf, need + 1, &written), KS_OK);
    CHECK_EQ_INT(written, need);
    CHECK_EQ_INT((int32_t)strlen(buf), need);
    CHECK_EQ_INT(ks_ftrace_format_header(1, 1, 0, buf, 20, &need), KS_ERR_RANGE);
    CHECK(need > 20);
    ks_event generic = ev;
    generic.type = KS_EV_GENERIC;                            /* its text is in no log */
    CHECK_EQ_INT(ks_ftrace_format_event(&generic, NULL, 0, buf, sizeof buf, &written), KS_ERR_INVALID_ARG);
    ev.type = KS_EV_TYPE_COUNT;
    CHECK_EQ_INT(ks_ftrace_format_event(&ev, NULL, 0, buf, sizeof buf, &written), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_ftrace_exporter_new(NULL, 1, 0, NULL), KS_ERR_INVALID_ARG);
}

/* ---- round trips ------------------------------------------------------------------------- */

/* Bytes of a comm to copy: at most KS_COMM_LEN - 1 (the record is zeroed). */
static size_t strnlen_max(const char *s)
{
    size_t n = strlen(s);
    return n < KS_COMM_LEN - 1 ? n : KS_COMM_LEN - 1;
}

static ks_event context(uint64_t ts_us, uint32_t type, int32_t cpu, int32_t pid, int32_t tgid,
                        const char *comm)
{
    ks_event ev;
    memset(&ev, 0, sizeof ev);
    ev.ts_ns = ts_us * 1000u;
    ev.type = type;
    ev.cpu = cpu;
    ev.pid = pid;
    ev.tgid = tgid;
    memcpy(ev.comm, comm, strnlen_max(comm));
    return ev;
}

/* One record of every kind, with the comms that are hard to read back: a blank
 * and a dash ("my load-x"), a dash and digits at the end ("kworker/u12:1-4"). */
static ks_event_log *every_kind_log(uint64_t extra_ns)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    const int64_t states[] = { 1, KS_PREV_STATE_PREEMPTED, 0, 3, 0x20, 4096 };
    uint64_t t = 1273158582;                                   /* us */
    for (uint32_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        ks_event ev = context(t++, KS_EV_SCHED_SWITCH, 3, 28498, 28497, "my load-x");
        strcpy(ev.u.sched_switch.prev_comm, "my load-x");
        ev.u.sched_switch.prev_pid = 28498;
        ev.u.sched_switch.prev_prio = 120;
        ev.u.sched_switch.prev_state = states[i];
        strcpy(ev.u.sched_switch.next_comm, i % 2 ? "swapper/3" : "kworker/u12:1-4");
        ev.u.sched_switch.next_pid = i % 2 ? 0 : 77;
        ev.u.sched_switch.next_prio = i % 2 ? 120 : 100;
        ev.ts_ns += extra_ns * i;
        ks_event_log_append(log, &ev);
    }
    const uint32_t wakeups[] = { KS_EV_SCHED_WAKING, KS_EV_SCHED_WAKEUP, KS_EV_SCHED_WAKEUP_NEW };
    for (uint32_t i = 0; i < 3; i++) {
        ks_event ev = context(t++, wakeups[i], 0, 0, 0, "<idle>");    /* tgid 0: "(-------)" */
        strcpy(ev.u.sched_wakeup.comm, "kworker/u12:1-4");
        ev.u.sched_wakeup.pid = 77;
        ev.u.sched_wakeup.prio = 100;
        ev.u.sched_wakeup.target_cpu = 12 + (int32_t)i;
        ks_event_log_append(log, &ev);
    }
    ks_event ev = context(t++, KS_EV_SCHED_MIGRATE_TASK, 12, 77, 2, "kworker/u12:1-4");
    strcpy(ev.u.sched_migrate_task.comm, "my load-x");
    ev.u.sched_migrate_task.pid = 28498;
    ev.u.sched_migrate_task.prio = 120;
    ev.u.sched_migrate_task.orig_cpu = 3;
    ev.u.sched_migrate_task.dest_cpu = 12;
    ks_event_log_append(log, &ev);
    ev = context(t++, KS_EV_SCHED_PROCESS_FORK, 3, 28497, 28497, "my load-x");
    strcpy(ev.u.sched_process_fork.parent_comm, "my load-x");
    ev.u.sched_process_fork.parent_pid = 28497;
    strcpy(ev.u.sched_process_fork.child_comm, "a-b c-1");
    ev.u.sched_process_fork.child_pid = 28499;
    ks_event_log_append(log, &ev);
    const uint32_t ends[] = { KS_EV_SCHED_PROCESS_EXIT, KS_EV_SCHED_PROCESS_FREE };
    for (uint32_t i = 0; i < 2; i++) {
        ev = context(t++, ends[i], 1, 28499, 28497, "a-b c-1");
        strcpy(ev.u.sched_process_exit.comm, "a-b c-1");
        ev.u.sched_process_exit.pid = 28499;
        ev.u.sched_process_exit.prio = 120;
        ev.u.sched_process_exit.group_dead = ends[i] == KS_EV_SCHED_PROCESS_EXIT ? 1 : -1;
        ks_event_log_append(log, &ev);
    }
    for (int32_t i = 0; i < 2; i++) {
        ev = context(t++, KS_EV_RSEQ_UPDATE, 3, 28498, 28497, "my load-x");
        ev.u.rseq_update.cpu_id = 3;
        ev.u.rseq_update.node_id = i ? -1 : 0;
        ev.u.rseq_update.mm_cid = i ? -1 : 2;
        ks_event_log_append(log, &ev);
    }
    ks_event_log_append_generic(log, (t++) * 1000u + extra_ns, 2, 900, 900, "Web Content",
                                "irq_handler_entry", "irq=24 name=virtio0");
    ks_event_log_append_generic(log, (t++) * 1000u, 2, 900, 900, "Web Content",
                                "tracing_mark_write", "B|900|draw: frame 7");
    return log;
}

/* Field for field; generic records by their text. tgid only if the export had the column. */
static void check_same_records(const ks_event_log *a, const ks_event_log *b, bool tgid)
{
    CHECK_EQ_INT(ks_event_log_count(b), ks_event_log_count(a));
    const ks_event *x = ks_event_log_data(a), *y = ks_event_log_data(b);
    for (uint32_t i = 0; i < ks_event_log_count(a) && i < ks_event_log_count(b); i++) {
        ks_event want = x[i], got = y[i];
        if (!tgid) {
            CHECK_EQ_INT(got.tgid, -1);
            got.tgid = want.tgid;
        }
        if (want.type == KS_EV_GENERIC && got.type == KS_EV_GENERIC) {
            CHECK_EQ_STR(ks_event_log_text(b, got.u.generic.name_off),
                         ks_event_log_text(a, want.u.generic.name_off));
            CHECK_EQ_STR(ks_event_log_text(b, got.u.generic.fields_off),
                         ks_event_log_text(a, want.u.generic.fields_off));
            got.u.generic = want.u.generic;
        }
        if (memcmp(&want, &got, sizeof want) != 0) {
            printf("    record %u (%s) differs\n", i, ks_event_type_name((int32_t)want.type));
            check_failures_in_test++;
        }
    }
}

static void round_trip_every_event_kind(void)
{
    ks_event_log *log = every_kind_log(0);
    const uint32_t flag_sets[] = { KS_FTRACE_DEFAULT, KS_FTRACE_TGID, KS_FTRACE_IRQ_INFO, 0 };
    for (uint32_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
        uint32_t used = 0;
        char *text = export_log(log, 16, flag_sets[f], 4096, &used);
        CHECK_EQ_INT(used, flag_sets[f]);                   /* whole microseconds: 6 digits */
        ks_ftrace_stats st;
        ks_event_log *back = decode(text, &st);
        CHECK_EQ_INT(st.malformed_lines, 0);
        CHECK_EQ_INT(st.nr_cpus, 16);
        CHECK_EQ_INT(st.columns, flag_sets[f]);
        CHECK_EQ_INT(st.events, ks_event_log_count(log));
        check_same_records(log, back, flag_sets[f] & KS_FTRACE_TGID);
        char *again = export_log(back, st.nr_cpus, flag_sets[f], 4096, NULL);
        CHECK_EQ_STR(again, text);                          /* export . decode . export */
        free(again);
        ks_event_log_free(back);
        free(text);
    }
    ks_event_log_free(log);
}

/* Sub-microsecond times switch the export to nine digits, so they come back exact. */
static void round_trip_keeps_nanoseconds(void)
{
    ks_event_log *log = every_kind_log(123);
    uint32_t used = 0;
    char *text = export_log(log, 0, KS_FTRACE_DEFAULT, 4096, &used);
    CHECK_EQ_INT(used, KS_FTRACE_DEFAULT | KS_FTRACE_NSEC);
    CHECK(strstr(text, " 1273.158583123: sched_switch: ") != NULL);
    CHECK(strstr(text, "#P:13\n") != NULL);                 /* highest cpu + 1 */
    ks_ftrace_stats st;
    ks_event_log *back = decode(text, &st);
    check_same_records(log, back, true);
    char *again = export_log(back, 0, KS_FTRACE_DEFAULT, 4096, NULL);
    CHECK_EQ_STR(again, text);
    free(again);
    ks_event_log_free(back);
    free(text);
    ks_event_log_free(log);
}

/* Reading the export 7 bytes at a time gives the same text as 4 KiB at a time. */
static void exporter_reads_in_any_piece_size(void)
{
    ks_event_log *log = every_kind_log(0);
    char *big = export_log(log, 16, KS_FTRACE_DEFAULT, 4096, NULL);
    char *small = export_log(log, 16, KS_FTRACE_DEFAULT, 7, NULL);
    char *tiny = export_log(log, 16, KS_FTRACE_DEFAULT, 1, NULL);
    CHECK_EQ_STR(small, big);
    CHECK_EQ_STR(tiny, big);
    CHECK(strstr(big, "# tracer: nop\n#\n# entries-in-buffer/entries-written: 17/17   #P:16\n#\n") == big);
    CHECK(strstr(big, "\n       my load-x-28498   (  28497) [003] .....  1273.158582: sched_switch: "
                      "prev_comm=my load-x prev_pid=28498 prev_prio=120 prev_state=S ==> "
                      "next_comm=kworker/u12:1-4 next_pid=77 next_prio=100\n") != NULL);
    CHECK(strstr(big, "\n     Web Content-900     (    900) [002] .....  1273.158597: "
                      "irq_handler_entry: irq=24 name=virtio0\n") != NULL);
    CHECK(strstr(big, "          <idle>-0       (-------) [000] .....  1273.158588: "
                      "sched_waking: comm=kworker/u12:1-4 pid=77 prio=100 target_cpu=012\n") != NULL);
    free(big);
    free(small);
    free(tiny);
    ks_event_log_free(log);
}

/* A simulated run (the exporter's main producer) comes back record for record. */
static void round_trip_simulated_runs(void)
{
    static const char *const files[] = { "workloads/fork-churn.json", "workloads/hackbench-2g.json" };
    for (uint32_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int32_t len = 0;
        char *json = fixture_read(files[i], &len);
        CHECK(json != NULL);
        if (!json)
            continue;
        test_sim t = test_sim_new("classroom-8", json, 1, NULL);
        CHECK_EQ_INT(t.status, KS_OK);
        ks_event_log *log = NULL;
        CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
        ks_run_limit limit = { .max_events = 5000 };
        uint32_t n = 0;
        if (t.status == KS_OK)
            CHECK_EQ_INT(ks_sim_run_until(t.sim, &limit, log, &n), KS_OK);
        CHECK(n > 1000);
        char *text = export_log(log, 0, KS_FTRACE_DEFAULT, 65536, NULL);
        ks_ftrace_stats st;
        ks_event_log *back = decode(text, &st);
        CHECK_EQ_INT(st.malformed_lines, 0);
        CHECK_EQ_INT(st.nr_cpus, 8);
        check_same_records(log, back, true);
        ks_event_log_free(back);
        ks_event_log_free(log);
        free(text);
        test_sim_free(&t);
        free(json);
    }
}

const test_case ftrace_export_tests[] = {
    { "ftrace export: header is the 6.18 kernel's", header_matches_the_kernel },
    { "ftrace export: event lines are the 6.18 kernel's", event_lines_match_the_kernel },
    { "ftrace export: prev_state letters and numbers", prev_state_prints_as_the_kernel_does },
    { "ftrace export: timestamps round like ns2usecs", timestamps_round_like_ns2usecs },
    { "ftrace export: small buffers get the size they need", small_buffers_get_the_size_they_need },
    { "ftrace export: round trip of every event kind", round_trip_every_event_kind },
    { "ftrace export: round trip keeps nanoseconds", round_trip_keeps_nanoseconds },
    { "ftrace export: exporter reads in any piece size", exporter_reads_in_any_piece_size },
    { "ftrace export: simulated runs round trip", round_trip_simulated_runs },
    { 0 },
};
