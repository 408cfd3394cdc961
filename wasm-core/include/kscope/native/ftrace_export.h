/*
 * kscope/native/ftrace_export.h: ks_event records out as ftrace text (native-only API: the
 * backend's `kscope export`; the browser writes no ftrace text, so its build leaves this out).
 *
 * What the text looks like, its flags and timestamps: kscope/ftrace.h.
 */
#ifndef KSCOPE_NATIVE_FTRACE_EXPORT_H
#define KSCOPE_NATIVE_FTRACE_EXPORT_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/event.h"
#include "kscope/ftrace.h"

/*
 * The exporter. Two stateless formatters write into a caller buffer; each
 * returns KS_ERR_RANGE when the text does not fit, with *written set to the
 * bytes it needs (the text is complete only on KS_OK). text_log is the log a
 * generic record's name and fields live in (may be NULL for typed records).
 */
KS_API int32_t ks_ftrace_format_header(uint32_t nr_events, int32_t nr_cpus, uint32_t flags,
                                       char *buf, int32_t cap, int32_t *written);
KS_API int32_t ks_ftrace_format_event(const ks_event *ev, const ks_event_log *text_log,
                                      uint32_t flags, char *buf, int32_t cap, int32_t *written);

/*
 * A whole log as one `trace` file, pulled in pieces of any size (wasm-friendly:
 * JS allocates one buffer and calls read until *written is 0). nr_cpus <= 0
 * means "highest cpu in the log + 1". The header's entry count is the log's
 * count at _new; records appended later are not exported.
 */
typedef struct ks_ftrace_exporter ks_ftrace_exporter;

KS_API int32_t ks_ftrace_exporter_new(const ks_event_log *log, int32_t nr_cpus, uint32_t flags,
                                      ks_ftrace_exporter **out);
KS_API void ks_ftrace_exporter_free(ks_ftrace_exporter *x);
/* Copies the next bytes of the text into buf; *written is 0 at the end. */
KS_API int32_t ks_ftrace_exporter_read(ks_ftrace_exporter *x, char *buf, int32_t cap,
                                       int32_t *written);
/* The flags actually used (KS_FTRACE_NSEC added when the log needs it). */
KS_API uint32_t ks_ftrace_exporter_flags(const ks_ftrace_exporter *x);

#endif
