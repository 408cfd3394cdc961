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
    uint64_t t0 = calib_now_ns();
    for (uint64_t i = 0; i < a->ops; i++) {
        uint32_t me = (uint32_t)(2 * i) + mine;
        while (atomic_load_explicit(&l->owner, memory_order_acquire) != me)
            __builtin_ia32_pause();
        l->protected_counter++;
        atomic_store_explicit(&l->owner, me + 1, memory_order_release);
    }
    a->ns_per_op = (double)(calib_now_ns() - t0) / (2.0 * (double)a->ops);
}

void bench_spinlock(const calib_opts *o)
{
    int trials = o->quick ? 9 : 41;
    uint64_t ops = 2000;
    double s[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        atomic_store(&lock.owner, 0);
        atomic_store(&parity, 0);
        s[t] = two_threads(take_turns, &lock, o, ops);
    }
    calib_emit("spinlock.handoff", "ns", s, trials,
               "ticket lock passed between the CPUs in turn: ns per acquisition (a hand-off each)");
}
