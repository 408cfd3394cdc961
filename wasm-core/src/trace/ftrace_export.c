/*
 * The ftrace exporter: ks_event records -> the text of a tracefs `trace` file,
 * byte for byte as a 6.18 kernel prints it with the nop tracer, so that a
 * simulated run opens in any ftrace tool (and in our own decoder).
 *
 * The header is print_trace_header()'s, in the variant the flags choose
 * (record-tgid and irq-info, each on or off; taken from this machine's 6.18):
 *
 *     # tracer: nop
 *     #
 *     # entries-in-buffer/entries-written: 825/825   #P:2
 *     #
 *     #                                          _-----=> irqs-off/BH-disabled
 *     ...
 *     #           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION
 *     #              | |           |       |   |||||     |         |
 *
 * Each line is trace_print_context()'s prefix, then "name: " and the
 * tracepoint's TP_printk text:
 *
 *     "%16s-%-7d "  "(%7d) " | "(-------) "  "[%03d] "  flags  " %5lu.%06lu"  ": "
 *
 * What the model does not have is printed as the kernel prints "nothing":
 * the irq-info flags as "....." (ks_event has no irq/preempt state), an
 * unknown tgid (<= 0) as "(-------)", an empty comm as "<...>".
 *
 * Per tracepoint (the 6.18 print fmts, from events/<sys>/<event>/format):
 *
 *     sched_switch        prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d
 *     sched_waking/wakeup/wakeup_new   comm=%s pid=%d prio=%d target_cpu=%03d
 *     sched_migrate_task  comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d
 *     sched_process_fork  comm=%s pid=%d child_comm=%s child_pid=%d
 *     sched_process_exit  comm=%s pid=%d prio=%d group_dead=%s   (group_dead since 6.16;
 *     sched_process_free  comm=%s pid=%d prio=%d                  left out when -1, as
 *     rseq_update         cpu_id=%d node_id=%d mm_cid=%d           older kernels print it)
 *     kmem_cache_alloc    call_site=%pS ptr=%p name=%s bytes_req=%zu bytes_alloc=%zu gfp_flags=%s node=%d accounted=%s
 *     kmem_cache_free     call_site=%pS ptr=%p name=%s
 *                         (call_site as "0x<addr>", what %pS prints without a symbol; a
 *                         symbol the record lost prints as 0x0; accounted left out when -1)
 *     sheaf_refill/sheaf_flush/barn_get/barn_put   kscope's own (no kernel tracepoint):
 *                         name=%s node=%d objects=%u size=%u capacity=%u full=%d barn_full=%u barn_empty=%u
 *     any other event     <name>: <fields as recorded>
 *
 * prev_state prints as the kernel's __print_flags: the letters of its set
 * bits in table order joined by '|', "R" when none, then "+" for
 * KS_PREV_STATE_PREEMPTED. A value with bits the table lacks (old kernels'
 * 4096, say) prints as its number, as trace-cmd does, so nothing is lost.
 *
 * Time: " %5lu.%06lu" after rounding ns to the nearest us, as the kernel does;
 * with KS_FTRACE_NSEC " %5lu.%09lu". ks_ftrace_exporter_new() sets NSEC when
 * any record is not a whole microsecond, so export and decode round-trip.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace_text_tokenizer.h"
#include "gfp_flags.h"
#include "kscope/native/ftrace_export.h"

/* ---- a bounded text writer that still counts what did not fit ----------------- */

typedef struct text_writer {
    char *buf;
    int32_t cap;
    int32_t len;                /* bytes the text needs, even past cap */
} text_writer;

static void put(text_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text_writer *w, const char *fmt, ...)
{
    int32_t room = w->len < w->cap ? w->cap - w->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room ? w->buf + w->len : NULL, (size_t)room, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->len += n;
}

/* KS_OK if the text and its NUL fit; else KS_ERR_RANGE. *written = the text's length. */
static int32_t finish(const text_writer *w, int32_t *written)
{
    *written = w->len;
    return w->len < w->cap ? KS_OK : KS_ERR_RANGE;
}

/* ---- header ---------------------------------------------------------------------- */

/* The column legend, one per (record-tgid, irq-info) variant, as 6.18 prints it. */
static const char *column_legend(uint32_t flags)
{
    switch (flags & (KS_FTRACE_TGID | KS_FTRACE_IRQ_INFO)) {
    case 0:
        return "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
               "#              | |         |         |         |\n";
    case KS_FTRACE_IRQ_INFO:
        return "#                                _-----=> irqs-off/BH-disabled\n"
               "#                               / _----=> need-resched\n"
               "#                              | / _---=> hardirq/softirq\n"
               "#                              || / _--=> preempt-depth\n"
               "#                              ||| / _-=> migrate-disable\n"
               "#                              |||| /     delay\n"
               "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
               "#              | |         |   |||||     |         |\n";
    case KS_FTRACE_TGID:
        return "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION\n"
               "#              | |           |       |         |         |\n";
    default:
        return "#                                          _-----=> irqs-off/BH-disabled\n"
               "#                                         / _----=> need-resched\n"
               "#                                        | / _---=> hardirq/softirq\n"
               "#                                        || / _--=> preempt-depth\n"
               "#                                        ||| / _-=> migrate-disable\n"
               "#                                        |||| /     delay\n"
               "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
               "#              | |           |       |   |||||     |         |\n";
    }
}

int32_t ks_ftrace_format_header(uint32_t nr_events, int32_t nr_cpus, uint32_t flags, char *buf,
                                int32_t cap, int32_t *written)
{
    if (!written || cap < 0 || (!buf && cap > 0))
        return KS_ERR_INVALID_ARG;
    text_writer w = { buf, cap, 0 };
    put(&w, "# tracer: nop\n#\n");
    put(&w, "# entries-in-buffer/entries-written: %" PRIu32 "/%" PRIu32 "   #P:%" PRId32 "\n#\n",
        nr_events, nr_events, nr_cpus);
    put(&w, "%s", column_legend(flags));
    return finish(&w, written);
}

/* ---- one event -------------------------------------------------------------------- */

/* Length of a comm field (char[16], NUL-padded, maybe not NUL-terminated). */
static int comm_len(const char *comm)
{
    int n = 0;
    while (n < KS_COMM_LEN && comm[n])
        n++;
    return n;
}

/* A comm field as "%.*s" arguments. */
#define COMM(c) comm_len(c), (c)

static void put_context(text_writer *w, const ks_event *ev, uint32_t flags)
{
    if (ev->comm[0])
        put(w, "%16.*s-%-7" PRId32 " ", COMM(ev->comm), ev->pid);
    else
        put(w, "%16s-%-7" PRId32 " ", "<...>", ev->pid);
    if (flags & KS_FTRACE_TGID) {
        if (ev->tgid > 0)
            put(w, "(%7" PRId32 ") ", ev->tgid);
        else
            put(w, "(-------) ");
    }
    put(w, "[%03" PRId32 "] ", ev->cpu);
    if (flags & KS_FTRACE_IRQ_INFO)
        put(w, ".....");
    if (flags & KS_FTRACE_NSEC) {
        put(w, " %5" PRIu64 ".%09" PRIu64 ": ", ev->ts_ns / 1000000000u, ev->ts_ns % 1000000000u);
    } else {
        uint64_t us = (ev->ts_ns + 500) / 1000;     /* ns2usecs(): round to nearest */
        put(w, " %5" PRIu64 ".%06" PRIu64 ": ", us / 1000000u, us % 1000000u);
    }
}

/* prev_state as __print_flags prints it ("S", "S|D", "R", "R+"), or its number. */
static void put_prev_state(text_writer *w, int64_t state)
{
    const int64_t printable = KS_PREV_STATE_PREEMPTED | (KS_PREV_STATE_PREEMPTED - 1);
    if (state < 0 || (state & ~printable)) {
        put(w, "%" PRId64, state);
        return;
    }
    const char *sep = "";
    int64_t bit;
    char letter;
    for (int32_t i = 0; (letter = ft_prev_state_letter(i, &bit)) != 0; i++)
        if (state & bit) {
            put(w, "%s%c", sep, letter);
            sep = "|";
        }
    if (!*sep)
        put(w, "R");
    if (state & KS_PREV_STATE_PREEMPTED)
        put(w, "+");
}

/* A kmem_cache name: at most KS_KMEM_NAME_LEN-1 bytes, NUL-terminated. */
static int name_len(const char *name)
{
    const char *nul = memchr(name, '\0', KS_KMEM_NAME_LEN - 1);
    return nul ? (int)(nul - name) : KS_KMEM_NAME_LEN - 1;
}
#define NAME(name) name_len(name), name

/* kmem_cache_alloc/free as the kernel prints them. call_site: the address (%pS prints
 * "0x..." when it knows no symbol); a symbol the decoder could not keep prints as
 * "0x0" (event.h). ptr: %p's 16 hex digits. gfp_flags: the kernel's flag names. */
static void put_kmem_cache(text_writer *w, const ks_event *ev)
{
    const ks_ev_kmem_cache *e = &ev->u.kmem_cache;
    put(w, "call_site=0x%" PRIx64 " ptr=%016" PRIx64 " name=%.*s", e->call_site, e->ptr,
        NAME(e->name));
    if (ev->type != KS_EV_KMEM_CACHE_ALLOC)
        return;
    char gfp[256];
    gfp_flags_format(e->gfp_flags, gfp, (int32_t)sizeof gfp);
    put(w, " bytes_req=%" PRIu32 " bytes_alloc=%" PRIu32 " gfp_flags=%s node=%d", e->bytes_req,
        e->bytes_alloc, gfp, (int)e->node);
    if (e->accounted >= 0)
        put(w, " accounted=%s", e->accounted ? "true" : "false");
}

/* The tracepoint's TP_printk text; false if a generic record's text is missing. */
static bool put_fields(text_writer *w, const ks_event *ev, const ks_event_log *text_log)
{
    const char *name = ks_event_type_name((int32_t)ev->type);
    if (ev->type == KS_EV_GENERIC) {
        name = ks_event_log_text(text_log, ev->u.generic.name_off);
        const char *fields = ks_event_log_text(text_log, ev->u.generic.fields_off);
        if (!name || !fields)
            return false;
        put(w, "%s: %s", name, fields);
        return true;
    }
    put(w, "%s: ", name);
    switch (ev->type) {
    case KS_EV_SCHED_SWITCH: {
        const ks_ev_sched_switch *e = &ev->u.sched_switch;
        put(w, "prev_comm=%.*s prev_pid=%" PRId32 " prev_prio=%" PRId32 " prev_state=",
            COMM(e->prev_comm), e->prev_pid, e->prev_prio);
        put_prev_state(w, e->prev_state);
        put(w, " ==> next_comm=%.*s next_pid=%" PRId32 " next_prio=%" PRId32,
            COMM(e->next_comm), e->next_pid, e->next_prio);
        break;
    }
    case KS_EV_SCHED_WAKING:
    case KS_EV_SCHED_WAKEUP:
    case KS_EV_SCHED_WAKEUP_NEW: {
        const ks_ev_sched_wakeup *e = &ev->u.sched_wakeup;
        put(w, "comm=%.*s pid=%" PRId32 " prio=%" PRId32 " target_cpu=%03" PRId32,
            COMM(e->comm), e->pid, e->prio, e->target_cpu);
        break;
    }
    case KS_EV_SCHED_MIGRATE_TASK: {
        const ks_ev_sched_migrate_task *e = &ev->u.sched_migrate_task;
        put(w, "comm=%.*s pid=%" PRId32 " prio=%" PRId32 " orig_cpu=%" PRId32 " dest_cpu=%" PRId32,
            COMM(e->comm), e->pid, e->prio, e->orig_cpu, e->dest_cpu);
        break;
    }
    case KS_EV_SCHED_PROCESS_FORK: {
        const ks_ev_sched_process_fork *e = &ev->u.sched_process_fork;
        put(w, "comm=%.*s pid=%" PRId32 " child_comm=%.*s child_pid=%" PRId32,
            COMM(e->parent_comm), e->parent_pid, COMM(e->child_comm), e->child_pid);
        break;
    }
    case KS_EV_SCHED_PROCESS_EXIT:
    case KS_EV_SCHED_PROCESS_FREE: {
        const ks_ev_sched_process_exit *e = &ev->u.sched_process_exit;
        put(w, "comm=%.*s pid=%" PRId32 " prio=%" PRId32, COMM(e->comm), e->pid, e->prio);
        if (ev->type == KS_EV_SCHED_PROCESS_EXIT && e->group_dead >= 0)
            put(w, " group_dead=%s", e->group_dead ? "true" : "false");
        break;
    }
    case KS_EV_KMEM_CACHE_ALLOC:
    case KS_EV_KMEM_CACHE_FREE:
        put_kmem_cache(w, ev);
        break;
    case KS_EV_SHEAF_REFILL:
    case KS_EV_SHEAF_FLUSH:
    case KS_EV_BARN_GET:
    case KS_EV_BARN_PUT: {
        const ks_ev_sheaf *e = &ev->u.sheaf;
        put(w, "name=%.*s node=%" PRId32 " objects=%" PRIu32 " size=%" PRIu32 " capacity=%" PRIu32
            " full=%" PRId32 " barn_full=%" PRIu32 " barn_empty=%" PRIu32,
            NAME(e->name), e->node, e->objects, e->size, e->capacity, e->full, e->barn_full,
            e->barn_empty);
        break;
    }
    default: {
        const ks_ev_rseq_update *e = &ev->u.rseq_update;
        put(w, "cpu_id=%" PRId32 " node_id=%" PRId32 " mm_cid=%" PRId32,
            e->cpu_id, e->node_id, e->mm_cid);
        break;
    }
    }
    return true;
}

int32_t ks_ftrace_format_event(const ks_event *ev, const ks_event_log *text_log, uint32_t flags,
                               char *buf, int32_t cap, int32_t *written)
{
    if (!ev || !written || cap < 0 || (!buf && cap > 0) || ev->type >= KS_EV_TYPE_COUNT)
        return KS_ERR_INVALID_ARG;
    text_writer w = { buf, cap, 0 };
    put_context(&w, ev, flags);
    if (!put_fields(&w, ev, text_log))
        return KS_ERR_INVALID_ARG;
    put(&w, "\n");
    return finish(&w, written);
}

/* ---- a whole log, pulled in pieces ------------------------------------------------ */

struct ks_ftrace_exporter {
    const ks_event_log *log;
    uint32_t nr_events;         /* the log's count at _new */
    uint32_t next_event;        /* the next record to format */
    int32_t nr_cpus;
    uint32_t flags;
    int header_done;
    char *line;                 /* the current line (header: the whole header) */
    int32_t line_cap;
    int32_t line_len;
    int32_t line_pos;           /* bytes of it already handed out */
};

/* Sub-microsecond times need nine digits; the CPU count defaults to the highest cpu + 1. */
static void scan_log(const ks_event_log *log, uint32_t count, int32_t *nr_cpus, uint32_t *flags)
{
    const ks_event *evs = ks_event_log_data(log);
    int32_t max_cpu = -1;
    for (uint32_t i = 0; i < count; i++) {
        if (evs[i].ts_ns % 1000 != 0)
            *flags |= KS_FTRACE_NSEC;
        if (evs[i].cpu > max_cpu)
            max_cpu = evs[i].cpu;
    }
    if (*nr_cpus <= 0)
        *nr_cpus = max_cpu + 1 > 0 ? max_cpu + 1 : 1;
}

int32_t ks_ftrace_exporter_new(const ks_event_log *log, int32_t nr_cpus, uint32_t flags,
                               ks_ftrace_exporter **out)
{
    if (!log || !out)
        return KS_ERR_INVALID_ARG;
    ks_ftrace_exporter *x = calloc(1, sizeof *x);
    if (!x)
        return KS_ERR_NO_MEMORY;
    x->log = log;
    x->nr_events = ks_event_log_count(log);
    x->nr_cpus = nr_cpus;
    x->flags = flags;
    scan_log(log, x->nr_events, &x->nr_cpus, &x->flags);
    *out = x;
    return KS_OK;
}

void ks_ftrace_exporter_free(ks_ftrace_exporter *x)
{
    if (!x)
        return;
    free(x->line);
    free(x);
}

uint32_t ks_ftrace_exporter_flags(const ks_ftrace_exporter *x)
{
    return x ? x->flags : 0;
}

/* Formats the next line (the header first) into x->line; *more is false at the end. */
static int32_t format_next(ks_ftrace_exporter *x, bool *more)
{
    *more = x->header_done == 0 || x->next_event < x->nr_events;
    if (!*more)
        return KS_OK;
    for (;;) {
        int32_t status, need;
        if (!x->header_done)
            status = ks_ftrace_format_header(x->nr_events, x->nr_cpus, x->flags, x->line,
                                             x->line_cap, &need);
        else
            status = ks_ftrace_format_event(ks_event_log_data(x->log) + x->next_event, x->log,
                                            x->flags, x->line, x->line_cap, &need);
        if (status == KS_OK) {
            x->line_len = need;
            x->line_pos = 0;
            if (x->header_done)
                x->next_event++;
            x->header_done = 1;
            return KS_OK;
        }
        if (status != KS_ERR_RANGE)
            return status;
        char *grown = realloc(x->line, (size_t)need + 1);    /* grow to fit, then retry */
        if (!grown)
            return KS_ERR_NO_MEMORY;
        x->line = grown;
        x->line_cap = need + 1;
    }
}

int32_t ks_ftrace_exporter_read(ks_ftrace_exporter *x, char *buf, int32_t cap, int32_t *written)
{
    if (!x || !written || cap <= 0 || !buf)
        return KS_ERR_INVALID_ARG;
    *written = 0;
    while (*written < cap) {
        if (x->line_pos == x->line_len) {
            bool more;
            int32_t status = format_next(x, &more);
            if (status != KS_OK)
                return status;
            if (!more)
                break;
        }
        int32_t n = x->line_len - x->line_pos;
        if (n > cap - *written)
            n = cap - *written;
        memcpy(buf + *written, x->line + x->line_pos, (size_t)n);
        x->line_pos += n;
        *written += n;
    }
    return KS_OK;
}
