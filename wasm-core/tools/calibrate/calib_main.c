/*
 * kscope-calibrate [--quick] [--cpus A,B] [MECHANISM...]
 * Runs the named microbenchmarks (default: all) and prints one JSON line per figure.
 */
#include "calib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mechanism {
    const char *name;
    void (*run)(const calib_opts *);
} mechanism;

static const mechanism mechanisms[] = {
    { "sweep_idle", bench_sweep_idle }, { "pingpong", bench_pingpong }, { "mlp", bench_mlp },
    { "prefetch", bench_prefetch },     { "pagewalk", bench_pagewalk }, { "atomic", bench_atomic },
    { "spinlock", bench_spinlock },     { "bandwidth", bench_bandwidth },
    { "idle_chase", bench_idle_chase }, { "idle_busy", bench_idle_busy }, { "idle_clock", bench_idle_clock },
};
#define N_MECH (sizeof mechanisms / sizeof mechanisms[0])

static int usage(void)
{
    fprintf(stderr, "usage: kscope-calibrate [--quick] [--cpus A,B] [MECHANISM...]\nmechanisms:");
    for (size_t i = 0; i < N_MECH; i++)
        fprintf(stderr, " %s", mechanisms[i].name);
    fprintf(stderr, "\n");
    return 2;
}

int main(int argc, char **argv)
{
    calib_opts o = { .quick = 0, .cpu_a = 0, .cpu_b = 1 };
    int want[N_MECH] = { 0 }, any = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            o.quick = 1;
        } else if (strcmp(argv[i], "--cpus") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &o.cpu_a, &o.cpu_b) != 2 || o.cpu_a < 0 || o.cpu_b < 0
                || o.cpu_a == o.cpu_b)
                return usage();
        } else {
            size_t k = 0;
            while (k < N_MECH && strcmp(argv[i], mechanisms[k].name) != 0)
                k++;
            if (k == N_MECH) {
                fprintf(stderr, "kscope-calibrate: unknown mechanism '%s'\n", argv[i]);
                return usage();
            }
            want[k] = any = 1;
        }
    }
    for (size_t k = 0; k < N_MECH; k++)
        if (!any || want[k])
            mechanisms[k].run(&o);
    return 0;
}
