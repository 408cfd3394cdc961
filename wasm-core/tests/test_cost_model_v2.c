/*
 * The cost model v2 (kscope/cost.h, src/machine/cost_*.c): each mechanism pinned by
 * the physical behaviour it models, on every preset, and the breakdown's sum.
 *
 *   misses in flight   256 independent misses cost ~ 256 x latency / misses-in-flight
 *   Exclusive vs RFO   a line from no other private cache: one trip; one another core
 *                      holds (dirty): two, the second for ownership, and a HITM
 *   idle flush         past the deepest flushing C-state's residency the own lines come
 *                      from the LLC; just short of it they still hit L1
 *   prefetch           in address order within pages cheaper than random; a sweep
 *                      that straddles one more page pays one more page's demand misses
 *   capacity           cost grows with age under background traffic, not without it
 *   TLB                C6 and never-touched walk every page; a warm area none
 *   contention         grows with accessors and with distance; saturated = N x transfer
 *   MCS                spin time linear in waiters; hand-off grows with distance
 *   breakdown          parts >= 0 and summing to the total over random bursts
 */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "kscope/native/cost.h"
#include "kscope/topology.h"

static ks_cost_params params_of(const char *name)
{
    ks_cost_params p = { 0 };
    ks_topology *topo = NULL;
    CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
    if (topo)
        CHECK_EQ_INT(ks_topology_cost_params(topo, &p), KS_OK);
    ks_topology_free(topo);
    return p;
}

static double trip(const ks_cost_params *p, int src)
{
    return (double)p->latency.cycles[src] * 1000.0 / p->latency.core_mhz;
}

static int near(double a, double b, double rel)
{
    double d = fabs(a - b), m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return d <= rel * m + 1e-9;
}

/* A one-group sweep: n lines at `where`, TLB warm (touched just now, no background). */
static ks_cost_sweep one_group(uint32_t n, int where, int state, int order, int is_store)
{
    ks_cost_sweep sw = { .order = order, .is_store = is_store, .since_own_touch_ns = 0, .n_groups = 1 };
    sw.groups[0] = (ks_cost_lines){ .lines = n, .where = where, .state = state };
    return sw;
}

static ks_cost_result run(const ks_cost_params *p, const ks_cost_sweep *sw)
{
    ks_cost_result r;
    CHECK_EQ_INT(ks_cost_sweep_run(p, sw, &r), KS_OK);
    return r;
}

static double sum_parts(const ks_cost_result *r)
{
    double s = 0;
    for (int i = 0; i < KS_COST_PARTS; i++)
        s += r->part_ns[i];
    return s;
}

static void test_params_per_preset(void)
{
    for (int32_t i = 0; i < ks_topology_preset_count(); i++) {
        const char *name = ks_topology_preset_name(i);
        ks_topology *topo = NULL;
        CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
        ks_cost_params p;
        ks_latency_table lat;
        CHECK_EQ_INT(ks_topology_cost_params(topo, &p), KS_OK);
        CHECK_EQ_INT(ks_topology_latency(topo, &lat), KS_OK);
        CHECK(memcmp(&p.latency, &lat, sizeof lat) == 0);   /* one source for latencies */
        ks_topology_summary s;
        CHECK_EQ_INT(ks_topology_summarize(topo, &s), KS_OK);
        CHECK_EQ_INT(p.l2_bytes, s.l2_kib * 1024);
        CHECK(p.demand_mlp >= 8 && p.prefetch_mlp >= p.demand_mlp);
        CHECK(p.n_cstates >= 1 && p.cstates[p.n_cstates - 1].flushes_private == 1);
        for (int c = 1; c < p.n_cstates; c++)
            CHECK(p.cstates[c].residency_ns >= p.cstates[c - 1].residency_ns);
        ks_topology_free(topo);
    }
    CHECK_EQ_INT(ks_topology_cost_params(NULL, NULL), KS_ERR_INVALID_ARG);
    /* The Intel tables are the kernel's: intel_idle's spr_cstates C6 is 290/800 us. */
    ks_cost_params spr = params_of("spr-2s");
    CHECK_EQ_STR(spr.cstates[2].name, "C6");
    CHECK_EQ_INT(spr.cstates[2].exit_ns, 290000);
    CHECK_EQ_INT(spr.cstates[2].residency_ns, 800000);
}

/* 256 independent misses overlap: ~ 256 x latency / misses-in-flight, far below serial. */
static void test_misses_overlap(void)
{
    const char *names[] = { "epyc-9654-2s", "spr-2s", "gnr-2s-snc" };
    for (unsigned i = 0; i < 3; i++) {
        ks_cost_params p = params_of(names[i]);
        ks_cost_sweep sw = one_group(256, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_RANDOM, 0);
        ks_cost_result r = run(&p, &sw);
        double lat = trip(&p, KS_SRC_DRAM_LOCAL);
        CHECK(near(r.total_ns, 256 * lat / p.demand_mlp, 1e-9));
        CHECK(r.total_ns < 256 * lat / 4);
        CHECK(near(r.serial_ns, 256 * lat + 256.0 * p.sweep_cycles_per_line * 1000 / p.latency.core_mhz, 1e-9));
        CHECK_EQ_INT(r.lines_from[KS_SRC_DRAM_LOCAL], 256);
        CHECK_EQ_INT(r.bound, 1);
        CHECK(r.part_ns[KS_COST_DRAM] > 0);
        /* Fewer misses than in flight: one latency, not less. */
        ks_cost_sweep few = one_group(4, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_RANDOM, 0);
        ks_cost_result rf = run(&p, &few);
        CHECK(near(rf.total_ns, lat, 1e-9));
    }
}

/* An Exclusive fill is one trip; a line another core holds Modified is a HITM plus an
 * ownership trip for the store. */
static void test_exclusive_vs_rfo(void)
{
    ks_cost_params p = params_of("epyc-9654-2s");
    ks_cost_sweep clean = one_group(1, KS_WHERE_OWN_LLC, KS_LINE_CLEAN, KS_ORDER_RANDOM, 1);
    ks_cost_result rc = run(&p, &clean);
    CHECK(near(rc.total_ns, trip(&p, KS_SRC_LLC), 1e-9));
    CHECK_EQ_INT(rc.lines_rfo, 0);
    CHECK_EQ_INT(rc.hitm, 0);

    static const int wheres[] = { KS_WHERE_SAME_LLC_CORE, KS_WHERE_OTHER_LLC, KS_WHERE_OTHER_SOCKET };
    static const int srcs[] = { KS_SRC_SAME_LLC_CORE, KS_SRC_OTHER_LLC, KS_SRC_OTHER_SOCKET };
    for (int i = 0; i < 3; i++) {
        ks_cost_sweep dirty = one_group(1, wheres[i], KS_LINE_DIRTY, KS_ORDER_RANDOM, 1);
        ks_cost_result rd = run(&p, &dirty);
        CHECK(near(rd.total_ns, 2 * trip(&p, srcs[i]), 1e-9));
        CHECK_EQ_INT(rd.lines_rfo, 1);
        CHECK_EQ_INT(rd.hitm, 1);
        CHECK(near(rd.part_ns[KS_COST_REMOTE], rd.part_ns[KS_COST_RFO], 1e-9));
        /* A load alone needs no ownership: one trip. */
        ks_cost_sweep load = one_group(1, wheres[i], KS_LINE_DIRTY, KS_ORDER_RANDOM, 0);
        CHECK(near(run(&p, &load).total_ns, trip(&p, srcs[i]), 1e-9));
        /* The holder idled into CC6: its dirty line was written back to its LLC, and now
         * arrives clean in one trip from there. */
        dirty.groups[0].holder_idle_ns = dirty.groups[0].age_ns = 10000000;
        ks_cost_result rf = run(&p, &dirty);
        CHECK_EQ_INT(rf.lines_rfo, 0);
        CHECK_EQ_INT(rf.lines_idle_flushed, 1);
        CHECK(rf.total_ns < rd.total_ns);
    }
}

/* Past the deepest flushing C-state's residency the core's own lines miss L1/L2. */
static void test_idle_flush(void)
{
    for (int32_t i = 0; i < ks_topology_preset_count(); i++) {
        ks_cost_params p = params_of(ks_topology_preset_name(i));
        int c6 = 0;                         /* the shallowest state that flushes */
        while (!p.cstates[c6].flushes_private)
            c6++;
        uint64_t residency = (uint64_t)p.cstates[c6].residency_ns;
        ks_cost_sweep sw = one_group(256, KS_WHERE_OWN_PRIVATE, KS_LINE_DIRTY, KS_ORDER_SEQUENTIAL, 1);
        sw.groups[0].age_ns = sw.idle_ns = sw.since_own_touch_ns = residency - 1;
        ks_cost_result warm = run(&p, &sw);
        CHECK_EQ_INT(warm.lines_from[KS_SRC_L1], 256);
        CHECK_EQ_INT(warm.pages_walked, 0);
        CHECK(near(warm.total_ns, warm.part_ns[KS_COST_CORE], 1e-12));

        sw.groups[0].age_ns = sw.idle_ns = sw.since_own_touch_ns = residency;
        ks_cost_result cold = run(&p, &sw);
        CHECK_EQ_INT(cold.lines_from[KS_SRC_LLC], 256);
        CHECK_EQ_INT(cold.lines_idle_flushed, 256);
        CHECK_EQ_INT(cold.cstate, c6);
        CHECK_EQ_INT(cold.pages_walked, 4);             /* C6 loses the TLB too */
        CHECK(cold.part_ns[KS_COST_TLB] > 0);
        /* The LLC trips show unless the core's own work hides them (prefetched, in
         * flight, they can take less time than the instructions of the sweep). */
        CHECK(cold.part_ns[KS_COST_IDLE_FLUSH] > 0 || cold.bound == 0);
        CHECK(cold.total_ns > warm.total_ns);
        CHECK_EQ_INT(cold.part_ns[KS_COST_CSTATE_EXIT] == 0, 1);
        sw.wake_in_burst = 1;
        ks_cost_result woke = run(&p, &sw);
        CHECK(near(woke.total_ns - cold.total_ns, p.cstates[c6].exit_ns, 1e-9));
    }
}

/* Address order within pages is prefetched; random order is not; a page more, more
 * demand misses. */
static void test_prefetch(void)
{
    ks_cost_params p = params_of("spr-2s");
    ks_cost_sweep seq = one_group(256, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_SEQUENTIAL, 0);
    ks_cost_sweep rnd = one_group(256, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_RANDOM, 0);
    ks_cost_result rs = run(&p, &seq), rr = run(&p, &rnd);
    CHECK(rs.total_ns < rr.total_ns);
    CHECK_EQ_INT(rs.pages, 4);
    CHECK_EQ_INT(rs.lines_prefetched, 256 - 4 * p.prefetch_trigger_lines);
    CHECK_EQ_INT(rr.lines_prefetched, 0);
    double lat = trip(&p, KS_SRC_DRAM_LOCAL);
    double expect = lat * (4.0 * p.prefetch_trigger_lines / p.demand_mlp
                           + (256.0 - 4 * p.prefetch_trigger_lines) / p.prefetch_mlp);
    CHECK(near(rs.total_ns, expect, 1e-9));
    seq.page_offset = 64;                             /* straddles a fifth page */
    ks_cost_result ro = run(&p, &seq);
    CHECK_EQ_INT(ro.pages, 5);
    CHECK(ro.total_ns > rs.total_ns);
}

/* Background traffic evicts by capacity: cost grows with age; without it, age alone
 * changes nothing (only idle does). */
static void test_capacity(void)
{
    ks_cost_params p = params_of("epyc-9654-2s");
    static const uint64_t ages[] = { 0, 10000, 100000, 1000000, 10000000, 100000000 };
    double last = 0;
    for (unsigned i = 0; i < sizeof ages / sizeof ages[0]; i++) {
        ks_cost_sweep sw = one_group(256, KS_WHERE_OWN_PRIVATE, KS_LINE_DIRTY, KS_ORDER_SEQUENTIAL, 1);
        sw.groups[0].age_ns = sw.since_own_touch_ns = ages[i];
        sw.background_private_bytes_per_us = 1000;
        sw.background_llc_bytes_per_us = 8000;
        ks_cost_result r = run(&p, &sw);
        CHECK(r.total_ns >= last);
        last = r.total_ns;
        if (ages[i] == 100000000) {
            CHECK_EQ_INT(r.lines_from[KS_SRC_DRAM_LOCAL], 256);   /* 800 MB through a 32 MiB L3 */
            CHECK_EQ_INT(r.lines_capacity_evicted, 256);   /* counted once per line */
            CHECK(r.part_ns[KS_COST_CAPACITY] > 0);
        }
        ks_cost_sweep quiet = sw;
        quiet.background_private_bytes_per_us = quiet.background_llc_bytes_per_us = 0;
        CHECK_EQ_INT(run(&p, &quiet).lines_from[KS_SRC_L1], 256);
    }
}

static void test_tlb(void)
{
    ks_cost_params p = params_of("spr-2s");
    ks_cost_sweep sw = one_group(256, KS_WHERE_OWN_LLC, KS_LINE_CLEAN, KS_ORDER_SEQUENTIAL, 1);
    CHECK_EQ_INT(run(&p, &sw).pages_walked, 0);
    sw.since_own_touch_ns = KS_COST_NEVER;
    ks_cost_result never = run(&p, &sw);
    CHECK_EQ_INT(never.pages_walked, 4);
    /* One PTE line (8 pages' entries) from the LLC, then three L1 hits. */
    CHECK(near(never.part_ns[KS_COST_TLB], trip(&p, KS_SRC_LLC) + 3 * trip(&p, KS_SRC_L1), 1e-9));
    p.walk_ns_measured = 30;                              /* kscope calibrate's figure wins */
    CHECK(near(run(&p, &sw).part_ns[KS_COST_TLB], 30 + 3 * trip(&p, KS_SRC_L1), 1e-9));
    /* 16 pages: two PTE lines. After C6 the first walk reads all 4 levels. */
    ks_cost_sweep big = one_group(1024, KS_WHERE_OWN_LLC, KS_LINE_CLEAN, KS_ORDER_SEQUENTIAL, 1);
    big.idle_ns = big.since_own_touch_ns = 10000000;
    ks_cost_result r = run(&p, &big);
    CHECK_EQ_INT(r.pages_walked, 16);
    CHECK(near(r.part_ns[KS_COST_TLB], (p.walk_levels + 1) * trip(&p, KS_SRC_LLC) + 14 * trip(&p, KS_SRC_L1), 1e-9));
}

/* Contention grows with accessors and with distance; saturated, a touch waits for all. */
static void test_contention(void)
{
    ks_cost_params p = params_of("epyc-9654-2s");
    ks_cost_result r;
    CHECK_EQ_INT(ks_cost_contended_line(&p, 1, KS_SRC_SAME_LLC_CORE, 0, &r), KS_OK);
    CHECK(near(r.total_ns, trip(&p, KS_SRC_L1), 1e-9));
    static const int dist[] = { KS_SRC_SAME_LLC_CORE, KS_SRC_OTHER_LLC, KS_SRC_OTHER_SOCKET };
    double prev_d = 0;
    for (int d = 0; d < 3; d++) {
        double prev = 0;
        for (int32_t n = 2; n <= 64; n *= 2) {
            CHECK_EQ_INT(ks_cost_contended_line(&p, n, dist[d], 100.0, &r), KS_OK);
            CHECK(r.total_ns > prev);
            CHECK(near(r.total_ns, sum_parts(&r), 1e-12));
            prev = r.total_ns;
        }
        CHECK(prev > prev_d);
        prev_d = prev;
        CHECK_EQ_INT(ks_cost_contended_line(&p, 16, dist[d], 0.0, &r), KS_OK);
        CHECK(near(r.total_ns, 16 * trip(&p, dist[d]), 1e-9));
    }
    CHECK_EQ_INT(ks_cost_contended_line(&p, 0, KS_SRC_LLC, 0, &r), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cost_contended_line(&p, 2, KS_SRC_COUNT, 0, &r), KS_ERR_INVALID_ARG);
}

/* MCS: each waiter ahead adds one turn (hand-off + critical section): linear. */
static void test_mcs(void)
{
    ks_cost_params p = params_of("gnr-2s-snc");
    ks_cost_result r0, r1, r;
    CHECK_EQ_INT(ks_cost_mcs_acquire(&p, 1, KS_SRC_OTHER_SOCKET, 50.0, 2, &r0), KS_OK);
    CHECK_EQ_INT(ks_cost_mcs_acquire(&p, 2, KS_SRC_OTHER_SOCKET, 50.0, 2, &r1), KS_OK);
    double d = trip(&p, KS_SRC_OTHER_SOCKET), turn = 2 * d + 50.0 + 2 * d;
    CHECK(near(r1.total_ns - r0.total_ns, turn, 1e-9));
    for (int32_t w = 3; w <= 32; w++) {
        CHECK_EQ_INT(ks_cost_mcs_acquire(&p, w, KS_SRC_OTHER_SOCKET, 50.0, 2, &r), KS_OK);
        CHECK(near(r.part_ns[KS_COST_LOCK_SPIN], w * turn, 1e-9));
        CHECK(near(r.total_ns, sum_parts(&r), 1e-12));
    }
    CHECK(near(r0.part_ns[KS_COST_LOCK_HANDOFF], 2 * d, 1e-9));
    CHECK_EQ_INT(ks_cost_mcs_acquire(&p, 4, KS_SRC_SAME_LLC_CORE, 50.0, 2, &r), KS_OK);
    ks_cost_result far;
    CHECK_EQ_INT(ks_cost_mcs_acquire(&p, 4, KS_SRC_OTHER_SOCKET, 50.0, 2, &far), KS_OK);
    CHECK(far.part_ns[KS_COST_LOCK_HANDOFF] > r.part_ns[KS_COST_LOCK_HANDOFF]);
    CHECK(far.total_ns > r.total_ns);
    CHECK_EQ_INT(ks_cost_mcs_acquire(&p, -1, KS_SRC_LLC, 0, 0, &r), KS_ERR_INVALID_ARG);
}

/* splitmix64, for random bursts. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Over random bursts on every preset: parts >= 0, summing to the total exactly; never
 * dearer than serial unless bandwidth-bound; total >= the core's own work. */
static void test_breakdown_sums(void)
{
    uint64_t rng = 15;
    for (int32_t i = 0; i < ks_topology_preset_count(); i++) {
        ks_cost_params p = params_of(ks_topology_preset_name(i));
        for (int k = 0; k < 300; k++) {
            ks_cost_sweep sw = { .order = (int)(next(&rng) % 2), .is_store = (int)(next(&rng) % 2),
                                 .page_offset = (int)(next(&rng) % 64) * 64,
                                 .wake_in_burst = (int)(next(&rng) % 2),
                                 .background_private_bytes_per_us = (int)(next(&rng) % 3000),
                                 .background_llc_bytes_per_us = (int)(next(&rng) % 30000),
                                 .streams_per_llc = (int)(next(&rng) % 16),
                                 .streams_per_socket = (int)(next(&rng) % 400),
                                 .idle_ns = next(&rng) % 4000000,
                                 .since_own_touch_ns = next(&rng) % 8 ? next(&rng) % 300000000 : KS_COST_NEVER,
                                 .n_groups = 1 + (int)(next(&rng) % KS_COST_MAX_GROUPS) };
            for (int g = 0; g < sw.n_groups; g++)
                sw.groups[g] = (ks_cost_lines){ .lines = (uint32_t)(next(&rng) % 300),
                                                .where = (int)(next(&rng) % KS_WHERE_COUNT),
                                                .state = (int)(next(&rng) % 2),
                                                .home_remote = (int)(next(&rng) % 2),
                                                .age_ns = next(&rng) % 300000000,
                                                .holder_idle_ns = next(&rng) % 3000000 };
            ks_cost_result r = run(&p, &sw);
            double s = 0;
            int nonneg = 1;
            for (int j = 0; j < KS_COST_PARTS; j++) {
                s += r.part_ns[j];
                nonneg &= r.part_ns[j] >= 0;
            }
            CHECK(nonneg);
            CHECK(s == r.total_ns);
            CHECK(r.total_ns >= r.part_ns[KS_COST_CORE]);
            CHECK(r.bound == 2 || r.total_ns <= r.serial_ns * (1 + 1e-12));
            uint32_t from = 0;
            for (int j = 0; j < KS_SRC_COUNT; j++)
                from += r.lines_from[j];
            CHECK_EQ_INT(from, r.lines);
        }
    }
}

/* Many bursts streaming from one socket's DRAM at once: bandwidth, not latency, binds. */
static void test_bandwidth(void)
{
    ks_cost_params p = params_of("spr-2s");
    ks_cost_sweep sw = one_group(256, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_SEQUENTIAL, 0);
    ks_cost_result alone = run(&p, &sw);
    CHECK_EQ_INT(alone.part_ns[KS_COST_BANDWIDTH] == 0, 1);
    sw.streams_per_socket = 120;
    ks_cost_result crowd = run(&p, &sw);
    CHECK_EQ_INT(crowd.bound, 2);
    CHECK(near(crowd.total_ns, 256.0 * 64 * 120 / p.dram_gbps_per_socket, 1e-9));
    CHECK(crowd.part_ns[KS_COST_BANDWIDTH] > 0);
}

static void test_arguments(void)
{
    ks_cost_params p = params_of("classroom-8");
    ks_cost_sweep sw = one_group(4, KS_WHERE_DRAM, KS_LINE_CLEAN, KS_ORDER_RANDOM, 0);
    ks_cost_result r;
    CHECK_EQ_INT(ks_cost_sweep_run(NULL, &sw, &r), KS_ERR_INVALID_ARG);
    sw.n_groups = KS_COST_MAX_GROUPS + 1;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &r), KS_ERR_INVALID_ARG);
    sw.n_groups = 1;
    sw.groups[0].where = KS_WHERE_COUNT;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &r), KS_ERR_INVALID_ARG);
    sw.groups[0].where = KS_WHERE_DRAM;
    sw.background_llc_bytes_per_us = -1;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &r), KS_ERR_INVALID_ARG);
    sw.background_llc_bytes_per_us = 0;
    p.demand_mlp = 0;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &r), KS_ERR_INVALID_ARG);
    CHECK_EQ_STR(ks_cost_part_name(KS_COST_IDLE_FLUSH), "idle_flush");
    CHECK(ks_cost_part_name(KS_COST_PARTS) == NULL);
    for (int i = 0; i < KS_COST_PARTS; i++)
        CHECK(ks_cost_part_name(i) != NULL);
    ks_cost_sweep empty = { .n_groups = 0 };
    p.demand_mlp = 16;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &empty, &r), KS_OK);
    CHECK_EQ_INT(r.total_ns == 0, 1);
}

const test_case cost_model_v2_tests[] = {
    { "cost_v2: per-preset figures (latencies from the v1 tables, intel_idle C-states)", test_params_per_preset },
    { "cost_v2: 256 independent misses cost 256 x latency / misses in flight", test_misses_overlap },
    { "cost_v2: Exclusive fill one trip, dirty remote line two (HITM + ownership)", test_exclusive_vs_rfo },
    { "cost_v2: idle past the C6 residency flushes L1/L2 and the TLB", test_idle_flush },
    { "cost_v2: sequential sweep prefetched within 4 KiB pages, random not", test_prefetch },
    { "cost_v2: capacity eviction grows with age under background traffic only", test_capacity },
    { "cost_v2: page walks after C6, on a never-touched area, not on a warm one", test_tlb },
    { "cost_v2: contention grows with accessors and distance (MVA)", test_contention },
    { "cost_v2: MCS spin time linear in waiters, hand-off grows with distance", test_mcs },
    { "cost_v2: breakdown parts >= 0 and sum to the total (random bursts)", test_breakdown_sums },
    { "cost_v2: many streams on one socket are bandwidth-bound", test_bandwidth },
    { "cost_v2: bad arguments rejected, part names", test_arguments },
    { 0 },
};
