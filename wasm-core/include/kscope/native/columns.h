/*
 * kscope/columns.h: ks_event records -> the store's columns, in one pass.
 *
 * The backend stores events as Arrow/Parquet columns (backend/kscope/ingest/records.py
 * names them). Turning 96-byte records into columns used to take numpy one strided
 * pass per column, a boolean mask per nullable column (then packed to a bitmap by
 * Arrow) and a hash of every 16-byte comm by Arrow's dictionary encoder. This does
 * it all in one pass over the records, into one caller-owned buffer laid out as
 *
 *     [ ts_ns i64 | prev_state i64 | cpu i32 | ... | order i32 | type i8 | buffer i8 | group_dead i8
 *       | validity bitmaps (Arrow's: bit i of byte i/8, LSB first, 1 = value present) ]
 *
 * each region 64-byte aligned (ks_columns_layout gives the offsets), so a caller
 * wraps each region as an Arrow buffer without copying. Nullable columns hold 0
 * where their bitmap says null. The comm-like columns (comm, task_comm, prev_comm,
 * next_comm, child_comm) hold ids into a ks_comm_dict, a table of distinct names
 * that lives across batches (a few hundred names per million events).
 *
 * With KS_COLUMNS_BY_CPU the rows come out grouped by CPU (ascending), each CPU's
 * rows in their input order (a stable counting sort), and `order` maps each output
 * row to its input record. The Parquet writer cuts one row group per CPU from that.
 *
 * Native only in practice (the browser keeps records), but plain C: it builds for
 * wasm too.
 */
#ifndef KSCOPE_COLUMNS_H
#define KSCOPE_COLUMNS_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/event.h"

/* The columns, in buffer order. Comments: the records' field, and which rows are valid. */
typedef enum ks_column {
    KS_COL_TS_NS,          /* i64 ts_ns, all rows */
    KS_COL_PREV_STATE,     /* i64 sched_switch prev_state */
    KS_COL_CPU,            /* i32, all rows */
    KS_COL_PID,            /* i32, all rows */
    KS_COL_TGID,           /* i32, all rows */
    KS_COL_COMM,           /* i32 comm id, all rows */
    KS_COL_TASK_PID,       /* i32 the task a wakeup, migrate, exit or free is about; fork: the parent */
    KS_COL_TASK_COMM,      /* i32 comm id, same rows */
    KS_COL_PRIO,           /* i32 wakeups, migrate, exit, free */
    KS_COL_PREV_COMM,      /* i32 comm id, sched_switch */
    KS_COL_PREV_PID,
    KS_COL_PREV_PRIO,
    KS_COL_NEXT_COMM,      /* i32 comm id */
    KS_COL_NEXT_PID,
    KS_COL_NEXT_PRIO,
    KS_COL_TARGET_CPU,     /* i32 wakeup, waking, wakeup_new */
    KS_COL_ORIG_CPU,       /* i32 migrate */
    KS_COL_DEST_CPU,
    KS_COL_CHILD_PID,      /* i32 fork */
    KS_COL_CHILD_COMM,     /* i32 comm id, fork */
    KS_COL_CPU_ID,         /* i32 rseq_update */
    KS_COL_NODE_ID,        /* i32 rseq_update where recorded (>= 0) */
    KS_COL_MM_CID,         /* i32 rseq_update where recorded (>= 0) */
    KS_COL_G_NAME_OFF,     /* i32 generic: the log's text arena offset of the event name */
    KS_COL_G_FIELDS_OFF,   /* i32 generic: ... of its "key=value" text */
    KS_COL_ORDER,          /* i32 input record index of this row */
    KS_COL_TYPE,           /* i8 ks_event_type */
    KS_COL_BUFFER,         /* i8 the trace buffer's index (ks_event.buffer; 0..63), all rows */
    KS_COL_GROUP_DEAD,     /* i8 sched_process_exit group_dead where recorded (>= 0) */
    KS_VALID_ABOUT,        /* bitmap: task_pid, task_comm */
    KS_VALID_PRIO,         /* bitmap: prio */
    KS_VALID_SWITCH,       /* bitmap: prev_*, next_* */
    KS_VALID_WAKEUP,       /* bitmap: target_cpu */
    KS_VALID_MIGRATE,      /* bitmap: orig_cpu, dest_cpu */
    KS_VALID_FORK,         /* bitmap: child_pid, child_comm */
    KS_VALID_GROUP_DEAD,   /* bitmap: group_dead */
    KS_VALID_RSEQ,         /* bitmap: cpu_id */
    KS_VALID_NODE_ID,      /* bitmap: node_id */
    KS_VALID_MM_CID,       /* bitmap: rseq_update mm_cid */
    KS_VALID_GENERIC,      /* bitmap: name, fields */
    KS_COLUMN_COUNT
} ks_column;

#define KS_COLUMNS_BY_CPU 1u   /* group rows by CPU, stable */

/* Column i's name ("ts_ns", ..., "valid_generic"); NULL past the end. */
KS_API const char *ks_column_name(int32_t column);

/* Bytes per value of column i: 8, 4, 1, or 0 for a bitmap. */
KS_API int32_t ks_column_width(int32_t column);

/* Byte offsets of each region for n rows: offsets[0..KS_COLUMN_COUNT-1], and the
 * whole buffer's size in offsets[KS_COLUMN_COUNT]. */
KS_API int32_t ks_columns_layout(uint32_t n, uint64_t *offsets);

/* Distinct comm names -> dense ids, in order of first sight. */
typedef struct ks_comm_dict ks_comm_dict;

KS_API int32_t ks_comm_dict_new(ks_comm_dict **out);
KS_API void ks_comm_dict_free(ks_comm_dict *dict);
KS_API uint32_t ks_comm_dict_count(const ks_comm_dict *dict);
/* The names, KS_COMM_LEN bytes each (NUL-padded), id order; valid until the next build. */
KS_API const char *ks_comm_dict_names(const ks_comm_dict *dict);

/* What a build saw, beside the columns (fixed-width, read by Python through ctypes). */
typedef struct ks_columns_stats {
    uint64_t ts_min;
    uint64_t ts_max;
    int64_t last_fields_off;    /* largest generic fields_off, -1 if no generic row */
    uint32_t nulls[KS_COLUMN_COUNT - KS_VALID_ABOUT];  /* per bitmap: rows not valid */
    uint32_t type_counts[KS_EV_TYPE_COUNT];
} ks_columns_stats;

/* Fills out (ks_columns_layout(n) bytes, 8-byte aligned) with the columns of n records.
 * KS_ERR_INVALID_ARG for a bad pointer or a record whose type is out of range. */
KS_API int32_t ks_columns_build(const ks_event *events, uint32_t n, ks_comm_dict *dict,
                                uint32_t flags, uint8_t *out, ks_columns_stats *stats);

#endif
