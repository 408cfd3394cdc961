/*
 * Internal: the trace.dat tokenizer, below the parser (tracedat_parser.c).
 *
 * It knows the shapes of a trace.dat's pieces, not the file's layout:
 *
 *   - numbers in the file's byte order;
 *   - an event `format` file -> its fields (name, offset, size, signedness,
 *     string / __data_loc / array), plus the order print fmt names them in;
 *   - the header_page format -> where a page's timestamp, commit and data are;
 *   - a ring-buffer page -> its events, one at a time (the kernel's
 *     type_len/time_delta headers, TIME_EXTEND, TIME_STAMP, PADDING).
 *
 * Every function is total: it reads within the lengths it is given.
 */
#ifndef KSCOPE_TRACE_TRACEDAT_TOKENIZER_H
#define KSCOPE_TRACE_TRACEDAT_TOKENIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "kscope/tracedat.h"

/* ---- numbers ------------------------------------------------------------------------ */

uint64_t td_read_uint(const uint8_t *at, int32_t size, bool big_endian);  /* size 1, 2, 4 or 8 */
int64_t td_read_int(const uint8_t *at, int32_t size, bool big_endian, bool is_signed);

/* ---- event formats -------------------------------------------------------------------- */

typedef enum td_field_kind {
    TD_INT = 0,                 /* an integer of 1, 2, 4 or 8 bytes */
    TD_POINTER,                 /* "void *", "unsigned long" printed %p: an integer shown in hex */
    TD_STRING,                  /* char name[N]; N == 0: to the end of the record */
    TD_ARRAY,                   /* any other fixed array: elements of size / count bytes */
    TD_DATA_LOC,                /* __data_loc T[] name: u32 (len << 16 | offset) */
    TD_REL_LOC,                 /* __rel_loc T[] name: the same, offset from the field's end */
} td_field_kind;

typedef struct td_field {
    uint32_t name_off;          /* into the format set's name pool */
    uint16_t offset;
    uint16_t size;
    uint8_t kind;               /* td_field_kind */
    uint8_t is_signed;
    uint8_t is_char;            /* a data_loc/rel_loc of char: a string */
    uint8_t elem_size;          /* TD_ARRAY element size */
    uint16_t print_rank;        /* position in print fmt (0xffff: not named there) */
    uint16_t reserved;
} td_field;

typedef struct td_format {
    int32_t id;
    uint32_t name_off;          /* event name, e.g. "sched_switch" */
    uint32_t system_off;        /* "sched", "ftrace", ... */
    uint32_t first_field;       /* fields[first_field .. + nr_fields), common_* excluded */
    uint32_t nr_fields;
    int32_t type;               /* ks_event_type it maps to (KS_EV_GENERIC if none) */
    int32_t common_pid;         /* index of common_pid (absolute), -1 if none */
    int32_t common_type;
    int32_t typed[8];           /* field indexes for the typed record, -1 if absent */
} td_format;

/* All formats of a file: fields and names pooled, formats sorted by id once read. */
typedef struct td_format_set {
    td_format *formats;
    uint32_t count, capacity;
    td_field *fields;
    uint32_t field_count, field_capacity;
    char *names;
    uint32_t names_len, names_capacity;
    bool sorted;
} td_format_set;

void td_formats_free(td_format_set *set);
const char *td_name(const td_format_set *set, uint32_t off);

/* Parses one format file into the set; false with a message if it does not read.
 *
 *     name: sched_switch
 *     ID: 316
 *     format:
 *             field:unsigned short common_type;       offset:0;       size:2; signed:0;
 *             ...
 *             field:char prev_comm[16];       offset:8;       size:16;        signed:0;
 *             field:__data_loc char[] name;   offset:12;      size:4; signed:0;
 *
 *     print fmt: "prev_comm=%s prev_pid=%d ...", REC->prev_comm, ...
 *
 * Returns 1 on success, 0 if malformed (msg filled), -1 if out of memory. */
int32_t td_format_parse(td_format_set *set, const char *system, const char *text, int32_t len,
                        char *msg, int32_t msg_cap);

/* The format of an event id (NULL if unknown). Sorts the set on first use. */
const td_format *td_format_find(td_format_set *set, int32_t id);

/* ---- header_page ------------------------------------------------------------------------ */

typedef struct td_page_layout {
    int32_t ts_offset, ts_size;
    int32_t commit_offset, commit_size;
    int32_t data_offset;
} td_page_layout;

/*      field: u64 timestamp;	offset:0;	size:8;	signed:0;
 *      field: local_t commit;	offset:8;	size:8;	signed:1;
 *      field: int overwrite;	offset:8;	size:1;	signed:1;
 *      field: char data;	offset:16;	size:4080;	signed:0;
 * False if the text lacks timestamp, commit or data. */
bool td_page_layout_parse(const char *text, int32_t len, td_page_layout *out);

/* ---- ring-buffer pages ------------------------------------------------------------------- */

typedef struct td_page {
    const uint8_t *data;        /* the page's event area */
    int32_t size;               /* commit: bytes of events */
    int32_t pos;
    uint64_t ts;                /* time of the last event read */
    bool big_endian;
} td_page;

typedef struct td_record {
    uint64_t ts;
    const uint8_t *data;        /* the event's payload (common_type first) */
    int32_t len;
} td_record;

/* Reads the page header at `page` (page_size bytes); false if its commit is out of range.
 * *lost: events the page says were dropped before it (-1: some, count unknown; 0: none). */
bool td_page_open(td_page *pg, const uint8_t *page, int32_t page_size, const td_page_layout *lay,
                  bool big_endian, int64_t *lost);

/* The next data event of a page: 1 with *rec, 0 at the end, -1 if the page is corrupt past here. */
int32_t td_page_next(td_page *pg, td_record *rec);

#endif
