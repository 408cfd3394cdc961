/*
 * decoder_common.h: what every trace decoder does the same way (internal to src/trace).
 *
 *   trace_append      one record into the sink, counted (typed, or generic with its text)
 *   trace_note_line   a malformed line counted, the first one described
 *   line_stream       a line-driven text decoder's lifecycle: lines out of chunks of any
 *                     size (a chunk may end mid-line), a scratch of one line, the last
 *                     line without "\n" decoded at finish
 *
 * The ftrace text, perf script and trace.dat parsers use these; the systrace parser
 * hands its text to the ftrace one. The public door to all of them is trace_decoder.h.
 */
#ifndef KSCOPE_TRACE_DECODER_COMMON_H
#define KSCOPE_TRACE_DECODER_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include "kscope/event.h"
#include "kscope/parse.h"
#include "ftrace_text_tokenizer.h"

/* Appends ev (generic with name and fields when name is not NULL: ev's payload is
 * replaced by the text's offsets) and counts it in *events (and *generic_events). */
int32_t trace_append(ks_event_log *sink, const ks_event *ev, const char *name, const char *fields,
                     uint32_t *events, uint32_t *generic_events);

/* Counts a malformed line in *malformed; the first one (first->line == 0) is described. */
void trace_note_line(ks_parse_error *first, uint32_t *malformed, uint32_t line, int32_t column,
                     const char *field, const char *message);

/* The decoder's own handling of one complete line (too_long: cut at KS_FTRACE_MAX_LINE). */
typedef int32_t (*line_handler)(void *dec, text_span line, bool too_long, ks_event_log *sink);

typedef struct line_stream {
    ft_lines lines;
    char *scratch;              /* KS_FTRACE_MAX_LINE + 2 bytes: "name\0fields\0" of a line */
} line_stream;

int32_t line_stream_init(line_stream *s);       /* KS_OK or KS_ERR_NO_MEMORY */
void line_stream_free(line_stream *s);
/* Every complete line of the chunk to fn; stops at (and returns) fn's first non-OK status. */
int32_t line_stream_feed(line_stream *s, const char *chunk, int32_t len, line_handler fn, void *dec,
                         ks_event_log *sink);
/* The last line, if the text did not end with "\n". */
int32_t line_stream_finish(line_stream *s, line_handler fn, void *dec, ks_event_log *sink);

/* A whole file in memory through the registry's decoder for `format` (trace_decoder.c):
 * the one-call ks_*_decode functions. format_stats (may be NULL) receives the format's own
 * stats struct, of stats_size bytes. */
int32_t trace_decode_whole(int32_t format, const char *data, int32_t len, ks_event_log *sink,
                           void *format_stats, int32_t stats_size);

#endif
