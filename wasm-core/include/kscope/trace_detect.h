/*
 * kscope/trace_detect.h: which trace format a file holds, from its first bytes.
 *
 * The backend's ingest and the browser's "open locally" call this on the
 * file's head (the first 4-64 KiB: more text gives a surer answer) and pick
 * the decoder: ftrace.h for ftrace text and trace-cmd report text,
 * tracedat.h, perf.h (perf script and perf sched timehist), systrace.h.
 * perf report, perf.data, gzip and zip are recognised so the user can be told
 * what to do (perf script; decompress first), not decoded.
 */
#ifndef KSCOPE_TRACE_DETECT_H
#define KSCOPE_TRACE_DETECT_H

#include <stdint.h>
#include "kscope/status.h"

typedef enum ks_trace_format {
    KS_TRACE_UNKNOWN = 0,
    KS_TRACE_FTRACE_TEXT,           /* "ftrace-text": tracefs trace / atrace text */
    KS_TRACE_TRACE_CMD_REPORT,      /* "trace-cmd-report": trace-cmd report text */
    KS_TRACE_TRACE_DAT,             /* "trace.dat": trace-cmd binary, v6/v7 */
    KS_TRACE_PERF_SCRIPT,           /* "perf-script" */
    KS_TRACE_PERF_SCHED_TIMEHIST,   /* "perf-sched-timehist" */
    KS_TRACE_SYSTRACE_HTML,         /* "systrace-html" */
    KS_TRACE_PERF_REPORT,           /* "perf-report": a summary, not decodable */
    KS_TRACE_PERF_DATA,             /* "perf.data": binary, run perf script first */
    KS_TRACE_GZIP,                  /* "gzip": decompress first */
    KS_TRACE_ZIP,                   /* "zip": extract first */
    KS_TRACE_FORMAT_COUNT
} ks_trace_format;

/* The format of a file whose first len bytes are head (KS_TRACE_UNKNOWN if none fits). */
KS_API int32_t ks_trace_detect(const char *head, int32_t len);

/* "ftrace-text", "trace.dat", ... ("unknown" for KS_TRACE_UNKNOWN; NULL if out of range). */
KS_API const char *ks_trace_format_name(int32_t format);

#endif
