/*
 * Tests of the sheaves model's kernel functions (src/algo/sheaves/): each branch of
 * __pcs_replace_empty_main and of rcu_free_sheaf, the three forms of the fix, the
 * no-spare toggle, kfree_rcu taking the kept spare, the cache geometry, and the counting
 * rule (a call that returns at its racy pre-check is counted, as bpftrace counts it).
 * Expected values come from the kernel's code paths (linux-source-7.3 mm/slub.c, and the
 * seed's patch for the nofix form), worked by hand in each test's comment.
 */
#include <string.h>

#include "../check.h"
#include "../../src/algo/sheaves/sheaves.h"

static int32_t model_new(shv_model *m, int32_t variant, const char *preset)
{
    ks_sheaves_mmap2_config cfg;
    ks_sheaves_mmap2_defaults(&cfg);
    strncpy(cfg.preset, preset, sizeof cfg.preset - 1);
    cfg.variant = variant;
    int32_t st = shv_model_init(m, &cfg, NULL);
    m->measuring = 1;
    return st;
}

#define FN(m, f) ((m).caches[SHV_MAPLE].fn[KS_SHEAVES_FN_##f])
#define PCS(m, cpu) ((m).caches[SHV_MAPLE].pcs[cpu])
#define BARN(m, node) ((m).caches[SHV_MAPLE].barn[node])

/* Main empty, no spare, an empty barn: the seed's scenario. Before the fix the refilled
 * sheaf replaces main and the empty main goes to the barn. */
static void replace_empty_main_nofix_gives_the_empty_main_to_the_barn(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_NOFIX, "classroom-8"), KS_OK);
    int32_t old_main = PCS(m, 0).main;
    shv_pcs_replace_empty_main(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(FN(m, PCS_REPLACE_EMPTY_MAIN), 1);
    CHECK_EQ_INT(FN(m, BARN_REPLACE_EMPTY_SHEAF), 1);    /* called, returned at nr_full == 0 */
    CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), 1);        /* called, returned at nr_empty == 0 */
    CHECK_EQ_INT(FN(m, ALLOC_FULL_SHEAF), 1);
    CHECK_EQ_INT(FN(m, BARN_PUT_EMPTY_SHEAF), 1);
    CHECK_EQ_INT(m.sheaves[PCS(m, 0).main].size, 32);
    CHECK_EQ_INT(PCS(m, 0).spare, SHV_NONE);
    CHECK_EQ_INT(BARN(m, 0).nr_empty, 1);
    CHECK_EQ_INT(BARN(m, 0).empty_head, old_main);
    CHECK_EQ_INT(m.barn_acq, 1);                         /* only the put took the lock */
    shv_model_free(&m);
}

/* The fix (both forms): the same call keeps the empty main as the spare. */
static void replace_empty_main_fix_keeps_the_empty_main_as_spare(void)
{
    for (int32_t v = KS_SHEAVES_FIX; v <= KS_SHEAVES_FIX_V2; v++) {
        shv_model m;
        CHECK_EQ_INT(model_new(&m, v, "classroom-8"), KS_OK);
        int32_t old_main = PCS(m, 0).main;
        shv_pcs_replace_empty_main(&m, SHV_MAPLE, 0);
        CHECK_EQ_INT(FN(m, BARN_PUT_EMPTY_SHEAF), 0);
        CHECK_EQ_INT(PCS(m, 0).spare, old_main);
        CHECK_EQ_INT(m.sheaves[old_main].size, 0);
        CHECK_EQ_INT(m.sheaves[PCS(m, 0).main].size, 32);
        CHECK_EQ_INT(BARN(m, 0).nr_empty, 0);
        CHECK_EQ_INT(m.barn_acq, 0);
        shv_model_free(&m);
    }
}

/* A spare that holds objects is swapped in: no barn call at all. */
static void replace_empty_main_swaps_a_non_empty_spare(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_NOFIX, "classroom-8"), KS_OK);
    int32_t s = shv_sheaf_new(&m, SHV_MAPLE, 0);
    m.sheaves[s].size = 5;
    int32_t old_main = PCS(m, 0).main;
    PCS(m, 0).spare = s;
    shv_pcs_replace_empty_main(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(PCS(m, 0).main, s);
    CHECK_EQ_INT(PCS(m, 0).spare, old_main);
    CHECK_EQ_INT(FN(m, BARN_REPLACE_EMPTY_SHEAF), 0);
    CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), 0);
    shv_model_free(&m);
}

/* A full sheaf in the barn: barn_replace_empty_sheaf trades it for the empty main. */
static void replace_empty_main_takes_a_full_sheaf_from_the_barn(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_NOFIX, "classroom-8"), KS_OK);
    int32_t full = shv_sheaf_new(&m, SHV_MAPLE, 3);
    m.sheaves[full].size = 32;
    shv_barn_put_full_sheaf(&m, SHV_MAPLE, 3, 0, full);
    int32_t old_main = PCS(m, 0).main;
    shv_pcs_replace_empty_main(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(PCS(m, 0).main, full);
    CHECK_EQ_INT(BARN(m, 0).nr_full, 0);
    CHECK_EQ_INT(BARN(m, 0).nr_empty, 1);
    CHECK_EQ_INT(BARN(m, 0).empty_head, old_main);
    CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), 0);
    CHECK_EQ_INT(FN(m, REFILL_SHEAF), 0);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].barn_full_hits, 1);
    shv_model_free(&m);
}

/* Three refills of one CPU by allocations alone, barn and spare empty at the start:
 *   nofix: 3 replace (all miss), 3 get_empty (the first finds none; the next two take
 *          the sheaf the previous refill put back), 3 put_empty;
 *   fix:   3 replace, 1 get_empty (finds none), 0 put_empty: refills 2 and 3 refill the
 *          kept spare. */
static void three_refills_count_barn_calls_as_worked_by_hand(void)
{
    int32_t want_get[2] = { 3, 1 }, want_put[2] = { 3, 0 };
    for (int32_t v = KS_SHEAVES_NOFIX; v <= KS_SHEAVES_FIX; v++) {
        shv_model m;
        CHECK_EQ_INT(model_new(&m, v, "classroom-8"), KS_OK);
        for (int i = 0; i < 3 * 32; i++)
            shv_kmem_cache_alloc(&m, SHV_MAPLE, 0);
        CHECK_EQ_INT(FN(m, PCS_REPLACE_EMPTY_MAIN), 3);
        CHECK_EQ_INT(FN(m, BARN_REPLACE_EMPTY_SHEAF), 3);
        CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), want_get[v]);
        CHECK_EQ_INT(FN(m, BARN_PUT_EMPTY_SHEAF), want_put[v]);
        CHECK_EQ_INT(m.sheaves[PCS(m, 0).main].size, 0);
        shv_model_free(&m);
    }
}

/* The bug toggle: with no spare slot, the fix has nothing to keep the sheaf in. */
static void nospare_makes_the_fix_put_to_the_barn(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_FIX, "classroom-8"), KS_OK);
    m.cfg.nospare = 1;
    for (int i = 0; i < 3 * 32; i++)
        shv_kmem_cache_alloc(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(FN(m, BARN_PUT_EMPTY_SHEAF), 3);
    CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), 3);
    CHECK_EQ_INT(PCS(m, 0).spare, SHV_NONE);
    shv_model_free(&m);
}

/* __kfree_rcu_sheaf starts its rcu_free sheaf with the empty spare the fix kept: no barn. */
static void kfree_rcu_takes_the_kept_empty_spare(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_FIX, "classroom-8"), KS_OK);
    shv_kmem_cache_alloc(&m, SHV_MAPLE, 0);            /* refill: spare = the old empty main */
    int32_t spare = PCS(m, 0).spare;
    CHECK(spare != SHV_NONE);
    uint64_t gets = FN(m, BARN_GET_EMPTY_SHEAF);
    shv_kfree_rcu(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(PCS(m, 0).rcu_free, spare);
    CHECK_EQ_INT(PCS(m, 0).spare, SHV_NONE);
    CHECK_EQ_INT(FN(m, BARN_GET_EMPTY_SHEAF), gets);
    CHECK_EQ_INT(m.sheaves[spare].size, 1);
    shv_model_free(&m);
}

/* A full rcu_free sheaf goes to call_rcu; after the grace period rcu_free_sheaf puts it in
 * the barn while nr_full < MAX_FULL_SHEAVES, else flushes it to the slabs and keeps it as
 * an empty while nr_empty < MAX_EMPTY_SHEAVES, else frees it. */
static void rcu_free_sheaf_follows_the_barn_limits(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_NOFIX, "classroom-8"), KS_OK);
    for (int i = 0; i < 32; i++)
        shv_kfree_rcu(&m, SHV_MAPLE, 0);
    CHECK_EQ_INT(PCS(m, 0).rcu_free, SHV_NONE);
    CHECK(m.caches[SHV_MAPLE].rcu_head[0] != SHV_NONE);
    uint64_t due = m.sheaves[m.caches[SHV_MAPLE].rcu_head[0]].due_ns;
    CHECK_EQ_INT(due, shv_rcu_due(&m, m.clock[0]));
    CHECK(due >= m.cfg.rcu_gp_ns);
    shv_rcu_run_due(&m, 0);                            /* not yet */
    CHECK_EQ_INT(FN(m, RCU_FREE_SHEAF), 0);
    m.clock[0] = due;                                  /* ready: the next tick's softirq runs it */
    m.rcu_tick[0] = due / m.cfg.tick_ns;
    shv_rcu_run_due(&m, 0);
    CHECK_EQ_INT(FN(m, RCU_FREE_SHEAF), 0);
    m.clock[0] = (m.rcu_tick[0] + 1) * m.cfg.tick_ns;
    shv_rcu_run_due(&m, 0);
    CHECK_EQ_INT(FN(m, RCU_FREE_SHEAF), 1);
    CHECK_EQ_INT(FN(m, BARN_PUT_FULL_SHEAF), 1);
    CHECK_EQ_INT(BARN(m, 0).nr_full, 1);

    BARN(m, 0).nr_full = 10;                           /* at MAX_FULL_SHEAVES */
    for (int i = 0; i < 32; i++)
        shv_kfree_rcu(&m, SHV_MAPLE, 0);
    m.clock[0] = shv_rcu_due(&m, m.clock[0]) + m.cfg.tick_ns;
    shv_rcu_run_due(&m, 0);
    CHECK_EQ_INT(FN(m, SHEAF_FLUSH_UNUSED), 1);
    CHECK_EQ_INT(FN(m, BARN_PUT_EMPTY_SHEAF), 1);

    for (int i = 0; i < 32; i++)
        shv_kfree_rcu(&m, SHV_MAPLE, 0);
    BARN(m, 0).nr_empty = 10;                          /* and at MAX_EMPTY_SHEAVES */
    m.clock[0] = shv_rcu_due(&m, m.clock[0]) + m.cfg.tick_ns;
    shv_rcu_run_due(&m, 0);
    CHECK_EQ_INT(FN(m, SHEAF_FLUSH_UNUSED), 2);
    CHECK_EQ_INT(FN(m, FREE_EMPTY_SHEAF), 1);
    shv_model_free(&m);
}

/* calculate_order / set_min_partial / set_cpu_partial for maple_node (256 B): 64 objects
 * per slab on 384 CPUs (min_objects 40 -> order 2), 32 on 8 CPUs (min_objects 20 ->
 * order 1); min_partial 5; 2 cpu partial slabs (52 objects x 2 / 64) on 384 CPUs. */
static void cache_geometry_is_the_kernels(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_NOFIX, "epyc-9654-2s"), KS_OK);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].objs_per_slab, 64);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].min_partial, 5);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].cpu_partial_slabs, 2);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].capacity, 32);
    CHECK_EQ_INT(m.nr_nodes, 2);
    shv_model_free(&m);
    CHECK_EQ_INT(model_new(&m, KS_SHEAVES_BASELINE, "classroom-8"), KS_OK);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].objs_per_slab, 32);
    CHECK_EQ_INT(m.caches[SHV_MAPLE].capacity, 0);     /* 3accabda4: maple_node has none */
    CHECK_EQ_INT(m.caches[SHV_VMA].capacity, 32);
    shv_model_free(&m);
}

static void algo_strings_parse_and_refuse(void)
{
    ks_sheaves_mmap2_config cfg;
    ks_sheaves_mmap2_defaults(&cfg);
    CHECK_EQ_INT(shv_parse_algo("fix-v2+nospare+capacity=64", &cfg), KS_OK);
    CHECK_EQ_INT(cfg.variant, KS_SHEAVES_FIX_V2);
    CHECK_EQ_INT(cfg.nospare, 1);
    CHECK_EQ_INT(cfg.maple_capacity, 64);
    CHECK_EQ_INT(shv_parse_algo("", &cfg), KS_OK);
    CHECK_EQ_INT(cfg.variant, KS_SHEAVES_FIX);
    CHECK_EQ_INT(shv_parse_algo("fixed", &cfg), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(shv_parse_algo("fix+capacity=0", &cfg), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(shv_parse_algo("fix+capacity=99999999999", &cfg), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(shv_parse_algo("fix+spare", &cfg), KS_ERR_INVALID_ARG);
    CHECK_EQ_STR(ks_sheaves_fn_name(KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF), "barn_put_empty_sheaf");
    CHECK(ks_sheaves_fn_name(KS_SHEAVES_FN_COUNT) == NULL);
    CHECK(ks_sheaves_fn_name(-1) == NULL);
}

const test_case sheaves_tests[] = {
    { "sheaves: nofix gives the empty main to the barn", replace_empty_main_nofix_gives_the_empty_main_to_the_barn },
    { "sheaves: the fix (both forms) keeps the empty main as spare", replace_empty_main_fix_keeps_the_empty_main_as_spare },
    { "sheaves: a non-empty spare is swapped in without the barn", replace_empty_main_swaps_a_non_empty_spare },
    { "sheaves: a full barn sheaf replaces the empty main", replace_empty_main_takes_a_full_sheaf_from_the_barn },
    { "sheaves: three refills count barn calls as worked by hand", three_refills_count_barn_calls_as_worked_by_hand },
    { "sheaves: +nospare makes the fix put to the barn", nospare_makes_the_fix_put_to_the_barn },
    { "sheaves: kfree_rcu takes the kept empty spare", kfree_rcu_takes_the_kept_empty_spare },
    { "sheaves: rcu_free_sheaf follows the barn limits", rcu_free_sheaf_follows_the_barn_limits },
    { "sheaves: cache geometry is the kernel's", cache_geometry_is_the_kernels },
    { "sheaves: algo strings parse and refuse", algo_strings_parse_and_refuse },
    { 0 },
};
