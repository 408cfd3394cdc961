/*
 * The trace.dat decoder on real files: LISA's v6 (arm64, 4.19), gpuvis' v6
 * with its non-standard option 8 (x86_64, 4.11), and this VM's 6.18 recorded
 * by trace-cmd 3.1.6 as v6, v7 and v7+zstd (tests/fixtures/README.md). The
 * expected counts come from `trace-cmd report` (3.1.6), not from kscope:
 *
 *   trace-cmd report -i F | grep -oE '\] +[0-9]+\.[0-9]+: +[a-z_A-Z0-9]+:' | awk '{print $NF}' | sort | uniq -c
 *
 * (gpuvis: on a scratch copy whose option id 8 was patched to 255, since upstream
 * trace-cmd cannot read the id; the MANIFEST's counts.) kscope's records were also
 * diffed against that output for pid, cpu, time (us) and order: all equal.
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "trace_test_util.h"
#include "tracedat_support.h"
#include "kscope/tracedat.h"

#define GEN_DIR "build/fixtures/"

/* Decodes a file in one go and in 7-byte and 64 KiB feeds; all three must agree. */
static ks_event_log *decode_file(const char *path, ks_tracedat_stats *st, bool chunked)
{
    int32_t len = 0;
    char *data = fixture_read(path, &len);
    CHECK(data != NULL);
    ks_event_log *whole = NULL;
    CHECK_EQ_INT(ks_event_log_new(&whole), KS_OK);
    if (!data)
        return whole;
    CHECK_EQ_INT(ks_tracedat_decode(data, len, whole, st), KS_OK);
    static const int32_t chunks[] = { 7, 64 << 10 };
    if (chunked)
        tds_check_feeds(data, len, whole, st, chunks, sizeof chunks / sizeof chunks[0]);
    free(data);
    return whole;
}

/* LISA sched_load: v6, 6 CPUs, arm64, 4.19, kallsyms, 60 systems. trace-cmd report:
 *   2437 sched_load_cfs_rq  474 cpu_idle  399 sched_switch  364 sched_load_se
 *     28 sched_migrate_task  16 cpu_frequency  6 print            (3724, as the MANIFEST says)
 *   first:  <idle>-0 [002] 2084.021443: cpu_idle: state=4294967295 cpu_id=2
 *   <idle>-0 [002] 2084.021659: sched_switch: swapper/2:0 [120] R ==> kworker/2:1:2923 [120]
 *   sshd-2928 [005] 2084.200966: sched_migrate_task: comm=kworker/u12:4 pid=310 prio=120 orig_cpu=0 dest_cpu=5 */
static void corpus_lisa_v6(void)
{
    ks_tracedat_stats st;
    ks_event_log *log = decode_file(CORPUS_DIR "trace-dat__lisa__sched_load.dat", &st, true);
    CHECK_EQ_INT(st.status, KS_OK);
    CHECK_EQ_INT(st.version, 6);
    CHECK_EQ_INT(st.long_size, 8);
    CHECK_EQ_INT(st.page_size, 4096);
    CHECK_EQ_INT(st.big_endian, 0);
    CHECK_EQ_INT(st.nr_cpus, 6);
    CHECK_EQ_INT(st.malformed, 0);
    CHECK_EQ_INT(st.error_offset, -1);
    CHECK_EQ_INT(st.events, 3724);
    CHECK_EQ_INT(ks_event_log_count(log), 3724);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_load_cfs_rq"), 2437);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cpu_idle"), 474);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 399);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_load_se"), 364);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_MIGRATE_TASK, NULL), 28);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "cpu_frequency"), 16);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "print"), 6);
    CHECK_EQ_INT(st.generic_events, 3724 - 399 - 28);
    CHECK(tt_time_ordered(log));
    const ks_event *ev = ks_event_log_data(log);
    if (ks_event_log_count(log) > 0) {
        CHECK_EQ_INT((ev[0].ts_ns + 500) / 1000, 2084021443ull);
        CHECK_EQ_INT(ev[0].cpu, 2);
        CHECK_EQ_INT(ev[0].pid, 0);
        CHECK_EQ_INT(ev[0].tgid, 0);
        CHECK_EQ_STR(ev[0].comm, "<idle>");
        CHECK_EQ_STR(tt_fields(log, &ev[0]), "state=4294967295 cpu_id=2");
    }
    const ks_event *sw = tt_find(log, KS_EV_SCHED_SWITCH, NULL, 0);
    CHECK(sw != NULL);
    if (sw) {
        CHECK_EQ_INT((sw->ts_ns + 500) / 1000, 2084021659ull);
        CHECK_EQ_STR(sw->u.sched_switch.prev_comm, "swapper/2");
        CHECK_EQ_INT(sw->u.sched_switch.prev_state, 0);
        CHECK_EQ_STR(sw->u.sched_switch.next_comm, "kworker/2:1");
        CHECK_EQ_INT(sw->u.sched_switch.next_pid, 2923);
        CHECK_EQ_INT(sw->u.sched_switch.next_prio, 120);
    }
    const ks_event *mig = tt_find(log, KS_EV_SCHED_MIGRATE_TASK, NULL, 0);
    CHECK(mig != NULL);
    if (mig) {
        CHECK_EQ_STR(mig->comm, "sshd");
        CHECK_EQ_INT(mig->pid, 2928);
        CHECK_EQ_INT(mig->cpu, 5);
        CHECK_EQ_STR(mig->u.sched_migrate_task.comm, "kworker/u12:4");
        CHECK_EQ_INT(mig->u.sched_migrate_task.pid, 310);
        CHECK_EQ_INT(mig->u.sched_migrate_task.orig_cpu, 0);
        CHECK_EQ_INT(mig->u.sched_migrate_task.dest_cpu, 5);
    }
    /* sched_load_se: __data_loc path, char[16] comm:  cpu=2 path=(null) comm=kworker/2:1 pid=2923 load=0 util=0 */
    CHECK_EQ_STR(tt_fields(log, tt_find(log, KS_EV_GENERIC, "sched_load_se", 0)),
                 "cpu=2 path=(null) comm=kworker/2:1 pid=2923 load=0 util=0");
    ks_event_log_free(log);
}

/* gpuvis amdgpu.dat (unzipped into build/fixtures by the Makefile): v6, 4 CPUs, x86_64,
 * option id 8 = a saved-TGID table ("25412 20337\n..."), which upstream trace-cmd 3.1.6
 * cannot read. trace-cmd report of the patched copy: 43806 sched_switch, 6027 print,
 * 1976 dma_fence_signaled, 755 amdgpu_cs_ioctl, 693 amdgpu_sched_run_job,
 * 247 drm_vblank_event, 2 amdgpu_ttm_bo_move, 1 amdgpu_vm_flush (53507). */
static void corpus_gpuvis_option_8(void)
{
    ks_tracedat_stats st;
    ks_event_log *log = decode_file(GEN_DIR "amdgpu.dat", &st, false);
    CHECK_EQ_INT(st.status, KS_OK);
    CHECK_EQ_INT(st.nr_cpus, 4);
    CHECK_EQ_INT(st.malformed, 0);
    CHECK_EQ_STR(st.uname, "Linux pgriffais-zotac-ubuntu 4.11.0-rc4+ x86_64");
    CHECK_EQ_INT(st.events, 53507);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 43806);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "print"), 6027);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "dma_fence_signaled"), 1976);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "amdgpu_cs_ioctl"), 755);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "amdgpu_sched_run_job"), 693);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "drm_vblank_event"), 247);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "amdgpu_ttm_bo_move"), 2);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "amdgpu_vm_flush"), 1);
    CHECK(tt_time_ordered(log));
    /* Panorama AsyncI-25412 [001] 630661.814821: sched_switch: tgid 20337 from option 8 */
    const ks_event *ev = ks_event_log_data(log);
    uint32_t with_tgid = 0;
    const ks_event *panorama = NULL;
    for (uint32_t i = 0; i < ks_event_log_count(log); i++) {
        with_tgid += ev[i].tgid > 0;
        if (!panorama && ev[i].pid == 25412)
            panorama = &ev[i];
    }
    CHECK(with_tgid > 0);
    CHECK(panorama != NULL);
    if (panorama) {
        CHECK_EQ_INT(panorama->tgid, 20337);
        CHECK_EQ_STR(panorama->comm, "Panorama AsyncI");
    }
    ks_event_log_free(log);
}

/* This VM's 6.18, trace-cmd 3.1.6 (extract, then convert to v6 and to v7 uncompressed).
 * trace-cmd report: 31 sched_switch, 26 rseq_update, 20 sched_waking, 20 sched_wakeup,
 * 5 sched_process_free, 5 sched_migrate_task, 5 irq_handler_entry, 4 sched_wakeup_new,
 * 4 sched_process_fork, 4 sched_process_exit, 4 sched_process_exec, 2 print (130).
 *   sh-4533 [001] 3739.319771: print: 0xffffffff8149ab1a: kscope-marker-start
 *   sh-4533 [001] 3739.319824: sched_process_fork: comm=sh pid=4533 child_comm=sh child_pid=4537
 *   <idle>-0 [000] 3739.320563: sched_migrate_task: comm=sh pid=4533 prio=120 orig_cpu=1 dest_cpu=0 */
static void check_618(const ks_event_log *log, const ks_tracedat_stats *st, int32_t version)
{
    CHECK_EQ_INT(st->status, KS_OK);
    CHECK_EQ_INT(st->version, version);
    CHECK_EQ_INT(st->nr_cpus, 2);
    CHECK_EQ_INT(st->malformed, 0);
    CHECK_EQ_STR(st->uname, "Linux vm 6.18.44-fc-v669 x86_64");
    CHECK_EQ_STR(st->trace_clock, "local");
    CHECK_EQ_INT(st->events, 130);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 31);
    CHECK_EQ_INT(tt_count(log, KS_EV_RSEQ_UPDATE, NULL), 26);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKING, NULL), 20);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP, NULL), 20);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_FREE, NULL), 5);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_MIGRATE_TASK, NULL), 5);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "irq_handler_entry"), 5);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP_NEW, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_FORK, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_EXIT, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "sched_process_exec"), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "print"), 2);
    CHECK(tt_time_ordered(log));
    const ks_event *print = tt_find(log, KS_EV_GENERIC, "print", 0);
    CHECK(print != NULL);
    if (print) {
        CHECK_EQ_STR(tt_fields(log, print), "ip=0xffffffff8149ab1a buf=kscope-marker-start");
        CHECK_EQ_STR(print->comm, "sh");
        CHECK_EQ_INT(print->pid, 4533);
        CHECK_EQ_INT((print->ts_ns + 500) / 1000, 3739319771ull);
    }
    const ks_event *fork = tt_find(log, KS_EV_SCHED_PROCESS_FORK, NULL, 0);   /* __data_loc comms */
    CHECK(fork != NULL);
    if (fork) {
        CHECK_EQ_STR(fork->u.sched_process_fork.parent_comm, "sh");
        CHECK_EQ_INT(fork->u.sched_process_fork.parent_pid, 4533);
        CHECK_EQ_STR(fork->u.sched_process_fork.child_comm, "sh");
        CHECK_EQ_INT(fork->u.sched_process_fork.child_pid, 4537);
    }
    const ks_event *mig = tt_find(log, KS_EV_SCHED_MIGRATE_TASK, NULL, 0);
    CHECK(mig && mig->u.sched_migrate_task.pid == 4533 && mig->u.sched_migrate_task.orig_cpu == 1 &&
          mig->u.sched_migrate_task.dest_cpu == 0 && mig->cpu == 0);
    const ks_event *rseq = tt_find(log, KS_EV_RSEQ_UPDATE, NULL, 0);
    CHECK(rseq && rseq->u.rseq_update.node_id == 0 && rseq->u.rseq_update.mm_cid == 0);
    const ks_event *exit = tt_find(log, KS_EV_SCHED_PROCESS_EXIT, NULL, 0);
    CHECK(exit && (exit->u.sched_process_exit.group_dead == 0 || exit->u.sched_process_exit.group_dead == 1));
    CHECK_EQ_STR(tt_fields(log, tt_find(log, KS_EV_GENERIC, "sched_process_exec", 0)),
                 "filename=/usr/bin/sh pid=4537 old_pid=4537");
}

static void real_618_v6_and_v7(void)
{
    ks_tracedat_stats s6, s7;
    ks_event_log *v6 = decode_file(GEN_DIR "tracecmd_6.18_v6.dat", &s6, true);
    ks_event_log *v7 = decode_file(GEN_DIR "tracecmd_6.18_v7.dat", &s7, true);
    check_618(v6, &s6, 6);
    check_618(v7, &s7, 7);
    CHECK_EQ_INT(tt_same_records(v6, v7), 130);     /* one recording, two layouts */
    ks_event_log_free(v6);
    ks_event_log_free(v7);
}

/* The same recording as trace-cmd extract wrote it: v7, zstd (Debian's trace-cmd has no
 * zlib). Every header section is one zstd frame; each CPU's pages are zstd chunks. */
static void real_618_v7_zstd(void)
{
    ks_tracedat_stats s6, sz;
    ks_event_log *v6 = decode_file(GEN_DIR "tracecmd_6.18_v6.dat", &s6, false);
    ks_event_log *z = decode_file(FIXTURE_DIR "tracecmd_6.18_v7_zstd.dat", &sz, true);
    check_618(z, &sz, 7);
    CHECK_EQ_INT(tt_same_records(v6, z), 130);
    ks_event_log_free(z);
    /* The same recording, zlib-compressed by scripts/tracedat-zlib.py (tests/fixtures/README.md):
     * level-9 zlib streams, as trace-cmd's zlib plugin writes them. */
    z = decode_file(FIXTURE_DIR "tracecmd_6.18_v7_zlib.dat", &sz, true);
    check_618(z, &sz, 7);
    CHECK_EQ_INT(tt_same_records(v6, z), 130);
    ks_event_log_free(v6);
    ks_event_log_free(z);
}

/* ---- malformed input ---------------------------------------------------------------------- */

/* The LISA file cut short: in the header a clear "truncated" error at the cut; in the
 * CPU data the records before the cut, one malformed count per CPU cut short. */
static void truncated_files_are_reported(void)
{
    int32_t len = 0;
    char *data = fixture_read(CORPUS_DIR "trace-dat__lisa__sched_load.dat", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    static const int32_t header_cuts[] = { 3, 12, 200, 5000, 300000, 1200000 };
    for (uint32_t i = 0; i < sizeof header_cuts / sizeof header_cuts[0]; i++) {
        ks_event_log *log = NULL;
        ks_tracedat_stats st;
        ks_event_log_new(&log);
        CHECK_EQ_INT(tds_decode_fed(data, header_cuts[i], 0, log, &st), KS_ERR_PARSE);
        CHECK_EQ_INT(st.status, KS_ERR_PARSE);
        CHECK(st.error_offset >= header_cuts[i]);  /* the first byte wanted and not there */
        CHECK(strstr(st.first_error.message, "truncated") != NULL);
        CHECK_EQ_INT(ks_event_log_count(log), 0);
        ks_event_log_free(log);
    }
    int32_t data_cuts[] = { len - 4096 * 20 - 100, len - 1000 };
    for (uint32_t i = 0; i < 2; i++) {
        ks_event_log *log = NULL;
        ks_tracedat_stats st;
        ks_event_log_new(&log);
        CHECK_EQ_INT(tds_decode_fed(data, data_cuts[i], 0, log, &st), KS_OK);
        CHECK(st.malformed >= 1);
        CHECK(st.events > 0 && st.events < 3724);
        CHECK(strstr(st.first_error.message, "short of its size") != NULL);
        CHECK(tt_time_ordered(log));
        ks_event_log_free(log);
    }
    free(data);
}

static void text_named_dat_is_not_a_trace_dat(void)
{
    static const char text[] = "version = 6\ncpus=6\n            <...>-1701  [001]    76.211513: sched_switch: x";
    ks_event_log *log = NULL;
    ks_tracedat_stats st;
    ks_event_log_new(&log);
    CHECK_EQ_INT(ks_tracedat_decode(text, (int32_t)sizeof text - 1, log, &st), KS_ERR_PARSE);
    CHECK_EQ_STR(st.first_error.message, "not a trace.dat: starts with 'version = 6.cpus'");
    CHECK_EQ_INT(st.error_offset, 0);
    CHECK_EQ_INT(ks_tracedat_decode("PK\x03", 3, log, &st), KS_ERR_PARSE);
    CHECK_EQ_STR(st.first_error.message, "not a trace.dat: starts with 'PK.'");
    CHECK_EQ_INT(ks_tracedat_decode("", 0, log, &st), KS_ERR_PARSE);
    CHECK(strstr(st.first_error.message, "empty") != NULL);
    CHECK_EQ_INT(ks_tracedat_decode("\x17\x08\x44tracing" "5", 11, log, &st), KS_ERR_PARSE);
    CHECK_EQ_INT(ks_tracedat_decode("\x17\x08\x44tracing" "9\0", 12, log, &st), KS_ERR_PARSE);
    CHECK(strstr(st.first_error.message, "version '9'") != NULL);
    CHECK_EQ_INT(ks_event_log_count(log), 0);
    ks_event_log_free(log);
}

/* Bytes of the LISA file overwritten at pseudo-random places: decoding ends with a status
 * (never a crash, never an endless loop: run under ASan by `make test-asan`). */
static void corrupted_files_do_not_crash(void)
{
    int32_t len = 0;
    char *data = fixture_read(CORPUS_DIR "trace-dat__lisa__sched_load.dat", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    char *copy = malloc((size_t)len);
    uint32_t seed = 12345;
    for (int32_t round = 0; round < 24; round++) {
        memcpy(copy, data, (size_t)len);
        int32_t span = round < 12 ? 1200000 : len;  /* half the rounds hit the header */
        tds_scribble(copy, 0, span, 16, &seed);
        tds_decode_ends_with_status(copy, len);
    }
    free(copy);
    free(data);
}

static void bad_arguments_are_refused(void)
{
    ks_tracedat_decoder *dec = NULL;
    ks_event_log *log = NULL;
    int64_t off = -1;
    int32_t want = -1;
    CHECK_EQ_INT(ks_tracedat_decoder_new(NULL), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_new(&dec), KS_OK);
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_tracedat_decoder_want(dec, &off, &want), KS_OK);
    CHECK_EQ_INT(off, 0);
    CHECK(want >= 10);
    CHECK_EQ_INT(ks_tracedat_decoder_feed(dec, 5, "x", 1, log), KS_ERR_RANGE);     /* not the wanted offset */
    CHECK_EQ_INT(ks_tracedat_decoder_feed(dec, 0, "x", -1, log), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_feed(dec, 0, NULL, 1, log), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_feed(NULL, 0, "x", 1, log), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_want(NULL, &off, &want), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_stats(dec, NULL), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_tracedat_decoder_finish(dec, log), KS_ERR_PARSE);   /* ended before the magic */
    ks_tracedat_decoder_free(dec);
    ks_tracedat_decoder_free(NULL);
    CHECK_EQ_INT(ks_tracedat_decode(NULL, 5, log, NULL), KS_ERR_INVALID_ARG);
    ks_event_log_free(log);
}

/* A v6 file whose data is latency text (found by fuzz_tracedat): its first bad line, a
 * line with binary bytes, is placed at that line's first byte (line 1, right after the tag), whatever the feed sizes
 * (before the fix the place was where the chunk holding it was cut). */
static void latency_text_error_names_its_line(void)
{
    int32_t len = 0;
    char *data = fixture_read(FIXTURE_DIR "tracedat_v6_latency_binary_line.dat", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    static const int32_t feeds[] = { 0, 1, 7, 4096, 65536 };
    int64_t first = -2;
    for (uint32_t i = 0; i < sizeof feeds / sizeof feeds[0]; i++) {
        ks_event_log *log = NULL;
        ks_tracedat_stats st;
        CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
        CHECK_EQ_INT(tds_decode_fed(data, len, feeds[i], log, &st), KS_OK);
        CHECK(st.malformed > 0);
        CHECK(st.error_offset > 0 && st.error_offset < len);
        if (i == 0)
            first = st.error_offset;
        CHECK_EQ_INT(st.error_offset, first);
        CHECK_EQ_STR(st.first_error.field, "latency text");
        CHECK(strncmp(st.first_error.message, "line ", 5) == 0);
        ks_event_log_free(log);
    }
    /* line 1 of the text: its first byte follows the "latency  \0" tag */
    CHECK(first >= 10 && memcmp(data + first - 10, "latency  ", 10) == 0);
    free(data);
}

const test_case tracedat_tests[] = {
    { "trace.dat: corpus LISA v6 (arm64 4.19), one feed, 7-byte and 64 KiB feeds", corpus_lisa_v6 },
    { "trace.dat: corpus gpuvis v6 with non-standard option 8", corpus_gpuvis_option_8 },
    { "trace.dat: 6.18 recording as v6 and v7 give the same records", real_618_v6_and_v7 },
    { "trace.dat: 6.18 recording as v7+zstd and v7+zlib gives the v6 records", real_618_v7_zstd },
    { "trace.dat: truncated files are reported with the offset", truncated_files_are_reported },
    { "trace.dat: a text file is not a trace.dat", text_named_dat_is_not_a_trace_dat },
    { "trace.dat: corrupted bytes end with a status", corrupted_files_do_not_crash },
    { "trace.dat: bad arguments are refused", bad_arguments_are_refused },
    { "trace.dat: latency text's first bad line is placed whatever the feeds", latency_text_error_names_its_line },
    { 0 },
};
