/*
 * decoder_common.c: the append, error and line-stream code every trace decoder shares
 * (see decoder_common.h).
 */
#include "decoder_common.h"

#include <stdio.h>
#include <stdlib.h>

#include "kscope/ftrace.h"

int32_t trace_append(ks_event_log *sink, const ks_event *ev, const char *name, const char *fields,
                     uint32_t *events, uint32_t *generic_events)
{
    int32_t status = name ? ks_event_log_append_generic_event(sink, ev, name, fields)
                          : ks_event_log_append(sink, ev);
    if (status == KS_OK) {
        (*events)++;
        *generic_events += name != NULL;
    }
    return status;
}

void trace_note_line(ks_parse_error *first, uint32_t *malformed, uint32_t line, int32_t column,
                     const char *field, const char *message)
{
    (*malformed)++;
    if (first->line != 0)
        return;
    first->line = (int32_t)line;
    first->column_or_field = column;
    snprintf(first->field, sizeof first->field, "%s", field);
    snprintf(first->message, sizeof first->message, "%s", message);
}

int32_t line_stream_init(line_stream *s)
{
    s->scratch = malloc(KS_FTRACE_MAX_LINE + 2);
    if (!s->scratch || ft_lines_init(&s->lines) != KS_OK) {
        line_stream_free(s);
        return KS_ERR_NO_MEMORY;
    }
    return KS_OK;
}

void line_stream_free(line_stream *s)
{
    ft_lines_free(&s->lines);
    free(s->scratch);
    s->scratch = NULL;
}

int32_t line_stream_feed(line_stream *s, const char *chunk, int32_t len, line_handler fn, void *dec,
                         ks_event_log *sink)
{
    text_span line;
    bool too_long;
    while (ft_lines_next(&s->lines, &chunk, &len, &line, &too_long)) {
        int32_t status = fn(dec, line, too_long, sink);
        if (status != KS_OK)
            return status;
    }
    return KS_OK;
}

int32_t line_stream_finish(line_stream *s, line_handler fn, void *dec, ks_event_log *sink)
{
    text_span line;
    bool too_long;
    return ft_lines_flush(&s->lines, &line, &too_long) ? fn(dec, line, too_long, sink) : KS_OK;
}
