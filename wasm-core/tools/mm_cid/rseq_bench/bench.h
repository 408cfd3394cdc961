/*
 * kscope-rseq-bench: librseq's tests/basic_percpu_benchmark.c (compudj/librseq 95febd5, the
 * benchmark of seed 000 / commit 7e019dc), re-implemented with its structure and constants:
 *
 * - one pool item of AREA_LEN = 16 KiB per index (cpu_pool.h: librseq's default pool);
 * - thread t pinned to the t-th allowed CPU; a random order gives it a position p;
 * - all threads meet, then thread p sleeps p x delay, sweeps its item `warmup` times
 *   (librseq: 20000) and makes `loops` measured sweeps (librseq: LOOPS_PER_THREAD = 5),
 *   each followed by poll(delay x threads); a sweep increments every byte of the item at
 *   the index read (once per sweep) from the thread's rseq area: cpu_id_start
 *   (rseq_cpu_start()) or mm_cid (rseq_current_mm_cid()), or given by a file;
 * - threads done spin until all are (librseq's end rendezvous).
 * Added for kscope (measurement only, outside the timed sweep): per measured burst the
 * rseq cpu_id and mm_cid seen, and the thread's minor faults (getrusage RUSAGE_THREAD)
 * across it; the first warm-up sweep is timed on its own (the item's first touch).
 * Built -O2 with gcc's default vectorisation, as librseq's tests are (wasm-core/Makefile).
 */
#ifndef KSCOPE_RSEQ_BENCH_H
#define KSCOPE_RSEQ_BENCH_H

#include <stdint.h>

#include "cpu_pool.h"
#include "index_file.h"

#define AREA_LEN (16 * 1024)     /* librseq's AREA_LEN: 16 kB */
#define BENCH_MAX_THREADS 1024   /* librseq's NR_CPUS */

typedef enum { INDEX_CPU_ID, INDEX_MM_CID, INDEX_FILE } index_kind;

typedef struct bench_opts {
    index_kind index;
    const char *index_path;      /* INDEX_FILE */
    int delay_ms;
    int threads;
    int loops;
    int warmup;
    int cpus[BENCH_MAX_THREADS]; /* thread t's CPU */
    int order[BENCH_MAX_THREADS];/* thread t's position */
    cpu_pool_policy populate;
} bench_opts;

typedef struct burst_rec {
    int index;                   /* the index the sweep used */
    uint32_t cpu_id, mm_cid;     /* read from rseq just before the sweep */
    int64_t ns;                  /* the timed sweep */
    long minflt;                 /* the thread's minor faults across the sweep */
} burst_rec;

typedef struct thread_rec {
    int cpu, position, sched_cpu;      /* pinned CPU, position, sched_getcpu() after pinning */
    uint32_t rseq_cpu_id, rseq_cpu_id_start, rseq_mm_cid;  /* rseq fields after pinning */
    int warmup_index;
    int64_t first_sweep_ns;            /* the first warm-up sweep (first touch of the item) */
    long first_sweep_minflt;
    long warmup_minflt;                /* all warm-up sweeps */
    burst_rec *bursts;                 /* loops of them */
} thread_rec;

/* Runs the benchmark; recs[t] filled per thread. 0 ok, -1 (message printed). */
int bench_run(const bench_opts *o, const cpu_pool *pool, const index_line *lines, thread_rec *recs);

#endif
