/*
 * Internal: the ftrace text tokenizer, shared by the decoder's parser and the
 * exporter.
 *
 * It knows the shape of ftrace text, not the meaning of any event:
 *
 *   - a line assembler that cuts a stream of chunks into lines, carrying at
 *     most one partial line (KS_FTRACE_MAX_LINE bytes) between chunks;
 *   - the event line's context prefix, cut into spans:
 *
 *         my load-x-28498   (  28497) [001] d..2.  1273.158974: sched_switch: prev_comm=...
 *         comm     -pid     (tgid)    [cpu] flags  timestamp:    name:         payload
 *
 *   - the payload's "key=value" fields, and the numbers in them;
 *   - sched_switch's prev_state letters, which both directions share.
 *
 * Spans point into the caller's text (see base/text_tokenizer.h, reused
 * here); nothing is copied except the partial line carried across chunks.
 */
#ifndef KSCOPE_TRACE_FTRACE_TEXT_TOKENIZER_H
#define KSCOPE_TRACE_FTRACE_TEXT_TOKENIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "kscope/ftrace.h"
#include "../base/text_tokenizer.h"

/* ---- lines from chunks ------------------------------------------------------ */

typedef struct ft_lines {
    char *carry;                /* KS_FTRACE_MAX_LINE bytes: the partial line so far */
    int32_t carry_len;
    bool too_long;              /* the carried line outgrew carry; its rest is skipped */
} ft_lines;

int32_t ft_lines_init(ft_lines *a);
void ft_lines_free(ft_lines *a);

/* Takes the next complete line off (*chunk, *len) into *line (without "\n" or
 * "\r\n"); *too_long tells that the line was cut at KS_FTRACE_MAX_LINE bytes.
 * When the chunk ends mid-line, keeps the piece and returns false. A line is
 * valid until the next call. */
bool ft_lines_next(ft_lines *a, const char **chunk, int32_t *len, text_span *line,
                         bool *too_long);

/* The carried last line of a text that did not end with "\n"; false if none. */
bool ft_lines_flush(ft_lines *a, text_span *line, bool *too_long);

/* ---- the event line's context prefix ------------------------------------------ */

typedef struct ft_line_head {
    text_span comm;             /* leading blanks dropped; may hold blanks and dashes */
    text_span pid;
    text_span tgid;             /* inside "( )", blanks dropped; len 0 if no column */
    text_span cpu;              /* inside "[ ]" */
    text_span flags;            /* "d..2."; len 0 if no column */
    text_span timestamp;        /* "1273.158974", without ':' */
    uint64_t ts_ns;             /* the timestamp, read (ft_parse_timestamp) */
    text_span name;             /* "sched_switch" */
    text_span payload;          /* everything after "name:", blanks trimmed */
    bool has_tgid;
} ft_line_head;

/* Where a line stopped reading: a column (1-based), the part's name, a message. */
typedef struct ft_token_error {
    int32_t column;
    const char *field;
    char message[128];
} ft_token_error;

/* Cuts an event line into its prefix parts; false (with *err) if it is not one. */
bool ft_tokenize_head(text_span line, ft_line_head *head, ft_token_error *err);

/* ---- payload fields and numbers ----------------------------------------------- */

text_span ft_skip_blanks(text_span s);

/* The span up to the first blank (or the end). */
text_span ft_word(text_span s);

/* If s starts with "key=", drops it from *s and returns true. */
bool ft_cut_key(text_span *s, const char *key);

/* If s starts with "<identifier>=", the identifier's length; else 0. */
int32_t ft_key_len(text_span s);

/* Offset of the first " key=" in s (the blank's offset), or -1. */
int32_t ft_find_key(text_span s, const char *key);

/* "sec.frac" (1-9 fraction digits) or plain nanoseconds -> ns. */
bool ft_parse_timestamp(text_span s, uint64_t *ns);

/* Decimal (optionally negative) or 0x-hex -> int64. */
bool ft_parse_int64(text_span s, int64_t *out);

/* Copies at most KS_COMM_LEN-1 bytes of s into a zeroed comm[KS_COMM_LEN]. */
void ft_copy_comm(char *dst, text_span s);

/* A printable, bounded copy of s for messages (control bytes become '?'). */
void ft_quote(text_span s, char *out, int32_t cap);

/* ---- sched_switch prev_state --------------------------------------------------- */

/* The kernel's __print_flags table for prev_state, in print order:
 * S=0x1 D=0x2 T=0x4 t=0x8 X=0x10 Z=0x20 P=0x40 I=0x80 ("R" when none, "+" for
 * KS_PREV_STATE_PREEMPTED). Returns the letter of entry i, 0 past the end. */
char ft_prev_state_letter(int32_t i, int64_t *bit);

/* "S", "S|D", "R", "R+", "D+", or a number (decimal or 0x: trace-cmd) -> bits. */
bool ft_parse_prev_state(text_span s, int64_t *out);

/* ---- typed tracepoint fields (ftrace_text_parser.c) ---------------------------------- */

/* Fills ev's payload from a typed tracepoint's "key=value ..." text (ev->type says
 * which); false with *err on the first field that does not read. Shared with the
 * perf script decoder, whose tracepoint lines print the same TP_printk text. */
bool ft_parse_tracepoint(text_span payload, ks_event *ev, ft_token_error *err);

#endif
