/*
 * store_batches.h: event logs -> the store's columns -> events.parquet, one row group
 * per CPU per batch, written by a thread of its own.
 *
 *   consumer (ingest_main)                     writer thread
 *   log -> batch_build: columns grouped by     batch_write: each CPU's run of rows is
 *          CPU (kscope/columns.h), comm and     one Parquet row group (kscope/parquet.h);
 *          generic-name dictionaries, the       its ts_ns and cpu min/max statistics are
 *          generic text; tally_add              the store's per-CPU time index
 *
 * The columns are those of backend/kscope/ingest/records.py's SCHEMA, in its order,
 * and the footer carries that schema as pyarrow writes it (arrow_schema.inc), so
 * pyarrow reads back the same Arrow types. Column buffers are pooled: the consumer
 * fills one while the writer writes another, so memory is a few batches' columns.
 */
#ifndef KSCOPE_INGEST_STORE_BATCHES_H
#define KSCOPE_INGEST_STORE_BATCHES_H

#include <pthread.h>
#include <stdint.h>
#include "kscope/native/columns.h"
#include "kscope/event.h"
#include "kscope/native/parquet.h"

/* A growable string table (offsets + bytes), as ks_pq_strings wants it. */
typedef struct string_table {
    uint32_t count, cap_count;
    int32_t *offsets;        /* count + 1 */
    char *bytes;
    uint32_t cap_bytes;
} string_table;

typedef struct batch {
    uint8_t *buf;                          /* ks_columns_layout(n) bytes */
    uint64_t buf_cap;
    uint64_t offsets[KS_COLUMN_COUNT + 1];
    uint32_t n;
    ks_columns_stats stats;
    string_table comms;                    /* the comm dictionary as of this batch */
    string_table names;                    /* generic event names as of this batch */
    string_table fields;                   /* row i's generic "key=value" text (empty if not generic) */
    char *scratch;                         /* UTF-8 repair */
    uint32_t scratch_cap;
} batch;

/* Generic event names -> ids for a whole input (open addressing on the name). */
typedef struct name_dict {
    string_table names;
    uint64_t *counts;                      /* events per name */
    uint32_t *slots;                       /* id + 1, 0 = empty */
    uint32_t n_slots;
} name_dict;

typedef struct store_writer {
    ks_pq_writer *pq;
    pthread_t thread;
    int started;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    batch *pool;                           /* n_pool buffers */
    int n_pool;
    int *free_list, n_free;
    int *todo, n_todo;                     /* batches waiting for the writer, in order */
    int closing;
    ks_pq_strings buffer_names;            /* the "buffer" column's dictionary */
    int32_t buffer_offsets[65];
    char buffer_bytes[64 * 64];
    int32_t status;                        /* first write error */
    char error[256];
} store_writer;

int name_dict_init(name_dict *d);
void name_dict_free(name_dict *d);

/* Opens events.parquet at path with the store schema; `buffers` column buffers. */
int store_writer_open(store_writer *w, const char *path, int buffers, int zstd_level);

/* The names of the trace buffers the records' buffer indexes point to (n == 0: one,
 * ""); set before the first batch is submitted. */
void store_writer_set_buffers(store_writer *w, const char *const *names, int32_t n);

/* A free batch buffer (waits for the writer to release one); NULL after a write error. */
batch *store_writer_acquire(store_writer *w);

/* Fills b from n records: columns by CPU, dictionaries, generic text. 0 or a ks_status. */
int32_t batch_build(batch *b, const ks_event_log *log, ks_comm_dict *comms, name_dict *names);

/* Queues b for writing (in order). */
void store_writer_submit(store_writer *w, batch *b);

/* Waits for every queued batch, writes the footer, stops the thread. 0, or the first
 * error's status (w->error says what). */
int32_t store_writer_close(store_writer *w);

/* Frees everything (after close, or instead of it after a failure). */
void store_writer_free(store_writer *w);

#endif
