/*
 * src/sched: the hook families of ks_sched_ops that no model in the tree uses yet,
 * driven through test ops tables: RT placement (find_lowest_rq, for cpupri), the
 * allocator family (kmem_cache_alloc / kmem_cache_free, for SLUB sheaves), and the
 * generic model view (ks_sim_model_view_get).
 */
#include <string.h>

#include "check.h"
#include "sim_test_util.h"
#include "../src/sched/sim_internal.h"

/* Periodic SCHED_FIFO threads, more than CPUs at times: select_task_rq_rt and
 * push_rt_task look for lower-priority CPUs. */
static const char rt_json[] =
    "{\"name\": \"rt\", \"duration_ms\": 40, \"processes\": ["
    " {\"kind\": \"periodic_rt\", \"comm\": \"cyclic\", \"threads\": 12, \"prio\": 50,"
    "  \"period_us\": 1000, \"runtime_us\": 400},"
    " {\"kind\": \"periodic_rt\", \"comm\": \"watchdog\", \"threads\": 3, \"prio\": 90,"
    "  \"period_us\": 2000, \"runtime_us\": 300}]}";

typedef struct lowest_state {
    int32_t mode;           /* 0: SCHED_LOWEST_RQ_DEFAULT, 1: the core's answer, 2: -1, 3: bad */
    int32_t calls;
} lowest_state;

static int32_t test_lowest(void *st, ks_sim *sim, int32_t task, int32_t prev)
{
    lowest_state *s = st;
    s->calls++;
    CHECK(sched_task_policy(sim, task) == KS_SCHED_FIFO);
    switch (s->mode) {
    case 0: return SCHED_LOWEST_RQ_DEFAULT;
    case 1: return sched_find_lowest_rq(sim, task, prev);
    case 2: return -1;
    default: return sched_nr_cpus(sim) + 5;      /* out of range: the core's own search */
    }
}

static const ks_sched_ops lowest_ops = { .name = "lowest", .find_lowest_rq = test_lowest };

/* Runs rt_json on classroom-8, the test ops plugged in (NULL: "none"); hash + migrations. */
static uint64_t run_rt(const ks_sched_ops *ops, void *state, uint64_t *migrations)
{
    test_sim t = test_sim_new("classroom-8", rt_json, 3, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return 0;
    if (ops) {
        t.sim->ops = ops;
        t.sim->algo = state;
        sim_checkpoints_free(t.sim);
        t.sim->ckpt_bytes = 0;
        CHECK_EQ_INT(sim_checkpoint_take(t.sim), KS_OK);
    }
    uint64_t n = 0;
    uint64_t h = run_and_hash(t.sim, 0, &n);
    ks_sim_stats st;
    ks_sim_get_stats(t.sim, &st);
    *migrations = st.events_by_type[KS_EV_SCHED_MIGRATE_TASK];
    test_sim_free(&t);
    return h;
}

static void find_lowest_rq_hook_steers_rt_placement(void)
{
    uint64_t m_none, m;
    uint64_t none = run_rt(NULL, NULL, &m_none);
    CHECK(m_none > 0);                           /* RT placement moved tasks */
    /* The hook that asks for the core's search, or answers what it would: the same run. */
    for (int32_t mode = 0; mode <= 3; mode += (mode == 1 ? 2 : 1)) {
        lowest_state st = { .mode = mode };
        CHECK(run_rt(&lowest_ops, &st, &m) == none);
        CHECK(st.calls > 0);
        CHECK_EQ_INT(m, m_none);
    }
    /* "No CPU runs lower-priority work": RT tasks stay where they woke, no push (only
     * the pull side, which scans overloaded CPUs, moves them): another run. */
    lowest_state never = { .mode = 2 };
    uint64_t h = run_rt(&lowest_ops, &never, &m);
    CHECK(never.calls > 0);
    CHECK(h != none);
}

/* ---- the allocator family ---------------------------------------------------------- */

typedef struct alloc_state {
    int32_t allocs, frees, next_id;
    int32_t last_cpu, last_task, last_cache, last_object;
    uint32_t last_size;
} alloc_state;

static int32_t test_alloc(void *st, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                          uint32_t size)
{
    alloc_state *a = st;
    CHECK(cpu >= 0 && cpu < sched_nr_cpus(sim));
    a->allocs++;
    a->last_cpu = cpu, a->last_task = task, a->last_cache = cache, a->last_size = size;
    return a->next_id++;
}

static void test_free(void *st, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                      int32_t object)
{
    alloc_state *a = st;
    (void)sim;
    a->frees++;
    a->last_cpu = cpu, a->last_task = task, a->last_cache = cache, a->last_object = object;
}

static const ks_sched_ops alloc_ops = {
    .name = "alloc", .kmem_cache_alloc = test_alloc, .kmem_cache_free = test_free,
};

static void allocator_hooks_get_the_cpu_task_and_cache(void)
{
    test_sim t = test_sim_new("classroom-8", rt_json, 1, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    /* "none" keeps no objects */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 0, 0, 64), -1);
    sched_kmem_cache_free(t.sim, 0, 0, 0, 0);

    alloc_state a = { .next_id = 100 };
    t.sim->ops = &alloc_ops;
    t.sim->algo = &a;
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 3, 1, 2, 192), 100);
    CHECK_EQ_INT(a.last_cpu, 3);
    CHECK_EQ_INT(a.last_task, 1);
    CHECK_EQ_INT(a.last_cache, 2);
    CHECK_EQ_INT(a.last_size, 192);
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 5, -1, 2, 192), 101);   /* from the idle task */
    sched_kmem_cache_free(t.sim, 6, 1, 2, 100);                         /* a remote free */
    CHECK_EQ_INT(a.frees, 1);
    CHECK_EQ_INT(a.last_cpu, 6);
    CHECK_EQ_INT(a.last_object, 100);
    /* bad arguments never reach the model */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 8, 1, 2, 64), -1);       /* no CPU 8 */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, -1, 1, 2, 64), -1);
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 1, -1, 64), -1);      /* no cache */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 100000, 0, 64), -1);  /* no such task */
    sched_kmem_cache_free(t.sim, 0, 1, 2, -1);
    sched_kmem_cache_free(t.sim, 9, 1, 2, 100);
    CHECK_EQ_INT(a.allocs, 2);
    CHECK_EQ_INT(a.frees, 1);
    test_sim_free(&t);
}

const test_case sched_hooks_tests[] = {
    { "sched hooks: find_lowest_rq steers RT placement, default unchanged", find_lowest_rq_hook_steers_rt_placement },
    { "sched hooks: kmem_cache alloc/free reach the model with cpu, task, cache", allocator_hooks_get_the_cpu_task_and_cache },
    { NULL, NULL },
};
