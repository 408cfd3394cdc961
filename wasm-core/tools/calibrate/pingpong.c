/*
 * A line ping-pong between CPU A and CPU B: one shared counter; A turns it odd, B even,
 * each waiting for the other. One-way latency = round-trip time / 2: the cost of moving a
 * Modified line to the other core (what the model charges a HITM from another core).
 */
#include "calib.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct pp_ctx {
    _Alignas(64) _Atomic uint64_t line;
    int cpu;
    uint64_t rounds;
} pp_ctx;

static void *pong(void *arg)
{
    pp_ctx *c = arg;
    calib_pin(c->cpu);
    for (uint64_t r = 0; r < c->rounds; r++) {
        while (atomic_load_explicit(&c->line, memory_order_acquire) != 2 * r + 1)
            __builtin_ia32_pause();
        atomic_store_explicit(&c->line, 2 * r + 2, memory_order_release);
    }
    return NULL;
}

void bench_pingpong(const calib_opts *o)
{
    int trials = o->quick ? 15 : 101;
    uint64_t rounds = 200;
    double s[CALIB_MAX_TRIALS];
    int keep[CALIB_MAX_TRIALS];
    calib_pin(o->cpu_a);
    for (int t = 0; t < trials; t++) {
        static pp_ctx c;
        atomic_store(&c.line, 0);
        c.cpu = o->cpu_b;
        c.rounds = rounds;
        pthread_t th;
        pthread_create(&th, NULL, pong, &c);
        uint64_t t0 = 0, prev = 0, worst = 0;
        for (uint64_t r = 0; r < rounds; r++) {
            atomic_store_explicit(&c.line, 2 * r + 1, memory_order_release);
            while (atomic_load_explicit(&c.line, memory_order_acquire) != 2 * r + 2)
                __builtin_ia32_pause();
            uint64_t now = calib_now_ns();
            if (r == 0)   /* round 0 waits for B to start: not timed */
                t0 = now;
            else if (now - prev > worst)
                worst = now - prev;
            prev = now;
        }
        s[t] = (double)(prev - t0) / (2.0 * (double)(rounds - 1));
        keep[t] = worst < CALIB_DESCHEDULED_NS;
        pthread_join(th, NULL);
    }
    calib_emit_kept("pingpong.one_way", "ns", s, keep, trials,
                    "one-way line transfer between CPU A and CPU B (round trip / 2)");
}
