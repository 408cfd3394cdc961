/*
 * Shared by the trace decoder tests: counting records by type or name and
 * comparing two logs record by record (generic records by their text).
 */
#ifndef KSCOPE_TESTS_TRACE_TEST_UTIL_H
#define KSCOPE_TESTS_TRACE_TEST_UTIL_H

#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "kscope/event.h"

/* Records of a type (KS_EV_GENERIC: any generic); with name, generic records of that name. */
static inline uint32_t tt_count(const ks_event_log *log, uint32_t type, const char *name)
{
    uint32_t n = 0;
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 0; i < ks_event_log_count(log); i++)
        if (ev[i].type == type &&
            (!name || strcmp(ks_event_log_text(log, ev[i].u.generic.name_off), name) == 0))
            n++;
    return n;
}

/* The nth record of a type (and generic name), or NULL. */
static inline const ks_event *tt_find(const ks_event_log *log, uint32_t type, const char *name,
                                      uint32_t nth)
{
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 0; i < ks_event_log_count(log); i++)
        if (ev[i].type == type &&
            (!name || strcmp(ks_event_log_text(log, ev[i].u.generic.name_off), name) == 0) &&
            nth-- == 0)
            return &ev[i];
    return NULL;
}

/* The nth record of a type whose pid is pid (-1: any pid), or NULL. */
static inline const ks_event *tt_find_pid(const ks_event_log *log, uint32_t type, int32_t pid,
                                          int32_t nth)
{
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 0; i < ks_event_log_count(log); i++)
        if (ev[i].type == type && (pid < 0 || ev[i].pid == pid) && nth-- == 0)
            return &ev[i];
    return NULL;
}

static inline const char *tt_fields(const ks_event_log *log, const ks_event *ev)
{
    return ev ? ks_event_log_text(log, ev->u.generic.fields_off) : NULL;
}

/* How many records of a and b are the same (typed: byte for byte; generic: context + texts). */
static inline uint32_t tt_same_records(const ks_event_log *a, const ks_event_log *b)
{
    const ks_event *x = ks_event_log_data(a), *y = ks_event_log_data(b);
    uint32_t same = 0;
    for (uint32_t i = 0; i < ks_event_log_count(a) && i < ks_event_log_count(b); i++) {
        if (x[i].type != KS_EV_GENERIC) {
            same += memcmp(&x[i], &y[i], sizeof x[i]) == 0;
            continue;
        }
        same += y[i].type == KS_EV_GENERIC && x[i].ts_ns == y[i].ts_ns && x[i].cpu == y[i].cpu &&
                x[i].pid == y[i].pid && x[i].tgid == y[i].tgid &&
                strcmp(x[i].comm, y[i].comm) == 0 &&
                strcmp(ks_event_log_text(a, x[i].u.generic.name_off),
                       ks_event_log_text(b, y[i].u.generic.name_off)) == 0 &&
                strcmp(tt_fields(a, &x[i]), tt_fields(b, &y[i])) == 0;
    }
    return same;
}

/* Records are in time order. */
static inline bool tt_time_ordered(const ks_event_log *log)
{
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 1; i < ks_event_log_count(log); i++)
        if (ev[i].ts_ns < ev[i - 1].ts_ns)
            return false;
    return true;
}

#endif
