/*
 * Pieces shared by the "where did the area go after a wait" benchmarks (idle_chase.c,
 * idle_busy.c, idle_clock.c): the seed's 16 KiB area as 256 lines linked in one random
 * cycle (a dependent chase: each line's latency is seen alone, ns per line says where the
 * line was), the waits (nanosleep or a busy clock loop), and a record of what else the CPU
 * did meanwhile (its idle and steal time from /proc/stat, the load average).
 */
#ifndef KSCOPE_CALIB_IDLE_H
#define KSCOPE_CALIB_IDLE_H

#include "mem_common.h"

#define IDLE_AREA 16384
#define IDLE_LINES (IDLE_AREA / LINE)
#define IDLE_PAGE 4096
#define IDLE_N_WAITS 4
extern const int idle_waits_ms[IDLE_N_WAITS];   /* 1, 10, 100, 200 */

typedef struct idle_area {
    char *base;     /* IDLE_AREA bytes, page-aligned, 4 KiB pages (huge pages forbidden) */
    void **start;   /* the chase's first line */
} idle_area;

void idle_area_init(idle_area *a, uint64_t seed);
void idle_area_free(idle_area *a);
/* The seed's burst on the area, sparing each line's link word: every line Modified on this CPU. */
void idle_area_dirty(idle_area *a);
/* One lap of the chase (256 dependent loads), timed; returns ns per line. */
double idle_chase_lap(idle_area *a);
/* Loads one byte of each 4 KiB page of the area (its last line): the TLB holds the 4
 * pages afterwards; 4 of the 256 lines come in with it. */
void idle_touch_pages(idle_area *a);

/* Waits ms: busy = 0 sleeps (nanosleep: the CPU may idle or run other tasks), busy = 1
 * spins on the clock (this task stays on the CPU unless the scheduler preempts it). */
void idle_wait_ms(int ms, int busy);

/* CPU time counters of one CPU (/proc/stat, USER_HZ ticks) around the waits of one figure. */
typedef struct idle_cpu_stat {
    unsigned long long idle, steal, total;
} idle_cpu_stat;
void idle_cpu_stat_read(int cpu, idle_cpu_stat *s);
/* "cpu A idle X% / busy Y% / steal Z% of the waits (ticks), loadavg L": what ran during the
 * waits, to say whether a figure saw an idle CPU or one running other tasks. */
void idle_cpu_stat_describe(const idle_cpu_stat *before, const idle_cpu_stat *after, char *out, size_t n);

#endif
