/*
 * Tests of lock.c: the queued spinlock in simulated time against the cost model v2's
 * formula for one acquisition behind `waiters` others (ks_cost_mcs_acquire), a free lock
 * costs no wait, and a late arrival uses a gap in the timeline.
 */
#include <math.h>
#include <string.h>

#include "../check.h"
#include "../../src/algo/sheaves/sheaves.h"

static int32_t model_new(shv_model *m)
{
    ks_sheaves_mmap2_config cfg;
    ks_sheaves_mmap2_defaults(&cfg);
    strncpy(cfg.preset, "epyc-9654-2s", sizeof cfg.preset - 1);
    int32_t st = shv_model_init(m, &cfg, NULL);
    m->measuring = 1;
    return st;
}

/* N CPUs of one LLC arrive together, the lock last held by another core of that LLC: the
 * k-th (0-based) waits k turns. Its wait equals ks_cost_mcs_acquire's spin for k waiters,
 * except that the first holder took a free lock (one trip for the lock line, not two):
 * so within one line trip. */
static void saturating_cpus_wait_what_the_mcs_formula_says(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m), KS_OK);
    int32_t lock = m.caches[SHV_MAPLE].barn[0].lock;
    int32_t cpus[8] = { 0 }, n = 0, other = -1;
    for (int32_t c = 0; c < m.nr_cpus; c++)
        if (m.cpus[c].llc == m.cpus[0].llc && m.cpus[c].smt_index == 0) {
            if (n < 7)
                cpus[n++] = c;
            else if (other < 0)
                other = c;
        }
    CHECK_EQ_INT(n, 7);
    CHECK(other >= 0);
    m.locks[lock].last_cpu = other;
    double hold = 20;
    for (int32_t k = 0; k < n; k++) {
        m.clock[cpus[k]] = 1000;
        uint64_t before_wait = (uint64_t)m.locks[lock].wait_ns;
        shv_lock_run(&m, lock, cpus[k], hold, 2);
        double wait = m.locks[lock].wait_ns - (double)before_wait;
        ks_cost_result r;
        CHECK_EQ_INT(ks_cost_mcs_acquire(&m.cost, k, KS_SRC_SAME_LLC_CORE, hold, 2, &r), KS_OK);
        double trip = m.trip_ns[KS_SRC_SAME_LLC_CORE];
        if (fabs(wait - r.part_ns[KS_COST_LOCK_SPIN]) > trip + 2)
            printf("    waiter %d: queue %.1f ns, formula %.1f ns\n", (int)k, wait,
                   r.part_ns[KS_COST_LOCK_SPIN]);
        CHECK(fabs(wait - r.part_ns[KS_COST_LOCK_SPIN]) <= trip + 2);
    }
    CHECK_EQ_INT(m.locks[lock].acquisitions, 7);
    shv_model_free(&m);
}

static void a_free_lock_costs_no_wait(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m), KS_OK);
    int32_t lock = m.caches[SHV_MAPLE].node[0].list_lock;
    m.clock[0] = 500;
    shv_lock_run(&m, lock, 0, 30, 3);
    CHECK(m.locks[lock].wait_ns == 0);
    CHECK(m.clock[0] > 500);
    m.clock[1] = m.clock[0] + 10;       /* after the first turn ended */
    shv_lock_run(&m, lock, 1, 30, 3);
    CHECK(m.locks[lock].wait_ns == 0);
    shv_model_free(&m);
}

/* A turn booked far ahead (a CPU whose clock ran ahead) leaves the lock free before it. */
static void an_earlier_arrival_uses_the_gap_before_a_booked_turn(void)
{
    shv_model m;
    CHECK_EQ_INT(model_new(&m), KS_OK);
    int32_t lock = m.caches[SHV_MAPLE].barn[1].lock;
    m.clock[5] = 100000;
    shv_lock_run(&m, lock, 5, 20, 2);
    m.clock[6] = 1000;
    shv_lock_run(&m, lock, 6, 20, 2);
    CHECK(m.locks[lock].wait_ns == 0);
    CHECK(m.clock[6] < 100000);
    CHECK_EQ_INT(m.locks[lock].n, 2);
    CHECK(m.locks[lock].turns[0].cpu == 6);
    shv_locks_prune(&m, 200000);
    CHECK_EQ_INT(m.locks[lock].n, 0);
    CHECK_EQ_INT(m.locks[lock].last_cpu, 5);
    shv_model_free(&m);
}

const test_case sheaves_lock_tests[] = {
    { "sheaves lock: saturating CPUs wait what the MCS formula says", saturating_cpus_wait_what_the_mcs_formula_says },
    { "sheaves lock: a free lock costs no wait", a_free_lock_costs_no_wait },
    { "sheaves lock: an earlier arrival uses the gap before a booked turn", an_earlier_arrival_uses_the_gap_before_a_booked_turn },
    { 0 },
};
