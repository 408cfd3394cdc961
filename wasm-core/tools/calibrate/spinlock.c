/*
 * A spinlock hand-off: a ticket lock whose tickets alternate between CPU A (even) and
 * CPU B (odd), which is what a ticket lock does when both CPUs always wait for it: every
 * acquisition is a hand-off from the other CPU. Each turn: wait for `owner` to reach my
 * ticket (the releaser's line comes over), increment a counter on another line (it comes
 * over too), release. ns per acquisition = the pair's elapsed / all acquisitions.
 */
#include "two_threads.h"

#include <stdatomic.h>

typedef struct ticket_lock {
    _Alignas(64) _Atomic uint32_t owner;
    _Alignas(64) uint64_t protected_counter;
} ticket_lock;

static ticket_lock lock;
static _Atomic int parity;   /* hands out 0 and 1 to the two threads of a trial */

static void take_turns(two_arg *a)
{
    ticket_lock *l = a->shared;
    uint32_t mine = (uint32_t)atomic_fetch_add(&parity, 1) & 1;
    uint64_t t0 = calib_now_ns(), prev = t0, worst = 0;
    for (uint64_t i = 0; i < a->ops; i++) {
        uint32_t me = (uint32_t)(2 * i) + mine;
        while (atomic_load_explicit(&l->owner, memory_order_acquire) != me)
            __builtin_ia32_pause();
        l->protected_counter++;
        atomic_store_explicit(&l->owner, me + 1, memory_order_release);
        uint64_t now = calib_now_ns();
        if (i > 0 && now - prev > worst)   /* the first turn waits for the other thread to start */
            worst = now - prev;
        prev = now;
    }
    a->ns_per_op = (double)(prev - t0) / (2.0 * (double)a->ops);
    a->worst_step_ns = (double)worst;
}

void bench_spinlock(const calib_opts *o)
{
    int trials = o->quick ? 15 : 101;
    uint64_t ops = 200;
    double s[CALIB_MAX_TRIALS], worst;
    int keep[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        atomic_store(&lock.owner, 0);
        atomic_store(&parity, 0);
        s[t] = two_threads(take_turns, &lock, o, ops, &worst);
        keep[t] = worst < CALIB_DESCHEDULED_NS;
    }
    calib_emit_kept("spinlock.handoff", "ns", s, keep, trials,
                    "ticket lock passed between the CPUs in turn: ns per acquisition (a hand-off each)");
}
