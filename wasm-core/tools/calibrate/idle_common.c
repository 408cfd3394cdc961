/* Shared by idle_chase.c, idle_busy.c, idle_clock.c (see idle_common.h). */
#include "idle_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int idle_waits_ms[IDLE_N_WAITS] = { 1, 10, 100, 200 };

void idle_area_init(idle_area *a, uint64_t seed)
{
    a->base = calib_alloc(IDLE_AREA, 0);
    a->start = mem_link_cycle(a->base, IDLE_LINES, seed);
}

void idle_area_free(idle_area *a)
{
    calib_free(a->base, IDLE_AREA);
}

void idle_area_dirty(idle_area *a)
{
    for (int line = 0; line < IDLE_LINES; line++)
        for (int b = (int)sizeof(void *); b < LINE; b++)
            a->base[line * LINE + b]++;
    __asm__ __volatile__("" ::: "memory");
}

double idle_chase_lap(idle_area *a)
{
    void **p = a->start;
    double ns = mem_chase(&p, IDLE_LINES);
    calib_sink += (uint64_t)(uintptr_t)p;
    return ns;
}

void idle_touch_pages(idle_area *a)
{
    uint64_t sum = 0;
    for (int page = 0; page < IDLE_AREA / IDLE_PAGE; page++)
        sum += *(volatile char *)(a->base + page * IDLE_PAGE + IDLE_PAGE - 1);
    calib_sink += sum;
}

void idle_wait_ms(int ms, int busy)
{
    uint64_t ns = (uint64_t)ms * 1000000u;
    if (!busy) {
        calib_sleep_ns(ns);
        return;
    }
    uint64_t end = calib_now_ns() + ns;
    while (calib_now_ns() < end)
        __builtin_ia32_pause();
}

void idle_cpu_stat_read(int cpu, idle_cpu_stat *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return;
    char want[16], line[256];
    snprintf(want, sizeof want, "cpu%d ", cpu);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, want, strlen(want)) != 0)
            continue;
        unsigned long long v[8] = { 0 };
        sscanf(line + strlen(want), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]);
        s->idle = v[3] + v[4];
        s->steal = v[7];
        for (int i = 0; i < 8; i++)
            s->total += v[i];
        break;
    }
    fclose(f);
}

void idle_cpu_stat_describe(const idle_cpu_stat *before, const idle_cpu_stat *after, char *out, size_t n)
{
    double total = (double)(after->total - before->total);
    double load = 0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = 0;
        fclose(f);
    }
    if (total <= 0) {
        snprintf(out, n, "cpu idle/steal not resolved (under one tick), loadavg %.2f", load);
        return;
    }
    double idle = (double)(after->idle - before->idle) / total, steal = (double)(after->steal - before->steal) / total;
    snprintf(out, n, "cpu idle %.0f%%, busy %.0f%%, steal %.0f%% of %.0f ticks; loadavg %.2f", 100 * idle,
             100 * (1 - idle - steal), 100 * steal, total, load);
}
