/*
 * The seed-000 burst: increment 16 KiB of 8-bit integers (gcc -O2 vectorises the loop, as
 * in the seed's benchmark), timed on CPU A
 *   - hot: right after the same burst;
 *   - after sleeping 1, 10, 100, 200, 1000 ms (what an idle CPU, its C-state, frequency
 *     and whatever else ran on it meanwhile do to the area);
 *   - after CPU B incremented the same area (every line comes from B's cache, Modified);
 *   - on a never-touched area (fresh anonymous memory: 4 first-touch page faults, as a
 *     per-cpu pool's range for a never-used cid);
 * and the parts of the after-sleep burst, measured (idle_chase.c says where the lines are):
 *   - sweep16k.ref_llc: right after a 4 x L2 sweep pushed the area out of the L2 (huge pages:
 *     the area's TLB entries survive): the burst with its lines in the LLC;
 *   - sweep16k.ref_dram: right after clflush of the area (TLB warm): its lines from DRAM;
 *   - sweep16k.tlbwarm.sleep_200ms: after nanosleep(200 ms), one byte of each page loaded
 *     first (untimed): the burst without its page walks.
 */
#include "calib.h"
#include "mem_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define AREA 16384

static void burst(uint8_t *area)
{
    for (int i = 0; i < AREA; i++)
        area[i]++;
}

static uint64_t timed_burst(uint8_t *area)
{
    uint64_t t0 = calib_now_ns();
    burst(area);
    __asm__ __volatile__("" ::: "memory");
    return calib_now_ns() - t0;
}

static void hot(uint8_t *area, int trials)
{
    double s[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        burst(area);
        s[t] = (double)timed_burst(area);
    }
    calib_emit("sweep16k.hot", "ns", s, trials, "16 KiB increment burst right after the same burst");
}

static void after_sleep(uint8_t *area, int ms, int trials)
{
    double s[CALIB_MAX_TRIALS];
    char id[48], detail[96];
    for (int t = 0; t < trials; t++) {
        burst(area);
        calib_sleep_ns((uint64_t)ms * 1000000u);
        s[t] = (double)timed_burst(area);
    }
    snprintf(id, sizeof id, "sweep16k.sleep_%dms", ms);
    snprintf(detail, sizeof detail, "16 KiB burst after nanosleep(%d ms) on the same CPU", ms);
    calib_emit(id, "ns", s, trials, detail);
}

/* CPU B's side of "after the other vCPU wrote": a turn counter hands the area back and forth. */
typedef struct remote_ctx {
    uint8_t *area;
    int cpu;
    int trials;
    _Atomic int turn;   /* odd: B's turn to write; even: A's turn to measure */
} remote_ctx;

static void *remote_writer(void *arg)
{
    remote_ctx *c = arg;
    calib_pin(c->cpu);
    for (int t = 0; t < c->trials; t++) {
        while (atomic_load_explicit(&c->turn, memory_order_acquire) != 2 * t + 1)
            __builtin_ia32_pause();
        burst(c->area);
        atomic_store_explicit(&c->turn, 2 * t + 2, memory_order_release);
    }
    return NULL;
}

static void after_remote(uint8_t *area, const calib_opts *o, int trials)
{
    double s[CALIB_MAX_TRIALS];
    remote_ctx c = { .area = area, .cpu = o->cpu_b, .trials = trials };
    atomic_init(&c.turn, 0);
    pthread_t th;
    pthread_create(&th, NULL, remote_writer, &c);
    for (int t = 0; t < trials; t++) {
        burst(area);   /* A holds the area first, as the seed's previous run on this CPU did */
        atomic_store_explicit(&c.turn, 2 * t + 1, memory_order_release);
        while (atomic_load_explicit(&c.turn, memory_order_acquire) != 2 * t + 2)
            __builtin_ia32_pause();
        s[t] = (double)timed_burst(area);
    }
    pthread_join(th, NULL);
    calib_emit("sweep16k.after_remote_write", "ns", s, trials,
               "16 KiB burst on CPU A right after CPU B incremented the same area");
}

static void first_touch(int trials)
{
    double s[CALIB_MAX_TRIALS];
    for (int t = 0; t < trials; t++) {
        uint8_t *fresh = mmap(NULL, AREA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (fresh == MAP_FAILED) {
            perror("kscope-calibrate: mmap");
            exit(1);
        }
        s[t] = (double)timed_burst(fresh);
        calib_sink += fresh[0];
        munmap(fresh, AREA);
    }
    calib_emit("sweep16k.first_touch", "ns", s, trials,
               "16 KiB burst on never-touched anonymous memory (4 page faults, zeroed pages)");
}

static void references(uint8_t *area, int trials)
{
    double llc[CALIB_MAX_TRIALS], dram[CALIB_MAX_TRIALS];
    size_t ev_bytes = 4 * mem_cache_bytes(2, 2u << 20);
    uint8_t *ev = calib_alloc(ev_bytes, 1);
    for (int t = 0; t < trials; t++) {
        burst(area);
        for (size_t i = 0; i < ev_bytes; i += 64)
            ev[i]++;
        for (int page = 0; page < AREA; page += 4096)
            calib_sink += *(volatile uint8_t *)(area + page + 4095);
        llc[t] = (double)timed_burst(area);
        burst(area);
        for (int i = 0; i < AREA; i += 64)
            __builtin_ia32_clflush(area + i);
        __builtin_ia32_mfence();
        dram[t] = (double)timed_burst(area);
    }
    calib_free(ev, ev_bytes);
    calib_emit("sweep16k.ref_llc", "ns", llc, trials, "16 KiB burst right after a 4 x L2 sweep pushed the area out of the "
               "L2 (TLB warm): its lines from the LLC");
    calib_emit("sweep16k.ref_dram", "ns", dram, trials, "16 KiB burst right after clflush of the area (TLB warm): its "
               "lines from DRAM");
}

static void after_sleep_tlbwarm(uint8_t *area, int ms, int trials)
{
    double s[CALIB_MAX_TRIALS];
    char id[48], detail[128];
    for (int t = 0; t < trials; t++) {
        burst(area);
        calib_sleep_ns((uint64_t)ms * 1000000u);
        for (int page = 0; page < AREA; page += 4096)
            calib_sink += *(volatile uint8_t *)(area + page + 4095);
        s[t] = (double)timed_burst(area);
    }
    snprintf(id, sizeof id, "sweep16k.tlbwarm.sleep_%dms", ms);
    snprintf(detail, sizeof detail, "16 KiB burst after nanosleep(%d ms), one byte of each page loaded first (TLB warm)", ms);
    calib_emit(id, "ns", s, trials, detail);
}

void bench_sweep_idle(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    uint8_t *area = calib_alloc(AREA, -1);
    hot(area, o->quick ? 31 : 101);
    after_remote(area, o, o->quick ? 15 : 101);
    first_touch(o->quick ? 15 : 101);
    static const int sleeps[] = { 1, 10, 100, 200, 1000 };
    for (int i = 0; i < 5; i++) {
        int trials = o->quick ? (sleeps[i] >= 1000 ? 1 : 2) : (sleeps[i] >= 1000 ? 7 : 15);
        after_sleep(area, sleeps[i], trials);
    }
    references(area, o->quick ? 15 : 101);
    after_sleep_tlbwarm(area, 200, o->quick ? 2 : 15);
    calib_sink += area[0];
    calib_free(area, AREA);
}
