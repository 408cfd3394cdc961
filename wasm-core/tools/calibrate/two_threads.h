/* Runs fn on CPU A and CPU B at once, both released by one start flag (atomic.c, spinlock.c). */
#ifndef KSCOPE_CALIB_TWO_H
#define KSCOPE_CALIB_TWO_H

#include "calib.h"

typedef struct two_arg {
    void *shared;        /* the benchmark's state */
    int cpu;
    uint64_t ops;
    double ns_per_op;    /* out: this thread's elapsed / ops */
} two_arg;

/* Runs fn(arg) on both CPUs (fn times its own loop and fills ns_per_op).
 * Returns the slower thread's ns per op. */
double two_threads(void (*fn)(two_arg *), void *shared, const calib_opts *o, uint64_t ops);

#endif
