/*
 * The same chase as idle_chase.c after a busy wait of the same length instead of a sleep:
 * the CPU never idles (no halt, no C-state, no idle frequency drop), the time passes the
 * same, and other work on the machine (other CPUs, other guests of the host sharing the
 * LLC) goes on the same. If the area is as far away after a busy wait as after a sleep, the
 * loss comes from time and others' traffic, not from idling; if it stays near, idling (or
 * whatever runs on this CPU while this task sleeps) is what sends it away.
 * On a loaded machine the scheduler may preempt the busy wait (other tasks run on this CPU
 * for a slice): each trial counts its involuntary context switches (getrusage), and the
 * detail gives the medians of the undisturbed and the preempted trials apart.
 * idlebusy.rt_wait_* runs the same busy wait as a SCHED_FIFO task (priority 1, root only;
 * the kernel's RT throttling still leaves other tasks 5% of each second): nothing else
 * runs on this CPU during the wait, so what is lost then is lost to time and to the other
 * CPUs and tenants of the LLC alone. Without the privilege the figure says so and is the
 * plain busy wait.
 */
#include "idle_common.h"

#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/resource.h>

static long preemptions(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nivcsw;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n == 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* 1 if this thread now runs SCHED_FIFO (rt = 1) or back at SCHED_OTHER (rt = 0). */
static int set_rt(int rt)
{
    struct sched_param sp = { .sched_priority = rt ? 1 : 0 };
    return sched_setscheduler(0, rt ? SCHED_FIFO : SCHED_OTHER, &sp) == 0;
}

static void after_busy(idle_area *a, int cpu, int ms, int trials, int rt)
{
    int rt_ok = rt;
    double all[CALIB_MAX_TRIALS], calm[CALIB_MAX_TRIALS], hit[CALIB_MAX_TRIALS];
    int n_calm = 0, n_hit = 0;
    idle_cpu_stat s0, s1;
    idle_cpu_stat_read(cpu, &s0);
    for (int t = 0; t < trials; t++) {
        idle_area_dirty(a);
        if (rt)
            rt_ok &= set_rt(1);
        long before = preemptions();
        idle_wait_ms(ms, 1);
        long switched = preemptions() - before;
        if (rt)
            set_rt(0);
        all[t] = idle_chase_lap(a);
        if (switched == 0)
            calm[n_calm++] = all[t];
        else
            hit[n_hit++] = all[t];
    }
    idle_cpu_stat_read(cpu, &s1);
    char id[64], load[128], detail[400];
    idle_cpu_stat_describe(&s0, &s1, load, sizeof load);
    snprintf(id, sizeof id, rt ? "idlebusy.rt_wait_%dms" : "idlebusy.wait_%dms", ms);
    snprintf(detail, sizeof detail, "chase of the 256 lines, per line, after a %d ms busy wait (no idle)%s; %d trials not "
             "preempted (median %.1f ns), %d preempted (median %.1f ns); during the waits: %s", ms,
             !rt ? "" : rt_ok ? " as SCHED_FIFO" : " (SCHED_FIFO refused: a plain busy wait)", n_calm,
             median(calm, n_calm), n_hit, median(hit, n_hit), load);
    calib_emit(id, "ns", all, trials, detail);
}

void bench_idle_busy(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    idle_area a;
    idle_area_init(&a, 15);
    for (int i = 0; i < IDLE_N_WAITS; i++) {
        int ms = idle_waits_ms[i];
        after_busy(&a, o->cpu_a, ms, o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 15 : 31), 0);
        after_busy(&a, o->cpu_a, ms, o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 7 : 31), 1);
    }
    idle_area_free(&a);
}
