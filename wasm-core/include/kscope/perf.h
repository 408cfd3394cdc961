/*
 * kscope/perf.h: `perf script` and `perf sched timehist` text in.
 *
 * perf script prints one line per sample, its callchain (if recorded) on the
 * lines below it, and a blank line after each block:
 *
 *     perf  3993/3993 [000]  3694.726991:       sched:sched_switch: prev_comm=perf ... ==> next_comm=...
 *     \comm/\pid/tid/ \cpu/ \__time____/ [period] \_____event______/ \___tracepoint fields (as ftrace)__
 *     java 11008 [001] 30143.481555: cpu-clock:
 *             ffffffff81001408 xen_hypercall_event_channel_op ([kernel.kallsyms])     <- callchain
 *
 * The columns depend on -F (and the perf version): the CPU column and "pid/"
 * may be absent, a period may stand before the event, and `--header` adds a
 * "# ..." block ("# nrcpus online : 32" gives the CPU count). Tracepoint
 * events (system:name) become typed records for the tracepoints of event.h
 * (their fields print as ftrace prints them) and generic records otherwise;
 * samples (cycles, cpu-clock, ...) become generic records named after the
 * event with "period=N ip=HEX sym=NAME dso=DSO stack_depth=N" (the leaf frame
 * and the callchain's depth).
 *
 * `perf sched timehist` prints a table, one row per context switch (plus
 * wakeup/migration rows with -w/-M); each row becomes a generic record named
 * "sched_timehist" with "wait_time=... sch_delay=... run_time=..." (msec, as
 * printed) or "note=awakened: task[tid]".
 *
 * `perf report` output is a summary (percentages per symbol), not a trace: the
 * decoder refuses it with status KS_ERR_PARSE and says "use perf script".
 * Gzipped text is for the caller to inflate. Timestamps are perf's (seconds
 * with 6 or 9 digits) in absolute ns; pid = tid; tgid = the pid column when
 * "pid/tid" is printed, else -1; cpu = -1 without a CPU column.
 */
#ifndef KSCOPE_PERF_H
#define KSCOPE_PERF_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/parse.h"
#include "kscope/event.h"

#define KS_PERF_FORMAT_UNKNOWN 0
#define KS_PERF_FORMAT_SCRIPT 1         /* perf script event lines */
#define KS_PERF_FORMAT_TIMEHIST 2       /* perf sched timehist table */
#define KS_PERF_FORMAT_REPORT 3         /* perf report: refused */

/* Columns seen (stats.columns). */
#define KS_PERF_CPU 1u                  /* a "[cpu]" column */
#define KS_PERF_PID_TID 2u              /* "pid/tid" */
#define KS_PERF_CALLCHAIN 4u            /* callchain lines under samples */
#define KS_PERF_HEADER 8u               /* a --header block */

/*
 * Decoder counters (fixed-width: shared with JS and Python).
 *
 *      0  lines            u32  lines read so far
 *      4  events           u32  records appended (typed + generic)
 *      8  generic_events   u32  of which generic (samples, other tracepoints, timehist rows)
 *     12  samples          u32  records of non-tracepoint events (cycles, cpu-clock, ...)
 *     16  comment_lines    u32  header, "#" lines, blank lines, table headers and summaries
 *     20  malformed_lines  u32  lines that did not read
 *     24  frame_lines      u32  callchain lines (folded into their sample)
 *     28  nr_cpus          i32  from "# nrcpus online : N"; 0 if not said
 *     32  format           i32  KS_PERF_FORMAT_*
 *     36  columns          u32  KS_PERF_* column flags
 *     40  status           i32  KS_OK, or KS_ERR_PARSE when the text is not decodable (perf report)
 *     44  reserved         u32
 *     48  first_error      ks_parse_error: the first malformed line, or why status is not KS_OK
 */
typedef struct ks_perf_stats {
    uint32_t lines;
    uint32_t events;
    uint32_t generic_events;
    uint32_t samples;
    uint32_t comment_lines;
    uint32_t malformed_lines;
    uint32_t frame_lines;
    int32_t nr_cpus;
    int32_t format;
    uint32_t columns;
    int32_t status;
    uint32_t reserved;
    ks_parse_error first_error;
} ks_perf_stats;
_Static_assert(sizeof(ks_perf_stats) == 216, "ks_perf_stats is shared with JS and Python");

/*
 * The streaming decoder: text in chunks of any size (a chunk may end mid-line),
 * memory bounded by one partial line (KS_FTRACE_MAX_LINE) plus one pending
 * sample. feed/finish return KS_OK, KS_ERR_PARSE once the text shows it is
 * perf report output (nothing more is decoded), or an argument/memory error.
 */
typedef struct ks_perf_decoder ks_perf_decoder;

KS_API int32_t ks_perf_decoder_new(ks_perf_decoder **out);
KS_API void ks_perf_decoder_free(ks_perf_decoder *dec);
KS_API int32_t ks_perf_decoder_feed(ks_perf_decoder *dec, const char *chunk, int32_t len,
                                    ks_event_log *sink);
/* Decodes the last line and the last pending sample. */
KS_API int32_t ks_perf_decoder_finish(ks_perf_decoder *dec, ks_event_log *sink);
KS_API int32_t ks_perf_decoder_stats(const ks_perf_decoder *dec, ks_perf_stats *out);

/* One call for text already in memory (stats may be NULL). */
KS_API int32_t ks_perf_decode(const char *text, int32_t len, ks_event_log *sink,
                              ks_perf_stats *stats);

#endif
