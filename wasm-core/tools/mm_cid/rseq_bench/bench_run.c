/* The benchmark's threads (see bench.h). */
#include "bench.h"
#include "rseq_area.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct thread_arg {
    const bench_opts *o;
    const cpu_pool *pool;
    const index_line *line;     /* INDEX_FILE */
    thread_rec *rec;
    int thread;
    int failed;
} thread_arg;

static int nr_active, go, stop;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_minflt;
}

/* The index of this sweep: what librseq's get_current_cpu_id() reads, or the file's. */
static int current_index(const thread_arg *a, int burst)
{
    switch (a->o->index) {
    case INDEX_CPU_ID:
        return (int)rseq_read(RSEQ_OFF_CPU_ID_START);
    case INDEX_MM_CID:
        return (int)rseq_read(RSEQ_OFF_MM_CID);
    case INDEX_FILE:
    default:
        return burst < 0 ? a->line->warmup : a->line->bursts[burst % a->line->count];
    }
}

/* The item at the index; an index the pool has no stride for ends the run (librseq would
 * write outside its range: cannot happen with cpu_id or mm_cid < possible CPUs). */
static char *item_at(const thread_arg *a, int index)
{
    if (index < 0 || index >= a->pool->max_index) {
        fprintf(stderr, "kscope-rseq-bench: thread %d read index %d, outside the pool's [0, %d)\n", a->thread, index,
                a->pool->max_index);
        exit(1);
    }
    return cpu_pool_item(a->pool, index);
}

/* The benchmark's burst: every byte of the item incremented (vectorised by gcc -O2). */
static inline void sweep(char *p)
{
    for (int j = 0; j < AREA_LEN; j++)
        p[j]++;
}

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    const bench_opts *o = a->o;
    thread_rec *r = a->rec;
    cpu_set_t mask;

    CPU_ZERO(&mask);
    CPU_SET(r->cpu, &mask);
    if (sched_setaffinity(0, sizeof mask, &mask) != 0) {
        fprintf(stderr, "kscope-rseq-bench: pinning thread %d to CPU %d: %s\n", a->thread, r->cpu, strerror(errno));
        a->failed = 1;
    }
    if (rseq_area_thread_start() != 0)
        a->failed = 1;
    r->sched_cpu = sched_getcpu();
    r->rseq_cpu_id = rseq_read(RSEQ_OFF_CPU_ID);
    r->rseq_cpu_id_start = rseq_read(RSEQ_OFF_CPU_ID_START);
    r->rseq_mm_cid = rseq_read(RSEQ_OFF_MM_CID);

    /* All threads exist before any runs (librseq's start rendezvous). */
    if (__atomic_add_fetch(&nr_active, 1, __ATOMIC_RELAXED) == o->threads)
        __atomic_store_n(&go, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&go, __ATOMIC_RELAXED))
        __asm__ volatile("" ::: "memory");

    poll(NULL, 0, o->delay_ms * r->position);

    long flt0 = minflt();
    for (int i = 0; i < o->warmup; i++) {
        int index = current_index(a, -1);
        char *p = item_at(a, index);
        if (i == 0) {
            long f = minflt();
            int64_t t1 = now_ns();
            sweep(p);
            int64_t t2 = now_ns();
            r->first_sweep_ns = t2 - t1;
            r->first_sweep_minflt = minflt() - f;
            r->warmup_index = index;
        } else {
            sweep(p);
        }
    }
    r->warmup_minflt = minflt() - flt0;

    for (int i = 0; i < o->loops; i++) {
        burst_rec *b = &r->bursts[i];
        long f = minflt();
        b->cpu_id = rseq_read(RSEQ_OFF_CPU_ID_START);
        b->mm_cid = rseq_read(RSEQ_OFF_MM_CID);
        b->index = current_index(a, i);
        char *p = item_at(a, b->index);
        int64_t t1 = now_ns();
        sweep(p);
        int64_t t2 = now_ns();
        b->ns = t2 - t1;
        b->minflt = minflt() - f;
        poll(NULL, 0, o->delay_ms * o->threads);
    }

    /* Threads done spin until all are (librseq's end rendezvous). */
    if (__atomic_sub_fetch(&nr_active, 1, __ATOMIC_RELAXED) == 0)
        __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        __asm__ volatile("" ::: "memory");
    rseq_area_thread_end();
    return NULL;
}

int bench_run(const bench_opts *o, const cpu_pool *pool, const index_line *lines, thread_rec *recs)
{
    pthread_t *tids = calloc((size_t)o->threads, sizeof *tids);
    thread_arg *args = calloc((size_t)o->threads, sizeof *args);
    if (!tids || !args) {
        free(tids);
        free(args);
        fprintf(stderr, "kscope-rseq-bench: out of memory\n");
        return -1;
    }
    int rc = 0, created = 0;
    for (int t = 0; t < o->threads; t++) {
        recs[t].cpu = o->cpus[t];
        recs[t].position = o->order[t];
        args[t] = (thread_arg){ .o = o, .pool = pool, .line = lines ? &lines[t] : NULL, .rec = &recs[t], .thread = t };
        int err = pthread_create(&tids[t], NULL, thread_main, &args[t]);
        if (err != 0) {
            /* The threads made so far wait for this one at the rendezvous: cannot go on. */
            fprintf(stderr, "kscope-rseq-bench: pthread_create: %s\n", strerror(err));
            exit(1);
        }
        created++;
    }
    for (int t = 0; t < created; t++) {
        pthread_join(tids[t], NULL);
        rc |= args[t].failed ? -1 : 0;
    }
    free(tids);
    free(args);
    return rc;
}
