/*
 * kscope/trace_decoder.h: every trace decoder behind one interface, chosen once.
 *
 * The core reads five formats with four decoders (ftrace.h, tracedat.h, perf.h,
 * systrace.h). Each streams into a ks_event_log with the same lifecycle; this
 * header is the one door to all of them, so a caller (the browser's trace
 * opening, the backend, kscope-ingest) neither chooses a decoder itself nor
 * knows how each is driven. The registry (src/trace/trace_decoder.c) maps a
 * format of trace_detect.h to its decoder:
 *
 *     ftrace-text, trace-cmd-report      "ftrace"     ftrace.h
 *     trace.dat                          "trace.dat"  tracedat.h
 *     perf-script, perf-sched-timehist   "perf"       perf.h
 *     systrace-html                      "systrace"   systrace.h
 *     perf-report, perf.data, gzip, zip  (none: recognised, not decoded)
 *
 * One loop drives every decoder, reading the file at the offsets it asks for:
 *
 *     ks_trace_decoder_open(head, head_len, &format, &dec);    detect + new
 *     while (ks_trace_decoder_want(dec, &off, &len) == KS_OK && len > 0) {
 *         n = read(file, off, <1..len bytes; 0 at the end of the file>);
 *         if (ks_trace_decoder_feed(dec, off, bytes, n, sink) == KS_ERR_PARSE) break;
 *     }
 *     ks_trace_decoder_finish(dec, sink);
 *     ks_trace_decoder_stats(dec, &stats);               the common counters
 *
 * Text formats ask for the file front to back, `piece` bytes at a time
 * (ks_trace_decoder_set_piece; 1 MiB by default; any amount may be fed) until
 * a 0-byte feed says the file ends; trace.dat asks for its sections and per-CPU
 * pages by offset (tracedat.h). feed must start at the wanted offset
 * (KS_ERR_RANGE otherwise). feed returns KS_OK while decoding goes on,
 * KS_ERR_PARSE once the input cannot be decoded further (perf report text, a
 * trace.dat that does not read: stats.status and first_error say why), or an
 * argument/memory error. Malformed lines and records never stop a decoder:
 * they are counted in stats.malformed, the first one described in first_error.
 *
 * The format's own counters (ks_ftrace_stats, ...) stay available through
 * ks_trace_decoder_format_stats, and its own decoder (for trace.dat's buffer
 * names) through ks_trace_decoder_inner.
 */
#ifndef KSCOPE_TRACE_DECODER_H
#define KSCOPE_TRACE_DECODER_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/parse.h"
#include "kscope/event.h"

/* Default bytes a text decoder asks for at once. */
#define KS_TRACE_PIECE (1 << 20)

/*
 * What every decoder counts (fixed-width: shared with JS and Python).
 *
 *      0  format          i32  ks_trace_format the decoder was made for
 *      4  status          i32  KS_OK, or KS_ERR_PARSE once decoding stopped (see first_error)
 *      8  events          u32  records appended (typed + generic)
 *     12  generic_events  u32  of which generic
 *     16  malformed       u32  lines (text) or records, pages, items (trace.dat) that did not read
 *     20  lost_events     u32  events the kernel reported lost
 *     24  nr_cpus         i32  CPUs the trace says it has (0: not said)
 *     28  lines           u32  text lines read (0 for trace.dat)
 *     32  bytes_fed       i64  bytes handed to feed
 *     40  error_offset    i64  file offset of first_error (-1: none, or a text format: see its line)
 *     48  first_error     ks_parse_error
 */
typedef struct ks_trace_stats {
    int32_t format;
    int32_t status;
    uint32_t events;
    uint32_t generic_events;
    uint32_t malformed;
    uint32_t lost_events;
    int32_t nr_cpus;
    uint32_t lines;
    int64_t bytes_fed;
    int64_t error_offset;
    ks_parse_error first_error;
} ks_trace_stats;
_Static_assert(sizeof(ks_trace_stats) == 216, "ks_trace_stats is shared with JS and Python");

typedef struct ks_trace_decoder ks_trace_decoder;

/* The registry's decoder name for a format ("ftrace", "trace.dat", "perf", "systrace"),
 * or NULL when the core does not decode it (perf report, perf.data, gzip, zip, unknown). */
KS_API const char *ks_trace_format_decoder(int32_t format);

/* A decoder for a format of trace_detect.h; KS_ERR_NOT_FOUND (*out NULL) if none decodes it. */
KS_API int32_t ks_trace_decoder_new(int32_t format, ks_trace_decoder **out);
/* Detects the format of a file from its first bytes (ks_trace_detect) and makes its
 * decoder: *format is what was detected, decodable or not (KS_ERR_NOT_FOUND, *out NULL). */
KS_API int32_t ks_trace_decoder_open(const char *head, int32_t len, int32_t *format,
                                     ks_trace_decoder **out);
KS_API void ks_trace_decoder_free(ks_trace_decoder *dec);

KS_API int32_t ks_trace_decoder_format(const ks_trace_decoder *dec);
/* The registry's name of this decoder ("ftrace", "trace.dat", "perf", "systrace"). */
KS_API const char *ks_trace_decoder_name(const ks_trace_decoder *dec);
/* Bytes a text decoder asks for at once (>= 1; trace.dat chooses its own). */
KS_API int32_t ks_trace_decoder_set_piece(ks_trace_decoder *dec, int32_t bytes);

/* The next file bytes needed: *offset and a useful length; *len == 0 when done. */
KS_API int32_t ks_trace_decoder_want(const ks_trace_decoder *dec, int64_t *offset, int32_t *len);
/* Bytes of the file from offset (0 bytes: the file ends there). */
KS_API int32_t ks_trace_decoder_feed(ks_trace_decoder *dec, int64_t offset, const char *chunk,
                                     int32_t len, ks_event_log *sink);
/* Decodes what is held back (a last line without "\n", a pending perf sample); a trace.dat
 * that still wanted bytes is reported truncated. */
KS_API int32_t ks_trace_decoder_finish(ks_trace_decoder *dec, ks_event_log *sink);

KS_API int32_t ks_trace_decoder_stats(const ks_trace_decoder *dec, ks_trace_stats *out);
/* The format's own stats struct (ks_ftrace_stats, ks_tracedat_stats, ks_perf_stats,
 * ks_systrace_stats) into out, whose size must be that struct's (KS_ERR_RANGE otherwise). */
KS_API int32_t ks_trace_decoder_format_stats(const ks_trace_decoder *dec, void *out, int32_t size);
/* Size of that struct. */
KS_API int32_t ks_trace_decoder_format_stats_size(const ks_trace_decoder *dec);
/* The format's own decoder (ks_ftrace_decoder *, ks_tracedat_decoder *, ...), owned by dec. */
KS_API void *ks_trace_decoder_inner(const ks_trace_decoder *dec);

#endif
