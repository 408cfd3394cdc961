/*
 * kscope/systrace.h: Android systrace HTML in.
 *
 * systrace (catapult's run_systrace.py) writes one HTML page holding the
 * trace viewer and the data, each data set in its own script block:
 *
 *     <script class="trace-data" type="application/text">
 *     # tracer: nop                                        <- ftrace text (atrace, with TGID)
 *     ...
 *     </script>
 *     <script class="trace-data" type="application/text">
 *     {"traceEvents": [...]}                               <- JSON (process names, clock sync)
 *     </script>
 *
 * The decoder finds the trace-data blocks in a stream of HTML chunks (a tag
 * may be cut anywhere), hands the text ones to the ftrace text decoder
 * (ftrace.h: same records, same counters) and skips the JSON ones. Memory is
 * the ftrace decoder's plus one tag (at most 512 bytes). Line numbers in
 * stats.ftrace.first_error count lines of the trace text, not of the page;
 * first_text_line says where the first text block starts in the page.
 */
#ifndef KSCOPE_SYSTRACE_H
#define KSCOPE_SYSTRACE_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/ftrace.h"

/*
 *      0  ftrace           ks_ftrace_stats of the text blocks together (208 bytes)
 *    208  text_blocks      u32  trace-data blocks decoded as ftrace text
 *    212  json_blocks      u32  trace-data blocks skipped (JSON)
 *    216  first_text_line  i32  page line of the first text block's first byte (0: none)
 *    220  html_lines       u32  page lines read
 */
typedef struct ks_systrace_stats {
    ks_ftrace_stats ftrace;
    uint32_t text_blocks;
    uint32_t json_blocks;
    int32_t first_text_line;
    uint32_t html_lines;
} ks_systrace_stats;
_Static_assert(sizeof(ks_systrace_stats) == 224, "ks_systrace_stats is shared with JS and Python");

typedef struct ks_systrace_decoder ks_systrace_decoder;

KS_API int32_t ks_systrace_decoder_new(ks_systrace_decoder **out);
KS_API void ks_systrace_decoder_free(ks_systrace_decoder *dec);
KS_API int32_t ks_systrace_decoder_feed(ks_systrace_decoder *dec, const char *chunk, int32_t len,
                                        ks_event_log *sink);
KS_API int32_t ks_systrace_decoder_finish(ks_systrace_decoder *dec, ks_event_log *sink);
KS_API int32_t ks_systrace_decoder_stats(const ks_systrace_decoder *dec, ks_systrace_stats *out);

/* One call for a page already in memory (stats may be NULL). */
KS_API int32_t ks_systrace_decode(const char *html, int32_t len, ks_event_log *sink,
                                  ks_systrace_stats *stats);

#endif
