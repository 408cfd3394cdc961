/*
 * decode_producers.c: decoder threads and the queue between them and the consumer
 * (see decode_producers.h).
 */
#include "decode_producers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE (1u << 18)  /* 256 KiB: stays in L2 between the read and the decode; 1 MiB cost ~5% and 4 MB of RSS */
#define SPLIT_OVER (32ull << 20)

/* Cuts [0, size) into about `parts` ranges at line starts (a part with no line end
 * near its cut is merged into the one before). */
static int split_lines(producers *p, uint64_t size, int parts)
{
    char buf[1 << 16];
    p->start[0] = 0;
    int n = 1;
    for (int i = 1; i < parts; i++) {
        uint64_t at = size * (uint64_t)i / (uint64_t)parts;
        if (at < p->start[n - 1])
            at = p->start[n - 1];
        ssize_t got = pread(p->fd, buf, sizeof buf, (off_t)at);
        if (got <= 0)
            break;
        char *nl = memchr(buf, '\n', (size_t)got);
        if (!nl)
            break;
        uint64_t cut = at + (uint64_t)(nl - buf) + 1;
        if (cut > p->start[n - 1] && cut < size) {
            p->stop[n - 1] = cut;
            p->start[n++] = cut;
        }
    }
    p->stop[n - 1] = size;
    return n;
}

int producers_open(producers *p, int32_t format, int fd, uint64_t size, int parts, uint32_t batch)
{
    memset(p, 0, sizeof *p);
    p->format = format;
    p->fd = fd;
    p->batch = batch;
    const char *decoder = ks_trace_format_decoder(format);
    if (decoder && !strcmp(decoder, "ftrace")) {     /* line-by-line text: cut at line starts */
        if (parts <= 0) {
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            parts = size > SPLIT_OVER ? (int)(cpus < 1 ? 1 : cpus > MAX_PARTS ? MAX_PARTS : cpus) : 1;
        }
        p->parts = split_lines(p, size, parts > MAX_PARTS ? MAX_PARTS : parts);
    } else {
        p->parts = 1;
        p->start[0] = 0;
        p->stop[0] = size;
    }
    int32_t rc = KS_OK;
    for (int i = 0; i < p->parts && rc == KS_OK; i++)
        if ((rc = ks_trace_decoder_new(format, &p->decoder[i])) == KS_OK)
            rc = ks_trace_decoder_set_piece(p->decoder[i], PIECE);
    /* Full logs waiting: 2. With 2 decoder threads on the 1 M-event bench trace, 1 cost ~20%
     * in wall time (a decoder waited on the consumer) and 3 added 13 MB of peak RSS. */
    p->q_cap = 2;
    p->queue = calloc(p->q_cap, sizeof *p->queue);
    p->spare = calloc(2u * (uint32_t)p->parts + 2u, sizeof *p->spare);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->changed, NULL);
    return rc == KS_OK && p->queue && p->spare ? 0 : -1;
}

static ks_event_log *take_spare(producers *p)
{
    ks_event_log *log = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->n_spare)
        log = p->spare[--p->n_spare];
    pthread_mutex_unlock(&p->lock);
    if (!log && ks_event_log_new(&log) != KS_OK)
        return NULL;
    return log;
}

void producers_recycle(producers *p, ks_event_log *log)
{
    ks_event_log_clear(log);
    pthread_mutex_lock(&p->lock);
    if (p->n_spare < 2u * (uint32_t)p->parts + 2u) {
        p->spare[p->n_spare++] = log;
        log = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    if (log)
        ks_event_log_free(log);
}

/* Queues a full log (waits while the queue is full); 0, or -1 when told to stop. */
static int hand_over(producers *p, int part, ks_event_log *log, uint64_t done)
{
    pthread_mutex_lock(&p->lock);
    while (p->q_len == p->q_cap && !p->stop_flag)
        pthread_cond_wait(&p->changed, &p->lock);
    if (p->stop_flag) {
        pthread_mutex_unlock(&p->lock);
        ks_event_log_free(log);
        return -1;
    }
    p->queue[(p->q_head + p->q_len++) % p->q_cap] = (handed_log){log, part, done};
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static void fail(producers *p, int32_t status, const char *what)
{
    pthread_mutex_lock(&p->lock);
    if (!p->failed_status) {
        p->failed_status = status;
        snprintf(p->failed_what, sizeof p->failed_what, "%s: %s", what, ks_status_message(status));
    }
    p->stop_flag = 1;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
}


/* The one decoder loop over part `part` of the file: the bytes the decoder wants (offsets
 * relative to the part's start), read with pread, fed; logs handed over as they fill. */
static void run_part(producers *p, int part)
{
    ks_trace_decoder *dec = p->decoder[part];
    uint64_t start = p->start[part], length = p->stop[part] - p->start[part];
    size_t cap = PIECE;
    char *buf = malloc(cap);
    ks_event_log *log = take_spare(p);
    uint64_t done = 0;
    if (!buf || !log) {
        fail(p, KS_ERR_NO_MEMORY, "decoder buffers");
        goto out;
    }
    while (!p->stop_flag) {
        int64_t off;
        int32_t want;
        if (ks_trace_decoder_want(dec, &off, &want) != KS_OK || want == 0)
            break;
        size_t len = (size_t)want < (1u << 16) ? (1u << 16) : (size_t)want;
        if (len > cap) {
            char *grown = realloc(buf, len);
            if (!grown) { fail(p, KS_ERR_NO_MEMORY, "read buffer"); goto out; }
            buf = grown;
            cap = len;
        }
        uint64_t left = (uint64_t)off < length ? length - (uint64_t)off : 0;
        if (len > left)
            len = (size_t)left;
        ssize_t got = 0;
        if (len) {
            do
                got = pread(p->fd, buf, len, (off_t)(start + (uint64_t)off));
            while (got < 0 && errno == EINTR);
        }
        if (got < 0)
            got = 0;  /* a read error reads as the end of the file: the decoder says where */
        done += (uint64_t)got;
        int32_t rc = ks_trace_decoder_feed(dec, off, buf, (int32_t)got, log);
        if (rc != KS_OK && rc != KS_ERR_PARSE) {
            fail(p, rc, "decoding");
            goto out;
        }
        if (ks_event_log_count(log) >= p->batch) {
            if (hand_over(p, part, log, done < length ? done : length) != 0) { log = NULL; goto out; }
            if (!(log = take_spare(p))) { fail(p, KS_ERR_NO_MEMORY, "event log"); goto out; }
        }
        if (rc == KS_ERR_PARSE)
            break;  /* not decodable further (perf report text, a trace.dat that does not read): stats say why */
    }
    int32_t rc = ks_trace_decoder_finish(dec, log);
    if (rc != KS_OK && rc != KS_ERR_PARSE) {
        fail(p, rc, "decoding");
        goto out;
    }
    hand_over(p, part, log, length);
    log = NULL;
out:
    if (log)
        ks_event_log_free(log);
    free(buf);
}

static void *thread_main(void *arg)
{
    part_arg *a = arg;
    run_part(a->p, a->part);
    pthread_mutex_lock(&a->p->lock);
    a->p->running--;
    pthread_cond_broadcast(&a->p->changed);
    pthread_mutex_unlock(&a->p->lock);
    return NULL;
}

int producers_start(producers *p)
{
    for (int i = 0; i < p->parts; i++) {
        p->arg[i] = (part_arg){p, i};
        pthread_mutex_lock(&p->lock);
        p->running++;
        pthread_mutex_unlock(&p->lock);
        if (pthread_create(&p->thread[i], NULL, thread_main, &p->arg[i]) != 0) {
            pthread_mutex_lock(&p->lock);
            p->running--;
            pthread_mutex_unlock(&p->lock);
            fail(p, KS_ERR_NO_MEMORY, "starting a decoder thread");
            p->parts = i;
            return -1;
        }
    }
    return 0;
}

int producers_next(producers *p, handed_log *out)
{
    pthread_mutex_lock(&p->lock);
    while (p->q_len == 0 && p->running > 0 && !p->failed_status)
        pthread_cond_wait(&p->changed, &p->lock);
    int got = 0;
    if (p->q_len && !p->failed_status) {
        *out = p->queue[p->q_head];
        p->q_head = (p->q_head + 1) % p->q_cap;
        p->q_len--;
        pthread_cond_broadcast(&p->changed);
        got = 1;
    }
    pthread_mutex_unlock(&p->lock);
    return got;
}

void producers_join(producers *p)
{
    pthread_mutex_lock(&p->lock);
    p->stop_flag = p->stop_flag || p->failed_status;
    pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->parts; i++) {
        /* A thread blocked on a full queue after a failure: drain so it can leave. */
        for (;;) {
            pthread_mutex_lock(&p->lock);
            int running = p->running;
            while (p->q_len) {
                ks_event_log_free(p->queue[p->q_head].log);
                p->q_head = (p->q_head + 1) % p->q_cap;
                p->q_len--;
            }
            p->stop_flag = 1;
            pthread_cond_broadcast(&p->changed);
            pthread_mutex_unlock(&p->lock);
            if (running == 0)
                break;
            usleep(1000);
        }
        pthread_join(p->thread[i], NULL);
    }
    for (uint32_t i = 0; i < p->n_spare; i++)
        ks_event_log_free(p->spare[i]);
    p->n_spare = 0;
}

void producers_close(producers *p)
{
    for (int i = 0; i < MAX_PARTS; i++) {
        ks_trace_decoder_free(p->decoder[i]);
        p->decoder[i] = NULL;
    }
    free(p->queue);
    free(p->spare);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->changed);
}
