/*
 * kscope-calibrate: microbenchmarks of the mechanisms the cache cost model charges for,
 * measured on the machine it runs on (docs/calibrate.md). One file per mechanism; this
 * header holds what they share: pinning, a clock, trial statistics, buffers and the output.
 *
 * Output: one JSON object per line on stdout, per figure:
 *   {"id":"...","unit":"ns","median":M,"p10":A,"p90":B,"min":m,"max":x,"trials":N,"detail":"..."}
 * backend/kscope/calibrate/ runs this program and sets each figure beside the model's.
 */
#ifndef KSCOPE_CALIB_H
#define KSCOPE_CALIB_H

#include <stddef.h>
#include <stdint.h>

typedef struct calib_opts {
    int quick;      /* 1: fewer trials, smaller buffers (the pytest smoke) */
    int cpu_a;      /* the measuring CPU */
    int cpu_b;      /* "the other vCPU" */
} calib_opts;

/* Pins the calling thread to cpu (sched_setaffinity); exits with a message on failure. */
void calib_pin(int cpu);
uint64_t calib_now_ns(void);            /* clock_gettime(CLOCK_MONOTONIC) */
void calib_sleep_ns(uint64_t ns);

/* Sorts samples and prints one figure line (median, p10, p90, min, max of the trials). */
void calib_emit(const char *id, const char *unit, double *samples, int n, const char *detail);
/* Trials are short (about a millisecond) and many: on a shared, loaded machine a short
 * trial (10-300 us here) is rarely preempted, so the median is the undisturbed figure and
 * p90 shows the rest: a trial that spans a preemption adds milliseconds of other work. */
#define CALIB_MAX_TRIALS 128
/* A two-CPU trial in which one step (a round trip, a hand-off) took longer than this had a
 * CPU taken away by the scheduler (another process ran): it measured the scheduler, not the
 * line, and is left out (the figure's detail says how many were kept). */
#define CALIB_DESCHEDULED_NS 20000
/* Emits the kept samples (keep[i] != 0), or all of them if fewer than 3 were kept. */
void calib_emit_kept(const char *id, const char *unit, double *samples, const int *keep, int n,
                     const char *what);

/* page-aligned buffer, touched (faulted in); huge: 1 asks for transparent huge pages,
 * 0 forbids them (MADV_NOHUGEPAGE), -1 leaves the system default. */
void *calib_alloc(size_t bytes, int huge);
void calib_free(void *p, size_t bytes);

/* A random cyclic permutation of n slots (Sattolo), as "next index" links. */
void calib_cycle(uint32_t *next, uint32_t n, uint64_t seed);
uint64_t calib_rand(uint64_t *state);   /* xorshift64* */

/* Keeps a value alive so the compiler cannot drop the loop that computed it. */
extern volatile uint64_t calib_sink;

/* One entry point per mechanism (one file each). */
void bench_sweep_idle(const calib_opts *o);   /* sweep_idle.c */
void bench_pingpong(const calib_opts *o);     /* pingpong.c */
void bench_mlp(const calib_opts *o);          /* mlp.c */
void bench_prefetch(const calib_opts *o);     /* prefetch.c */
void bench_pagewalk(const calib_opts *o);     /* pagewalk.c */
void bench_atomic(const calib_opts *o);       /* atomic.c */
void bench_spinlock(const calib_opts *o);     /* spinlock.c */
void bench_bandwidth(const calib_opts *o);    /* bandwidth.c */
void bench_idle_chase(const calib_opts *o);   /* idle_chase.c */
void bench_idle_busy(const calib_opts *o);    /* idle_busy.c */
void bench_idle_clock(const calib_opts *o);   /* idle_clock.c */

#endif
