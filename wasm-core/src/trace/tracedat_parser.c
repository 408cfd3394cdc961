/*
 * The trace.dat parser and the streaming decoder: the file's layout, read by
 * offset, -> ks_event records -> the sink (see include/kscope/tracedat.h).
 *
 * The decoder is a step machine over the file. Each step needs a few bytes at
 * the current position (`need`); when they are not there yet it records what
 * it wants and returns to the caller, who feeds them (any number of bytes at
 * a time, so a 7-byte feed and a 64 KiB one give the same records). Items of
 * known size that kscope does not read (kallsyms, printk formats, unknown
 * options) are skipped by moving the position, which costs no read at all.
 *
 * Version 6, front to back (all numbers in the file's byte order):
 *
 *     17 08 44 "tracing" "6\0"  endian:u8 long_size:u8 page_size:u32
 *     "header_page\0" size:u64 <format text>   "header_event\0" size:u64 <text>
 *     nr:u32 { size:u64 <ftrace format text> }
 *     nr_systems:u32 { "system\0" nr:u32 { size:u64 <format text> } }
 *     kallsyms_size:u32 <text>   printk_size:u32 <text>   cmdlines_size:u64 <text>
 *     cpus:u32   ["options  \0" { id:u16 size:u32 <data> } id 0]
 *     "flyrecord\0" cpus x { offset:u64 size:u64 }   |   "latency  \0" <trace text>
 *
 * Version 7 (trace-cmd 3.x): after page_size, "compression\0version\0" and
 * the offset of the first options section; then sections anywhere, each with
 * a header { id:u16 flags:u16 string:u32 size:u64 }. The options (id 0) give
 * each other section's offset (16 header info, 17 ftrace formats, 18 event
 * formats, 21 cmdlines; 19 kallsyms and 20 printk are not visited) and the
 * per-CPU data of each instance (BUFFER, id 3: offset, name, clock, page
 * size, cpus x { cpu, offset, size }).
 *
 * Compressed v7 (the header names "zstd" or "zlib"; a section's flags bit 0 says
 * it is compressed; tracedat_decompress.h decodes one block at a time):
 *
 *     header section:  header { csize:u32 usize:u32 <one block> }
 *                      -> decompressed whole (<= KS_TRACEDAT_MAX_ITEM) and parsed from
 *                         memory with the same steps: need() serves the block's bytes
 *                         while zs_active, errors name the section's file offset
 *     flyrecord data:  per CPU, at the BUFFER option's offset:
 *                      count:u32 count x { csize:u32 usize:u32 <block of whole pages> }
 *                      -> each cursor reads one chunk at a time (Z_COUNT, Z_HEADER,
 *                         Z_DATA), decompresses it into its page buffer and reads its
 *                         pages as a batch: memory per CPU is one chunk (trace-cmd
 *                         writes 10 pages), compressed and not
 *
 * A chunk or section that does not decompress stops decoding (its records, and where
 * the chunks after it start, are lost): status KS_ERR_PARSE, the CPU, chunk and offset.
 *
 * The per-CPU pages are merged by timestamp: one cursor per CPU holds one
 * batch of its pages, the cursor with the oldest next event emits it, and a
 * cursor that runs out of pages asks for its next batch (a k-way merge with
 * bounded buffers). Equal timestamps go to the lower CPU first, as trace-cmd
 * report orders them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/ftrace.h"
#include "decoder_common.h"
#include "kscope/trace_detect.h"
#include "tracedat_decompress.h"
#include "tracedat_tokenizer.h"

#define TD_MAGIC "\x17\x08\x44tracing"
#define TD_MAGIC_LEN 10
#define TD_MAX_CPUS 4096                /* more CPUs in a header is a corrupt header */
#define TD_MAX_OPTION_SECTIONS 64       /* v7 options sections chained by DONE */
#define TD_SCRATCH 8192                 /* a generic record's "key=value ..." text */
#define TD_WINDOW_HINT (64 << 10)       /* bytes asked for at once while reading the header */
#define TD_CPU_BUFFERS_MAX (8 << 20)    /* all CPUs' page batches together */
#define TD_MAX_BUFFERS 64               /* trace buffers (top + instances) decoded; more are skipped */
/* Decompressed bytes all cursors may hold at once, whatever the chunks declare: trace-cmd's
 * chunks are 10 pages (40 KiB with 4 KiB pages: 3,200 CPUs' worth); past this a file is
 * refused, located at the chunk that would pass it. */
#define TD_HELD_MAX (128 << 20)
/* Largest uncompressed/compressed ratio a chunk or section may declare. Real ring-buffer
 * pages compress 5-60x (an almost empty page ~60x); 1024x only holds for long runs of
 * zeros, which no ring-buffer chunk is. A declared size past it is refused before any
 * memory is taken for it. */
#define TD_MAX_RATIO 1024

/* Option and section ids (trace-cmd's enum tracecmd_file_options / sections). */
enum {
    OPT_DONE = 0, OPT_BUFFER = 3, OPT_TRACECLOCK = 4, OPT_UNAME = 5, OPT_CPUCOUNT = 8,
    OPT_HEADER_INFO = 16, OPT_FTRACE_EVENTS = 17, OPT_EVENT_FORMATS = 18, OPT_CMDLINES = 21,
    OPT_BUFFER_TEXT = 22,
};
#define SECTION_COMPRESSED 1

typedef enum td_step {
    ST_MAGIC, ST_VERSION, ST_FILE_INFO, ST_COMPRESSION, ST_COMPRESSION_VERSION, ST_FIRST_OPTIONS,
    ST_HEADER_PAGE, ST_HEADER_EVENT, ST_FTRACE_COUNT, ST_FTRACE_FORMAT,
    ST_SYSTEMS_COUNT, ST_SYSTEM, ST_EVENT_FORMAT, ST_KALLSYMS, ST_PRINTK, ST_CMDLINES,
    ST_CPUS, ST_V6_TAG, ST_OPTION, ST_FLYRECORD,
    ST_V6_INSTANCE,             /* v6: an instance's "flyrecord" + cpus x { offset size } */
    ST_SECTION_HEADER,          /* v7: the header of the section at pos, then its content */
    ST_NEXT_SECTION,            /* v7: seek to the next section to read */
    ST_LATENCY,                 /* the rest (or the section) is trace text */
    ST_RECORDS, ST_DONE, ST_FAILED,
} td_step;

/* v7 sections visited in this order once the options are read. */
typedef enum td_section { SEC_HEADER_INFO, SEC_FTRACE, SEC_EVENTS, SEC_CMDLINES, SEC_DATA, SEC_COUNT } td_section;

typedef struct td_comm {
    int32_t pid;
    int32_t tgid;               /* -1 unless a saved-TGID option said */
    char comm[KS_COMM_LEN];
} td_comm;

/* A compressed CPU block: what the cursor is reading next. */
typedef enum td_zstage { Z_COUNT, Z_HEADER, Z_DATA } td_zstage;

typedef struct td_cursor {
    int32_t cpu;
    uint16_t buffer;                /* index into the decoder's buffers */
    int64_t data_off, data_size;    /* the CPU's block in the file */
    int64_t fetched;                /* bytes of the block read so far */
    uint8_t *buf;                   /* a batch of pages (compressed: one chunk, decompressed) */
    int32_t batch;                  /* buf's capacity: whole pages */
    /* compressed block: u32 count, then count x { csize:u32 usize:u32 data[csize] } */
    bool z;
    td_zstage zstage;
    uint32_t chunks_left, chunk_index, chunk_csize, chunk_usize;
    int64_t chunk_off;              /* file offset of the current chunk's header */
    int64_t z_pos;                  /* file offset of the next compressed-block byte to read */
    uint8_t *zin;                   /* the piece being read (count, chunk header, chunk data) */
    uint32_t zin_cap, zin_len, zin_target;
    int32_t buf_len, buf_target;    /* bytes in buf / bytes this batch holds */
    int32_t page_at;                /* the current page's offset in buf */
    bool page_open, has_rec, done;
    td_page page;
    td_record rec;
} td_cursor;

struct ks_tracedat_decoder {
    ks_tracedat_stats stats;
    td_step step;
    bool big;
    int64_t pos;                    /* file offset of the next byte to parse */
    /* header window: file bytes [win_off, win_off + win_len) */
    uint8_t *win;
    int32_t win_cap, win_len;
    int64_t win_off;
    int64_t want_off;
    int32_t want_len;
    bool eof;                       /* the caller said the file ends at want_off */
    /* counters of the header's nested lists */
    uint32_t items_left, systems_left;
    uint64_t item_size;
    char system[64];
    char compression[32];           /* v7: "none", "zstd", "zlib" */
    char compression_version[32];
    td_codec codec;
    td_decompressor *unzip;         /* made when the first compressed block is met */
    /* v7: a compressed header section, decompressed whole; while zs_active, pos and
     * need() address its bytes (0 .. zs_len), not the file's */
    bool zs_active;
    uint8_t *zs;
    uint32_t zs_len, zs_cap;
    int64_t zs_file_off;            /* the section header's file offset */
    int32_t cur_status;             /* why a cursor stopped decoding (KS_ERR_PARSE / NO_MEMORY) */
    td_page_layout layout;
    bool have_layout;
    td_format_set formats;
    td_comm *comms;
    uint32_t comm_count, comm_capacity;
    bool comms_sorted;
    /* v7 */
    int64_t section_off[SEC_COUNT];
    td_section section;             /* the one being read (ST_SECTION_HEADER..) */
    int64_t section_end;
    int32_t option_sections;
    int64_t text_off;               /* BUFFER_TEXT section (latency data), 0 if none */
    bool in_options;                /* v7: ST_SECTION_HEADER is reading an options section */
    int64_t options_end;
    /* trace buffers (the top one and instances) with data, in the order met */
    struct td_buffer {
        char name[64];              /* "" for the top buffer */
        int64_t offset;             /* v7: its flyrecord data section; v6: its "flyrecord" tag */
    } buffers[TD_MAX_BUFFERS];
    int32_t nr_buffers;
    int32_t visiting;               /* v7: buffer whose data section header is read next;
                                     * v6: pending instance whose flyrecord is read next */
    int32_t v6_pending;             /* v6: instances named by BUFFER options (not yet read) */
    struct td_buffer v6_instances[TD_MAX_BUFFERS];
    int64_t held, held_peak;        /* bytes the cursors hold (page batches, chunks) */
    /* records */
    td_cursor *cursors;
    int32_t nr_cursors, cap_cursors;
    int32_t waiting;                /* cursor that wants data, -1 none */
    ks_ftrace_decoder *text;        /* latency: the trace text decoder */
    int64_t text_end;               /* end of the latency text (-1: end of file) */
    uint32_t text_newlines;         /* latency: '\n' fed to the text decoder so far */
    int64_t text_line_off;          /* latency: file offset of the line being fed (-1: none yet) */
    char *scratch;
};

/* ---- errors ------------------------------------------------------------------------- */

/* Inside a compressed section, offsets are into its decompressed bytes: the error names
 * the section's file offset, and the byte in the decompressed data. */
static void describe(ks_tracedat_decoder *dec, int64_t offset, const char *section, const char *msg)
{
    dec->stats.error_offset = dec->zs_active ? dec->zs_file_off : offset;
    dec->stats.first_error.line = 0;
    dec->stats.first_error.column_or_field = 0;
    snprintf(dec->stats.first_error.field, sizeof dec->stats.first_error.field, "%s", section);
    if (dec->zs_active)
        snprintf(dec->stats.first_error.message, sizeof dec->stats.first_error.message,
                 "%s (byte %lld of the section at byte %lld, decompressed)", msg,
                 (long long)offset, (long long)dec->zs_file_off);
    else
        snprintf(dec->stats.first_error.message, sizeof dec->stats.first_error.message, "%s", msg);
}

/* Stops decoding: the file cannot be read past here. */
static int32_t fail(ks_tracedat_decoder *dec, int64_t offset, const char *section, const char *msg)
{
    describe(dec, offset, section, msg);
    dec->stats.status = KS_ERR_PARSE;
    dec->step = ST_FAILED;
    return KS_ERR_PARSE;
}

/* Counts a malformed item; the first one is described (unless decoding already failed). */
static void note_malformed(ks_tracedat_decoder *dec, int64_t offset, const char *section,
                           const char *msg)
{
    dec->stats.malformed++;
    if (dec->stats.error_offset < 0)
        describe(dec, offset, section, msg);
}

static const char *step_section(td_step step)
{
    switch (step) {
    case ST_MAGIC: case ST_VERSION: case ST_FILE_INFO: case ST_COMPRESSION:
    case ST_COMPRESSION_VERSION: case ST_FIRST_OPTIONS: return "file header";
    case ST_HEADER_PAGE: case ST_HEADER_EVENT: return "header_page/header_event";
    case ST_FTRACE_COUNT: case ST_FTRACE_FORMAT: return "ftrace formats";
    case ST_SYSTEMS_COUNT: case ST_SYSTEM: case ST_EVENT_FORMAT: return "event formats";
    case ST_KALLSYMS: return "kallsyms";
    case ST_PRINTK: return "printk formats";
    case ST_CMDLINES: return "cmdlines";
    case ST_CPUS: case ST_V6_TAG: return "cpus";
    case ST_OPTION: return "options";
    case ST_FLYRECORD: return "flyrecord";
    case ST_V6_INSTANCE: return "instance flyrecord";
    case ST_SECTION_HEADER: case ST_NEXT_SECTION: return "section header";
    case ST_LATENCY: return "latency text";
    default: return "records";
    }
}

/* A printable copy of the first bytes of a file (for "not a trace.dat: starts with '...'"). */
static void quote_bytes(const uint8_t *at, int32_t n, char *out, int32_t cap)
{
    int32_t k = 0;
    for (int32_t i = 0; i < n && k + 1 < cap; i++)
        out[k++] = at[i] >= 0x20 && at[i] < 0x7f ? (char)at[i] : '.';
    out[k] = '\0';
}

/* ---- the header window ------------------------------------------------------------------- */

/* n contiguous bytes at pos, or NULL after recording what is wanted. */
static const uint8_t *need(ks_tracedat_decoder *dec, int64_t n)
{
    if (dec->zs_active) {                       /* a decompressed section: all there or never */
        if (dec->pos >= 0 && n <= (int64_t)dec->zs_len - dec->pos)
            return dec->zs + dec->pos;
        char msg[128];
        snprintf(msg, sizeof msg, "an item runs past the section (%lld bytes, %lld left)",
                 (long long)n, (long long)((int64_t)dec->zs_len - dec->pos));
        fail(dec, dec->pos, step_section(dec->step), msg);
        return NULL;
    }
    if (dec->pos < 0 || n < 0 || dec->pos > INT64_MAX - n) {
        /* An offset read from the file (a section, option or buffer offset is a u64) that
           points before the file's start or past any file: refused, never asked for. */
        char msg[128];
        snprintf(msg, sizeof msg, "an offset in the file points outside it (%lld, %lld bytes wanted)",
                 (long long)dec->pos, (long long)n);
        fail(dec, dec->pos < 0 ? 0 : dec->pos, step_section(dec->step), msg);
        return NULL;
    }
    if (dec->pos < dec->win_off || dec->pos > dec->win_off + dec->win_len) {
        dec->win_off = dec->pos;                /* a seek: start a new window */
        dec->win_len = 0;
    }
    int64_t avail = dec->win_off + dec->win_len - dec->pos;
    if (avail >= n)
        return dec->win + (dec->pos - dec->win_off);
    if (dec->pos > dec->win_off) {              /* drop what was parsed */
        memmove(dec->win, dec->win + (dec->pos - dec->win_off), (size_t)avail);
        dec->win_off = dec->pos;
        dec->win_len = (int32_t)avail;
    }
    int64_t cap = n > TD_WINDOW_HINT ? n : TD_WINDOW_HINT;
    if (cap > dec->win_cap) {
        uint8_t *grown = realloc(dec->win, (size_t)cap);
        if (!grown)
            return NULL;                        /* want_len stays 0: reported as no memory */
        dec->win = grown;
        dec->win_cap = (int32_t)cap;
    }
    dec->want_off = dec->win_off + dec->win_len;
    dec->want_len = dec->win_cap - dec->win_len;
    return NULL;
}

/* A NUL-terminated string at pos (at most max bytes); NULL if it needs more bytes or is too long. */
static const char *need_string(ks_tracedat_decoder *dec, int32_t max, int32_t *len, bool *bad)
{
    *bad = false;
    const uint8_t *at = need(dec, 1);           /* also moves the window to pos */
    if (!at)
        return NULL;
    int64_t avail = dec->zs_active ? (int64_t)dec->zs_len - dec->pos : dec->win_off + dec->win_len - dec->pos;
    const uint8_t *nul = memchr(at, 0, (size_t)(avail < max ? avail : max));
    if (nul) {
        *len = (int32_t)(nul - at);
        return (const char *)at;
    }
    if (avail >= max)
        *bad = true;
    else
        need(dec, avail + 1);
    return NULL;
}

static uint64_t num(const ks_tracedat_decoder *dec, const uint8_t *at, int32_t size)
{
    return td_read_uint(at, size, dec->big);
}

/* ---- cmdlines and the comm table -------------------------------------------------------- */

static td_comm *comm_slot(ks_tracedat_decoder *dec, int32_t pid, bool add)
{
    for (uint32_t lo = 0, hi = dec->comms_sorted ? dec->comm_count : 0; lo < hi;) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (dec->comms[mid].pid == pid)
            return &dec->comms[mid];
        if (dec->comms[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!add)
        return NULL;
    if (dec->comm_count == dec->comm_capacity) {
        uint32_t cap = dec->comm_capacity ? dec->comm_capacity * 2 : 256;
        td_comm *grown = realloc(dec->comms, cap * sizeof *grown);
        if (!grown)
            return NULL;
        dec->comms = grown;
        dec->comm_capacity = cap;
    }
    dec->comms_sorted = false;
    td_comm *c = &dec->comms[dec->comm_count++];
    *c = (td_comm){ .pid = pid, .tgid = -1 };
    return c;
}

static int cmp_comm(const void *a, const void *b)
{
    const td_comm *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Sorts the table, merging entries of one pid (a tgid entry and a comm entry). */
static void sort_comms(ks_tracedat_decoder *dec)
{
    if (dec->comms_sorted || dec->comm_count == 0) {
        dec->comms_sorted = true;
        return;
    }
    qsort(dec->comms, dec->comm_count, sizeof *dec->comms, cmp_comm);
    uint32_t out = 0;
    for (uint32_t i = 0; i < dec->comm_count; i++) {
        if (out > 0 && dec->comms[out - 1].pid == dec->comms[i].pid) {
            td_comm *keep = &dec->comms[out - 1];
            if (dec->comms[i].comm[0])
                memcpy(keep->comm, dec->comms[i].comm, KS_COMM_LEN);
            if (dec->comms[i].tgid >= 0)
                keep->tgid = dec->comms[i].tgid;
            continue;
        }
        dec->comms[out++] = dec->comms[i];
    }
    dec->comm_count = out;
    dec->comms_sorted = true;
}

/* Reads "pid word\n" lines: the cmdlines ("1701 trace-cmd") or a saved-TGID table
 * ("25412 20337"). Returns the lines that did not read; -1 if out of memory. */
static int32_t read_pid_lines(ks_tracedat_decoder *dec, const char *text, int64_t len, bool tgids)
{
    int32_t bad = 0;
    sort_comms(dec);
    for (int64_t i = 0; i < len;) {
        int64_t end = i;
        while (end < len && text[end] != '\n')
            end++;
        int64_t k = i;
        /* Up to 10 digits, summed in 64 bits: a pid past INT32_MAX is a bad line, not an overflow. */
        int64_t pid = 0;
        int32_t digits = 0;
        while (k < end && text[k] >= '0' && text[k] <= '9' && digits < 10)
            pid = pid * 10 + (text[k++] - '0'), digits++;
        if (digits > 0 && pid <= INT32_MAX && k < end && text[k] == ' ') {
            const char *word = text + k + 1;
            int32_t n = (int32_t)(end - k - 1);
            td_comm *c = comm_slot(dec, (int32_t)pid, false);
            if (!c && !(c = comm_slot(dec, (int32_t)pid, true)))
                return -1;
            if (tgids) {
                int64_t tgid = 0;
                int32_t d = 0;
                while (d < n && word[d] >= '0' && word[d] <= '9' && d < 10)
                    tgid = tgid * 10 + (word[d++] - '0');
                if (d == n && d > 0 && tgid <= INT32_MAX)
                    c->tgid = (int32_t)tgid;
                else
                    bad++;
            } else {
                memset(c->comm, 0, KS_COMM_LEN);
                memcpy(c->comm, word, (size_t)(n < KS_COMM_LEN - 1 ? n : KS_COMM_LEN - 1));
            }
        } else if (end > i) {
            bad++;
        }
        i = end + 1;
    }
    sort_comms(dec);
    return bad;
}

/* ---- records -> ks_event ----------------------------------------------------------------------- */

typedef struct out_text {
    char *at;
    int32_t len, cap;
} out_text;

static void put(out_text *o, const char *s, int32_t n)
{
    if (o->len + n >= o->cap - 4) {             /* keep room for "..." */
        if (o->len < o->cap - 4) {
            memcpy(o->at + o->len, "...", 3);
            o->len += 3;
        }
        o->len = o->len < o->cap - 1 ? o->len : o->cap - 1;
        return;
    }
    memcpy(o->at + o->len, s, (size_t)n);
    o->len += n;
}

static void putf(out_text *o, const char *fmt, unsigned long long v, bool hex, bool neg)
{
    char buf[32];
    int32_t n = hex ? snprintf(buf, sizeof buf, "0x%llx", v)
                    : neg ? snprintf(buf, sizeof buf, "%lld", (long long)v)
                          : snprintf(buf, sizeof buf, fmt, v);
    put(o, buf, n);
}

/* A string field: bytes up to the first NUL; control bytes shown as '?', a trailing newline dropped. */
static void put_string(out_text *o, const uint8_t *at, int32_t n)
{
    int32_t len = 0;
    while (len < n && at[len])
        len++;
    while (len > 0 && (at[len - 1] == '\n' || at[len - 1] == ' '))
        len--;
    for (int32_t i = 0; i < len; i++) {
        char c = at[i] < 0x20 || at[i] == 0x7f ? '?' : (char)at[i];
        put(o, &c, 1);
    }
}

/* Where a field's bytes are in the record; false if they lie outside it. */
static bool field_bytes(const ks_tracedat_decoder *dec, const td_field *f, const td_record *rec,
                        const uint8_t **at, int32_t *n)
{
    if ((int32_t)f->offset + f->size > rec->len)
        return false;
    *at = rec->data + f->offset;
    *n = f->size;
    if (f->kind == TD_STRING && f->size == 0) {         /* char buf[]: to the record's end */
        *n = rec->len - f->offset;
    } else if (f->kind == TD_DATA_LOC || f->kind == TD_REL_LOC) {
        if (f->size != 4)
            return false;
        uint32_t loc = (uint32_t)num(dec, *at, 4);
        int64_t off = (loc & 0xffff) + (f->kind == TD_REL_LOC ? f->offset + f->size : 0);
        int64_t len = loc >> 16;
        if (off + len > rec->len)
            return false;
        *at = rec->data + off;
        *n = (int32_t)len;
    }
    return true;
}

static void render_field(const ks_tracedat_decoder *dec, out_text *o, const td_field *f,
                         const uint8_t *at, int32_t n)
{
    if (f->kind == TD_STRING || ((f->kind == TD_DATA_LOC || f->kind == TD_REL_LOC) && f->is_char)) {
        put_string(o, at, n);
    } else if (f->kind == TD_INT || f->kind == TD_POINTER) {
        int64_t v = td_read_int(at, f->size, dec->big, f->is_signed);
        putf(o, "%llu", (unsigned long long)v, f->kind == TD_POINTER, f->is_signed && v < 0);
    } else {                                            /* arrays: {a,b,...} */
        int32_t es = f->kind == TD_ARRAY && f->elem_size ? f->elem_size : 1;
        put(o, "{", 1);
        for (int32_t i = 0; i + es <= n && o->len < o->cap - 8; i += es) {
            if (i)
                put(o, ",", 1);
            putf(o, "0x%llx", (unsigned long long)td_read_uint(at + i, es, dec->big), false, false);
        }
        put(o, "}", 1);
    }
}

static int cmp_rank(const void *a, const void *b)
{
    const td_field *x = *(const td_field *const *)a, *y = *(const td_field *const *)b;
    if (x->print_rank != y->print_rank)
        return (x->print_rank > y->print_rank) - (x->print_rank < y->print_rank);
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* "key=value ..." of every non-common field, in print fmt's order (the rest after it). */
static bool render_fields(const ks_tracedat_decoder *dec, const td_format *fmt,
                          const td_record *rec, out_text *o)
{
    const td_field *order[128];
    uint32_t n = fmt->nr_fields < 128 ? fmt->nr_fields : 128;
    for (uint32_t i = 0; i < n; i++)
        order[i] = &dec->formats.fields[fmt->first_field + i];
    qsort(order, n, sizeof order[0], cmp_rank);
    bool whole = true;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *at;
        int32_t len;
        const char *name = td_name(&dec->formats, order[i]->name_off);
        if (i)
            put(o, " ", 1);
        put(o, name, (int32_t)strlen(name));
        put(o, "=", 1);
        if (!field_bytes(dec, order[i], rec, &at, &len)) {
            put(o, "?", 1);
            whole = false;
            continue;
        }
        render_field(dec, o, order[i], at, len);
    }
    o->at[o->len] = '\0';
    return whole;
}

/* kmem_cache_alloc/free (event.h): slots call_site, ptr, name, bytes_req, bytes_alloc,
 * gfp_flags, node, accounted, by the widths the file's format gives. The binary record
 * holds call_site as an address and ptr unhashed, so nothing is lost here; a cache name
 * longer than the record holds makes the record generic. */
static bool fill_kmem(const ks_tracedat_decoder *dec, const td_format *fmt, const td_record *rec,
                      ks_event *ev)
{
    ks_ev_kmem_cache *k = &ev->u.kmem_cache;
    k->node = -1;
    k->accounted = -1;
    int32_t slots = ev->type == KS_EV_KMEM_CACHE_ALLOC ? 8 : 3;
    for (int32_t i = 0; i < slots; i++) {
        int32_t idx = fmt->typed[i];
        if (idx < 0)
            continue;                                   /* accounted, before 6.0 */
        const td_field *f = &dec->formats.fields[idx];
        const uint8_t *bytes;
        int32_t n;
        if (!field_bytes(dec, f, rec, &bytes, &n))
            return false;
        if (i == 2) {                                   /* name: __data_loc char[] */
            int32_t len = 0;
            while (len < n && bytes[len])
                len++;
            if (len >= KS_KMEM_NAME_LEN)
                return false;
            memset(k->name, 0, sizeof k->name);
            memcpy(k->name, bytes, (size_t)len);
            continue;
        }
        if (f->kind != TD_INT && f->kind != TD_POINTER)
            return false;
        int64_t v = td_read_int(bytes, f->size, dec->big, f->is_signed);
        switch (i) {
        case 0: k->call_site = (uint64_t)v; break;
        case 1: k->ptr = (uint64_t)v; break;
        case 3: k->bytes_req = (uint32_t)v; break;
        case 4: k->bytes_alloc = (uint32_t)v; break;
        case 5: k->gfp_flags = (uint32_t)v; break;
        case 6: k->node = (int16_t)v; break;
        default: k->accounted = (int8_t)(v != 0); break;
        }
    }
    return true;
}

/* Reads a typed record's fields (by the indexes the format resolved); false if one is outside. */
static bool fill_typed(const ks_tracedat_decoder *dec, const td_format *fmt, const td_record *rec,
                       ks_event *ev)
{
    static const uint16_t sw[] = {
        offsetof(ks_event, u.sched_switch.prev_comm), offsetof(ks_event, u.sched_switch.prev_pid),
        offsetof(ks_event, u.sched_switch.prev_prio), offsetof(ks_event, u.sched_switch.prev_state),
        offsetof(ks_event, u.sched_switch.next_comm), offsetof(ks_event, u.sched_switch.next_pid),
        offsetof(ks_event, u.sched_switch.next_prio) };
    static const uint16_t wake[] = {
        offsetof(ks_event, u.sched_wakeup.comm), offsetof(ks_event, u.sched_wakeup.pid),
        offsetof(ks_event, u.sched_wakeup.prio), offsetof(ks_event, u.sched_wakeup.target_cpu) };
    static const uint16_t mig[] = {
        offsetof(ks_event, u.sched_migrate_task.comm), offsetof(ks_event, u.sched_migrate_task.pid),
        offsetof(ks_event, u.sched_migrate_task.prio), offsetof(ks_event, u.sched_migrate_task.orig_cpu),
        offsetof(ks_event, u.sched_migrate_task.dest_cpu) };
    static const uint16_t fork[] = {
        offsetof(ks_event, u.sched_process_fork.parent_comm), offsetof(ks_event, u.sched_process_fork.parent_pid),
        offsetof(ks_event, u.sched_process_fork.child_comm), offsetof(ks_event, u.sched_process_fork.child_pid) };
    static const uint16_t exit[] = {
        offsetof(ks_event, u.sched_process_exit.comm), offsetof(ks_event, u.sched_process_exit.pid),
        offsetof(ks_event, u.sched_process_exit.prio), offsetof(ks_event, u.sched_process_exit.group_dead) };
    static const uint16_t rseq[] = {
        offsetof(ks_event, u.rseq_update.cpu_id), offsetof(ks_event, u.rseq_update.node_id),
        offsetof(ks_event, u.rseq_update.mm_cid) };
    /* Which slots are comms (bit i: slot i is a char[KS_COMM_LEN]); a format whose field
       has the other kind (the file's format can say anything) is not read as typed. */
    const uint16_t *at;
    int32_t count;
    uint32_t comm_slots;
    if (fmt->type == KS_EV_KMEM_CACHE_ALLOC || fmt->type == KS_EV_KMEM_CACHE_FREE)
        return fill_kmem(dec, fmt, rec, ev);
    switch (fmt->type) {
    case KS_EV_SCHED_SWITCH: at = sw, count = 7, comm_slots = 1u << 0 | 1u << 4; break;
    case KS_EV_SCHED_WAKING: case KS_EV_SCHED_WAKEUP: case KS_EV_SCHED_WAKEUP_NEW:
        at = wake, count = 4, comm_slots = 1u << 0; break;
    case KS_EV_SCHED_MIGRATE_TASK: at = mig, count = 5, comm_slots = 1u << 0; break;
    case KS_EV_SCHED_PROCESS_FORK: at = fork, count = 4, comm_slots = 1u << 0 | 1u << 2; break;
    case KS_EV_SCHED_PROCESS_EXIT: case KS_EV_SCHED_PROCESS_FREE: at = exit, count = 4, comm_slots = 1u << 0; break;
    case KS_EV_RSEQ_UPDATE: at = rseq, count = 3, comm_slots = 0; break;
    default: return false;
    }
    for (int32_t i = 0; i < count; i++) {
        char *dst = (char *)ev + at[i];
        int32_t idx = fmt->typed[i];
        bool is_state = fmt->type == KS_EV_SCHED_SWITCH && i == 3;
        if (idx < 0) {                                  /* optional and absent: -1 */
            int32_t absent = -1;
            memcpy(dst, &absent, sizeof absent);
            continue;
        }
        const td_field *f = &dec->formats.fields[idx];
        const uint8_t *bytes;
        int32_t n;
        if (!field_bytes(dec, f, rec, &bytes, &n))
            return false;
        if ((f->kind == TD_INT || f->kind == TD_POINTER) && ((comm_slots >> i) & 1)) {
            return false;                               /* a number where a comm belongs */
        } else if (f->kind == TD_INT || f->kind == TD_POINTER) {
            int64_t v = td_read_int(bytes, f->size, dec->big, f->is_signed);
            if (is_state) {
                memcpy(dst, &v, sizeof v);
            } else {
                int32_t v32 = (int32_t)v;
                memcpy(dst, &v32, sizeof v32);
            }
        } else if (!((comm_slots >> i) & 1)) {
            return false;                               /* text where a number belongs */
        } else {                                        /* a comm: char[16] or __data_loc */
            memset(dst, 0, KS_COMM_LEN);
            int32_t len = 0;
            while (len < n && len < KS_COMM_LEN - 1 && bytes[len])
                len++;
            memcpy(dst, bytes, (size_t)len);
        }
    }
    return true;
}

static int32_t append(ks_tracedat_decoder *dec, ks_event_log *sink, const ks_event *ev,
                      const char *name, const char *fields)
{
    return trace_append(sink, ev, name, fields, &dec->stats.events, &dec->stats.generic_events);
}

/* The file offset a page error is reported at: the page itself, or in a compressed
 * block the header of the chunk that holds it. */
static int64_t page_where(const td_cursor *c)
{
    return c->z ? c->chunk_off : c->data_off + c->fetched - c->buf_len + c->page_at;
}

/* One ring-buffer record into the sink.
 *   sched_switch on 6.18: common_type:u16 flags:u8 preempt:u8 common_pid:i32 prev_comm[16]
 *   prev_pid:i32 prev_prio:i32 prev_state:long next_comm[16] next_pid:i32 next_prio:i32 */
static int32_t emit_record(ks_tracedat_decoder *dec, const td_cursor *c, ks_event_log *sink)
{
    const td_record *rec = &c->rec;
    int64_t where = page_where(c);
    if (rec->len < 8) {
        note_malformed(dec, where, "records", "a record shorter than its common header");
        return KS_OK;
    }
    int32_t id = (int32_t)num(dec, rec->data, 2);
    const td_format *fmt = td_format_find(&dec->formats, id);
    ks_event ev = { .ts_ns = rec->ts, .cpu = c->cpu, .type = KS_EV_GENERIC, .buffer = c->buffer };
    const td_field *pid_field = fmt && fmt->common_pid >= 0 ? &dec->formats.fields[fmt->common_pid] : NULL;
    ev.pid = pid_field && pid_field->offset + 4 <= rec->len
             ? (int32_t)td_read_int(rec->data + pid_field->offset, 4, dec->big, true)
             : (int32_t)td_read_int(rec->data + 4, 4, dec->big, true);
    const td_comm *known = comm_slot(dec, ev.pid, false);
    ev.tgid = known && known->tgid >= 0 ? known->tgid : ev.pid == 0 ? 0 : -1;
    snprintf(ev.comm, sizeof ev.comm, "%s",
             ev.pid == 0 ? "<idle>" : known && known->comm[0] ? known->comm : "<...>");
    out_text o = { dec->scratch, 0, TD_SCRATCH };
    if (!fmt) {
        char msg[96];
        snprintf(msg, sizeof msg, "a record of event id %d, which has no format in the file", id);
        note_malformed(dec, where, "records", msg);
        char fields[48];
        snprintf(fields, sizeof fields, "common_type=%d len=%d", id, rec->len);
        return append(dec, sink, &ev, "unknown_event", fields);
    }
    const char *name = td_name(&dec->formats, fmt->name_off);
    if (fmt->type != KS_EV_GENERIC) {
        ev.type = (uint16_t)fmt->type;
        if (fill_typed(dec, fmt, rec, &ev))
            return append(dec, sink, &ev, NULL, NULL);
        note_malformed(dec, where, "records", "a typed record whose fields lie outside it");
        ev.type = KS_EV_GENERIC;
        memset(&ev.u, 0, sizeof ev.u);
    }
    if (!render_fields(dec, fmt, rec, &o))
        note_malformed(dec, where, "records", "a record whose fields lie outside it");
    return append(dec, sink, &ev, name, o.at);
}

/* ---- the per-CPU cursors ---------------------------------------------------------------------- */

typedef enum { CUR_READY, CUR_NEED, CUR_DONE, CUR_FAILED } cursor_state;

/* A compressed CPU block cannot be read on: stops decoding (the records of a chunk
 * that does not decompress are lost whole, and the chunks after it cannot be found). */
static cursor_state cursor_fail(ks_tracedat_decoder *dec, td_cursor *c, int64_t offset, const char *what)
{
    char msg[384];
    snprintf(msg, sizeof msg, "CPU %d's %s-compressed data, chunk %u (at byte %lld): %s", c->cpu,
             dec->compression, c->chunk_index, (long long)c->chunk_off, what);
    fail(dec, offset, "flyrecord data", msg);
    dec->cur_status = KS_ERR_PARSE;
    return CUR_FAILED;
}

/* A compressed block's next piece is in zin: the chunk count, a chunk header, or a
 * chunk's data (decompressed into buf, whose pages are then read as a batch). */
static cursor_state z_consume(ks_tracedat_decoder *dec, td_cursor *c)
{
    char what[160];
    int64_t at = c->z_pos;
    c->z_pos += c->zin_len;
    c->zin_target = 0;
    switch (c->zstage) {
    case Z_COUNT:
        c->chunks_left = (uint32_t)num(dec, c->zin, 4);
        c->zstage = Z_HEADER;
        c->chunk_off = c->z_pos;
        return CUR_NEED;
    case Z_HEADER: {
        c->chunk_off = at;
        c->chunk_csize = (uint32_t)num(dec, c->zin, 4);
        c->chunk_usize = (uint32_t)num(dec, c->zin + 4, 4);
        int64_t end = c->data_off + 4 + c->data_size;  /* the size the BUFFER option gives excludes the count */
        if (c->z_pos + c->chunk_csize > end) {
            snprintf(what, sizeof what, "%u compressed bytes run past the CPU's block, which ends at byte %lld",
                     c->chunk_csize, (long long)end);
            return cursor_fail(dec, c, at, what);
        }
        if (c->chunk_usize > KS_TRACEDAT_MAX_ITEM || c->chunk_csize > KS_TRACEDAT_MAX_ITEM) {
            snprintf(what, sizeof what, "a chunk of %u bytes (%u compressed): more than %d, corrupt header?",
                     c->chunk_usize, c->chunk_csize, KS_TRACEDAT_MAX_ITEM);
            return cursor_fail(dec, c, at, what);
        }
        if ((uint64_t)c->chunk_usize > (uint64_t)c->chunk_csize * TD_MAX_RATIO) {
            snprintf(what, sizeof what, "usize %u > %dx csize %u", c->chunk_usize, TD_MAX_RATIO, c->chunk_csize);
            return cursor_fail(dec, c, at, what);
        }
        if ((int64_t)c->chunk_usize > c->batch &&
            dec->held + ((int64_t)c->chunk_usize - c->batch) > TD_HELD_MAX) {
            snprintf(what, sizeof what, "usize %u: past the %d MiB held at once", c->chunk_usize,
                     TD_HELD_MAX >> 20);
            return cursor_fail(dec, c, at, what);
        }
        if (c->chunk_usize % (uint32_t)dec->stats.page_size != 0) {
            snprintf(what, sizeof what, "%u bytes uncompressed, not a whole number of %d-byte pages",
                     c->chunk_usize, dec->stats.page_size);
            return cursor_fail(dec, c, at, what);
        }
        if (c->chunk_csize == 0)
            return cursor_fail(dec, c, at, "a chunk of 0 compressed bytes");
        c->zstage = Z_DATA;
        return CUR_NEED;
    }
    case Z_DATA:
        if ((int64_t)c->chunk_usize > c->batch) {
            uint8_t *grown = realloc(c->buf, c->chunk_usize);
            if (!grown) {
                dec->cur_status = KS_ERR_NO_MEMORY;
                return CUR_FAILED;
            }
            c->buf = grown;
            dec->held += (int64_t)c->chunk_usize - c->batch;
            if (dec->held > dec->held_peak)
                dec->held_peak = dec->held;
            c->batch = (int32_t)c->chunk_usize;
        }
        if (!td_decompress(dec->unzip, c->zin, c->chunk_csize, c->buf, c->chunk_usize, what, sizeof what))
            return cursor_fail(dec, c, at, what);
        if (c->zin_cap > (64u << 10)) {         /* a large compressed chunk: not kept per CPU */
            free(c->zin);
            c->zin = NULL;
            c->zin_cap = 0;
        }
        c->buf_len = c->buf_target = (int32_t)c->chunk_usize;
        c->page_at = 0;
        c->chunks_left--;
        c->chunk_index++;
        c->zstage = Z_HEADER;
        return CUR_READY;
    }
    return CUR_FAILED;
}

/* Sets up the read of a compressed block's next piece (CUR_NEED), or ends the block. */
static cursor_state z_request(ks_tracedat_decoder *dec, td_cursor *c)
{
    uint32_t n = c->zstage == Z_COUNT ? 4 : c->zstage == Z_HEADER ? 8 : c->chunk_csize;
    if (c->zstage == Z_HEADER && c->chunks_left == 0) {
        c->done = true;
        return CUR_DONE;
    }
    if (n > c->zin_cap) {
        uint8_t *grown = realloc(c->zin, n);
        if (!grown) {
            dec->cur_status = KS_ERR_NO_MEMORY;
            return CUR_FAILED;
        }
        c->zin = grown;
        c->zin_cap = n;
    }
    if (c->zstage == Z_HEADER)
        c->chunk_off = c->z_pos;
    c->zin_len = 0;
    c->zin_target = n;
    return CUR_NEED;
}

/* A cursor at its end gives its page batch / chunk back. */
static void cursor_release(ks_tracedat_decoder *dec, td_cursor *c)
{
    if (c->buf) {
        free(c->buf);
        c->buf = NULL;
        dec->held -= c->batch;
        c->batch = 0;
    }
}

/* Moves a cursor to its next record. */
static cursor_state cursor_advance(ks_tracedat_decoder *dec, td_cursor *c)
{
    int32_t page_size = dec->stats.page_size;
    for (;;) {
        if (c->page_open) {
            int32_t r = td_page_next(&c->page, &c->rec);
            if (r == 1) {
                c->has_rec = true;
                return CUR_READY;
            }
            if (r < 0)
                note_malformed(dec, page_where(c), "records",
                               "a ring-buffer page whose events run past its commit");
            c->page_open = false;
            c->page_at += page_size;
            continue;
        }
        if (c->page_at + page_size <= c->buf_len) {
            int64_t lost;
            dec->stats.pages++;
            if (!td_page_open(&c->page, c->buf + c->page_at, page_size, &dec->layout, dec->big, &lost)) {
                note_malformed(dec, page_where(c), "records",
                               "a ring-buffer page whose commit is larger than the page");
                c->page_at += page_size;
                continue;
            }
            if (lost > 0)
                dec->stats.lost_events += (uint32_t)lost;
            dec->stats.lost_pages += lost < 0;
            c->page_open = true;
            continue;
        }
        if (c->z && !c->done) {                 /* compressed: the next chunk */
            cursor_state st = c->zin_target > 0 && c->zin_len == c->zin_target ? z_consume(dec, c)
                                                                               : z_request(dec, c);
            if (st == CUR_READY)
                continue;                       /* a chunk's pages are in buf */
            if (st == CUR_NEED && c->zin_target == 0)
                st = z_request(dec, c);
            if (st == CUR_DONE)
                cursor_release(dec, c);
            return st;
        }
        if (c->done || c->fetched >= c->data_size) {
            c->done = true;
            cursor_release(dec, c);
            return CUR_DONE;
        }
        int64_t left = c->data_size - c->fetched;
        c->buf_len = 0;
        c->page_at = 0;
        c->buf_target = left < c->batch ? (int32_t)left : c->batch;
        return CUR_NEED;
    }
}

/* A buffer with data (one of its CPUs has bytes): its cursors join the merge, tagged with
 * its index. A buffer without data is not named; past TD_MAX_BUFFERS, buffers are skipped.
 * Returns KS_OK (added or skipped) or KS_ERR_NO_MEMORY. */
static int32_t add_buffer(ks_tracedat_decoder *dec, const char *name, int64_t offset,
                          const int64_t *offs, const int64_t *sizes, const int32_t *cpus, int32_t n)
{
    bool data = false;
    for (int32_t i = 0; i < n; i++)
        data |= sizes[i] > 0;
    if (!data)
        return KS_OK;
    if (dec->nr_buffers == TD_MAX_BUFFERS || dec->nr_cursors + n > TD_MAX_CPUS) {
        char msg[160];                  /* all buffers' CPUs together: TD_MAX_CPUS cursors */
        snprintf(msg, sizeof msg, "buffer '%.40s' not decoded: more than %d buffers or %d CPU blocks in all",
                 name, TD_MAX_BUFFERS, TD_MAX_CPUS);
        note_malformed(dec, dec->pos, "options", msg);
        dec->stats.skipped_buffers++;
        return KS_OK;
    }
    struct td_buffer *b = &dec->buffers[dec->nr_buffers];
    snprintf(b->name, sizeof b->name, "%s", name);
    b->offset = offset;
    if (dec->nr_cursors + n > dec->cap_cursors) {
        int32_t cap = dec->nr_cursors + n + 8;
        td_cursor *grown = realloc(dec->cursors, sizeof *grown * (size_t)cap);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        dec->cursors = grown;
        dec->cap_cursors = cap;
    }
    for (int32_t i = 0; i < n; i++) {
        /* Offsets and sizes are u64 in the file, read as int64: a block that would start
           before the file or end past INT64_MAX is not read (never asked for). */
        bool outside = sizes[i] > 0 && (offs[i] < 0 || offs[i] > INT64_MAX - sizes[i]);
        if (outside) {
            char msg[160];
            snprintf(msg, sizeof msg, "buffer '%.40s' CPU %d: its data block (offset %lld, %lld bytes) "
                     "lies outside any file; not read", name, cpus[i], (long long)offs[i],
                     (long long)sizes[i]);
            note_malformed(dec, dec->pos, "options", msg);
        }
        dec->cursors[dec->nr_cursors++] = (td_cursor){ .cpu = cpus[i], .data_off = outside ? 0 : offs[i],
                                                       .data_size = outside ? 0 : sizes[i],
                                                       .done = outside || sizes[i] <= 0,
                                                       .buffer = (uint16_t)dec->nr_buffers };
    }
    dec->nr_buffers++;
    if (dec->stats.nr_cpus < n)
        dec->stats.nr_cpus = n;
    return KS_OK;
}

/* Every buffer is known: each cursor with data gets its page batch (smaller with many
 * CPUs) and the merge starts. */
static int32_t start_records(ks_tracedat_decoder *dec)
{
    int32_t page = dec->stats.page_size, n = 0;
    for (int32_t i = 0; i < dec->nr_cursors; i++)
        n += !dec->cursors[i].done;
    int64_t batch = KS_TRACEDAT_CPU_BATCH;
    if (n > 0 && batch * n > TD_CPU_BUFFERS_MAX)
        batch = TD_CPU_BUFFERS_MAX / n;
    batch = batch / page * page;
    if (batch < page)
        batch = page;
    if ((int64_t)n * batch > TD_HELD_MAX) {     /* one page per CPU does not fit: refused */
        char msg[128];
        snprintf(msg, sizeof msg, "%d CPU blocks of %d-byte pages: more than the %d MiB held at once",
                 n, page, TD_HELD_MAX >> 20);
        return fail(dec, dec->pos, "flyrecord", msg);
    }
    for (int32_t i = 0; i < dec->nr_cursors; i++) {
        td_cursor *c = &dec->cursors[i];
        c->batch = (int32_t)batch;
        if (!c->done && !(c->buf = malloc((size_t)batch)))
            return KS_ERR_NO_MEMORY;
        if (!c->done)
            dec->held += batch;
    }
    dec->held_peak = dec->held;
    dec->waiting = -1;
    dec->step = ST_RECORDS;
    return KS_OK;
}

/* The k-way merge: emits records until a cursor needs bytes or all are done. */
static int32_t run_records(ks_tracedat_decoder *dec, ks_event_log *sink)
{
    for (;;) {
        for (int32_t i = 0; i < dec->nr_cursors; i++) {
            td_cursor *c = &dec->cursors[i];
            if (c->done || c->has_rec)
                continue;
            cursor_state st = cursor_advance(dec, c);
            if (st == CUR_FAILED)
                return dec->cur_status;
            if (st == CUR_NEED) {
                dec->waiting = i;
                dec->want_off = c->z ? c->z_pos + c->zin_len : c->data_off + c->fetched;
                dec->want_len = c->z ? (int32_t)(c->zin_target - c->zin_len) : c->buf_target - c->buf_len;
                return KS_OK;
            }
        }
        td_cursor *best = NULL;
        for (int32_t i = 0; i < dec->nr_cursors; i++) {
            td_cursor *c = &dec->cursors[i];
            if (c->has_rec && (!best || c->rec.ts < best->rec.ts))
                best = c;
        }
        if (!best) {
            dec->step = ST_DONE;
            dec->waiting = -1;
            dec->want_len = 0;
            return KS_OK;
        }
        int32_t status = emit_record(dec, best, sink);
        best->has_rec = false;
        if (status != KS_OK)
            return status;
    }
}

static int32_t feed_text(ks_tracedat_decoder *dec, int64_t off, const char *chunk, int32_t len,
                         ks_event_log *sink);

/* ---- the header steps ---------------------------------------------------------------------------- */

/* v7: the next section to read, in td_section order; the data last. */
static void next_section(ks_tracedat_decoder *dec)
{
    while (dec->section < SEC_COUNT && dec->section_off[dec->section] == 0)
        dec->section++;
    dec->step = ST_NEXT_SECTION;
}

/* After a block of the header: v6 goes on in file order, v7 to its next section. */
static void block_done(ks_tracedat_decoder *dec, td_step v6_next)
{
    if (dec->stats.version == 6) {
        dec->step = v6_next;
        return;
    }
    dec->section++;
    next_section(dec);
}

static void copy_option_string(char *dst, int32_t cap, const uint8_t *at, uint32_t size)
{
    int32_t n = 0;
    while ((uint32_t)n < size && n < cap - 1 && at[n] && at[n] != '\n')
        n++;
    memcpy(dst, at, (size_t)n);
    dst[n] = '\0';
}

/* v7 BUFFER option: offset, name, clock, page size, cpus, then { cpu, offset, size } each. */
static int32_t read_buffer_option(ks_tracedat_decoder *dec, const uint8_t *at, uint32_t size)
{
    uint32_t k = 8;
    const uint8_t *name = at + k;
    while (k < size && at[k])
        k++;
    bool top = k == 8;
    const uint8_t *clock = at + ++k;
    while (k < size && at[k])
        k++;
    k++;
    if (k + 8 > size)
        return -1;
    if (top || !dec->stats.trace_clock[0])
        copy_option_string(dec->stats.trace_clock, sizeof dec->stats.trace_clock, clock,
                           size - (uint32_t)(clock - at));
    uint32_t buffer_page = (uint32_t)num(dec, at + k, 4);
    uint32_t cpus = (uint32_t)num(dec, at + k + 4, 4);
    k += 8;
    if (cpus > TD_MAX_CPUS || k + cpus * 20ull > size)
        return -1;
    int64_t *offs = malloc(sizeof *offs * (cpus ? cpus : 1));
    int64_t *sizes = malloc(sizeof *sizes * (cpus ? cpus : 1));
    int32_t *ids = malloc(sizeof *ids * (cpus ? cpus : 1));
    int32_t status = offs && sizes && ids ? 0 : -2;
    for (uint32_t i = 0; status == 0 && i < cpus; i++, k += 20) {
        ids[i] = (int32_t)num(dec, at + k, 4);
        offs[i] = (int64_t)num(dec, at + k + 4, 8);
        sizes[i] = (int64_t)num(dec, at + k + 12, 8);
    }
    char bname[64];
    snprintf(bname, sizeof bname, "%.*s", (int)(clock - 1 - name), (const char *)name);
    if (status == 0 && cpus > 0 && buffer_page != (uint32_t)dec->stats.page_size) {
        char msg[160];                  /* a buffer of another page size: not read (counted) */
        snprintf(msg, sizeof msg, "buffer '%s' has %u-byte pages, the file %d: not decoded",
                 bname, buffer_page, dec->stats.page_size);
        note_malformed(dec, dec->pos, "options", msg);
        dec->stats.skipped_buffers++;
    } else if (status == 0) {
        /* the cursors are made now; records start once the header sections are read */
        int32_t before = dec->nr_buffers;
        status = add_buffer(dec, bname, (int64_t)num(dec, at, 8), offs, sizes, ids, (int32_t)cpus) == KS_OK
                 ? 0 : -2;
        if (before == 0 && dec->nr_buffers == 1)
            dec->section_off[SEC_DATA] = dec->buffers[0].offset;
        dec->step = ST_OPTION;
    }
    free(offs);
    free(sizes);
    free(ids);
    return status;
}

/* One option's data (v6 and v7 share the ids below 16). */
static int32_t read_option(ks_tracedat_decoder *dec, uint16_t id, const uint8_t *at, uint32_t size)
{
    char msg[96];
    switch (id) {
    case OPT_UNAME:
        copy_option_string(dec->stats.uname, sizeof dec->stats.uname, at, size);
        return KS_OK;
    case OPT_TRACECLOCK:                        /* "[local] global counter ...": the chosen one */
        for (uint32_t i = 0; i < size; i++)
            if (at[i] == '[') {
                copy_option_string(dec->stats.trace_clock, sizeof dec->stats.trace_clock, at + i + 1, size - i - 1);
                char *close = strchr(dec->stats.trace_clock, ']');
                if (close)
                    *close = '\0';
                return KS_OK;
            }
        copy_option_string(dec->stats.trace_clock, sizeof dec->stats.trace_clock, at, size);
        return KS_OK;
    case OPT_CPUCOUNT:
        if (size == 4) {                        /* upstream: the CPU count */
            uint32_t n = (uint32_t)num(dec, at, 4);
            if (n > 0 && n <= TD_MAX_CPUS && dec->stats.nr_cpus == 0)
                dec->stats.nr_cpus = (int32_t)n;
            return KS_OK;
        }
        /* gpuvis' patched trace-cmd: a saved-TGID table, "pid tgid\n" lines */
        if (read_pid_lines(dec, (const char *)at, size, true) < 0)
            return KS_ERR_NO_MEMORY;
        return KS_OK;
    case OPT_BUFFER:
        if (dec->stats.version == 6) {          /* v6: an instance: offset:u64 name */
            if (size < 9) {
                snprintf(msg, sizeof msg, "a BUFFER option of %u bytes that does not read", size);
                note_malformed(dec, dec->pos, "options", msg);
            } else if (dec->v6_pending == TD_MAX_BUFFERS) {
                dec->stats.skipped_buffers++;
            } else {
                struct td_buffer *b = &dec->v6_instances[dec->v6_pending++];
                b->offset = (int64_t)num(dec, at, 8);
                copy_option_string(b->name, sizeof b->name, at + 8, size - 8);
            }
            return KS_OK;
        }
        {
            int32_t r = read_buffer_option(dec, at, size);
            if (r == -2)
                return KS_ERR_NO_MEMORY;
            if (r < 0) {
                snprintf(msg, sizeof msg, "a BUFFER option of %u bytes that does not read", size);
                note_malformed(dec, dec->pos, "options", msg);
            }
        }
        return KS_OK;
    case OPT_BUFFER_TEXT:
        if (size >= 8 && dec->stats.version == 7)
            dec->text_off = (int64_t)num(dec, at, 8);
        return KS_OK;
    case OPT_HEADER_INFO: case OPT_FTRACE_EVENTS: case OPT_EVENT_FORMATS: case OPT_CMDLINES:
        if (size >= 8 && dec->stats.version == 7) {
            td_section s = id == OPT_HEADER_INFO ? SEC_HEADER_INFO : id == OPT_FTRACE_EVENTS ? SEC_FTRACE
                         : id == OPT_EVENT_FORMATS ? SEC_EVENTS : SEC_CMDLINES;
            dec->section_off[s] = (int64_t)num(dec, at, 8);
        }
        return KS_OK;
    default:                                    /* unknown or unused: skipped by its size */
        return KS_OK;
    }
}

/* Reads one format file at pos (item_size bytes). */
static int32_t read_format(ks_tracedat_decoder *dec, const uint8_t *at, const char *system)
{
    char msg[128];
    int32_t r = td_format_parse(&dec->formats, system, (const char *)at, (int32_t)dec->item_size,
                                msg, sizeof msg);
    if (r < 0)
        return KS_ERR_NO_MEMORY;
    if (r == 0)
        note_malformed(dec, dec->pos, step_section(dec->step), msg);
    else
        dec->stats.event_formats++;
    return KS_OK;
}

/* A size read from the header that must fit in memory. */
static bool item_fits(ks_tracedat_decoder *dec, uint64_t size)
{
    if (size <= KS_TRACEDAT_MAX_ITEM)
        return true;
    char msg[96];
    snprintf(msg, sizeof msg, "an item of %llu bytes (more than %d: corrupt size?)",
             (unsigned long long)size, KS_TRACEDAT_MAX_ITEM);
    fail(dec, dec->pos, step_section(dec->step), msg);
    return false;
}

static const char *section_name(uint16_t id)
{
    switch (id) {
    case OPT_DONE: return "options";
    case OPT_HEADER_INFO: return "header info";
    case OPT_FTRACE_EVENTS: return "ftrace formats";
    case OPT_EVENT_FORMATS: return "event formats";
    case OPT_CMDLINES: return "cmdlines";
    case OPT_BUFFER: return "flyrecord data";
    case OPT_BUFFER_TEXT: return "latency text";
    default: return "section";
    }
}

/* A section flagged compressed: the file's algorithm must be one kscope decompresses. */
static int32_t check_codec(ks_tracedat_decoder *dec, uint16_t id)
{
    char msg[160];
    if (dec->codec == TD_CODEC_NONE) {
        snprintf(msg, sizeof msg, "the %s section is flagged compressed, but the file header names "
                 "no compression ('%s')", section_name(id), dec->compression);
        return fail(dec, dec->pos, "section header", msg);
    }
    if (dec->codec == TD_CODEC_UNKNOWN) {
        snprintf(msg, sizeof msg, "compressed with '%s' %s, which kscope does not decompress "
                 "(it reads zstd and zlib)", dec->compression, dec->compression_version);
        return fail(dec, dec->pos, "section header", msg);
    }
    if (!dec->unzip && !(dec->unzip = td_decompressor_new(dec->codec)))
        return KS_ERR_NO_MEMORY;
    return KS_OK;
}

/* A compressed section at pos: header, { csize:u32 usize:u32 data[csize] }. Reads it
 * whole (*wait: not all there yet), decompresses it and parses on from its bytes:
 * zs_active, pos 0, section_end its decompressed size. */
static int32_t unpack_section(ks_tracedat_decoder *dec, uint16_t id, uint64_t size, bool *wait)
{
    char msg[384], what[160];
    const uint8_t *at = need(dec, 16 + 8);
    if (!at) {
        *wait = true;
        return KS_OK;
    }
    uint32_t csize = (uint32_t)num(dec, at + 16, 4), usize = (uint32_t)num(dec, at + 20, 4);
    if ((uint64_t)csize + 8 > size) {
        snprintf(msg, sizeof msg, "the compressed %s section says %u compressed bytes, more than its %llu",
                 section_name(id), csize, (unsigned long long)size);
        return fail(dec, dec->pos + 16, section_name(id), msg);
    }
    if (csize > KS_TRACEDAT_MAX_ITEM || usize > KS_TRACEDAT_MAX_ITEM) {
        snprintf(msg, sizeof msg, "the compressed %s section holds %u bytes (%u compressed): more than %d",
                 section_name(id), usize, csize, KS_TRACEDAT_MAX_ITEM);
        return fail(dec, dec->pos + 16, section_name(id), msg);
    }
    if (!(at = need(dec, 16 + 8 + (int64_t)csize))) {
        *wait = true;
        return KS_OK;
    }
    if (usize > dec->zs_cap || !dec->zs) {
        uint8_t *grown = realloc(dec->zs, usize ? usize : 1);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        dec->zs = grown;
        dec->zs_cap = usize;
    }
    if (!td_decompress(dec->unzip, at + 24, csize, dec->zs, usize, what, sizeof what)) {
        snprintf(msg, sizeof msg, "the %s section (at byte %lld) does not decompress: %s",
                 section_name(id), (long long)dec->pos, what);
        return fail(dec, dec->pos + 24, section_name(id), msg);
    }
    dec->zs_file_off = dec->pos;
    dec->zs_active = true;
    dec->zs_len = usize;
    dec->pos = 0;
    dec->section_end = usize;
    return KS_OK;
}

/* Runs header steps until one needs bytes that are not there. KS_OK: wants bytes
 * or reached the records; KS_ERR_PARSE: stopped. */
static int32_t run_header(ks_tracedat_decoder *dec, ks_event_log *sink)
{
    char msg[128];
    const uint8_t *at;
    for (;;) {
        dec->want_len = 0;
        switch (dec->step) {
        case ST_MAGIC:
            if (!(at = need(dec, TD_MAGIC_LEN)))
                return KS_OK;
            if (memcmp(at, TD_MAGIC, TD_MAGIC_LEN) != 0) {
                char quoted[24];
                quote_bytes(at, 16 < dec->win_len ? 16 : dec->win_len, quoted, sizeof quoted);
                snprintf(msg, sizeof msg, "not a trace.dat: starts with '%s'", quoted);
                return fail(dec, 0, "file header", msg);
            }
            dec->pos += TD_MAGIC_LEN;
            dec->step = ST_VERSION;
            break;
        case ST_VERSION: {
            int32_t len;
            bool bad;
            const char *v = need_string(dec, 16, &len, &bad);
            if (!v) {
                if (bad)
                    return fail(dec, dec->pos, "file header", "a version string longer than 16 bytes");
                return KS_OK;
            }
            if (!(len == 1 && (v[0] == '6' || v[0] == '7'))) {
                snprintf(msg, sizeof msg, "trace.dat version '%.*s' is not supported (6 and 7 are)", len, v);
                return fail(dec, dec->pos, "file header", msg);
            }
            dec->stats.version = v[0] - '0';
            dec->pos += len + 1;
            dec->step = ST_FILE_INFO;
            break;
        }
        case ST_FILE_INFO:
            if (!(at = need(dec, 6)))
                return KS_OK;
            dec->big = at[0] != 0;
            dec->stats.big_endian = dec->big;
            dec->stats.long_size = at[1];
            dec->stats.page_size = (int32_t)num(dec, at + 2, 4);
            if (at[0] > 1 || (at[1] != 4 && at[1] != 8) || dec->stats.page_size < 512 ||
                dec->stats.page_size > (1 << 20) || (dec->stats.page_size & (dec->stats.page_size - 1))) {
                snprintf(msg, sizeof msg, "endian %u, long size %u, page size %d do not read",
                         at[0], at[1], dec->stats.page_size);
                return fail(dec, dec->pos, "file header", msg);
            }
            dec->pos += 6;
            dec->step = dec->stats.version == 7 ? ST_COMPRESSION : ST_HEADER_PAGE;
            dec->item_size = 0;
            break;
        case ST_COMPRESSION:                    /* "none\0" "\0", or "zstd\0" "1.5.4\0" */
        case ST_COMPRESSION_VERSION: {
            int32_t len;
            bool bad;
            const char *name = need_string(dec, 64, &len, &bad);
            if (!name) {
                if (bad)
                    return fail(dec, dec->pos, "file header", "a compression name longer than 64 bytes");
                return KS_OK;
            }
            if (dec->step == ST_COMPRESSION) {
                snprintf(dec->compression, sizeof dec->compression, "%.*s", len, name);
                dec->codec = td_codec_from_name(dec->compression);
            } else {
                snprintf(dec->compression_version, sizeof dec->compression_version, "%.*s", len, name);
            }
            dec->pos += len + 1;
            dec->step = dec->step == ST_COMPRESSION ? ST_COMPRESSION_VERSION : ST_FIRST_OPTIONS;
            break;
        }
        case ST_FIRST_OPTIONS:
            if (!(at = need(dec, 8)))
                return KS_OK;
            dec->pos = (int64_t)num(dec, at, 8);
            dec->in_options = true;
            dec->option_sections = 1;
            dec->step = ST_SECTION_HEADER;
            break;
        case ST_HEADER_PAGE:
        case ST_HEADER_EVENT: {                 /* "header_page\0" size:u64 text */
            const char *tag = dec->step == ST_HEADER_PAGE ? "header_page" : "header_event";
            int32_t tag_len = (int32_t)strlen(tag) + 1;
            if (!(at = need(dec, tag_len + 8)))
                return KS_OK;
            if (memcmp(at, tag, (size_t)tag_len) != 0) {
                snprintf(msg, sizeof msg, "expected '%s' here", tag);
                return fail(dec, dec->pos, tag, msg);
            }
            uint64_t size = num(dec, at + tag_len, 8);
            if (!item_fits(dec, size))
                return KS_ERR_PARSE;
            if (!(at = need(dec, tag_len + 8 + (int64_t)size)))
                return KS_OK;
            if (dec->step == ST_HEADER_PAGE) {
                dec->have_layout = td_page_layout_parse((const char *)at + tag_len + 8, (int32_t)size,
                                                        &dec->layout);
                if (!dec->have_layout || dec->layout.data_offset >= dec->stats.page_size)
                    return fail(dec, dec->pos, tag, "header_page lacks timestamp, commit or data");
            }
            dec->pos += tag_len + 8 + (int64_t)size;
            if (dec->step == ST_HEADER_PAGE)
                dec->step = ST_HEADER_EVENT;
            else
                block_done(dec, ST_FTRACE_COUNT);
            break;
        }
        case ST_FTRACE_COUNT:
        case ST_SYSTEMS_COUNT:
            if (!(at = need(dec, 4)))
                return KS_OK;
            dec->pos += 4;
            if (dec->step == ST_FTRACE_COUNT) {
                dec->items_left = (uint32_t)num(dec, at, 4);
                snprintf(dec->system, sizeof dec->system, "ftrace");
                dec->step = ST_FTRACE_FORMAT;
            } else {
                dec->systems_left = (uint32_t)num(dec, at, 4);
                dec->step = ST_SYSTEM;
            }
            dec->item_size = 0;
            break;
        case ST_SYSTEM: {
            if (dec->systems_left == 0) {
                block_done(dec, ST_KALLSYMS);
                break;
            }
            int32_t len;
            bool bad;
            const char *name = need_string(dec, 64, &len, &bad);
            if (!name) {
                if (bad)
                    return fail(dec, dec->pos, "event formats", "a system name longer than 64 bytes");
                return KS_OK;
            }
            if (!(at = need(dec, len + 1 + 4)))
                return KS_OK;
            snprintf(dec->system, sizeof dec->system, "%.*s", len, (const char *)at);
            dec->items_left = (uint32_t)num(dec, at + len + 1, 4);
            dec->pos += len + 1 + 4;
            dec->systems_left--;
            dec->step = ST_EVENT_FORMAT;
            dec->item_size = 0;
            break;
        }
        case ST_FTRACE_FORMAT:
        case ST_EVENT_FORMAT: {                 /* size:u64 <format text> */
            if (dec->items_left == 0) {
                if (dec->step == ST_FTRACE_FORMAT) {
                    dec->step = ST_SYSTEMS_COUNT;
                    block_done(dec, ST_SYSTEMS_COUNT);
                } else {
                    dec->step = ST_SYSTEM;
                }
                break;
            }
            if (!(at = need(dec, 8)))
                return KS_OK;
            dec->item_size = num(dec, at, 8);
            if (!item_fits(dec, dec->item_size))
                return KS_ERR_PARSE;
            if (!(at = need(dec, 8 + (int64_t)dec->item_size)))
                return KS_OK;
            dec->pos += 8;
            int32_t status = read_format(dec, at + 8, dec->system);
            if (status != KS_OK)
                return status;
            dec->pos += (int64_t)dec->item_size;
            dec->items_left--;
            break;
        }
        case ST_KALLSYMS:
        case ST_PRINTK:                         /* size:u32, skipped */
            if (!(at = need(dec, 4)))
                return KS_OK;
            dec->pos += 4 + (int64_t)num(dec, at, 4);
            dec->step = dec->step == ST_KALLSYMS ? ST_PRINTK : ST_CMDLINES;
            break;
        case ST_CMDLINES: {                     /* size:u64 "pid comm\n"... */
            if (!(at = need(dec, 8)))
                return KS_OK;
            uint64_t size = num(dec, at, 8);
            if (!item_fits(dec, size))
                return KS_ERR_PARSE;
            if (!(at = need(dec, 8 + (int64_t)size)))
                return KS_OK;
            int32_t bad = read_pid_lines(dec, (const char *)at + 8, (int64_t)size, false);
            if (bad < 0)
                return KS_ERR_NO_MEMORY;
            if (bad > 0) {
                snprintf(msg, sizeof msg, "%d cmdlines lines are not 'pid comm'", bad);
                note_malformed(dec, dec->pos, "cmdlines", msg);
            }
            dec->pos += 8 + (int64_t)size;
            block_done(dec, ST_CPUS);
            break;
        }
        case ST_CPUS:
            if (!(at = need(dec, 4)))
                return KS_OK;
            dec->stats.nr_cpus = (int32_t)num(dec, at, 4);
            if (dec->stats.nr_cpus < 0 || dec->stats.nr_cpus > TD_MAX_CPUS) {
                snprintf(msg, sizeof msg, "%u CPUs (more than %d: corrupt?)",
                         (uint32_t)dec->stats.nr_cpus, TD_MAX_CPUS);
                return fail(dec, dec->pos, "cpus", msg);
            }
            dec->pos += 4;
            dec->step = ST_V6_TAG;
            break;
        case ST_V6_TAG:                         /* "options  \0", "latency  \0", "flyrecord\0" */
            if (!(at = need(dec, 10)))
                return KS_OK;
            if (memcmp(at, "options  \0", 10) == 0 && !dec->in_options) {
                dec->in_options = true;
                dec->pos += 10;
                dec->step = ST_OPTION;
            } else if (memcmp(at, "latency  \0", 10) == 0) {
                dec->pos += 10;
                dec->text_end = -1;
                dec->step = ST_LATENCY;
            } else if (memcmp(at, "flyrecord\0", 10) == 0) {
                dec->pos += 10;
                dec->step = ST_FLYRECORD;
            } else {
                char quoted[16];
                quote_bytes(at, 10, quoted, sizeof quoted);
                snprintf(msg, sizeof msg, "expected 'options', 'latency' or 'flyrecord', got '%s'", quoted);
                return fail(dec, dec->pos, "cpus", msg);
            }
            break;
        case ST_OPTION: {                       /* id:u16 size:u32 data */
            if (!(at = need(dec, 2)))
                return KS_OK;
            uint16_t id = (uint16_t)num(dec, at, 2);
            if (id == OPT_DONE && dec->stats.version == 6) {
                dec->pos += 2;
                dec->step = ST_V6_TAG;
                break;
            }
            if (!(at = need(dec, 6)))
                return KS_OK;
            uint32_t size = (uint32_t)num(dec, at + 2, 4);
            if (dec->stats.version == 7 && dec->pos + 6 + size > dec->options_end) {
                snprintf(msg, sizeof msg, "option %u of %u bytes runs past its section", id, size);
                return fail(dec, dec->pos, "options", msg);
            }
            if (id == OPT_DONE) {               /* v7: the next options section, or none */
                if (!(at = need(dec, 6 + 8)))
                    return KS_OK;
                int64_t next = size >= 8 ? (int64_t)num(dec, at + 6, 8) : 0;
                if (next != 0 && ++dec->option_sections <= TD_MAX_OPTION_SECTIONS) {
                    dec->zs_active = false;     /* back to file offsets */
                    dec->pos = next;
                    dec->in_options = true;
                    dec->step = ST_SECTION_HEADER;
                } else {
                    dec->in_options = false;
                    dec->section = SEC_HEADER_INFO;
                    if (dec->section_off[SEC_HEADER_INFO] == 0 || dec->section_off[SEC_EVENTS] == 0)
                        return fail(dec, dec->pos, "options",
                                    "the options name no header info or event formats section");
                    next_section(dec);
                }
                break;
            }
            bool wanted = id == OPT_UNAME || id == OPT_TRACECLOCK || id == OPT_CPUCOUNT ||
                          id == OPT_BUFFER || id == OPT_BUFFER_TEXT ||
                          (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES);
            if (wanted && size <= KS_TRACEDAT_MAX_ITEM) {
                if (!(at = need(dec, 6 + (int64_t)size)))
                    return KS_OK;
                dec->pos += 6;
                int32_t status = read_option(dec, id, at + 6, size);
                if (status != KS_OK)
                    return status;
                dec->pos += size;
            } else {
                dec->pos += 6 + (int64_t)size;  /* unknown (gpuvis' id 8 of other sizes too) */
            }
            break;
        }
        case ST_FLYRECORD:                      /* cpus x { offset:u64 size:u64 } */
        case ST_V6_INSTANCE: {                  /* "flyrecord\0" cpus x { offset:u64 size:u64 } */
            int32_t n = dec->stats.nr_cpus;
            int32_t tag = dec->step == ST_V6_INSTANCE ? 10 : 0;
            struct td_buffer *inst = tag ? &dec->v6_instances[dec->visiting] : NULL;
            if (!(at = need(dec, tag + 16 * (int64_t)n)))
                return KS_OK;
            if (tag && memcmp(at, "flyrecord\0", 10) != 0) {
                snprintf(msg, sizeof msg, "instance '%.40s': expected 'flyrecord' at its BUFFER option's offset",
                         inst->name);
                return fail(dec, dec->pos, "instance flyrecord", msg);
            }
            at += tag;
            int64_t *offs = malloc(sizeof *offs * (size_t)(n ? n : 1));
            int64_t *sizes = malloc(sizeof *sizes * (size_t)(n ? n : 1));
            int32_t *ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
            int32_t status = offs && sizes && ids ? KS_OK : KS_ERR_NO_MEMORY;
            for (int32_t i = 0; status == KS_OK && i < n; i++) {
                offs[i] = (int64_t)num(dec, at + 16 * i, 8);
                sizes[i] = (int64_t)num(dec, at + 16 * i + 8, 8);
                ids[i] = i;
            }
            if (status == KS_OK)
                status = add_buffer(dec, inst ? inst->name : "", dec->pos, offs, sizes, ids, n);
            free(offs);
            free(sizes);
            free(ids);
            if (status != KS_OK)
                return status;
            if (tag)
                dec->visiting++;
            else
                dec->visiting = 0;
            if (dec->visiting < dec->v6_pending) {   /* the next instance's flyrecord */
                dec->pos = dec->v6_instances[dec->visiting].offset;
                dec->step = ST_V6_INSTANCE;
                break;
            }
            if ((status = start_records(dec)) != KS_OK)
                return status;
            return run_records(dec, sink);
        }
        case ST_NEXT_SECTION:
            dec->zs_active = false;             /* back to file offsets */
            if (dec->section >= SEC_COUNT) {    /* v7 without a top buffer: latency or nothing */
                if (dec->text_off) {
                    dec->pos = dec->text_off;
                    dec->section = SEC_DATA;
                    dec->text_end = 0;
                    dec->step = ST_SECTION_HEADER;
                    break;
                }
                dec->step = ST_DONE;
                return KS_OK;
            }
            dec->pos = dec->section_off[dec->section];
            dec->step = ST_SECTION_HEADER;
            break;
        case ST_SECTION_HEADER: {               /* id:u16 flags:u16 string:u32 size:u64 */
            if (!(at = need(dec, 16)))
                return KS_OK;
            uint16_t id = (uint16_t)num(dec, at, 2), flags = (uint16_t)num(dec, at + 2, 2);
            uint64_t size = num(dec, at + 8, 8);
            static const uint16_t expected[SEC_COUNT] = { OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
                                                          OPT_EVENT_FORMATS, OPT_CMDLINES, OPT_BUFFER };
            uint16_t want_id = dec->in_options ? OPT_DONE
                             : dec->section == SEC_DATA && dec->text_off && dec->nr_buffers == 0
                               ? OPT_BUFFER_TEXT : expected[dec->section];
            if (id != want_id) {
                snprintf(msg, sizeof msg, "expected section %u here, got %u", want_id, id);
                return fail(dec, dec->pos, "section header", msg);
            }
            bool packed = (flags & SECTION_COMPRESSED) != 0;
            bool data = !dec->in_options && dec->section == SEC_DATA;
            if (packed) {
                int32_t status = check_codec(dec, id);
                if (status != KS_OK)
                    return status;
            }
            if (packed && !data) {              /* one block: read it whole, parse from memory */
                bool wait = false;
                int32_t status = unpack_section(dec, id, size, &wait);
                if (wait || status != KS_OK)
                    return status;
            } else {
                dec->pos += 16;
                dec->section_end = dec->pos + (int64_t)size;
            }
            if (dec->in_options) {
                dec->options_end = dec->section_end;
                dec->step = ST_OPTION;
                break;
            }
            switch (dec->section) {
            case SEC_HEADER_INFO: dec->step = ST_HEADER_PAGE; break;
            case SEC_FTRACE: dec->step = ST_FTRACE_COUNT; break;
            case SEC_EVENTS: dec->step = ST_SYSTEMS_COUNT; break;
            case SEC_CMDLINES: dec->step = ST_CMDLINES; break;
            default:
                if (dec->nr_buffers > 0) {      /* a buffer's flyrecord data: its cursors know where */
                    free(dec->zs);              /* the header sections are read: give their memory back */
                    dec->zs = NULL;
                    dec->zs_cap = 0;
                    for (int32_t i = 0; packed && i < dec->nr_cursors; i++) {
                        td_cursor *c = &dec->cursors[i];
                        if (c->buffer != dec->visiting)
                            continue;
                        c->z = true;            /* per CPU: u32 count, then the chunks */
                        c->zstage = Z_COUNT;
                        c->z_pos = c->chunk_off = c->data_off;
                    }
                    if (++dec->visiting < dec->nr_buffers) {     /* the next buffer's section header */
                        dec->pos = dec->buffers[dec->visiting].offset;
                        dec->step = ST_SECTION_HEADER;
                        break;
                    }
                    int32_t status = start_records(dec);
                    if (status != KS_OK)
                        return status;
                    return run_records(dec, sink);
                }
                if (packed)
                    return fail(dec, dec->pos - 16, "latency text",
                                "compressed latency (BUFFER_TEXT) data is not read: convert the file with "
                                "trace-cmd convert --compression none");
                dec->text_end = dec->section_end;
                dec->step = ST_LATENCY;
                break;
            }
            break;
        }
        case ST_LATENCY: {                      /* trace text to the end (of the file or section) */
            if (!dec->text && ks_ftrace_decoder_new(&dec->text) != KS_OK)
                return KS_ERR_NO_MEMORY;
            if (dec->text_end >= 0 && dec->pos >= dec->text_end) {
                dec->step = ST_DONE;
                int32_t status = feed_text(dec, dec->pos, NULL, 0, sink);
                if (status != KS_OK)
                    return status;
                break;
            }
            int64_t n = dec->text_end >= 0 && dec->text_end - dec->pos < TD_WINDOW_HINT
                        ? dec->text_end - dec->pos : TD_WINDOW_HINT;
            dec->want_off = dec->pos;
            dec->want_len = (int32_t)n;
            return KS_OK;
        }
        case ST_RECORDS:
            return run_records(dec, sink);
        case ST_DONE:
        case ST_FAILED:
            dec->want_len = 0;
            return dec->step == ST_FAILED ? KS_ERR_PARSE : KS_OK;
        }
    }
}

/* ---- the public API ---------------------------------------------------------------------------- */

int32_t ks_tracedat_decoder_new(ks_tracedat_decoder **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_tracedat_decoder *dec = calloc(1, sizeof *dec);
    if (dec)
        dec->scratch = malloc(TD_SCRATCH);
    if (!dec || !dec->scratch) {
        ks_tracedat_decoder_free(dec);
        *out = NULL;
        return KS_ERR_NO_MEMORY;
    }
    dec->stats.error_offset = -1;
    dec->text_line_off = -1;
    dec->waiting = -1;
    dec->step = ST_MAGIC;
    need(dec, TD_MAGIC_LEN);                    /* the first want: the magic */
    *out = dec;
    return KS_OK;
}

void ks_tracedat_decoder_free(ks_tracedat_decoder *dec)
{
    if (!dec)
        return;
    for (int32_t i = 0; i < dec->nr_cursors; i++) {
        free(dec->cursors[i].buf);
        free(dec->cursors[i].zin);
    }
    free(dec->cursors);
    free(dec->zs);
    td_decompressor_free(dec->unzip);
    td_formats_free(&dec->formats);
    free(dec->comms);
    free(dec->win);
    free(dec->scratch);
    ks_ftrace_decoder_free(dec->text);
    free(dec);
}

int32_t ks_tracedat_decoder_want(const ks_tracedat_decoder *dec, int64_t *offset, int32_t *len)
{
    if (!dec || !offset || !len)
        return KS_ERR_INVALID_ARG;
    bool active = dec->step != ST_DONE && dec->step != ST_FAILED;
    *offset = active ? dec->want_off : 0;
    *len = active ? dec->want_len : 0;
    return KS_OK;
}

/* File offset where line `line` (1-based, as the text decoder counts) of the latency text
 * starts, given the chunk just fed at `off` (NULL at finish). The text decoder counts lines,
 * not bytes; the offset is found here so that it names the line whatever the chunking. */
static int64_t text_line_offset(const ks_tracedat_decoder *dec, int64_t off, const char *chunk,
                                int32_t len, int32_t line)
{
    uint32_t seen = dec->text_newlines;
    if (line <= 0 || (uint32_t)line - 1 <= seen)
        return dec->text_line_off >= 0 ? dec->text_line_off : off;
    for (int32_t i = 0; chunk && i < len; i++)
        if (chunk[i] == '\n' && ++seen == (uint32_t)line - 1)
            return off + i + 1;
    return off;
}

/* After a chunk at `off` went to the text decoder: count its newlines, keep where the
 * unfinished line starts. */
static void track_text_lines(ks_tracedat_decoder *dec, int64_t off, const char *chunk, int32_t len)
{
    if (dec->text_line_off < 0 && len > 0)
        dec->text_line_off = off;
    for (int32_t i = 0; i < len; i++)
        if (chunk[i] == '\n') {
            dec->text_newlines++;
            dec->text_line_off = off + i + 1;
        }
}

/* Copies latency text (the chunk at file offset `off`) through the ftrace text decoder,
 * adding its counts to ours. Its first problem is placed at the start of its line. */
static int32_t feed_text(ks_tracedat_decoder *dec, int64_t off, const char *chunk, int32_t len,
                         ks_event_log *sink)
{
    ks_ftrace_stats before, after;
    ks_ftrace_decoder_stats(dec->text, &before);
    int32_t status = len > 0 ? ks_ftrace_decoder_feed(dec->text, chunk, len, sink)
                             : ks_ftrace_decoder_finish(dec->text, sink);
    ks_ftrace_decoder_stats(dec->text, &after);
    dec->stats.events += after.events - before.events;
    dec->stats.generic_events += after.generic_events - before.generic_events;
    dec->stats.malformed += after.malformed_lines - before.malformed_lines;
    if (after.malformed_lines > before.malformed_lines && dec->stats.error_offset < 0) {
        char msg[sizeof after.first_error.message + 48];
        snprintf(msg, sizeof msg, "line %d of the latency text: %s", (int)after.first_error.line,
                 after.first_error.message);
        describe(dec, text_line_offset(dec, off, chunk, len, after.first_error.line), "latency text", msg);
    }
    track_text_lines(dec, off, chunk, len);
    return status;
}

/* The caller has no bytes at the wanted offset: the file ends there. */
static int32_t end_of_file(ks_tracedat_decoder *dec, ks_event_log *sink)
{
    char msg[128];
    if (dec->step == ST_LATENCY) {
        dec->step = ST_DONE;
        return dec->text ? feed_text(dec, dec->pos, NULL, 0, sink) : KS_OK;
    }
    if (dec->step == ST_RECORDS && dec->waiting >= 0 && dec->cursors[dec->waiting].z) {
        td_cursor *c = &dec->cursors[dec->waiting];
        char what[160];
        snprintf(what, sizeof what, "truncated: no byte %lld (%u more bytes of its %s)",
                 (long long)dec->want_off, (unsigned)dec->want_len,
                 c->zstage == Z_COUNT ? "chunk count" : c->zstage == Z_HEADER ? "header" : "data");
        cursor_fail(dec, c, dec->want_off, what);
        return KS_ERR_PARSE;
    }
    if (dec->step == ST_RECORDS && dec->waiting >= 0) {
        td_cursor *c = &dec->cursors[dec->waiting];
        snprintf(msg, sizeof msg, "CPU %d's data ends at byte %lld, %lld bytes short of its size",
                 c->cpu, (long long)(c->data_off + c->fetched),
                 (long long)(c->data_size - c->fetched));
        note_malformed(dec, c->data_off + c->fetched, "records", msg);
        c->data_size = c->fetched;              /* the whole pages fed so far are still read */
        c->buf_target = c->buf_len;
        dec->waiting = -1;
        return run_records(dec, sink);
    }
    if (dec->step == ST_MAGIC && dec->win_len > 0 &&
        memcmp(dec->win, TD_MAGIC, (size_t)dec->win_len) != 0) {
        char quoted[24];
        quote_bytes(dec->win, dec->win_len < 16 ? dec->win_len : 16, quoted, sizeof quoted);
        snprintf(msg, sizeof msg, "not a trace.dat: starts with '%s'", quoted);
        return fail(dec, 0, "file header", msg);
    }
    if (dec->step == ST_MAGIC && dec->win_len == 0)
        return fail(dec, 0, "file header", "an empty file: not a trace.dat");
    snprintf(msg, sizeof msg, "truncated: the file has no byte %lld, which the %s needs",
             (long long)dec->want_off, step_section(dec->step));
    return fail(dec, dec->want_off, step_section(dec->step), msg);
}

int32_t ks_tracedat_decoder_feed(ks_tracedat_decoder *dec, int64_t offset, const char *chunk,
                                 int32_t len, ks_event_log *sink)
{
    if (!dec || !sink || len < 0 || (!chunk && len > 0))
        return KS_ERR_INVALID_ARG;
    if (dec->step == ST_FAILED)
        return KS_ERR_PARSE;
    if (dec->step == ST_DONE)
        return KS_OK;
    if (dec->want_len == 0)
        return KS_ERR_NO_MEMORY;                /* need() could not grow the window */
    if (offset != dec->want_off)
        return KS_ERR_RANGE;
    if (len == 0)
        return end_of_file(dec, sink);
    int32_t n = len < dec->want_len ? len : dec->want_len;
    dec->stats.bytes_fed += n;
    if (dec->step == ST_LATENCY) {
        dec->pos += n;
        int32_t status = feed_text(dec, dec->pos - n, chunk, n, sink);
        if (status != KS_OK)
            return status;
        return run_header(dec, sink);
    }
    if (dec->step == ST_RECORDS && dec->cursors[dec->waiting].z) {
        td_cursor *c = &dec->cursors[dec->waiting];
        memcpy(c->zin + c->zin_len, chunk, (size_t)n);
        c->zin_len += (uint32_t)n;
        c->fetched += n;
        if (c->zin_len < c->zin_target) {
            dec->want_off += n;
            dec->want_len -= n;
            return KS_OK;
        }
        dec->waiting = -1;
        return run_records(dec, sink);
    }
    if (dec->step == ST_RECORDS) {
        td_cursor *c = &dec->cursors[dec->waiting];
        memcpy(c->buf + c->buf_len, chunk, (size_t)n);
        c->buf_len += n;
        c->fetched += n;
        if (c->buf_len < c->buf_target) {
            dec->want_off += n;
            dec->want_len -= n;
            return KS_OK;
        }
        dec->waiting = -1;
        return run_records(dec, sink);
    }
    memcpy(dec->win + dec->win_len, chunk, (size_t)n);
    dec->win_len += n;
    int32_t status = run_header(dec, sink);
    if (status == KS_OK && dec->step == ST_FAILED)
        return KS_ERR_PARSE;                    /* need() found a decompressed section too short */
    if (status == KS_OK && dec->step != ST_DONE && dec->step != ST_FAILED && dec->want_len == 0)
        return KS_ERR_NO_MEMORY;
    return status;
}

int32_t ks_tracedat_decoder_finish(ks_tracedat_decoder *dec, ks_event_log *sink)
{
    if (!dec || !sink)
        return KS_ERR_INVALID_ARG;
    if (dec->step == ST_FAILED)
        return KS_ERR_PARSE;
    if (dec->step == ST_DONE)
        return KS_OK;
    char msg[128];
    snprintf(msg, sizeof msg, "decoding ended at byte %lld inside the %s: truncated?",
             (long long)dec->want_off, step_section(dec->step));
    return fail(dec, dec->want_off, step_section(dec->step), msg);
}

int32_t ks_tracedat_decoder_buffer_count(const ks_tracedat_decoder *dec)
{
    return dec ? dec->nr_buffers : 0;
}

const char *ks_tracedat_decoder_buffer_name(const ks_tracedat_decoder *dec, int32_t index)
{
    return dec && index >= 0 && index < dec->nr_buffers ? dec->buffers[index].name : NULL;
}

int64_t ks_tracedat_decoder_held_peak(const ks_tracedat_decoder *dec)
{
    return dec ? dec->held_peak : 0;
}

int32_t ks_tracedat_decoder_stats(const ks_tracedat_decoder *dec, ks_tracedat_stats *out)
{
    if (!dec || !out)
        return KS_ERR_INVALID_ARG;
    *out = dec->stats;
    return KS_OK;
}

int32_t ks_tracedat_decode(const char *data, int32_t len, ks_event_log *sink, ks_tracedat_stats *stats)
{
    return trace_decode_whole(KS_TRACE_TRACE_DAT, data, len, sink, stats, (int32_t)sizeof *stats);
}
