/*
 * Clock ramp after idle: a fixed chain of 2048 dependent multiply-adds (about 8,000 cycles,
 * a few microseconds: the length of the seed's burst) timed right after nanosleep of 1, 10,
 * 100, 200 ms, and hot (right after the same chain). The chain touches no memory; its code
 * is brought back by an untimed call of one step first. If the core came back from idle
 * at a lower clock (a P-state or C-state exit ramp), the chain takes longer after the sleep
 * than hot, by the clock ratio; if not, the same ns.
 * Under a hypervisor the guest's idle is a halt the host handles: what the physical core
 * does meanwhile (its C-state, its frequency) is the host's, and this is the only way the
 * guest sees it.
 */
#include "idle_common.h"

#include <stdio.h>

#define STEPS 2048

__attribute__((noinline)) static uint64_t alu_chain(uint64_t x, int steps)
{
    for (int i = 0; i < steps; i++) {
        x = x * 0x9E3779B97F4A7C15ULL + (uint64_t)i;
        __asm__ __volatile__("" : "+r"(x));
    }
    return x;
}

static double timed_chain(void)
{
    calib_sink += alu_chain(calib_sink, 1);
    uint64_t t0 = calib_now_ns();
    uint64_t x = alu_chain(t0, STEPS);
    uint64_t dt = calib_now_ns() - t0;
    calib_sink += x;
    return (double)dt;
}

void bench_idle_clock(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    int trials = o->quick ? 15 : 101;
    double s[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        timed_chain();
        s[t] = timed_chain();
    }
    calib_emit("idleclock.hot", "ns", s, trials, "2048 dependent multiply-adds, right after the same chain");
    for (int i = 0; i < IDLE_N_WAITS; i++) {
        int ms = idle_waits_ms[i];
        int n = o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 15 : 31);
        idle_cpu_stat s0, s1;
        idle_cpu_stat_read(o->cpu_a, &s0);
        for (int t = 0; t < n; t++) {
            idle_wait_ms(ms, 0);
            s[t] = timed_chain();
        }
        idle_cpu_stat_read(o->cpu_a, &s1);
        char id[64], load[128], detail[256];
        idle_cpu_stat_describe(&s0, &s1, load, sizeof load);
        snprintf(id, sizeof id, "idleclock.sleep_%dms", ms);
        snprintf(detail, sizeof detail, "the same chain right after nanosleep(%d ms); during the sleeps: %s", ms, load);
        calib_emit(id, "ns", s, n, detail);
    }
}
