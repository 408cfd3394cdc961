/*
 * The sheaves model as a plug-in of the generic simulator: "sheaves:<variant>" resolves
 * through the registry, its kmem_cache_alloc / kmem_cache_free hooks run the model on the
 * simulator's CPUs, and a bad variant string is refused at creation.
 */
#include "../check.h"
#include "../sim_test_util.h"
#include "../../src/sched/sim_internal.h"
#include "../../src/algo/sheaves/sheaves.h"

static const char one_task[] =
    "{\"name\": \"one\", \"duration_ms\": 10, \"processes\": ["
    " {\"kind\": \"periodic_rt\", \"comm\": \"c\", \"threads\": 1, \"prio\": 50,"
    "  \"period_us\": 1000, \"runtime_us\": 100}]}";

static void plugin_allocates_through_the_sheaves(void)
{
    test_sim t = test_sim_new("classroom-8", one_task, 1, "sheaves:nofix");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    extern const ks_sched_ops sheaves_ops;
    const uint64_t *fn = shv_plugin_counters(sched_algo_state(t.sim, &sheaves_ops));
    CHECK(fn != NULL);
    int32_t first = sched_kmem_cache_alloc(t.sim, 2, 0, 1, 256);
    CHECK(first >= 0);
    for (int i = 1; i < 3 * 32; i++)
        CHECK(sched_kmem_cache_alloc(t.sim, 2, 0, 1, 256) >= 0);
    /* maple_node-like cache on CPU 2: three refills, as the model's own test works out */
    CHECK_EQ_INT(fn[KS_SHEAVES_FN_PCS_REPLACE_EMPTY_MAIN], 3);
    CHECK_EQ_INT(fn[KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF], 3);
    sched_kmem_cache_free(t.sim, 2, 0, 1, first);
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 99, 0, 1, 256), -1);     /* no CPU 99 */
    test_sim_free(&t);
}

static void plugin_refuses_a_bad_variant(void)
{
    test_sim t = test_sim_new("classroom-8", one_task, 1, "sheaves:fixed");
    CHECK(t.status != KS_OK);
    test_sim_free(&t);
    t = test_sim_new("classroom-8", one_task, 1, "sheaves:fix+nospare+capacity=8");
    CHECK_EQ_INT(t.status, KS_OK);
    test_sim_free(&t);
}

const test_case sheaves_plugin_tests[] = {
    { "sheaves plug-in: allocates through the sheaves", plugin_allocates_through_the_sheaves },
    { "sheaves plug-in: refuses a bad variant", plugin_refuses_a_bad_variant },
    { 0 },
};
