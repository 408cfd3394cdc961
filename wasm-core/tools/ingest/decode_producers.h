/*
 * decode_producers.h: the input decoded by threads, handed over as full event logs.
 *
 *     file --pread--> decoder thread(s) --(log of ~batch records)--> queue --> consumer
 *                          ^                                              |
 *                          +------------- emptied logs (reused) ----------+
 *
 * Every format is read through one interface (kscope/trace_decoder.h): the decoder the
 * core's registry names for the detected format says which bytes it wants (text front to
 * back in 256 KiB pieces, trace.dat by offset) and is fed them from pread. An ftrace
 * text file over 32 MiB is cut at line starts into parts (one decoder thread each, at
 * most 4, one per CPU by default), so several decoders run side by side. A part's logs
 * arrive in order; parts interleave. A log is handed over once it holds `batch` records (the consumer may raise the
 * number as it learns the CPU count), so memory stays bounded whatever the file size:
 * at most one filling log per thread, two full ones waiting, one being consumed.
 */
#ifndef KSCOPE_INGEST_DECODE_PRODUCERS_H
#define KSCOPE_INGEST_DECODE_PRODUCERS_H

#include <pthread.h>
#include <stdint.h>
#include "kscope/event.h"
#include "kscope/trace_decoder.h"

#define MAX_PARTS 4

typedef struct handed_log {
    ks_event_log *log;
    int part;
    uint64_t bytes_done;    /* of this part, so far */
} handed_log;

struct producers;
typedef struct part_arg { struct producers *p; int part; } part_arg;  /* a thread's argument */

typedef struct producers {
    int32_t format;               /* ks_trace_format (trace_detect.h) */
    int fd;
    int parts;
    uint64_t start[MAX_PARTS], stop[MAX_PARTS];
    ks_trace_decoder *decoder[MAX_PARTS];
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

/* Opens the registry's decoders for `format` over fd (size bytes); parts: ftrace text
 * only (the one format cut at line starts), 0 = auto. Returns 0 or -1 (no decoder, memory). */
int producers_open(producers *p, int32_t format, int fd, uint64_t size, int parts, uint32_t batch);

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
