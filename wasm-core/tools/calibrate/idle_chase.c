/*
 * Where the seed's 16 KiB area is after a sleep: a dependent chase through its 256 lines
 * (random order, 4 KiB pages), timed right after nanosleep of 1, 10, 100, 200 ms on the same
 * CPU, ns per line; beside it the same chase with the TLB pre-warmed (one byte of each of the
 * 4 pages loaded just before: the difference is the page walks), and three references for the
 * same chase with no wait:
 *   - idlechase.hot: the lines in the L1 (right after the burst);
 *   - idlechase.ref_l2evict: the lines pushed out of the L2 by a sweep of 4 x L2 (huge
 *     pages: the area's 4 TLB entries survive), i.e. from the LLC if the LLC kept them;
 *   - idlechase.ref_dram: the lines written back and invalidated by clflush: from DRAM.
 * ns per line after a sleep near ref_l2evict says the LLC holds the area after the sleep;
 * near ref_dram says it came from DRAM. idlechase.walk.sleep_* is the page walk itself:
 * per trial pair, (cold - warm) x 64 lines per page, less the line the touch took out. Trials alternate the variants, so a change of the
 * machine's load hits them alike; each figure's detail gives what the CPU did during its
 * waits (idle / busy with other tasks / stolen by the host) and the load average.
 */
#include "idle_common.h"

#include <stdio.h>
#include <string.h>

#define PAGES (IDLE_AREA / IDLE_PAGE)

static void flush_area(idle_area *a)
{
    for (int line = 0; line < IDLE_LINES; line++)
        __builtin_ia32_clflush(a->base + line * LINE);
    __builtin_ia32_mfence();
}

static void evict_l2(char *buf, size_t bytes)
{
    for (size_t i = 0; i < bytes; i += LINE)
        buf[i]++;
    __asm__ __volatile__("" ::: "memory");
}

static void references(idle_area *a, int trials)
{
    double hot[CALIB_MAX_TRIALS], l2e[CALIB_MAX_TRIALS], dram[CALIB_MAX_TRIALS];
    size_t ev_bytes = 4 * mem_cache_bytes(2, 2u << 20);
    char *ev = calib_alloc(ev_bytes, 1);
    for (int t = 0; t < trials; t++) {
        idle_area_dirty(a);
        idle_chase_lap(a);
        hot[t] = idle_chase_lap(a);
        idle_area_dirty(a);
        evict_l2(ev, ev_bytes);
        idle_touch_pages(a);
        l2e[t] = idle_chase_lap(a);
        idle_area_dirty(a);
        flush_area(a);
        dram[t] = idle_chase_lap(a);
    }
    calib_free(ev, ev_bytes);
    calib_emit("idlechase.hot", "ns", hot, trials, "chase of the 16 KiB area's 256 lines, per line, right after the burst (L1)");
    calib_emit("idlechase.ref_l2evict", "ns", l2e, trials,
               "the same chase after a 4 x L2 sweep pushed the area out of the L2 (TLB warm): from the LLC if it kept them");
    calib_emit("idlechase.ref_dram", "ns", dram, trials,
               "the same chase after clflush of the area (TLB warm): every line from DRAM, this access pattern");
}

static void after_sleep(idle_area *a, int cpu, int ms, int trials)
{
    double cold[CALIB_MAX_TRIALS], warm[CALIB_MAX_TRIALS], walk[CALIB_MAX_TRIALS];
    idle_cpu_stat s0, s1;
    idle_cpu_stat_read(cpu, &s0);
    for (int t = 0; t < trials; t++) {
        idle_area_dirty(a);
        idle_wait_ms(ms, 0);
        calib_sink += calib_now_ns();   /* the clock's own code and data back first, untimed */
        cold[t] = idle_chase_lap(a);
        idle_area_dirty(a);
        idle_wait_ms(ms, 0);
        calib_sink += calib_now_ns();
        idle_touch_pages(a);
        warm[t] = idle_chase_lap(a);
        /* the cold lap's extra time over the warm one, per page, less the one line per page the
         * warm trial's touch took out of its chase (it would have cost about a warm line) */
        walk[t] = (cold[t] - warm[t]) * IDLE_LINES / PAGES - warm[t];
    }
    idle_cpu_stat_read(cpu, &s1);
    char id[64], load[128], detail[320];
    idle_cpu_stat_describe(&s0, &s1, load, sizeof load);
    snprintf(id, sizeof id, "idlechase.sleep_%dms", ms);
    snprintf(detail, sizeof detail, "chase of the 256 lines, per line, after nanosleep(%d ms); during the sleeps: %s", ms, load);
    calib_emit(id, "ns", cold, trials, detail);
    snprintf(id, sizeof id, "idlechase.tlbwarm.sleep_%dms", ms);
    snprintf(detail, sizeof detail, "the same after nanosleep(%d ms), then one byte of each 4 KiB page loaded (TLB warm); %s",
             ms, load);
    calib_emit(id, "ns", warm, trials, detail);
    snprintf(id, sizeof id, "idlechase.walk.sleep_%dms", ms);
    snprintf(detail, sizeof detail, "ns per page walk after nanosleep(%d ms): (cold - TLB-warm chase) x 64 lines per "
             "page - one line, per trial pair; %s", ms, load);
    calib_emit(id, "ns", walk, trials, detail);
}

void bench_idle_chase(const calib_opts *o)
{
    calib_pin(o->cpu_a);
    idle_area a;
    idle_area_init(&a, 15);
    references(&a, o->quick ? 15 : 101);
    for (int i = 0; i < IDLE_N_WAITS; i++) {
        int ms = idle_waits_ms[i];
        after_sleep(&a, o->cpu_a, ms, o->quick ? (ms >= 100 ? 1 : 3) : (ms >= 100 ? 15 : 31));
    }
    idle_area_free(&a);
}
