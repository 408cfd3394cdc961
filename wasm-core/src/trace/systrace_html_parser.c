/*
 * The systrace HTML wrapper: finds `<script class="trace-data">` blocks in a
 * stream of HTML chunks and hands the ftrace text ones to the ftrace decoder
 * (see include/kscope/systrace.h). It is its own tokenizer: a byte-at-a-time
 * state machine, so a tag or "</script>" cut between two chunks is still seen.
 *
 *     <script class="trace-data" type="application/text">
 *     # tracer: nop
 *     #
 *     # entries-in-buffer/entries-written: 180350/180350   #P:8
 *     ...
 *           <idle>-0     (-----) [001] d..2 186111.460412: cpu_idle: state=0 cpu_id=1
 *     </script>
 *
 *   HTML --'<'--> TAG --'>' (script, trace-data)--> BLOCK_START --first non-blank--> TEXT | JSON
 *     ^              \--'>' (any other tag)--> HTML                                     |
 *     +------------------------------------- "</script>" -------------------------------+
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/systrace.h"
#include "kscope/trace_detect.h"
#include "decoder_common.h"

#define SY_TAG_MAX 512
#define SY_OUT 4096
static const char sy_end[] = "</script>";
#define SY_END_LEN 9

typedef enum sy_state { SY_HTML, SY_TAG, SY_BLOCK_START, SY_TEXT, SY_JSON } sy_state;

struct ks_systrace_decoder {
    ks_ftrace_decoder *text;
    ks_systrace_stats stats;
    sy_state state;
    char tag[SY_TAG_MAX];
    int32_t tag_len;
    int32_t matched;            /* bytes of "</script>" seen so far */
    char out[SY_OUT];           /* text bytes on their way to the ftrace decoder */
    int32_t out_len;
    char last;                  /* the last text byte given to the ftrace decoder */
};

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool tag_is_trace_data(const char *tag, int32_t n)
{
    static const char script[] = "script", cls[] = "trace-data";
    if (n < 6)
        return false;
    for (int32_t i = 0; i < 6; i++)
        if (lower(tag[i]) != script[i])
            return false;
    for (int32_t i = 6; i + 10 <= n; i++)
        if (memcmp(tag + i, cls, 10) == 0)
            return true;
    return false;
}

static int32_t flush_out(ks_systrace_decoder *dec, ks_event_log *sink)
{
    if (dec->out_len == 0)
        return KS_OK;
    dec->last = dec->out[dec->out_len - 1];
    int32_t status = ks_ftrace_decoder_feed(dec->text, dec->out, dec->out_len, sink);
    dec->out_len = 0;
    return status;
}

static int32_t put_text(ks_systrace_decoder *dec, const char *s, int32_t n, ks_event_log *sink)
{
    for (int32_t i = 0; i < n; i++) {
        if (dec->out_len == SY_OUT) {
            int32_t status = flush_out(dec, sink);
            if (status != KS_OK)
                return status;
        }
        dec->out[dec->out_len++] = s[i];
    }
    return KS_OK;
}

/* The end of a block: a text block's last line is ended so the next block starts afresh. */
static int32_t end_block(ks_systrace_decoder *dec, ks_event_log *sink)
{
    bool text = dec->state == SY_TEXT;
    dec->state = SY_HTML;
    dec->matched = 0;
    if (!text)
        return KS_OK;
    int32_t status = flush_out(dec, sink);
    if (status == KS_OK && dec->last != '\n' && dec->last != 0)
        status = ks_ftrace_decoder_feed(dec->text, "\n", 1, sink);
    dec->last = '\n';
    return status;
}

static int32_t step(ks_systrace_decoder *dec, char c, ks_event_log *sink)
{
    switch (dec->state) {
    case SY_HTML:
        if (c == '<') {
            dec->state = SY_TAG;
            dec->tag_len = 0;
        }
        return KS_OK;
    case SY_TAG:
        if (c == '>') {
            dec->state = tag_is_trace_data(dec->tag, dec->tag_len) ? SY_BLOCK_START : SY_HTML;
        } else if (dec->tag_len < SY_TAG_MAX) {
            dec->tag[dec->tag_len++] = c;
        } else {
            dec->state = SY_HTML;
        }
        return KS_OK;
    case SY_BLOCK_START:
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            return KS_OK;                       /* leading blank lines are not trace text */
        if (c == '{' || c == '[') {
            dec->state = SY_JSON;
            dec->stats.json_blocks++;
            return KS_OK;
        }
        dec->state = SY_TEXT;
        dec->stats.text_blocks++;
        if (dec->stats.first_text_line == 0)
            dec->stats.first_text_line = (int32_t)dec->stats.html_lines + 1;
        __attribute__((fallthrough));           /* c is the text's first byte */
    default:
        if (lower(c) == sy_end[dec->matched]) {
            if (++dec->matched == SY_END_LEN)
                return end_block(dec, sink);
            return KS_OK;
        }
        if (dec->matched > 0) {                 /* "</scr" that was text after all */
            int32_t status = dec->state == SY_TEXT ? put_text(dec, sy_end, dec->matched, sink) : KS_OK;
            dec->matched = 0;
            if (status != KS_OK)
                return status;
            if (c == '<') {
                dec->matched = 1;
                return KS_OK;
            }
        }
        return dec->state == SY_TEXT ? put_text(dec, &c, 1, sink) : KS_OK;
    }
}

int32_t ks_systrace_decoder_new(ks_systrace_decoder **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_systrace_decoder *dec = calloc(1, sizeof *dec);
    if (!dec || ks_ftrace_decoder_new(&dec->text) != KS_OK) {
        ks_systrace_decoder_free(dec);
        *out = NULL;
        return KS_ERR_NO_MEMORY;
    }
    *out = dec;
    return KS_OK;
}

void ks_systrace_decoder_free(ks_systrace_decoder *dec)
{
    if (!dec)
        return;
    ks_ftrace_decoder_free(dec->text);
    free(dec);
}

int32_t ks_systrace_decoder_feed(ks_systrace_decoder *dec, const char *chunk, int32_t len,
                                 ks_event_log *sink)
{
    if (!dec || !sink || len < 0 || (!chunk && len > 0))
        return KS_ERR_INVALID_ARG;
    for (int32_t i = 0; i < len; i++) {
        dec->stats.html_lines += chunk[i] == '\n';
        int32_t status = step(dec, chunk[i], sink);
        if (status != KS_OK)
            return status;
    }
    return flush_out(dec, sink);
}

int32_t ks_systrace_decoder_finish(ks_systrace_decoder *dec, ks_event_log *sink)
{
    if (!dec || !sink)
        return KS_ERR_INVALID_ARG;
    int32_t status = dec->state == SY_TEXT ? end_block(dec, sink) : KS_OK;
    if (status == KS_OK)
        status = ks_ftrace_decoder_finish(dec->text, sink);
    return status;
}

int32_t ks_systrace_decoder_stats(const ks_systrace_decoder *dec, ks_systrace_stats *out)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    *out = dec->stats;
    ks_ftrace_decoder_stats(dec->text, &out->ftrace);
    return KS_OK;
}

int32_t ks_systrace_decode(const char *html, int32_t len, ks_event_log *sink, ks_systrace_stats *stats)
{
    return trace_decode_whole(KS_TRACE_SYSTRACE_HTML, html, len, sink, stats, (int32_t)sizeof *stats);
}
