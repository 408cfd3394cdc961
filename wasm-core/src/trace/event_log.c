/*
 * The event log: an append-only, contiguous array of ks_event records plus the
 * text arena that generic records point into. Both grow by doubling; readers
 * must re-fetch ks_event_log_data() after appending (it may move).
 */
#include <stdlib.h>
#include <string.h>

#include "kscope/event.h"

struct ks_event_log {
    ks_event *events;
    uint32_t count;
    uint32_t capacity;
    char *text;                 /* NUL-terminated strings, back to back */
    uint32_t text_len;
    uint32_t text_capacity;
};

static const char *const event_type_names[KS_EV_TYPE_COUNT] = {
    [KS_EV_GENERIC] = "generic",
    [KS_EV_SCHED_SWITCH] = "sched_switch",
    [KS_EV_SCHED_WAKING] = "sched_waking",
    [KS_EV_SCHED_WAKEUP] = "sched_wakeup",
    [KS_EV_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
    [KS_EV_SCHED_MIGRATE_TASK] = "sched_migrate_task",
    [KS_EV_SCHED_PROCESS_FORK] = "sched_process_fork",
    [KS_EV_SCHED_PROCESS_EXIT] = "sched_process_exit",
    [KS_EV_SCHED_PROCESS_FREE] = "sched_process_free",
    [KS_EV_RSEQ_UPDATE] = "rseq_update",
    [KS_EV_KMEM_CACHE_ALLOC] = "kmem_cache_alloc",
    [KS_EV_KMEM_CACHE_FREE] = "kmem_cache_free",
    [KS_EV_SHEAF_REFILL] = "sheaf_refill",
    [KS_EV_SHEAF_FLUSH] = "sheaf_flush",
    [KS_EV_BARN_GET] = "barn_get",
    [KS_EV_BARN_PUT] = "barn_put",
};

const char *ks_event_type_name(int32_t type)
{
    if (type < 0 || type >= KS_EV_TYPE_COUNT)
        return NULL;
    return event_type_names[type];
}

int32_t ks_event_type_from_name(const char *name)
{
    if (!name)
        return KS_EV_GENERIC;
    for (int32_t t = 1; t < KS_EV_TYPE_COUNT; t++)
        if (strcmp(event_type_names[t], name) == 0)
            return t;
    return KS_EV_GENERIC;
}

uint64_t ks_fnv1a64(const void *data, uint32_t len, uint64_t h)
{
    const uint8_t *p = data;
    for (uint32_t i = 0; p && i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int32_t ks_event_log_new(ks_event_log **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? KS_OK : KS_ERR_NO_MEMORY;
}

void ks_event_log_free(ks_event_log *log)
{
    if (!log)
        return;
    free(log->events);
    free(log->text);
    free(log);
}

/* Makes room for one more event. */
static int32_t reserve_event(ks_event_log *log)
{
    if (log->count < log->capacity)
        return KS_OK;
    uint32_t capacity = log->capacity ? log->capacity * 2 : 1024;
    ks_event *grown = realloc(log->events, (size_t)capacity * sizeof *grown);
    if (!grown)
        return KS_ERR_NO_MEMORY;
    log->events = grown;
    log->capacity = capacity;
    return KS_OK;
}

/* Copies a string into the arena; *offset receives where it starts. */
static int32_t intern_text(ks_event_log *log, const char *s, uint32_t *offset)
{
    uint32_t len = (uint32_t)strlen(s) + 1;
    if (log->text_len + len > log->text_capacity) {
        uint32_t capacity = log->text_capacity ? log->text_capacity : 4096;
        while (capacity < log->text_len + len)
            capacity *= 2;
        char *grown = realloc(log->text, capacity);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        log->text = grown;
        log->text_capacity = capacity;
    }
    memcpy(log->text + log->text_len, s, len);
    *offset = log->text_len;
    log->text_len += len;
    return KS_OK;
}

int32_t ks_event_log_append(ks_event_log *log, const ks_event *ev)
{
    if (!log || !ev || ev->type >= KS_EV_TYPE_COUNT)
        return KS_ERR_INVALID_ARG;
    int32_t status = reserve_event(log);
    if (status != KS_OK)
        return status;
    log->events[log->count++] = *ev;
    return KS_OK;
}

int32_t ks_event_log_append_many(ks_event_log *log, const ks_event *evs, uint32_t n)
{
    if (!log || (!evs && n))
        return KS_ERR_INVALID_ARG;
    for (uint32_t i = 0; i < n; i++)         /* all or nothing: check every record first */
        if (evs[i].type == KS_EV_GENERIC || evs[i].type >= KS_EV_TYPE_COUNT)
            return KS_ERR_INVALID_ARG;
    if (n > UINT32_MAX - log->count)
        return KS_ERR_RANGE;
    if (log->count + n > log->capacity) {
        uint32_t capacity = log->capacity ? log->capacity : 1024;
        while (capacity < log->count + n)
            capacity = capacity > UINT32_MAX / 2 ? log->count + n : capacity * 2;
        ks_event *grown = realloc(log->events, (size_t)capacity * sizeof *grown);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        log->events = grown;
        log->capacity = capacity;
    }
    if (n)
        memcpy(log->events + log->count, evs, (size_t)n * sizeof *evs);
    log->count += n;
    return KS_OK;
}

int32_t ks_event_log_append_generic(ks_event_log *log, uint64_t ts_ns, int32_t cpu,
                                    int32_t pid, int32_t tgid, const char *comm,
                                    const char *name, const char *fields)
{
    if (!log || !name)
        return KS_ERR_INVALID_ARG;
    ks_event ev = { .ts_ns = ts_ns, .type = KS_EV_GENERIC, .cpu = cpu, .pid = pid, .tgid = tgid };
    if (comm)
        strncpy(ev.comm, comm, KS_COMM_LEN - 1);
    return ks_event_log_append_generic_event(log, &ev, name, fields);
}

int32_t ks_event_log_append_generic_event(ks_event_log *log, const ks_event *from,
                                          const char *name, const char *fields)
{
    if (!log || !from || !name)
        return KS_ERR_INVALID_ARG;
    ks_event ev = *from;
    ev.type = KS_EV_GENERIC;
    memset(&ev.u, 0, sizeof ev.u);
    ev.comm[KS_COMM_LEN - 1] = '\0';
    uint32_t text_len_before = log->text_len;
    int32_t status = intern_text(log, name, &ev.u.generic.name_off);
    if (status == KS_OK)
        status = intern_text(log, fields ? fields : "", &ev.u.generic.fields_off);
    if (status == KS_OK)
        status = ks_event_log_append(log, &ev);
    if (status != KS_OK)
        log->text_len = text_len_before;    /* lose nothing half-written */
    return status;
}

void ks_event_log_clear(ks_event_log *log)
{
    if (log) {
        log->count = 0;
        log->text_len = 0;
    }
}

uint32_t ks_event_log_count(const ks_event_log *log)
{
    return log ? log->count : 0;
}

const ks_event *ks_event_log_data(const ks_event_log *log)
{
    return log ? log->events : NULL;
}

const char *ks_event_log_text(const ks_event_log *log, uint32_t offset)
{
    if (!log || offset >= log->text_len)
        return NULL;
    return log->text + offset;
}
