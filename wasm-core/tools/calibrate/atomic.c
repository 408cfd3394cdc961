/*
 * A contended atomic: CPU A and CPU B each do lock-prefixed fetch-adds on one shared
 * counter (the line bounces with every operation both make). ns per operation of the
 * slower thread; beside it the same loop on one CPU alone (the line stays in its L1).
 */
#include "two_threads.h"

#include <stdatomic.h>

static _Alignas(64) _Atomic uint64_t counter;

static void hammer(two_arg *a)
{
    _Atomic uint64_t *c = a->shared;
    uint64_t t0 = calib_now_ns();
    for (uint64_t i = 0; i < a->ops; i++)
        atomic_fetch_add_explicit(c, 1, memory_order_seq_cst);
    a->ns_per_op = (double)(calib_now_ns() - t0) / (double)a->ops;
}

void bench_atomic(const calib_opts *o)
{
    int trials = o->quick ? 15 : 101;
    uint64_t ops = 5000;
    double alone[CALIB_MAX_TRIALS], both[CALIB_MAX_TRIALS];
    calib_pin(o->cpu_a);
    for (int t = 0; t < trials; t++) {
        two_arg a = { &counter, o->cpu_a, ops, 0, 0 };
        hammer(&a);
        alone[t] = a.ns_per_op;
        both[t] = two_threads(hammer, &counter, o, ops, NULL);
    }
    calib_emit("atomic.uncontended", "ns", alone, trials, "lock xadd on one line, one CPU");
    calib_emit("atomic.contended", "ns", both, trials,
               "lock xadd on one line from both CPUs at once (slower thread's ns/op)");
}
