/*
 * The trace.dat tokenizer: numbers in the file's byte order, event format
 * files, the page header layout and the events of a ring-buffer page (see
 * tracedat_tokenizer.h).
 *
 * A ring-buffer page, as the kernel writes it (kernel/trace/ring_buffer.c)
 * and trace-cmd copies it:
 *
 *     +-----------+---------------------+--------------------------------------+
 *     | timestamp | commit (local_t)    | events ...                   | unused |
 *     +-----------+---------------------+--------------------------------------+
 *       u64 abs ns  bytes of events;       each: u32 header + payload
 *                   bit 31: events lost,
 *                   bit 30: count stored after the events
 *
 *     event header (u32, little-endian bit order shown; big-endian swaps the fields):
 *       type_len:5   0      payload length in the next u32 (which counts itself)
 *                    1..28  payload of type_len * 4 bytes
 *                    29     PADDING: skip array[0] bytes; time_delta 0: the rest of the page
 *                    30     TIME_EXTEND: delta += array[0] << 27
 *                    31     TIME_STAMP: absolute time (array[0] << 27 | time_delta)
 *       time_delta:27  ns since the previous event
 *
 * The time arithmetic follows libtraceevent's kbuffer (which trace-cmd report
 * uses), so timestamps agree with trace-cmd's to the nanosecond.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_tokenizer.h"

/* ---- numbers ------------------------------------------------------------------------ */

uint64_t td_read_uint(const uint8_t *at, int32_t size, bool big_endian)
{
    uint64_t v = 0;
    for (int32_t i = 0; i < size; i++)
        v |= (uint64_t)at[big_endian ? size - 1 - i : i] << (8 * i);
    return v;
}

int64_t td_read_int(const uint8_t *at, int32_t size, bool big_endian, bool is_signed)
{
    uint64_t v = td_read_uint(at, size, big_endian);
    if (is_signed && size < 8 && (v >> (8 * size - 1)) & 1)
        v |= ~(uint64_t)0 << (8 * size);            /* sign-extend */
    return (int64_t)v;
}

/* ---- text helpers ------------------------------------------------------------------- */

typedef struct span {
    const char *at;
    int32_t len;
} span;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static span trim(span s)
{
    while (s.len > 0 && is_space(s.at[0])) {
        s.at++;
        s.len--;
    }
    while (s.len > 0 && is_space(s.at[s.len - 1]))
        s.len--;
    return s;
}

static bool starts_with(span s, const char *p)
{
    int32_t n = (int32_t)strlen(p);
    return s.len >= n && memcmp(s.at, p, (size_t)n) == 0;
}

/* Offset of `needle` in s, or -1. */
static int32_t find(span s, const char *needle)
{
    int32_t n = (int32_t)strlen(needle);
    for (int32_t i = 0; i + n <= s.len; i++)
        if (memcmp(s.at + i, needle, (size_t)n) == 0)
            return i;
    return -1;
}

/* The decimal after "key:" up to ';' in s; false if absent or not a number. */
static bool attr_int(span s, const char *key, int64_t *out)
{
    int32_t at = find(s, key);
    if (at < 0)
        return false;
    int32_t i = at + (int32_t)strlen(key), n = 0;
    while (i < s.len && s.at[i] == ' ')
        i++;
    bool neg = i < s.len && s.at[i] == '-';
    i += neg;
    int64_t v = 0;
    for (; i < s.len && s.at[i] >= '0' && s.at[i] <= '9' && n < 12; i++, n++)
        v = v * 10 + (s.at[i] - '0');
    *out = neg ? -v : v;
    return n > 0;
}

static bool next_line(span *rest, span *line)
{
    if (rest->len <= 0)
        return false;
    const char *nl = memchr(rest->at, '\n', (size_t)rest->len);
    int32_t n = nl ? (int32_t)(nl - rest->at) : rest->len;
    *line = (span){ rest->at, n };
    rest->at += n + (nl != NULL);
    rest->len -= n + (nl != NULL);
    return true;
}

/* ---- the name pool -------------------------------------------------------------------- */

static int32_t pool_add(td_format_set *set, const char *s, int32_t n, uint32_t *off)
{
    if (set->names_len + (uint32_t)n + 1 > set->names_capacity) {
        uint32_t cap = set->names_capacity ? set->names_capacity : 4096;
        while (cap < set->names_len + (uint32_t)n + 1)
            cap *= 2;
        char *grown = realloc(set->names, cap);
        if (!grown)
            return -1;
        set->names = grown;
        set->names_capacity = cap;
    }
    memcpy(set->names + set->names_len, s, (size_t)n);
    set->names[set->names_len + (uint32_t)n] = '\0';
    *off = set->names_len;
    set->names_len += (uint32_t)n + 1;
    return 0;
}

const char *td_name(const td_format_set *set, uint32_t off)
{
    return off < set->names_len ? set->names + off : "";
}

void td_formats_free(td_format_set *set)
{
    free(set->formats);
    free(set->fields);
    free(set->names);
    *set = (td_format_set){ 0 };
}

static int32_t grow(void **items, uint32_t *capacity, uint32_t need, size_t size)
{
    if (need <= *capacity)
        return 0;
    uint32_t cap = *capacity ? *capacity * 2 : 64;
    while (cap < need)
        cap *= 2;
    void *grown = realloc(*items, (size_t)cap * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = cap;
    return 0;
}

/* ---- one field line ----------------------------------------------------------------------- */

/* "unsigned long", "const char *", "pid_t" ... -> is it a pointer or a char? */
static bool type_is_char(span type)
{
    type = trim(type);
    if (starts_with(type, "const "))
        type = trim((span){ type.at + 6, type.len - 6 });
    return type.len == 4 && memcmp(type.at, "char", 4) == 0;
}

/*  field:__data_loc char[] name;	offset:12;	size:4;	signed:0;
 *  field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 * -> *f (name into the pool). 1: a field; 0: malformed; -1: no memory. */
static int32_t parse_field(td_format_set *set, span line, td_field *f, span *name_out)
{
    int32_t at = find(line, "field:");
    int32_t semi = at < 0 ? -1 : find((span){ line.at + at, line.len - at }, ";");
    if (at < 0 || semi < 0)
        return 0;
    span decl = trim((span){ line.at + at + 6, semi - 6 });
    span attrs = { line.at + at + semi, line.len - at - semi };
    int64_t offset, size, is_signed = 0;
    if (!attr_int(attrs, "offset:", &offset) || !attr_int(attrs, "size:", &size) ||
        offset < 0 || offset > 0xffff || size < 0 || size > 0xffff)
        return 0;
    bool has_signed = attr_int(attrs, "signed:", &is_signed);
    *f = (td_field){ .offset = (uint16_t)offset, .size = (uint16_t)size, .print_rank = 0xffff };
    /* "type name[N]": cut the array suffix, then the name is the last identifier */
    int32_t end = decl.len, array_count = -1;
    if (end > 0 && decl.at[end - 1] == ']') {
        int32_t open = end - 1;
        while (open > 0 && decl.at[open] != '[')
            open--;
        array_count = 0;
        for (int32_t i = open + 1; i < end - 1; i++)
            array_count = decl.at[i] >= '0' && decl.at[i] <= '9' && array_count < 100000
                          ? array_count * 10 + (decl.at[i] - '0') : array_count;
        end = open;
    }
    int32_t start = end;
    while (start > 0 && is_ident(decl.at[start - 1]))
        start--;
    if (start == end)
        return 0;
    span type = trim((span){ decl.at, start });
    *name_out = (span){ decl.at + start, end - start };
    bool loc = starts_with(type, "__data_loc"), rel = starts_with(type, "__rel_loc");
    if (loc || rel) {
        span elem = { type.at + (loc ? 10 : 9), type.len - (loc ? 10 : 9) };
        int32_t br = find(elem, "[");
        if (br >= 0)
            elem.len = br;
        f->kind = loc ? TD_DATA_LOC : TD_REL_LOC;
        f->is_char = type_is_char(elem);
    } else if (array_count >= 0) {
        if (type_is_char(type)) {
            f->kind = TD_STRING;
        } else {
            f->kind = TD_ARRAY;
            f->elem_size = (uint8_t)(array_count > 0 && size / array_count <= 8 ? size / array_count : 1);
        }
    } else {
        f->kind = find(type, "*") >= 0 ? TD_POINTER : TD_INT;
        if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
            f->kind = TD_ARRAY, f->elem_size = 1;
    }
    f->is_signed = has_signed ? is_signed != 0 : !starts_with(type, "unsigned") && !starts_with(type, "u");
    uint32_t off;
    if (pool_add(set, name_out->at, name_out->len, &off) < 0)
        return -1;
    f->name_off = off;
    return 1;
}

/* ---- typed records: which fields they need ------------------------------------------- */

/* Field names per typed event, in ks_ev_* member order; a leading '?' marks optional. */
static const char *const *typed_fields(int32_t type)
{
    static const char *const sw[] = { "prev_comm", "prev_pid", "prev_prio", "prev_state",
                                      "next_comm", "next_pid", "next_prio", NULL };
    static const char *const wake[] = { "comm", "pid", "?prio", "?target_cpu", NULL };
    static const char *const mig[] = { "comm", "pid", "?prio", "orig_cpu", "dest_cpu", NULL };
    static const char *const fork[] = { "parent_comm", "parent_pid", "child_comm", "child_pid", NULL };
    static const char *const exit[] = { "comm", "pid", "?prio", "?group_dead", NULL };
    static const char *const rseq[] = { "cpu_id", "?node_id", "?mm_cid", NULL };
    static const char *const kmem_alloc[] = { "call_site", "ptr", "name", "bytes_req", "bytes_alloc",
                                              "gfp_flags", "node", "?accounted", NULL };
    static const char *const kmem_free[] = { "call_site", "ptr", "name", NULL };
    switch (type) {
    case KS_EV_SCHED_SWITCH: return sw;
    case KS_EV_SCHED_WAKING:
    case KS_EV_SCHED_WAKEUP:
    case KS_EV_SCHED_WAKEUP_NEW: return wake;
    case KS_EV_SCHED_MIGRATE_TASK: return mig;
    case KS_EV_SCHED_PROCESS_FORK: return fork;
    case KS_EV_SCHED_PROCESS_EXIT:
    case KS_EV_SCHED_PROCESS_FREE: return exit;
    case KS_EV_RSEQ_UPDATE: return rseq;
    case KS_EV_KMEM_CACHE_ALLOC: return kmem_alloc;
    case KS_EV_KMEM_CACHE_FREE: return kmem_free;
    default: return NULL;
    }
}

static int32_t field_index(const td_format_set *set, const td_format *fmt, const char *name)
{
    for (uint32_t i = 0; i < fmt->nr_fields; i++)
        if (strcmp(td_name(set, set->fields[fmt->first_field + i].name_off), name) == 0)
            return (int32_t)(fmt->first_field + i);
    return -1;
}

/* Resolves the typed record's fields by name; a missing required one makes it generic. */
static void map_typed(const td_format_set *set, td_format *fmt)
{
    for (int32_t i = 0; i < 8; i++)
        fmt->typed[i] = -1;
    const char *const *names = typed_fields(fmt->type);
    if (!names) {                               /* kscope's sheaf events (no kernel format): */
        fmt->type = KS_EV_GENERIC;              /* a file naming them is read as generic text */
        return;
    }
    for (int32_t i = 0; names && names[i]; i++) {
        bool optional = names[i][0] == '?';
        int32_t at = field_index(set, fmt, names[i] + optional);
        if (at >= 0) {
            uint8_t kind = set->fields[at].kind;
            bool text = kind == TD_STRING || (kind == TD_DATA_LOC || kind == TD_REL_LOC);
            bool wants_text = strstr(names[i], "comm") != NULL || strcmp(names[i], "name") == 0;
            if (text != wants_text)
                at = -1;                            /* a field of another shape: not ours */
        }
        if (at < 0 && !optional) {
            fmt->type = KS_EV_GENERIC;
            return;
        }
        fmt->typed[i] = at;
    }
}

/* Does the conversion at s ("%p", "0x%lx", "%#x", "%08llx") print hex? */
static bool printed_hex(span s)
{
    int32_t i = 0;
    if (s.len >= 2 && s.at[0] == '0' && s.at[1] == 'x')
        i = 2;
    if (i >= s.len || s.at[i] != '%')
        return false;
    for (i++; i < s.len && i < 12; i++) {
        char c = s.at[i];
        if (c == 'x' || c == 'X' || c == 'p')
            return true;
        if (c != '#' && c != 'l' && c != 'h' && c != 'z' && c != '-' && !(c >= '0' && c <= '9'))
            return false;
    }
    return false;
}

/* Ranks the fields by where print fmt names them ("prev_comm=%s prev_pid=%d ..."). */
static void rank_by_print_fmt(td_format_set *set, const td_format *fmt, span pf)
{
    int32_t q = find(pf, "\"");
    if (q < 0)
        return;
    span s = { pf.at + q + 1, pf.len - q - 1 };
    for (int32_t i = 0; i < s.len && s.at[i] != '"'; i++) {
        if (s.at[i] == '\\') {
            i++;
            continue;
        }
        if (!is_ident(s.at[i]) || (i > 0 && is_ident(s.at[i - 1])))
            continue;
        int32_t n = 0;
        while (i + n < s.len && is_ident(s.at[i + n]))
            n++;
        if (i + n < s.len && (s.at[i + n] == '=' || s.at[i + n] == ':'))
            for (uint32_t k = 0; k < fmt->nr_fields; k++) {
                td_field *f = &set->fields[fmt->first_field + k];
                const char *name = td_name(set, f->name_off);
                if (f->print_rank == 0xffff && (int32_t)strlen(name) == n &&
                    memcmp(name, s.at + i, (size_t)n) == 0) {
                    f->print_rank = (uint16_t)i;
                    if (f->kind == TD_INT && printed_hex((span){ s.at + i + n + 1, s.len - i - n - 1 }))
                        f->kind = TD_POINTER;   /* "addr=%lx", "ptr=%p", "flags=0x%x": shown in hex */
                }
            }
        i += n - 1;
    }
}

/* ---- a whole format file ------------------------------------------------------------------ */

int32_t td_format_parse(td_format_set *set, const char *system, const char *text, int32_t len,
                        char *msg, int32_t msg_cap)
{
    span rest = { text, len }, line, name = { NULL, 0 }, print_fmt = { NULL, 0 };
    int64_t id = -1;
    if (grow((void **)&set->formats, &set->capacity, set->count + 1, sizeof *set->formats) < 0)
        return -1;
    td_format fmt = { .first_field = set->field_count, .common_pid = -1, .common_type = -1 };
    uint32_t fields_before = set->field_count, names_before = set->names_len;
    while (next_line(&rest, &line)) {
        span t = trim(line);
        if (starts_with(t, "name:")) {
            name = trim((span){ t.at + 5, t.len - 5 });
        } else if (starts_with(t, "ID:")) {
            if (!attr_int(t, "ID:", &id))
                id = -1;
        } else if (starts_with(t, "field:")) {
            td_field f;
            span fname;
            int32_t r = parse_field(set, t, &f, &fname);
            if (r < 0)
                return -1;
            if (r == 0) {
                snprintf(msg, (size_t)msg_cap, "format of '%.*s': cannot read '%.*s'",
                         name.len > 40 ? 40 : name.len, name.at ? name.at : "", t.len > 60 ? 60 : t.len, t.at);
                goto fail;
            }
            if (grow((void **)&set->fields, &set->field_capacity, set->field_count + 1,
                     sizeof *set->fields) < 0)
                return -1;
            bool common = fname.len > 7 && memcmp(fname.at, "common_", 7) == 0;
            if (common && fname.len == 10 && memcmp(fname.at, "common_pid", 10) == 0)
                fmt.common_pid = (int32_t)set->field_count;
            if (common && fname.len == 11 && memcmp(fname.at, "common_type", 11) == 0)
                fmt.common_type = (int32_t)set->field_count;
            set->fields[set->field_count++] = f;
            if (common)
                fmt.first_field = set->field_count;  /* common_* come first: the rest follow */
        } else if (starts_with(t, "print fmt:")) {
            print_fmt = (span){ t.at + 10, (int32_t)(text + len - (t.at + 10)) };
            break;
        }
    }
    if (name.len == 0 || id < 0 || id > 0xffff) {
        snprintf(msg, (size_t)msg_cap, "a format without %s", name.len == 0 ? "'name:'" : "a valid 'ID:'");
        goto fail;
    }
    fmt.nr_fields = set->field_count - fmt.first_field;
    for (uint32_t i = 0; i < fmt.nr_fields; i++) {      /* "ip": a code address (print's "%ps") */
        td_field *f = &set->fields[fmt.first_field + i];
        if (f->kind == TD_INT && strcmp(td_name(set, f->name_off), "ip") == 0)
            f->kind = TD_POINTER;
    }
    fmt.id = (int32_t)id;
    char ev_name[64] = "";
    memcpy(ev_name, name.at, (size_t)(name.len < 63 ? name.len : 63));
    if (pool_add(set, name.at, name.len, &fmt.name_off) < 0 ||
        pool_add(set, system, (int32_t)strlen(system), &fmt.system_off) < 0)
        return -1;
    fmt.type = ks_event_type_from_name(ev_name);
    if (print_fmt.at)
        rank_by_print_fmt(set, &fmt, print_fmt);
    map_typed(set, &fmt);
    set->formats[set->count++] = fmt;
    set->sorted = false;
    return 1;
fail:
    set->field_count = fields_before;
    set->names_len = names_before;
    return 0;
}

static int cmp_format(const void *a, const void *b)
{
    const td_format *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

const td_format *td_format_find(td_format_set *set, int32_t id)
{
    if (set->count == 0)
        return NULL;
    if (!set->sorted) {
        qsort(set->formats, set->count, sizeof *set->formats, cmp_format);
        set->sorted = true;
    }
    uint32_t lo = 0, hi = set->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (set->formats[mid].id == id)
            return &set->formats[mid];
        if (set->formats[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- header_page ----------------------------------------------------------------------------- */

bool td_page_layout_parse(const char *text, int32_t len, td_page_layout *out)
{
    span rest = { text, len }, line;
    bool ts = false, commit = false, data = false;
    *out = (td_page_layout){ 0 };
    while (next_line(&rest, &line)) {
        int64_t off, size;
        if (!attr_int(line, "offset:", &off) || !attr_int(line, "size:", &size))
            continue;
        if (find(line, " timestamp;") >= 0 && (size == 8 || size == 4)) {
            out->ts_offset = (int32_t)off, out->ts_size = (int32_t)size, ts = true;
        } else if (find(line, " commit;") >= 0 && (size == 8 || size == 4)) {
            out->commit_offset = (int32_t)off, out->commit_size = (int32_t)size, commit = true;
        } else if (find(line, " data;") >= 0 && off >= 0 && off < 1024) {
            out->data_offset = (int32_t)off, data = true;
        }
    }
    return ts && commit && data;
}

/* ---- ring-buffer pages ------------------------------------------------------------------------- */

#define TD_TYPE_PADDING 29
#define TD_TYPE_TIME_EXTEND 30
#define TD_TYPE_TIME_STAMP 31
#define TD_TS_SHIFT 27
#define TD_TS_MSB (0xf8ull << 56)
#define TD_COMMIT_MASK ((1u << 27) - 1)
#define TD_MISSED_EVENTS (1ull << 31)
#define TD_MISSED_STORED (1ull << 30)

bool td_page_open(td_page *pg, const uint8_t *page, int32_t page_size, const td_page_layout *lay,
                  bool big_endian, int64_t *lost)
{
    uint64_t flags = td_read_uint(page + lay->commit_offset, lay->commit_size, big_endian);
    int32_t size = (int32_t)(flags & TD_COMMIT_MASK);
    *pg = (td_page){ .data = page + lay->data_offset, .size = size, .big_endian = big_endian,
                     .ts = td_read_uint(page + lay->ts_offset, lay->ts_size, big_endian) };
    *lost = 0;
    if (size > page_size - lay->data_offset)
        return false;
    if (flags & TD_MISSED_EVENTS) {
        *lost = -1;
        if ((flags & TD_MISSED_STORED) && size + lay->commit_size <= page_size - lay->data_offset)
            *lost = (int64_t)td_read_uint(pg->data + size, lay->commit_size, big_endian);
    }
    return true;
}

int32_t td_page_next(td_page *pg, td_record *rec)
{
    for (;;) {
        if (pg->pos + 4 > pg->size)
            return 0;
        uint32_t word = (uint32_t)td_read_uint(pg->data + pg->pos, 4, pg->big_endian);
        uint32_t type_len = pg->big_endian ? word >> 27 : word & 0x1f;
        uint64_t delta = pg->big_endian ? word & ((1u << 27) - 1) : word >> 5;
        int32_t at = pg->pos + 4;               /* after the header word */
        uint32_t array0 = at + 4 <= pg->size
                          ? (uint32_t)td_read_uint(pg->data + at, 4, pg->big_endian) : 0;
        bool have_array0 = at + 4 <= pg->size;
        switch (type_len) {
        case TD_TYPE_PADDING:
            if (delta == 0 || !have_array0)     /* the null event: the page ends here */
                return 0;
            pg->ts += delta;
            if ((int64_t)at + array0 > pg->size || array0 > (uint32_t)pg->size)
                return -1;
            pg->pos = at + (int32_t)array0;
            continue;
        case TD_TYPE_TIME_EXTEND:
        case TD_TYPE_TIME_STAMP:
            if (!have_array0)
                return -1;
            delta |= (uint64_t)array0 << TD_TS_SHIFT;
            pg->ts = type_len == TD_TYPE_TIME_STAMP ? delta | (pg->ts & TD_TS_MSB) : pg->ts + delta;
            pg->pos = at + 4;
            continue;
        case 0:
            if (!have_array0 || array0 < 4 || array0 > (uint32_t)pg->size)
                return -1;
            rec->len = (int32_t)array0 - 4;
            rec->data = pg->data + at + 4;
            pg->pos = at + 4 + ((rec->len + 3) & ~3);
            break;
        default:
            rec->len = (int32_t)type_len * 4;
            rec->data = pg->data + at;
            pg->pos = at + rec->len;
            break;
        }
        if (pg->pos > pg->size)
            return -1;
        pg->ts += delta;
        rec->ts = pg->ts;
        return 1;
    }
}
