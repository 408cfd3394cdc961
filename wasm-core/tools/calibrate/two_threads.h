/* Runs fn on CPU A and CPU B at once, both released by one start flag (atomic.c, spinlock.c). */
#ifndef KSCOPE_CALIB_TWO_H
#define KSCOPE_CALIB_TWO_H

#include "calib.h"

typedef struct two_arg {
    void *shared;        /* the benchmark's state */
    int cpu;
    uint64_t ops;
    double ns_per_op;    /* out: this thread's elapsed / ops */
    double worst_step_ns; /* out: the longest single step, if fn measures it */
} two_arg;

/* Runs fn(arg) on both CPUs (fn times its own loop and fills ns_per_op).
 * Returns the slower thread's ns per op; *worst_step (if not NULL) the longest step of either. */
double two_threads(void (*fn)(two_arg *), void *shared, const calib_opts *o, uint64_t ops,
                   double *worst_step);

#endif
