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
 * idlebusy.quiet_wait_* also holds the other CPU (CPU B) in a SCHED_FIFO pause loop (no
 * memory traffic) for the wait: then nothing of this machine's own runs on either CPU, and
 * whatever still takes the area away is the host's: its other tenants sharing the LLC (and
 * the core's SMT sibling, if the host gave it to another guest). The quiet waits hold both
 * CPUs for a few seconds in all (RT throttling still gives other tasks 5%).
 */
#include "idle_common.h"

#include <stdio.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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

/* CPU B's quiet side: on request, SCHED_FIFO and a pause loop until released. */
typedef struct quiet_ctx {
    int cpu;
    _Atomic int state;   /* 0 idle, 1 hold the CPU, 2 holding, 3 exit */
    _Atomic int rt_ok;
} quiet_ctx;

static void *quiet_holder(void *arg)
{
    quiet_ctx *q = arg;
    calib_pin(q->cpu);
    for (;;) {
        int st = atomic_load_explicit(&q->state, memory_order_acquire);
        if (st == 3)
            return NULL;
        if (st != 1) {
            calib_sleep_ns(500000);   /* polls twice a millisecond: CPU B stays free between the quiet waits */
            continue;
        }
        if (!set_rt(1))
            atomic_store(&q->rt_ok, 0);
        atomic_store_explicit(&q->state, 2, memory_order_release);
        while (atomic_load_explicit(&q->state, memory_order_acquire) == 2)
            __builtin_ia32_pause();
        set_rt(0);
    }
}

enum { BUSY_PLAIN, BUSY_RT, BUSY_QUIET };

static void after_busy(idle_area *a, int cpu, int ms, int trials, int mode, quiet_ctx *q)
{
    int rt = mode != BUSY_PLAIN;
    int rt_ok = rt;
    double all[CALIB_MAX_TRIALS], calm[CALIB_MAX_TRIALS], hit[CALIB_MAX_TRIALS];
    int n_calm = 0, n_hit = 0;
    idle_cpu_stat s0, s1;
    idle_cpu_stat_read(cpu, &s0);
    for (int t = 0; t < trials; t++) {
        idle_area_dirty(a);
        if (rt)
            rt_ok &= set_rt(1);
        if (mode == BUSY_QUIET) {
            atomic_store_explicit(&q->state, 1, memory_order_release);
            while (atomic_load_explicit(&q->state, memory_order_acquire) != 2)
                __builtin_ia32_pause();
        }
        long before = preemptions();
        idle_wait_ms(ms, 1);
        long switched = preemptions() - before;
        if (mode == BUSY_QUIET)
            atomic_store_explicit(&q->state, 0, memory_order_release);
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
    if (mode == BUSY_QUIET && !atomic_load(&q->rt_ok))
        rt_ok = 0;
    snprintf(id, sizeof id, mode == BUSY_QUIET ? "idlebusy.quiet_wait_%dms" : rt ? "idlebusy.rt_wait_%dms"
             : "idlebusy.wait_%dms", ms);
    snprintf(detail, sizeof detail, "chase of the 256 lines, per line, after a %d ms busy wait (no idle)%s; %d trials not "
             "preempted (median %.1f ns), %d preempted (median %.1f ns); during the waits: %s", ms,
             !rt ? "" : !rt_ok ? " (SCHED_FIFO refused: a plain busy wait)"
             : mode == BUSY_QUIET ? " as SCHED_FIFO, the other CPU held by a SCHED_FIFO pause loop" : " as SCHED_FIFO", n_calm,
             median(calm, n_calm), n_hit, median(hit, n_hit), load);
    calib_emit(id, "ns", all, trials, detail);
}

void bench_idle_busy(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    idle_area a;
    idle_area_init(&a, 15);
    quiet_ctx q = { .cpu = o->cpu_b };
    atomic_init(&q.state, 0);
    atomic_init(&q.rt_ok, 1);
    pthread_t th;
    pthread_create(&th, NULL, quiet_holder, &q);
    for (int i = 0; i < IDLE_N_WAITS; i++) {
        int ms = idle_waits_ms[i];
        int few = o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 7 : 31);
        after_busy(&a, o->cpu_a, ms, o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 15 : 31), BUSY_PLAIN, &q);
        after_busy(&a, o->cpu_a, ms, few, BUSY_RT, &q);
        after_busy(&a, o->cpu_a, ms, few, BUSY_QUIET, &q);
    }
    atomic_store(&q.state, 3);
    pthread_join(th, NULL);
    idle_area_free(&a);
}
