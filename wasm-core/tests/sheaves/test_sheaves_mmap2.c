/*
 * Tests of the mmap2 runner (kscope/sheaves/native/mmap2.h) on small runs: the per-mmap
 * counts follow from the workload (2 maple_node allocations per iteration with capacity
 * 32: one __pcs_replace_empty_main per 16 iterations), the fix's two forms behave
 * identically, the fix cuts barn_put_empty_sheaf, +nospare undoes it, and bad configs are
 * refused with KS_ERR_INVALID_ARG / KS_ERR_NOT_FOUND.
 */
#include <string.h>

#include "../check.h"
#include "kscope/sheaves/native/mmap2.h"

static ks_sheaves_mmap2_config small(const char *preset, int32_t variant, int32_t tasks)
{
    ks_sheaves_mmap2_config c;
    ks_sheaves_mmap2_defaults(&c);
    strncpy(c.preset, preset, sizeof c.preset - 1);
    c.variant = variant;
    c.nr_tasks = tasks;
    c.rcu_gp_ns = 2000000;
    c.warmup_ns = 5000000;
    c.measure_ns = 4000000;
    return c;
}

static void one_task_replaces_main_once_per_capacity_allocations(void)
{
    ks_sheaves_mmap2_config c = small("classroom-8", KS_SHEAVES_NOFIX, 1);
    ks_sheaves_mmap2_result r;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_OK);
    CHECK(r.iterations > 1000);
    double per = (double)r.fn[KS_SHEAVES_FN_PCS_REPLACE_EMPTY_MAIN] / (double)r.iterations;
    CHECK(per > 0.0625 * 0.97 && per < 0.0625 * 1.03);     /* 2 allocations / 32 */
    double rcu = (double)r.fn[KS_SHEAVES_FN_KFREE_RCU_SHEAF] / (double)r.iterations;
    CHECK(rcu > 1.99 && rcu < 2.01);                        /* every kfree_rcu is counted */
    /* vm_area_struct: allocated and freed on the same CPU: its main never runs dry twice */
    CHECK(r.vma_fn[KS_SHEAVES_FN_PCS_REPLACE_EMPTY_MAIN] <= 1);
    CHECK(r.ops_per_sec_per_task > 1e5 && r.ops_per_sec_per_task < 1e7);
}

static void fix_and_fix_v2_behave_identically(void)
{
    ks_sheaves_mmap2_config a = small("classroom-8", KS_SHEAVES_FIX, 8);
    ks_sheaves_mmap2_config b = small("classroom-8", KS_SHEAVES_FIX_V2, 8);
    ks_sheaves_mmap2_result ra, rb;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&a, &ra), KS_OK);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&b, &rb), KS_OK);
    CHECK_EQ_INT(ra.iterations, rb.iterations);
    CHECK(memcmp(ra.fn, rb.fn, sizeof ra.fn) == 0);
    CHECK(memcmp(ra.part_ns, rb.part_ns, sizeof ra.part_ns) == 0);
}

static void the_fix_cuts_barn_put_empty_sheaf_and_nospare_undoes_it(void)
{
    ks_sheaves_mmap2_config n = small("classroom-8", KS_SHEAVES_NOFIX, 8);
    ks_sheaves_mmap2_config f = small("classroom-8", KS_SHEAVES_FIX, 8);
    ks_sheaves_mmap2_config s = small("classroom-8", KS_SHEAVES_FIX, 8);
    s.nospare = 1;
    ks_sheaves_mmap2_result rn, rf, rs;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&n, &rn), KS_OK);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&f, &rf), KS_OK);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&s, &rs), KS_OK);
    double put_n = (double)rn.fn[KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF] / (double)rn.iterations;
    double put_f = (double)rf.fn[KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF] / (double)rf.iterations;
    double put_s = (double)rs.fn[KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF] / (double)rs.iterations;
    CHECK(put_n > 10 * put_f);
    CHECK(put_s > 10 * put_f);
    double get_n = (double)rn.fn[KS_SHEAVES_FN_BARN_GET_EMPTY_SHEAF] / (double)rn.iterations;
    double get_f = (double)rf.fn[KS_SHEAVES_FN_BARN_GET_EMPTY_SHEAF] / (double)rf.iterations;
    CHECK(get_f < 0.75 * get_n);                          /* the refill uses the kept spare */
}

static void runs_repeat(void)
{
    ks_sheaves_mmap2_config c = small("classroom-8", KS_SHEAVES_NOFIX, 4);
    ks_sheaves_mmap2_result a, b;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &a), KS_OK);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &b), KS_OK);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
}

static void bad_configs_are_refused(void)
{
    ks_sheaves_mmap2_result r;
    ks_sheaves_mmap2_config c = small("classroom-8", KS_SHEAVES_FIX, 9);   /* 8 CPUs */
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    c = small("classroom-8", KS_SHEAVES_FIX, 0);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    c = small("classroom-8", KS_SHEAVES_FIX, 1);
    c.maple_capacity = 0;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    c = small("classroom-8", 7, 1);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    c = small("no-such-machine", KS_SHEAVES_FIX, 1);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_NOT_FOUND);
    c = small("classroom-8", KS_SHEAVES_FIX, 1);
    c.measure_ns = 0;
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    c = small("classroom-8", KS_SHEAVES_FIX, 1);
    memset(c.preset, 'x', sizeof c.preset);                            /* no NUL */
    CHECK_EQ_INT(ks_sheaves_mmap2_run(&c, &r), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_sheaves_mmap2_run(NULL, &r), KS_ERR_INVALID_ARG);
}

const test_case sheaves_mmap2_tests[] = {
    { "sheaves mmap2: one task replaces main once per capacity allocations", one_task_replaces_main_once_per_capacity_allocations },
    { "sheaves mmap2: fix and fix-v2 behave identically", fix_and_fix_v2_behave_identically },
    { "sheaves mmap2: the fix cuts barn_put_empty_sheaf, +nospare undoes it", the_fix_cuts_barn_put_empty_sheaf_and_nospare_undoes_it },
    { "sheaves mmap2: runs repeat", runs_repeat },
    { "sheaves mmap2: bad configs are refused", bad_configs_are_refused },
    { 0 },
};
