/*
 * decode_producers.h: the input decoded by threads, handed over as full event logs.
 *
 *     file --pread--> decoder thread(s) --(log of ~batch records)--> queue --> consumer
 *                          ^                                              |
 *                          +------------- emptied logs (reused) ----------+
 *
 * Text formats are read in 1 MiB pieces and fed to their streaming decoder; an ftrace
 * text file over 32 MiB is cut at line starts into parts (one decoder thread each, at
 * most 4, one per CPU by default), so several decoders run side by side. A part's logs
 * arrive in order; parts interleave. trace.dat is read at the offsets its decoder asks
 * for. A log is handed over once it holds `batch` records (the consumer may raise the
 * number as it learns the CPU count), so memory stays bounded whatever the file size:
 * at most one filling log per thread, two full ones waiting, one being consumed.
 */
#ifndef KSCOPE_INGEST_DECODE_PRODUCERS_H
#define KSCOPE_INGEST_DECODE_PRODUCERS_H

#include <pthread.h>
#include <stdint.h>
#include "kscope/event.h"
#include "kscope/ftrace.h"
#include "kscope/perf.h"
#include "kscope/systrace.h"
#include "kscope/tracedat.h"

#define MAX_PARTS 4

typedef enum input_kind { INPUT_FTRACE, INPUT_TRACEDAT, INPUT_PERF, INPUT_SYSTRACE } input_kind;

typedef struct handed_log {
    ks_event_log *log;
    int part;
    uint64_t bytes_done;    /* of this part, so far */
} handed_log;

struct producers;
typedef struct part_arg { struct producers *p; int part; } part_arg;  /* a thread's argument */

typedef struct producers {
    input_kind kind;
    int fd;
    int parts;
    uint64_t start[MAX_PARTS], stop[MAX_PARTS];
    void *decoder[MAX_PARTS];
    pthread_t thread[MAX_PARTS];
    part_arg arg[MAX_PARTS];
    int running;                  /* threads not finished */
    volatile uint32_t batch;      /* records per handed-over log (consumer may raise it) */
    /* The queue of full logs and the pool of emptied ones; one lock. */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    handed_log *queue;
    uint32_t q_head, q_len, q_cap;
    ks_event_log **spare;
    uint32_t n_spare;
    int stop_flag;
    int failed_status;            /* first non-OK status of a decoder call (memory, bad arg) */
    char failed_what[128];
} producers;

/* Opens the decoders for `kind` over fd (size bytes); parts: ftrace text only, 0 = auto.
 * Returns 0 or -1 (memory). */
int producers_open(producers *p, input_kind kind, int fd, uint64_t size, int parts, uint32_t batch);

/* Starts the threads. */
int producers_start(producers *p);

/* The next full log (1), or 0 once every thread is done. */
int producers_next(producers *p, handed_log *out);

/* Hands an emptied log back for reuse. */
void producers_recycle(producers *p, ks_event_log *log);

/* Stops and joins the threads (also after an error), frees the queue and spare logs
 * (decoders stay for their stats: producers_close frees them). */
void producers_join(producers *p);
void producers_close(producers *p);

#endif
