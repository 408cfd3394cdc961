/* Shared helpers of kscope-calibrate (see calib.h). */
#include "calib.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

volatile uint64_t calib_sink;

void calib_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "kscope-calibrate: sched_setaffinity(cpu %d): %s\n", cpu, strerror(errno));
        exit(1);
    }
}

uint64_t calib_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void calib_sleep_ns(uint64_t ns)
{
    struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static double pct(const double *s, int n, int p)
{
    int i = (p * (n - 1) + 50) / 100;
    return s[i];
}

void calib_emit(const char *id, const char *unit, double *samples, int n, const char *detail)
{
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    printf("{\"id\":\"%s\",\"unit\":\"%s\",\"median\":%.6g,\"p10\":%.6g,\"p90\":%.6g,"
           "\"min\":%.6g,\"max\":%.6g,\"trials\":%d,\"detail\":\"%s\"}\n", id, unit,
           pct(samples, n, 50), pct(samples, n, 10), pct(samples, n, 90), samples[0], samples[n - 1], n,
           detail ? detail : "");
    fflush(stdout);
}

void calib_emit_kept(const char *id, const char *unit, double *samples, const int *keep, int n,
                     const char *what)
{
    double kept[CALIB_MAX_TRIALS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (keep[i])
            kept[k++] = samples[i];
    char detail[256];
    if (k >= 3) {
        snprintf(detail, sizeof detail, "%s; %d of %d trials kept (the others had a step over %d us: a "
                 "CPU was descheduled)", what, k, n, CALIB_DESCHEDULED_NS / 1000);
        calib_emit(id, unit, kept, k, detail);
    } else {
        snprintf(detail, sizeof detail, "%s; all %d trials, DISTURBED: fewer than 3 ran without a CPU "
                 "being descheduled", what, n);
        calib_emit(id, unit, samples, n, detail);
    }
}

void *calib_alloc(size_t bytes, int huge)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "kscope-calibrate: mmap(%zu bytes): %s\n", bytes, strerror(errno));
        exit(1);
    }
    if (huge == 1)
        madvise(p, bytes, MADV_HUGEPAGE);
    else if (huge == 0)
        madvise(p, bytes, MADV_NOHUGEPAGE);
    memset(p, 1, bytes);
    return p;
}

void calib_free(void *p, size_t bytes)
{
    munmap(p, bytes);
}

uint64_t calib_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

void calib_cycle(uint32_t *next, uint32_t n, uint64_t seed)
{
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!order) {
        fprintf(stderr, "kscope-calibrate: out of memory\n");
        exit(1);
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t s = seed | 1;
    for (uint32_t i = n - 1; i > 0; i--) {   /* Sattolo: one cycle through all n */
        uint32_t j = (uint32_t)(calib_rand(&s) % i);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        next[order[i]] = order[(i + 1) % n];
    free(order);
}
