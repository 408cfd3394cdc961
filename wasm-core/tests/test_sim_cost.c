/*
 * The cost model v2 wired into the simulator (src/sched/driver.c sweep(),
 * src/sched/sim_cost.c, src/machine/cost_from_cache.c, src/machine/cost_fault.c):
 * the bridge from v1's line state, the first-touch fault part, the selection and the
 * per-burst parts. A generic workload (cpu_id indexing, no model), so no model is named.
 */
#include <math.h>

#include "check.h"
#include "sim_test_util.h"
#include "kscope/native/sim_cost.h"

static ks_topology *preset(const char *name)
{
    ks_topology *topo = NULL;
    CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
    return topo;
}

/* First touch: one fault per page, charged to its own part, only when asked. */
static void test_first_touch_part(void)
{
    ks_topology *topo = preset("epyc-9654-2s");
    ks_cost_params p;
    CHECK_EQ_INT(ks_topology_cost_params(topo, &p), KS_OK);
    CHECK(p.first_touch_ns_per_page > 1000);           /* µs per fault, not ns per line */
    ks_cost_sweep sw = { .is_store = 1, .n_groups = 1,
                         .groups = { { .lines = 256, .where = KS_WHERE_OWN_PRIVATE, .state = KS_LINE_DIRTY } } };
    ks_cost_result warm, fault;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &warm), KS_OK);
    CHECK_EQ_INT(warm.part_ns[KS_COST_FIRST_TOUCH] == 0.0, 1);
    CHECK_EQ_INT(warm.pages_faulted, 0);
    sw.first_touch_pages = 4;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &fault), KS_OK);
    CHECK_EQ_INT(fault.pages_faulted, 4);
    CHECK_EQ_INT(fault.part_ns[KS_COST_FIRST_TOUCH] == 4.0 * p.first_touch_ns_per_page, 1);
    CHECK(fabs(fault.total_ns - warm.total_ns - 4.0 * p.first_touch_ns_per_page) < 1e-6);
    CHECK_EQ_STR(ks_cost_part_name(KS_COST_FIRST_TOUCH), "first_touch");
    sw.first_touch_pages = -1;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &fault), KS_ERR_INVALID_ARG);
    p.first_touch_ns_per_page = -1;
    sw.first_touch_pages = 0;
    CHECK_EQ_INT(ks_cost_sweep_run(&p, &sw, &fault), KS_ERR_INVALID_ARG);
    ks_topology_free(topo);
}

/* v1's holders become v2's groups: own / same-LLC core / another LLC / nowhere. */
static void test_sweep_from_cache(void)
{
    ks_topology *topo = preset("epyc-9654-2s");        /* CPU c: core c, L3 c / 8 */
    ks_cache_params cp = { 0 };
    ks_cache *cache = NULL;
    CHECK_EQ_INT(ks_cache_new(topo, &cp, &cache), KS_OK);
    int32_t obj = -1;
    CHECK_EQ_INT(ks_cache_add_object(cache, "area", 16384, 0, &obj), KS_OK);
    ks_cost_sweep sw = { 0 };
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 0, obj, 1000, NULL, &sw), KS_OK);
    CHECK_EQ_INT(sw.n_groups, 1);
    CHECK_EQ_INT(sw.groups[0].where, KS_WHERE_DRAM);
    CHECK_EQ_INT(sw.groups[0].lines, 256);
    CHECK_EQ_INT(sw.since_own_touch_ns == KS_COST_NEVER, 1);

    ks_access_cost a;
    CHECK_EQ_INT(ks_cache_access(cache, 1, obj, 0, 16384, 1, 5000, &a), KS_OK);   /* core 1 writes */
    uint64_t idle[192] = { 0 };
    idle[1] = 777;
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 1, obj, 9000, idle, &sw), KS_OK);
    CHECK_EQ_INT(sw.n_groups, 1);
    CHECK_EQ_INT(sw.groups[0].where, KS_WHERE_OWN_PRIVATE);
    CHECK_EQ_INT(sw.groups[0].state, KS_LINE_DIRTY);
    CHECK_EQ_INT(sw.groups[0].age_ns == 4000, 1);
    CHECK_EQ_INT(sw.since_own_touch_ns == 4000, 1);
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 2, obj, 9000, idle, &sw), KS_OK);
    CHECK_EQ_INT(sw.groups[0].where, KS_WHERE_SAME_LLC_CORE);
    CHECK_EQ_INT(sw.groups[0].state, KS_LINE_DIRTY);
    CHECK_EQ_INT(sw.groups[0].holder_idle_ns == 777, 1);
    CHECK_EQ_INT(sw.since_own_touch_ns == KS_COST_NEVER, 1);
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 8, obj, 9000, idle, &sw), KS_OK);
    CHECK_EQ_INT(sw.groups[0].where, KS_WHERE_OTHER_LLC);
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 100, obj, 9000, idle, &sw), KS_OK);
    CHECK_EQ_INT(sw.groups[0].where, KS_WHERE_OTHER_SOCKET);
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 0, obj + 1, 9000, idle, &sw), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cost_sweep_from_cache(cache, 9999, obj, 9000, idle, &sw), KS_ERR_INVALID_ARG);
    ks_cache_free(cache);
    ks_topology_free(topo);
}

/* 4 threads pinned to CPUs 0-3 of one L3, cpu_id indexing, 5 bursts each 4 x 50 ms apart. */
static const char *const PER_CPU_WORKLOAD =
    "{\"name\": \"v2\", \"duration_ms\": 3000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"cpus\": [0, 1, 2, 3], \"placement\": \"one-per-core\","
    " \"area_bytes\": 16384, \"index_by\": \"cpu\", \"delay_ms\": 50, \"order\": \"fixed\","
    " \"warmup_sweeps\": 0, \"loops\": 5}]}";

/* The workload on the EPYC preset with background traffic bg B/us per core (8 x per L3). */
static test_sim sim_with_background(int32_t bg)
{
    test_sim t = test_sim_new("epyc-9654-2s", PER_CPU_WORKLOAD, 1, "none");
    if (t.status != KS_OK)
        return t;
    ks_sim_free(t.sim);
    ks_sim_config config = { .seed = 1, .algo = "none",
                             .cache = { .private_background_bytes_per_us = bg,
                                        .llc_background_bytes_per_us = 8 * bg } };
    t.status = ks_sim_new(t.topo, PER_CPU_WORKLOAD, (int32_t)strlen(PER_CPU_WORKLOAD), &config,
                          &t.sim, &t.err);
    return t;
}

static void run_to_end(ks_sim *sim)
{
    ks_event ev;
    int32_t produced = 1;
    while (produced && ks_sim_step(sim, &ev, &produced) == KS_OK)
        ;
}

static void test_sim_v2_bursts(void)
{
    test_sim t = sim_with_background(0);
    CHECK_EQ_INT(t.status, KS_OK);
    CHECK_EQ_INT(ks_sim_cost_model(t.sim), KS_COST_MODEL_V1);
    CHECK_EQ_INT(ks_sim_set_cost_model(t.sim, 3, NULL), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_sim_set_cost_model(t.sim, KS_COST_MODEL_V2, NULL), KS_OK);
    CHECK_EQ_INT(ks_sim_cost_model(t.sim), KS_COST_MODEL_V2);
    run_to_end(t.sim);
    CHECK_EQ_INT(ks_sim_set_cost_model(t.sim, KS_COST_MODEL_V1, NULL), KS_ERR_INVALID_ARG);
    uint32_t n = ks_sim_burst_count(t.sim);
    CHECK_EQ_INT(n, 20);
    const ks_burst_cost *b = ks_sim_burst_costs(t.sim);
    const ks_cost_parts *parts = ks_sim_burst_parts(t.sim);
    int first[4] = { 1, 1, 1, 1 }, faults = 0;
    for (uint32_t i = 0; i < n; i++) {
        double sum = 0;
        for (int k = 0; k < KS_COST_PARTS; k++)
            sum += parts[i].part_ns[k];
        CHECK(fabs(sum - (double)b[i].cost_ns) <= 1.0);              /* parts add up to the cost */
        int fault = parts[i].part_ns[KS_COST_FIRST_TOUCH] > 0;
        CHECK_EQ_INT(fault, first[b[i].index]);       /* only an index's first write faults */
        faults += fault;
        first[b[i].index] = 0;
        if (!fault) {
            /* 200 ms asleep: past CC6's residency, yet the L3 trips hide under the core's
             * work; no background, so nothing evicted by capacity */
            CHECK(parts[i].part_ns[KS_COST_CORE] > 0);
            CHECK_EQ_INT(parts[i].part_ns[KS_COST_CAPACITY] == 0.0, 1);
            CHECK(b[i].cost_ns < 1000);
            /* the core's idle (the rq's idle period) reached C6: its TLB was flushed */
            CHECK(parts[i].part_ns[KS_COST_TLB] > 0);
        }
    }
    CHECK_EQ_INT(faults, 4);
    test_sim_free(&t);
}

/* The background rates of the cache params reach v2: 1000 B/us per core evicts the area
 * between two bursts 200 ms apart (capacity), none does not (above). */
static void test_sim_v2_background(void)
{
    test_sim t = sim_with_background(1000);
    CHECK_EQ_INT(t.status, KS_OK);
    CHECK_EQ_INT(ks_sim_set_cost_model(t.sim, KS_COST_MODEL_V2, NULL), KS_OK);
    run_to_end(t.sim);
    uint32_t n = ks_sim_burst_count(t.sim);
    const ks_cost_parts *parts = ks_sim_burst_parts(t.sim);
    int evicted = 0;
    for (uint32_t i = 0; i < n; i++)
        evicted += parts[i].part_ns[KS_COST_CAPACITY] > 0;
    CHECK_EQ_INT(evicted, 16);                 /* every burst but each index's first */
    test_sim_free(&t);
}

/* v1 stays the default: the same run costs v1's figures and all parts are 0. */
static void test_sim_v1_default(void)
{
    test_sim t = test_sim_new("epyc-9654-2s", PER_CPU_WORKLOAD, 1, "none");
    CHECK_EQ_INT(t.status, KS_OK);
    run_to_end(t.sim);
    uint32_t n = ks_sim_burst_count(t.sim);
    CHECK_EQ_INT(n, 20);
    const ks_burst_cost *b = ks_sim_burst_costs(t.sim);
    const ks_cost_parts *parts = ks_sim_burst_parts(t.sim);
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < KS_COST_PARTS; k++)
            CHECK_EQ_INT(parts[i].part_ns[k] == 0.0, 1);
        CHECK(b[i].cost_ns >= 576);                    /* v1: 256 lines x 2 trips, at least L1 */
    }
    test_sim_free(&t);
}

/* Snapshots carry the parts, and a v2 snapshot does not restore into a v1 simulation. */
static void test_sim_v2_snapshot(void)
{
    test_sim a = test_sim_new("epyc-9654-2s", PER_CPU_WORKLOAD, 1, "none");
    test_sim b = test_sim_new("epyc-9654-2s", PER_CPU_WORKLOAD, 1, "none");
    test_sim v1 = test_sim_new("epyc-9654-2s", PER_CPU_WORKLOAD, 1, "none");
    CHECK_EQ_INT(ks_sim_set_cost_model(a.sim, KS_COST_MODEL_V2, NULL), KS_OK);
    CHECK_EQ_INT(ks_sim_set_cost_model(b.sim, KS_COST_MODEL_V2, NULL), KS_OK);
    run_to_end(a.sim);
    uint32_t size = ks_sim_snapshot_size(a.sim);
    void *buf = malloc(size);
    CHECK_EQ_INT(ks_sim_snapshot_save(a.sim, buf, size), KS_OK);
    CHECK_EQ_INT(ks_sim_snapshot_restore(v1.sim, buf, size), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_sim_snapshot_restore(b.sim, buf, size), KS_OK);
    CHECK_EQ_INT(ks_sim_burst_count(b.sim), ks_sim_burst_count(a.sim));
    CHECK_EQ_INT(memcmp(ks_sim_burst_parts(a.sim), ks_sim_burst_parts(b.sim),
                        ks_sim_burst_count(a.sim) * sizeof(ks_cost_parts)), 0);
    CHECK(ks_sim_burst_parts(b.sim)[0].part_ns[KS_COST_FIRST_TOUCH] > 0);
    free(buf);
    test_sim_free(&a);
    test_sim_free(&b);
    test_sim_free(&v1);
}

const test_case sim_cost_tests[] = {
    { "cost_v2: a first-touch fault per page, in its own part", test_first_touch_part },
    { "cost_v2: v1's line holders become v2's groups (own, same L3, other L3, socket, DRAM)", test_sweep_from_cache },
    { "sim cost v2: bursts priced by v2, parts add up, only an index's first write faults", test_sim_v2_bursts },
    { "sim cost v2: the cache params' background traffic evicts by capacity", test_sim_v2_background },
    { "sim cost: v1 stays the default, its parts are zero", test_sim_v1_default },
    { "sim cost v2: snapshots carry the parts; a v2 snapshot refuses a v1 simulation", test_sim_v2_snapshot },
    { 0 },
};
