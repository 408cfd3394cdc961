/*
 * Internal: the perf script tokenizer (lines come from ftrace_text_tokenizer's
 * ft_lines; numbers and fields from its helpers). It cuts the three kinds of
 * line perf prints into spans, knowing nothing of what they mean:
 *
 *   an event line:   perf  3993/3993 [000]  3694.726991:    1001001 sched:sched_switch: prev_comm=...
 *                    comm  pid/tid   [cpu]  time:           [period] event:             payload
 *   a callchain one:         ffffffff8103ce3a native_write_msr_safe+0x6 ([kernel.kallsyms])
 *                            ip               sym                        (dso)
 *   a timehist row:      3694.727017 [0000]  migration/0[18]   0.000  0.005  0.026
 *                        time        [cpu]   task[tid/pid]     wait   sch delay  run
 */
#ifndef KSCOPE_TRACE_PERF_SCRIPT_TOKENIZER_H
#define KSCOPE_TRACE_PERF_SCRIPT_TOKENIZER_H

#include <stdbool.h>

#include "kscope/perf.h"
#include "ftrace_text_tokenizer.h"

typedef struct ps_head {
    text_span comm;             /* may hold blanks; empty if not printed */
    text_span pid;              /* "3993" of "3993/3994"; empty if not printed */
    text_span tid;              /* the thread id (the only id when one is printed) */
    text_span cpu;              /* inside "[ ]"; empty if no CPU column */
    text_span time;             /* without ':' */
    text_span period;           /* empty if not printed */
    text_span event;            /* "sched:sched_switch", "cpu-clock", "cycles:u" */
    text_span payload;          /* the rest, blanks trimmed */
} ps_head;

/* Cuts an event line; false (with *err) if it is not one. */
bool ps_tokenize_head(text_span line, ps_head *h, ft_token_error *err);

/* A tracepoint is "system:name"; a hardware event's ":u"/":ppp" modifiers are not. */
bool ps_is_tracepoint(text_span event, text_span *system, text_span *name);

typedef struct ps_frame {
    text_span ip, sym, dso;     /* dso without its parentheses; sym/dso may be empty */
} ps_frame;

/* A callchain line (leading blanks, a hex address, ...); false if the line is not one. */
bool ps_tokenize_frame(text_span line, ps_frame *f);

typedef struct ps_timehist_row {
    text_span time, cpu, task;  /* task: "perf[3993]", "<idle>", "name[tid/pid]" */
    text_span numbers;          /* "0.000 0.005 0.026" (wait, sch delay, run) or empty */
    text_span note;             /* "awakened: migration/0[18]", "migrated: ..." or empty */
} ps_timehist_row;

/* A timehist row: a time without ':' then "[cpu]"; false if the line is not one. */
bool ps_tokenize_timehist(text_span line, ps_timehist_row *row);

/* "perf[3993]" -> name "perf", tid 3993 (and pid when "[tid/pid]"); <idle>, swapper: 0;
 * a bare name: tid -1. */
bool ps_split_task(text_span task, text_span *name, int32_t *tid, int32_t *pid);

#endif
