/*
 * kscope/ftrace.h: ftrace text in and out.
 *
 * The kernel's tracefs `trace` file and `trace-cmd report` both print one event
 * per line, a fixed context prefix and then the tracepoint's own TP_printk text:
 *
 *     my load-x-28498   (  28497) [001] d..2.  1273.158974: sched_switch: prev_comm=...
 *     \___comm__/ \pid/   \tgid/   \cpu/ \flags/ \timestamp/   \_event_/   \_fields_...
 *
 * The decoder turns such text into ks_event records (typed for the tracepoints
 * of event.h, generic for every other event); the exporter (native-only:
 * kscope/native/ftrace_export.h) writes records back
 * as the text a 6.18 kernel prints, so a simulated run can be opened in any
 * ftrace tool and a real trace can be replayed through the views.
 *
 * Timestamps. Decoded records keep the trace's absolute kernel time in ts_ns
 * (seconds.fraction -> nanoseconds, 1 to 9 fraction digits; a plain integer
 * is taken as nanoseconds, as `trace_clock=counter` prints it): a real trace
 * keeps its clock, and views subtract the first event's time themselves. The
 * kernel prints microseconds, rounding ns to the nearest us ((ns + 500) / 1000);
 * the exporter does the same unless KS_FTRACE_NSEC asks for nine digits
 * (sec.nsec, as `trace-cmd report -t` prints). ks_ftrace_exporter_new() turns
 * KS_FTRACE_NSEC on by itself when any record has sub-microsecond time, so an
 * export always decodes back to the same ts_ns.
 *
 * tgid: -1 when the trace has no TGID column or prints it unknown ("(-------)"),
 * except for pid 0, the idle task, whose tgid is 0 (the kernel prints 0 as unknown).
 *
 * Formats, variants and simplifications: src/trace/README.md.
 */
#ifndef KSCOPE_FTRACE_H
#define KSCOPE_FTRACE_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/parse.h"
#include "kscope/event.h"

/* Columns and precision of ftrace text (exporter flags; the decoder reports what it saw). */
#define KS_FTRACE_TGID 1u       /* "(  tgid)" column: options/record-tgid */
#define KS_FTRACE_IRQ_INFO 2u   /* "d..2." flags column: options/irq-info */
#define KS_FTRACE_NSEC 4u       /* nine fraction digits instead of the kernel's six */
#define KS_FTRACE_DEFAULT (KS_FTRACE_TGID | KS_FTRACE_IRQ_INFO)

/* sched_switch prev_state: the preemption bit the kernel prints as "+" ("R+"),
 * TASK_REPORT_MAX since Linux 4.14. prev_state 0 prints "R": the task called
 * schedule() while runnable (yield, idle), not a preemption. */
#define KS_PREV_STATE_PREEMPTED 0x100

/* Longest line the decoder reads (longer lines are reported malformed). */
#define KS_FTRACE_MAX_LINE 8192

/* What the decoder has seen, which dialect it was. */
#define KS_FTRACE_FORMAT_UNKNOWN 0
#define KS_FTRACE_FORMAT_TRACEFS 1      /* "# tracer: ..." header */
#define KS_FTRACE_FORMAT_TRACE_CMD 2    /* "version = 6" / "cpus=N" header */

/*
 * Decoder counters (fixed-width: read by JS through one view, by Python as a ctypes struct).
 *
 *     0  lines            u32  lines read so far (a final line without "\n" counts at finish)
 *     4  events           u32  records appended to the sink (typed + generic)
 *     8  generic_events   u32  of which generic (unknown events, and malformed typed ones)
 *    12  comment_lines    u32  headers, "#" comments, blank lines, "CPU N is empty" and such
 *    16  malformed_lines  u32  lines that did not read as their format says
 *    20  lost_events      u32  sum of "CPU:N [LOST M EVENTS]" markers
 *    24  nr_cpus          i32  from "#P:N" or "cpus=N"; 0 until a header says
 *    28  format           i32  KS_FTRACE_FORMAT_*
 *    32  columns          u32  KS_FTRACE_TGID / KS_FTRACE_IRQ_INFO if any line had them
 *    36  reserved         u32
 *    40  first_error      ks_parse_error of the first malformed line (line 0: none)
 */
typedef struct ks_ftrace_stats {
    uint32_t lines;
    uint32_t events;
    uint32_t generic_events;
    uint32_t comment_lines;
    uint32_t malformed_lines;
    uint32_t lost_events;
    int32_t nr_cpus;
    int32_t format;
    uint32_t columns;
    uint32_t reserved;
    ks_parse_error first_error;
} ks_ftrace_stats;
_Static_assert(sizeof(ks_ftrace_stats) == 208, "ks_ftrace_stats is shared with JS and Python");

/*
 * The streaming decoder. Feed the text in chunks of any size (a chunk may end
 * mid-line); each complete line is decoded into the sink at once, so memory is
 * bounded by one partial line (KS_FTRACE_MAX_LINE) whatever the trace's size.
 * A malformed line is counted and (the first one) described in the stats; it
 * never stops the decoding. A typed tracepoint whose fields do not read is
 * still kept, as a generic record with its text. feed/finish return KS_OK
 * unless an argument is bad or memory runs out: check stats.malformed_lines.
 */
typedef struct ks_ftrace_decoder ks_ftrace_decoder;

KS_API int32_t ks_ftrace_decoder_new(ks_ftrace_decoder **out);
KS_API void ks_ftrace_decoder_free(ks_ftrace_decoder *dec);
KS_API int32_t ks_ftrace_decoder_feed(ks_ftrace_decoder *dec, const char *chunk, int32_t len,
                                      ks_event_log *sink);
/* Decodes the last line if the text did not end with "\n". */
KS_API int32_t ks_ftrace_decoder_finish(ks_ftrace_decoder *dec, ks_event_log *sink);
KS_API int32_t ks_ftrace_decoder_stats(const ks_ftrace_decoder *dec, ks_ftrace_stats *out);

/* One call for text already in memory: new + feed + finish + stats (stats may be NULL). */
KS_API int32_t ks_ftrace_decode(const char *text, int32_t len, ks_event_log *sink,
                                ks_ftrace_stats *stats);

/* The exporter (records -> this text) is native-only API: kscope/native/ftrace_export.h. */

#endif
