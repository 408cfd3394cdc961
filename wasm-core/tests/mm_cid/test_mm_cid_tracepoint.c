/*
 * The mm_cid kernel patch's own tracepoint, kscope_mm_cid_get, through the generic
 * ftrace text decoder: its lines become generic records with their fields kept (the
 * model's conform replay and the lesson read them). Moved out of test_ftrace_decode.c
 * (issue 14: the model's tests in its folder); the decoder itself names no model.
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../trace_test_util.h"
#include "kscope/ftrace.h"

/* The whole text decoded in one feed; the log (free it). */
static ks_event_log *decode_text(const char *text, ks_ftrace_stats *stats)
{
    ks_event_log *log = NULL;
    ks_ftrace_decoder *dec = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_ftrace_decoder_new(&dec), KS_OK);
    if (!log || !dec) {
        ks_ftrace_decoder_free(dec);
        return log;
    }
    CHECK_EQ_INT(ks_ftrace_decoder_feed(dec, text, (int32_t)strlen(text), log), KS_OK);
    CHECK_EQ_INT(ks_ftrace_decoder_finish(dec, log), KS_OK);
    CHECK_EQ_INT(ks_ftrace_decoder_stats(dec, stats), KS_OK);
    ks_ftrace_decoder_free(dec);
    return log;
}

/* ---- kscope's kscope_mm_cid_get (kernel-patches/mm_cid-7e019dc/6.12) --------------- */

/*
 * Lines a 16-vCPU guest running kscope's 6.12 build printed (`kscope capture-vm --kernel
 * built --patches mm_cid,trace --cmdline kscope_mm_cid=recent|legacy`, record-tgid on):
 * TP_printk "cid=%d recent_cid=%d max_nr_cid=%d path=%s". Each becomes a generic record
 * named kscope_mm_cid_get whose field text keeps every key=value in the kernel's order
 * (negative values included); the line's task is the one switched out (here the idle task,
 * whose "(-------)" tgid reads as 0), the sched_switch before it names the thread.
 */
static void kscope_mm_cid_get_lines_are_generic_with_named_fields(void)
{
    static const char text[] =
        "# tracer: nop\n"
        "#\n"
        "          <idle>-0       (-------) [004] d....    15.832629: sched_switch: prev_comm=swapper/4 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=intermittent next_pid=142 next_prio=120\n"
        "          <idle>-0       (-------) [004] d....    15.832632: kscope_mm_cid_get: cid=8 recent_cid=8 max_nr_cid=9 path=recent\n"
        "    intermittent-135     (    135) [011] d....    15.460568: kscope_mm_cid_get: cid=0 recent_cid=-1 max_nr_cid=-1 path=lowest\n"
        "     kworker/7:1-127     (    127) [007] d....    15.457973: kscope_mm_cid_get: cid=0 recent_cid=0 max_nr_cid=-1 path=pcpu\n";
    ks_ftrace_stats st;
    ks_event_log *log = decode_text(text, &st);
    CHECK_EQ_INT(ks_event_log_count(log), 4);
    CHECK_EQ_INT(st.malformed_lines, 0);
    CHECK_EQ_INT(st.generic_events, 3);
    CHECK_EQ_INT(tt_count(log, KS_EV_GENERIC, "kscope_mm_cid_get"), 3);
    static const struct { int32_t cpu, pid, tgid; uint64_t ts_ns; const char *fields; } want[] = {
        { 4, 0, 0, 15832632000ull, "cid=8 recent_cid=8 max_nr_cid=9 path=recent" },
        { 11, 135, 135, 15460568000ull, "cid=0 recent_cid=-1 max_nr_cid=-1 path=lowest" },
        { 7, 127, 127, 15457973000ull, "cid=0 recent_cid=0 max_nr_cid=-1 path=pcpu" },
    };
    for (int32_t i = 0; i < 3; i++) {
        const ks_event *ev = tt_find_pid(log, KS_EV_GENERIC, -1, i);
        CHECK(ev != NULL);
        if (!ev)
            continue;
        CHECK_EQ_STR(ks_event_log_text(log, ev->u.generic.name_off), "kscope_mm_cid_get");
        CHECK_EQ_STR(ks_event_log_text(log, ev->u.generic.fields_off), want[i].fields);
        CHECK_EQ_INT(ev->cpu, want[i].cpu);
        CHECK_EQ_INT(ev->pid, want[i].pid);
        CHECK_EQ_INT(ev->tgid, want[i].tgid);
        CHECK(ev->ts_ns == want[i].ts_ns);
    }
    const ks_event *sw = tt_find_pid(log, KS_EV_SCHED_SWITCH, -1, 0);
    CHECK(sw != NULL && sw->u.sched_switch.next_pid == 142);
    ks_event_log_free(log);
}

const test_case mm_cid_tracepoint_tests[] = {
    { "ftrace decode: kscope_mm_cid_get lines (kscope's 6.12 build)", kscope_mm_cid_get_lines_are_generic_with_named_fields },
    { 0 },
};
