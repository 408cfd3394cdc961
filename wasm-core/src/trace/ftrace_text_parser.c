/*
 * The ftrace text parser and the streaming decoder: tokenized lines -> ks_event
 * records -> the sink (a ks_event_log).
 *
 * A line is one of:
 *
 *     # tracer: nop                                      tracefs header / comment
 *     # entries-in-buffer/entries-written: 825/825   #P:2   (#P: the CPU count)
 *     version = 6                                        trace-cmd report header
 *     cpus=6                                             (the CPU count)
 *     CPU 3 is empty                                     trace-cmd, per empty CPU
 *     CPU:1 [LOST 213 EVENTS]                            ring buffer overrun
 *     <blank>
 *     <comm>-<pid> [(<tgid>)] [<cpu>] [<flags>] <sec.usec>: <event>: <fields>
 *
 * An event line becomes a typed record when its event is one event.h models
 * (the table below gives each one's TP_printk field list), else a generic one
 * (name + field text, nothing lost). Typed fields are matched by key, in the
 * kernel's order, so the extra keys other kernels print are read past: old
 * sched_wakeup's "success=1", 6.16+ sched_process_exit's "group_dead=true",
 * sched_switch's "==>" (which trace-cmd leaves out). A comm value may hold
 * blanks ("comm=my load-x pid=..."): it runs up to " <next key>=", and so does
 * kmem's call_site ("sym+0x1/0x2 [module]"). A kmem line whose cache name is longer
 * than a record holds (23 bytes) or whose gfp_flags has a name the table lacks is
 * counted malformed and kept generic, whole.
 *
 * Malformed input never stops the decoder: the line is counted, the first one
 * is described (line, column, field, message) in the stats, and decoding goes
 * on. An event line whose prefix reads but whose typed fields do not is kept
 * as a generic record, so the views still show that something happened there.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_common.h"
#include "ftrace_text_tokenizer.h"
#include "gfp_flags.h"
#include "kscope/trace_detect.h"

/* ---- typed tracepoints: field lists ---------------------------------------------- */

typedef enum field_kind {
    FK_COMM, FK_INT, FK_STATE, FK_BOOL,
    FK_CALL_SITE,       /* %pS: "0xffff..." -> u64, or "sym+0x1/0x2 [mod]" -> 0 and the flag */
    FK_HEX64,           /* %p: hex digits, with or without 0x -> u64 */
    FK_U32,             /* %zu, %u -> u32 */
    FK_I16,             /* %d of a NUMA node -> i16 */
    FK_BOOL8,           /* "true"/"false" -> i8 */
    FK_GFP,             /* "GFP_KERNEL|__GFP_ZERO" -> u32 bits (gfp_flags.c) */
    FK_NAME24,          /* a kmem_cache's name -> char[KS_KMEM_NAME_LEN]; longer: not read */
} field_kind;

typedef struct field_spec {
    const char *key;
    uint8_t key_len;            /* strlen(key), so matching a key never measures it */
    uint8_t kind;               /* field_kind */
    uint8_t optional;           /* absent on some kernels: -1 then */
    uint16_t offset;            /* into ks_event */
} field_spec;

#define FIELD(key, kind, optional, member) \
    { key, sizeof key - 1, kind, optional, offsetof(ks_event, u.member) }

/* "sched_switch: prev_comm=my load-x prev_pid=28498 prev_prio=120 prev_state=S ==> next_comm=my load-x next_pid=28500 next_prio=120"
 * "sched_switch:          prev_comm=sh prev_pid=1642 prev_prio=120 prev_state=4096 next_comm=kworker/u12:1 next_pid=46 next_prio=120"   (trace-cmd, 4.19) */
static const field_spec switch_fields[] = {
    FIELD("prev_comm", FK_COMM, 0, sched_switch.prev_comm),
    FIELD("prev_pid", FK_INT, 0, sched_switch.prev_pid),
    FIELD("prev_prio", FK_INT, 0, sched_switch.prev_prio),
    FIELD("prev_state", FK_STATE, 0, sched_switch.prev_state),
    FIELD("next_comm", FK_COMM, 0, sched_switch.next_comm),
    FIELD("next_pid", FK_INT, 0, sched_switch.next_pid),
    FIELD("next_prio", FK_INT, 0, sched_switch.next_prio),
};

/* "sched_wakeup: comm=my load-x pid=28498 prio=120 target_cpu=001"          (also waking, wakeup_new)
 * "sched_wakeup:          comm=sh pid=1642 prio=120 success=1 target_cpu=2"   (trace-cmd, 4.19) */
static const field_spec wakeup_fields[] = {
    FIELD("comm", FK_COMM, 0, sched_wakeup.comm),
    FIELD("pid", FK_INT, 0, sched_wakeup.pid),
    FIELD("prio", FK_INT, 0, sched_wakeup.prio),
    FIELD("target_cpu", FK_INT, 0, sched_wakeup.target_cpu),
};

/* "sched_migrate_task: comm=bash pid=28486 prio=120 orig_cpu=1 dest_cpu=0" */
static const field_spec migrate_fields[] = {
    FIELD("comm", FK_COMM, 0, sched_migrate_task.comm),
    FIELD("pid", FK_INT, 0, sched_migrate_task.pid),
    FIELD("prio", FK_INT, 0, sched_migrate_task.prio),
    FIELD("orig_cpu", FK_INT, 0, sched_migrate_task.orig_cpu),
    FIELD("dest_cpu", FK_INT, 0, sched_migrate_task.dest_cpu),
};

/* "sched_process_fork: comm=my load-x pid=28497 child_comm=my load-x child_pid=28498" */
static const field_spec fork_fields[] = {
    FIELD("comm", FK_COMM, 0, sched_process_fork.parent_comm),
    FIELD("pid", FK_INT, 0, sched_process_fork.parent_pid),
    FIELD("child_comm", FK_COMM, 0, sched_process_fork.child_comm),
    FIELD("child_pid", FK_INT, 0, sched_process_fork.child_pid),
};

/* "sched_process_exit: comm=my load-x pid=28518 prio=120 group_dead=true"   (6.16+)
 * "sched_process_free: comm=my load-x pid=28518 prio=120"                    (group_dead -1) */
static const field_spec exit_fields[] = {
    FIELD("comm", FK_COMM, 0, sched_process_exit.comm),
    FIELD("pid", FK_INT, 0, sched_process_exit.pid),
    FIELD("prio", FK_INT, 0, sched_process_exit.prio),
    FIELD("group_dead", FK_BOOL, 1, sched_process_exit.group_dead),
};

/* "rseq_update: cpu_id=0 node_id=0 mm_cid=1"   (node_id, mm_cid since Linux 6.3) */
static const field_spec rseq_fields[] = {
    FIELD("cpu_id", FK_INT, 0, rseq_update.cpu_id),
    FIELD("node_id", FK_INT, 1, rseq_update.node_id),
    FIELD("mm_cid", FK_INT, 1, rseq_update.mm_cid),
};

/* "kmem_cache_alloc: call_site=getname_flags.part.0+0x24/0x1f0 ptr=0000000053ba86ff name=names_cache bytes_req=4096 bytes_alloc=4096 gfp_flags=GFP_KERNEL node=-1 accounted=false"
 * "kmem_cache_free: call_site=__fput+0x141/0x2a0 ptr=000000008597ada8 name=lsm_file_cache"   (recorded on Linux 6.18) */
static const field_spec kmem_alloc_fields[] = {
    FIELD("call_site", FK_CALL_SITE, 0, kmem_cache.call_site),
    FIELD("ptr", FK_HEX64, 0, kmem_cache.ptr),
    FIELD("name", FK_NAME24, 0, kmem_cache.name),
    FIELD("bytes_req", FK_U32, 0, kmem_cache.bytes_req),
    FIELD("bytes_alloc", FK_U32, 0, kmem_cache.bytes_alloc),
    FIELD("gfp_flags", FK_GFP, 0, kmem_cache.gfp_flags),
    FIELD("node", FK_I16, 0, kmem_cache.node),
    FIELD("accounted", FK_BOOL8, 1, kmem_cache.accounted),
};

static const field_spec kmem_free_fields[] = {
    FIELD("call_site", FK_CALL_SITE, 0, kmem_cache.call_site),
    FIELD("ptr", FK_HEX64, 0, kmem_cache.ptr),
    FIELD("name", FK_NAME24, 0, kmem_cache.name),
};

/* kscope's sheaf events (event.h; no kernel tracepoint): what ftrace_export.c writes.
 * "sheaf_refill: name=kmalloc-64 node=0 objects=32 size=32 capacity=32 full=-1 barn_full=2 barn_empty=1" */
static const field_spec sheaf_fields[] = {
    FIELD("name", FK_NAME24, 0, sheaf.name),
    FIELD("node", FK_INT, 0, sheaf.node),
    FIELD("objects", FK_U32, 0, sheaf.objects),
    FIELD("size", FK_U32, 0, sheaf.size),
    FIELD("capacity", FK_U32, 0, sheaf.capacity),
    FIELD("full", FK_INT, 0, sheaf.full),
    FIELD("barn_full", FK_U32, 0, sheaf.barn_full),
    FIELD("barn_empty", FK_U32, 0, sheaf.barn_empty),
};

typedef struct tracepoint_fields {
    const field_spec *fields;
    int32_t count;
} tracepoint_fields;

#define FIELDS(list) { list, (int32_t)(sizeof list / sizeof list[0]) }

static tracepoint_fields fields_of(int32_t type)
{
    switch (type) {
    case KS_EV_SCHED_SWITCH: return (tracepoint_fields)FIELDS(switch_fields);
    case KS_EV_SCHED_WAKING:
    case KS_EV_SCHED_WAKEUP:
    case KS_EV_SCHED_WAKEUP_NEW: return (tracepoint_fields)FIELDS(wakeup_fields);
    case KS_EV_SCHED_MIGRATE_TASK: return (tracepoint_fields)FIELDS(migrate_fields);
    case KS_EV_SCHED_PROCESS_FORK: return (tracepoint_fields)FIELDS(fork_fields);
    case KS_EV_SCHED_PROCESS_EXIT:
    case KS_EV_SCHED_PROCESS_FREE: return (tracepoint_fields)FIELDS(exit_fields);
    case KS_EV_RSEQ_UPDATE: return (tracepoint_fields)FIELDS(rseq_fields);
    case KS_EV_KMEM_CACHE_ALLOC: return (tracepoint_fields)FIELDS(kmem_alloc_fields);
    case KS_EV_KMEM_CACHE_FREE: return (tracepoint_fields)FIELDS(kmem_free_fields);
    case KS_EV_SHEAF_REFILL:
    case KS_EV_SHEAF_FLUSH:
    case KS_EV_BARN_GET:
    case KS_EV_BARN_PUT: return (tracepoint_fields)FIELDS(sheaf_fields);
    default: return (tracepoint_fields){ NULL, 0 };
    }
}

/* ---- typed tracepoints: reading the fields --------------------------------------- */

/* Skips blanks and sched_switch's "==>" arrow. */
static text_span skip_separators(text_span s)
{
    s = ft_skip_blanks(s);
    if (span_cut_prefix(&s, "==>"))
        s = ft_skip_blanks(s);
    return s;
}

/* If s starts with the spec's "key=", drops it from *s and returns true. */
static bool cut_spec_key(text_span *s, const field_spec *spec)
{
    int32_t n = spec->key_len;
    if (s->len <= n || s->at[n] != '=' || memcmp(s->at, spec->key, (size_t)n) != 0)
        return false;
    s->at += n + 1;
    s->len -= n + 1;
    return true;
}

/* Moves *rest to the spec's "key=", reading past keys this model does not keep
 * ("success=1"). False if it is not there. */
static bool seek_key(text_span *rest, const field_spec *spec)
{
    for (;;) {
        *rest = skip_separators(*rest);
        if (cut_spec_key(rest, spec))
            return true;
        if (ft_key_len(*rest) == 0)
            return false;
        text_span extra = ft_word(*rest);        /* another key's "key=value" */
        rest->at += extra.len;
        rest->len -= extra.len;
    }
}

/* Offset of the first " key=" of the spec in s (the blank's offset), or -1. */
static int32_t find_spec_key(text_span s, const field_spec *spec)
{
    const char *at = s.at, *end = s.at + s.len;
    while ((at = memchr(at, ' ', (size_t)(end - at))) != NULL) {
        text_span after = { at + 1, (int32_t)(end - at - 1) };
        if (cut_spec_key(&after, spec))
            return (int32_t)(at - s.at);
        at++;
    }
    return -1;
}

/* The value after "key=": a comm runs up to " <next key>=", anything else to a blank. */
static text_span take_value(text_span *rest, const field_spec *spec, const field_spec *next)
{
    int32_t n = ft_word(*rest).len;
    if (spec->kind == FK_COMM || spec->kind == FK_CALL_SITE) {   /* "sym+0x1/0x2 [mod]" */
        int32_t at = next ? find_spec_key(*rest, next) : -1;
        n = at >= 0 ? at : rest->len;
    }
    text_span value = { rest->at, n };
    rest->at += n;
    rest->len -= n;
    return value;
}

/* "true"/"false" (as %s of a bool prints) -> 1/0. */
static bool parse_bool(text_span value, int32_t *out)
{
    if (value.len == 4 && memcmp(value.at, "true", 4) == 0)
        *out = 1;
    else if (value.len == 5 && memcmp(value.at, "false", 5) == 0)
        *out = 0;
    else
        return false;
    return true;
}

/* Hex digits, with or without "0x" (%p prints 16 digits without) -> u64. */
static bool parse_hex64(text_span s, uint64_t *out)
{
    if (!span_cut_prefix(&s, "0x"))
        span_cut_prefix(&s, "0X");
    if (s.len == 0 || s.len > 16)
        return false;
    uint64_t v = 0;
    for (int32_t i = 0; i < s.len; i++) {
        char c = s.at[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

/* %pS: an address ("0xffffffffc0a01234", printed when no symbol is known) is kept; a
 * symbol ("__fput+0x141/0x2a0", "ext4_alloc_inode+0x1a/0x120 [ext4]") reads as 0 with
 * call_site_symbolic set (event.h: the payload has no room for the text). */
static bool store_call_site(ks_event *ev, text_span value)
{
    uint64_t v = 0;
    if (value.len > 2 && value.at[0] == '0' && value.at[1] == 'x' && parse_hex64(value, &v)) {
        ev->u.kmem_cache.call_site = v;
        ev->u.kmem_cache.call_site_symbolic = 0;
        return true;
    }
    if (value.len == 0)
        return false;
    ev->u.kmem_cache.call_site = 0;
    ev->u.kmem_cache.call_site_symbolic = 1;
    return true;
}

static bool store_value(ks_event *ev, const field_spec *spec, text_span value)
{
    char *at = (char *)ev + spec->offset;
    int32_t i;
    int64_t state;
    uint64_t u64;
    switch (spec->kind) {
    case FK_CALL_SITE:
        return store_call_site(ev, value);
    case FK_HEX64:
        if (!parse_hex64(value, &u64))
            return false;
        memcpy(at, &u64, sizeof u64);
        return true;
    case FK_U32: {
        int64_t v;
        if (!ft_parse_int64(value, &v) || v < 0 || v > (int64_t)UINT32_MAX)
            return false;
        uint32_t v32 = (uint32_t)v;
        memcpy(at, &v32, sizeof v32);
        return true;
    }
    case FK_I16: {
        if (!parse_int(value, &i) || i < INT16_MIN || i > INT16_MAX)
            return false;
        int16_t v16 = (int16_t)i;
        memcpy(at, &v16, sizeof v16);
        return true;
    }
    case FK_BOOL8:
        if (!parse_bool(value, &i))
            return false;
        *(int8_t *)at = (int8_t)i;
        return true;
    case FK_GFP: {
        uint32_t bits;
        if (!gfp_flags_parse(value, &bits))
            return false;
        memcpy(at, &bits, sizeof bits);
        return true;
    }
    case FK_NAME24:
        if (value.len == 0 || value.len >= KS_KMEM_NAME_LEN || memchr(value.at, '\0', (size_t)value.len))
            return false;
        memset(at, 0, KS_KMEM_NAME_LEN);
        memcpy(at, value.at, (size_t)value.len);
        return true;
    case FK_COMM:
        ft_copy_comm(at, value);
        return true;
    case FK_INT:
        if (!parse_int(value, &i))
            return false;
        memcpy(at, &i, sizeof i);
        return true;
    case FK_BOOL:
        if (!parse_bool(value, &i))
            return false;
        memcpy(at, &i, sizeof i);
        return true;
    default:
        if (!ft_parse_prev_state(value, &state))
            return false;
        memcpy(at, &state, sizeof state);
        return true;
    }
}

/* Fills ev's payload from "key=value ..." text; false with *err on the first bad field. */
static bool parse_fields(text_span payload, tracepoint_fields tp, ks_event *ev,
                         ft_token_error *err)
{
    text_span rest = payload;
    for (int32_t i = 0; i < tp.count; i++) {
        const field_spec *spec = &tp.fields[i];
        text_span at = rest;
        if (!seek_key(&rest, spec)) {
            if (spec->optional) {
                int32_t absent = -1;
                memcpy((char *)ev + spec->offset, &absent,
                       spec->kind == FK_BOOL8 ? 1 : spec->kind == FK_I16 ? 2 : sizeof absent);
                rest = at;
                continue;
            }
            char got[41];
            ft_quote(ft_word(skip_separators(at)), got, sizeof got);
            err->column = (int32_t)(skip_separators(at).at - payload.at);
            err->field = spec->key;
            snprintf(err->message, sizeof err->message, "expected '%s=', got '%s'", spec->key,
                     got[0] ? got : "end of line");
            return false;
        }
        text_span value = take_value(&rest, spec, i + 1 < tp.count ? &tp.fields[i + 1] : NULL);
        if (!store_value(ev, spec, value)) {
            char got[41];
            ft_quote(value, got, sizeof got);
            err->column = (int32_t)(value.at - payload.at);
            err->field = spec->key;
            snprintf(err->message, sizeof err->message, "expected %s, got '%s'",
                     spec->kind == FK_STATE ? "a task state like 'S' or 'R+'"
                     : spec->kind == FK_BOOL || spec->kind == FK_BOOL8 ? "true or false"
                     : spec->kind == FK_HEX64 ? "a hex pointer"
                     : spec->kind == FK_CALL_SITE ? "an address or symbol"
                     : spec->kind == FK_GFP ? "gfp flags like 'GFP_KERNEL|__GFP_ZERO'"
                     : spec->kind == FK_NAME24 ? "a cache name of 1..23 bytes" : "a number", got);
            return false;
        }
    }
    for (rest = skip_separators(rest); rest.len > 0; rest = skip_separators(rest)) {
        if (ft_key_len(rest) == 0) {              /* trailing keys are read past, text is not */
            char got[41];
            ft_quote(ft_word(rest), got, sizeof got);
            err->column = (int32_t)(rest.at - payload.at);
            err->field = "fields";
            snprintf(err->message, sizeof err->message, "expected 'key=value', got '%s'", got);
            return false;
        }
        text_span extra = ft_word(rest);
        rest.at += extra.len;
        rest.len -= extra.len;
    }
    return true;
}

/* What a tracepoint does not print reads as event.h says: kmem_cache_free has no node
 * or accounted (-1 both). */
static void preset_payload(ks_event *ev)
{
    if (ev->type == KS_EV_KMEM_CACHE_ALLOC || ev->type == KS_EV_KMEM_CACHE_FREE) {
        ev->u.kmem_cache.node = -1;
        ev->u.kmem_cache.accounted = -1;
    }
}

/* trace-cmd report's kmem plugin puts the caller first: "kmem_cache_alloc:     (getname_flags.part.0+0x24) call_site=..."
 * (the same call_site the fields name); read past it. */
static text_span skip_caller_prefix(text_span payload, int32_t type)
{
    if (type != KS_EV_KMEM_CACHE_ALLOC && type != KS_EV_KMEM_CACHE_FREE)
        return payload;
    text_span s = ft_skip_blanks(payload);
    if (s.len < 2 || s.at[0] != '(')
        return payload;
    const char *close = memchr(s.at, ')', (size_t)s.len);
    if (!close)
        return payload;
    s.len -= (int32_t)(close + 1 - s.at);
    s.at = close + 1;
    return s;
}

bool ft_parse_tracepoint(text_span payload, ks_event *ev, ft_token_error *err)
{
    tracepoint_fields tp = fields_of((int32_t)ev->type);
    preset_payload(ev);
    payload = skip_caller_prefix(payload, (int32_t)ev->type);
    return tp.count > 0 && parse_fields(payload, tp, ev, err);
}

/* ---- the decoder ------------------------------------------------------------------ */

struct ks_ftrace_decoder {
    line_stream in;             /* its scratch: "name\0fields\0" of a generic record */
    ks_ftrace_stats stats;
};

/* Counts a malformed line; the first one is described in the stats. */
static void note_malformed(ks_ftrace_decoder *dec, int32_t column, const char *field,
                           const char *message)
{
    ks_ftrace_stats *st = &dec->stats;
    trace_note_line(&st->first_error, &st->malformed_lines, st->lines, column, field, message);
}

/* "# entries-in-buffer/entries-written: 825/825   #P:2", "# tracer: nop", or any comment. */
static void read_comment(ks_ftrace_decoder *dec, text_span line)
{
    int32_t n;
    if (span_cut_prefix(&line, "# tracer:")) {
        dec->stats.format = KS_FTRACE_FORMAT_TRACEFS;
        return;
    }
    for (; line.len > 3; line.at++, line.len--)
        if (span_cut_prefix(&line, "#P:")) {
            if (parse_int(span_trim(line), &n) && n > 0)
                dec->stats.nr_cpus = n;
            return;
        }
}

/* trace-cmd's "version = 6", "cpus=6", "CPU 3 is empty" and the ring buffer's
 * "CPU:1 [LOST 213 EVENTS]". False if the line is none of them. */
static bool read_meta_line(ks_ftrace_decoder *dec, text_span line)
{
    int32_t n;
    text_span rest = line, head, tail;
    if (span_cut_prefix(&rest, "version =")) {
        dec->stats.format = KS_FTRACE_FORMAT_TRACE_CMD;
        return true;
    }
    if (span_cut_prefix(&rest, "cpus=") && parse_int(span_trim(rest), &n) && n > 0) {
        dec->stats.nr_cpus = n;
        dec->stats.format = KS_FTRACE_FORMAT_TRACE_CMD;
        return true;
    }
    rest = line;
    if (span_cut_prefix(&rest, "CPU ") && span_split(rest, ' ', &head, &tail) &&
        parse_int(head, &n) && span_equals(tail, "is empty"))
        return true;
    rest = line;
    if (span_cut_prefix(&rest, "CPU:") && span_split(rest, '[', &head, &tail) &&
        parse_int(span_trim(head), &n)) {
        span_cut_prefix(&tail, "LOST ");
        if (span_split(tail, ' ', &head, &tail) && parse_int(head, &n) && n >= 0) {
            dec->stats.lost_events += (uint32_t)n;
            return true;
        }
    }
    return false;
}

/* The first control byte of a line (binary data), or -1. Tabs are text.
 * Eight bytes at a time: a word with no byte below 0x20 and none equal to 0x7f
 * (the usual case: plain text) is skipped whole; a word that has one (a tab,
 * or real binary) is looked at byte by byte. */
static int32_t find_control_byte(text_span line)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    int32_t i = 0;
    for (; i + 8 <= line.len; i += 8) {
        uint64_t w;
        memcpy(&w, line.at + i, 8);
        uint64_t below_space = (w - ones * 0x20) & ~w & highs;
        uint64_t del = w ^ (ones * 0x7f);
        if ((below_space | ((del - ones) & ~del & highs)) != 0)
            break;
    }
    for (; i < line.len; i++) {
        unsigned char c = (unsigned char)line.at[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return i;
    }
    return -1;
}

/* The prefix's numbers into ev; false with *err if one is not a number. */
static bool read_context(text_span line, const ft_line_head *h, ks_event *ev,
                         ft_token_error *err)
{
    struct { text_span s; int32_t *out; const char *field; } nums[] = {
        { h->pid, &ev->pid, "pid" }, { h->cpu, &ev->cpu, "cpu" },
    };
    for (uint32_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!parse_int(nums[i].s, nums[i].out)) {
            err->column = (int32_t)(nums[i].s.at - line.at) + 1;
            err->field = nums[i].field;
            snprintf(err->message, sizeof err->message, "expected a number, got '%.*s'",
                     SPAN_QUOTE(nums[i].s));
            return false;
        }
    bool unknown_tgid = h->tgid.len > 0 && h->tgid.at[0] == '-' &&
                        h->tgid.len == (int32_t)strspn(h->tgid.at, "-");
    ev->tgid = -1;                              /* no column, or "(-------)" ... */
    if (h->has_tgid && unknown_tgid && ev->pid == 0)
        ev->tgid = 0;                           /* ... but the idle task's is 0 */
    if (h->has_tgid && !unknown_tgid && !parse_int(h->tgid, &ev->tgid)) {
        err->column = (int32_t)(h->tgid.at - line.at) + 1;
        err->field = "tgid";
        snprintf(err->message, sizeof err->message, "expected a number or '-------', got '%.*s'",
                 SPAN_QUOTE(h->tgid));
        return false;
    }
    ev->ts_ns = h->ts_ns;                       /* read by the tokenizer */
    ft_copy_comm(ev->comm, h->comm);
    return true;
}

static int32_t append_generic(ks_ftrace_decoder *dec, const ks_event *ev, const ft_line_head *h,
                              ks_event_log *sink)
{
    char *name = dec->in.scratch, *fields = dec->in.scratch + h->name.len + 1;
    memcpy(name, h->name.at, (size_t)h->name.len);
    name[h->name.len] = '\0';
    memcpy(fields, h->payload.at, (size_t)h->payload.len);
    fields[h->payload.len] = '\0';
    return trace_append(sink, ev, name, fields, &dec->stats.events, &dec->stats.generic_events);
}

/* ks_event_type_from_name on a span, without copying it out: strncmp stops at the
 * type name's NUL, and the name must end exactly there. */
static int32_t type_of_name(text_span name)
{
    for (int32_t t = 1; name.len > 0 && t < KS_EV_TYPE_COUNT; t++) {
        const char *known = ks_event_type_name(t);
        if (strncmp(known, name.at, (size_t)name.len) == 0 && known[name.len] == '\0')
            return t;
    }
    return KS_EV_GENERIC;
}

/* One event line into the sink: typed if its fields read, generic otherwise.
 *        my load-x-28499   (  28497) [000] .....  1273.158582: rseq_update: cpu_id=0 node_id=0 mm_cid=1
 *   ndroid.systemui-13580 (13580) [001] ...1 683202.104223: tracing_mark_write: S|13580|deliverInputEvent|263 */
static int32_t decode_event_line(ks_ftrace_decoder *dec, text_span line, ks_event_log *sink)
{
    ft_line_head h;
    ft_token_error err = { 0 };
    ks_event ev = { 0 };
    if (!ft_tokenize_head(line, &h, &err)) {
        note_malformed(dec, err.column, err.field, err.message);
        return KS_OK;
    }
    if (!read_context(line, &h, &ev, &err)) {
        note_malformed(dec, err.column, err.field, err.message);
        return KS_OK;
    }
    dec->stats.columns |= (h.has_tgid ? KS_FTRACE_TGID : 0) | (h.flags.len ? KS_FTRACE_IRQ_INFO : 0);
    ev.type = (uint32_t)type_of_name(h.name);
    tracepoint_fields tp = fields_of((int32_t)ev.type);
    if (ev.type == KS_EV_GENERIC)
        return append_generic(dec, &ev, &h, sink);
    preset_payload(&ev);
    if (!parse_fields(skip_caller_prefix(h.payload, (int32_t)ev.type), tp, &ev, &err)) {
        int32_t column = (int32_t)(h.payload.at - line.at) + err.column + 1;
        note_malformed(dec, column, err.field, err.message);
        return append_generic(dec, &ev, &h, sink);    /* keep what the line says */
    }
    return trace_append(sink, &ev, NULL, NULL, &dec->stats.events, &dec->stats.generic_events);
}

static int32_t decode_line(void *self, text_span line, bool too_long, ks_event_log *sink)
{
    ks_ftrace_decoder *dec = self;
    dec->stats.lines++;
    char message[96];
    if (too_long) {
        snprintf(message, sizeof message, "a line longer than %d bytes", KS_FTRACE_MAX_LINE);
        note_malformed(dec, KS_FTRACE_MAX_LINE + 1, "line", message);
        return KS_OK;
    }
    int32_t control = find_control_byte(line);
    if (control >= 0) {
        snprintf(message, sizeof message, "binary data (byte 0x%02x) in a text trace",
                 (unsigned char)line.at[control]);
        note_malformed(dec, control + 1, "line", message);
        return KS_OK;
    }
    text_span text = span_trim(line);
    if (text.len == 0 || text.at[0] == '#') {
        read_comment(dec, text);
        dec->stats.comment_lines++;
        return KS_OK;
    }
    if ((text.at[0] == 'v' || text.at[0] == 'c' || text.at[0] == 'C') && read_meta_line(dec, text)) {
        dec->stats.comment_lines++;
        return KS_OK;
    }
    return decode_event_line(dec, line, sink);
}

int32_t ks_ftrace_decoder_new(ks_ftrace_decoder **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_ftrace_decoder *dec = calloc(1, sizeof *dec);
    if (!dec || line_stream_init(&dec->in) != KS_OK) {
        free(dec);
        *out = NULL;
        return KS_ERR_NO_MEMORY;
    }
    *out = dec;
    return KS_OK;
}

void ks_ftrace_decoder_free(ks_ftrace_decoder *dec)
{
    if (!dec)
        return;
    line_stream_free(&dec->in);
    free(dec);
}

int32_t ks_ftrace_decoder_feed(ks_ftrace_decoder *dec, const char *chunk, int32_t len,
                               ks_event_log *sink)
{
    if (!dec || !sink || len < 0 || (!chunk && len > 0))
        return KS_ERR_INVALID_ARG;
    return line_stream_feed(&dec->in, chunk, len, decode_line, dec, sink);
}

int32_t ks_ftrace_decoder_finish(ks_ftrace_decoder *dec, ks_event_log *sink)
{
    if (!dec || !sink)
        return KS_ERR_INVALID_ARG;
    return line_stream_finish(&dec->in, decode_line, dec, sink);
}

int32_t ks_ftrace_decoder_stats(const ks_ftrace_decoder *dec, ks_ftrace_stats *out)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    *out = dec->stats;
    return KS_OK;
}

int32_t ks_ftrace_decode(const char *text, int32_t len, ks_event_log *sink, ks_ftrace_stats *stats)
{
    return trace_decode_whole(KS_TRACE_FTRACE_TEXT, text, len, sink, stats, (int32_t)sizeof *stats);
}
