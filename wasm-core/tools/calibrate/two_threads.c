/* Both CPUs at once (see two_threads.h). */
#include "two_threads.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct runner {
    two_arg arg;
    void (*fn)(two_arg *);
    _Atomic int *ready;
    _Atomic int *go;
} runner;

static void *run(void *p)
{
    runner *r = p;
    calib_pin(r->arg.cpu);
    atomic_fetch_add(r->ready, 1);
    while (!atomic_load_explicit(r->go, memory_order_acquire))
        __builtin_ia32_pause();
    r->fn(&r->arg);
    return NULL;
}

double two_threads(void (*fn)(two_arg *), void *shared, const calib_opts *o, uint64_t ops,
                   double *worst_step)
{
    _Atomic int ready = 0, go = 0;
    runner r[2] = {
        { .arg = { shared, o->cpu_a, ops, 0, 0 }, .fn = fn, .ready = &ready, .go = &go },
        { .arg = { shared, o->cpu_b, ops, 0, 0 }, .fn = fn, .ready = &ready, .go = &go },
    };
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, run, &r[i]);
    while (atomic_load(&ready) < 2)
        __builtin_ia32_pause();
    atomic_store_explicit(&go, 1, memory_order_release);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    if (worst_step)
        *worst_step = r[0].arg.worst_step_ns > r[1].arg.worst_step_ns ? r[0].arg.worst_step_ns
                                                                      : r[1].arg.worst_step_ns;
    return r[0].arg.ns_per_op > r[1].arg.ns_per_op ? r[0].arg.ns_per_op : r[1].arg.ns_per_op;
}
