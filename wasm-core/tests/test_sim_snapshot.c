/* src/sched/snapshot.c: whole-machine snapshots, checkpoints and exact seeking. */
#include <string.h>

#include "check.h"
#include "sim_test_util.h"

static const char busy[] =
    "{\"name\": \"busy\", \"duration_ms\": 40, \"processes\": ["
    " {\"kind\": \"periodic_rt\", \"comm\": \"cyclic\", \"threads\": 4, \"prio\": 50,"
    "  \"period_us\": 1000, \"runtime_us\": 300},"
    " {\"kind\": \"pipe_pairs\", \"comm\": \"hackbench\", \"groups\": 2, \"pairs_per_group\": 4,"
    "  \"messages\": 100000, \"work_us\": 12},"
    " {\"kind\": \"fork_churn\", \"comm\": \"forker\", \"children\": 300, \"child_runtime_us\": 200,"
    "  \"concurrency\": 5},"
    " {\"kind\": \"intermittent\", \"comm\": \"bench\", \"threads\": 6, \"placement\": \"free\","
    "  \"index_by\": \"mm_cid\", \"delay_ms\": 0.1}]}";

static void snapshot_round_trip_mid_run(void)
{
    test_sim t = test_sim_new("classroom-8", busy, 11, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    run_and_hash(t.sim, 7777, NULL);
    uint32_t size = ks_sim_snapshot_size(t.sim);
    CHECK(size > 0);
    uint8_t *snap = malloc(size);
    CHECK_EQ_INT(ks_sim_snapshot_save(t.sim, snap, size - 1), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_sim_snapshot_save(t.sim, snap, size), KS_OK);
    uint32_t bursts = ks_sim_burst_count(t.sim);
    uint32_t frame_size;
    void *frame = copy_frame(t.sim, &frame_size);

    uint64_t n1, n2;
    uint64_t h1 = run_and_hash(t.sim, 20000, &n1);
    uint32_t size_after;
    void *frame_after = copy_frame(t.sim, &size_after);
    CHECK(ks_sim_burst_count(t.sim) > bursts);
    CHECK_EQ_INT(ks_sim_snapshot_restore(t.sim, snap, size), KS_OK);
    CHECK_EQ_INT(ks_sim_burst_count(t.sim), bursts);
    uint32_t size_back;
    void *frame_back = copy_frame(t.sim, &size_back);
    CHECK(size_back == frame_size && memcmp(frame, frame_back, size_back) == 0);
    uint64_t h2 = run_and_hash(t.sim, 20000, &n2);
    CHECK_EQ_INT(n1, 20000);
    CHECK_EQ_INT(n2, 20000);
    CHECK(h1 == h2);
    uint32_t size_again;
    void *frame_again = copy_frame(t.sim, &size_again);
    CHECK(size_again == size_after && memcmp(frame_after, frame_again, size_again) == 0);

    /* A snapshot restores into a fresh simulation of the same run... */
    test_sim u = test_sim_new("classroom-8", busy, 11, NULL);
    CHECK_EQ_INT(ks_sim_snapshot_restore(u.sim, snap, size), KS_OK);
    CHECK(run_and_hash(u.sim, 20000, NULL) == h1);
    CHECK_EQ_INT(ks_sim_burst_count(u.sim), ks_sim_burst_count(t.sim));
    /* ...but not into another seed's, nor from a damaged buffer. */
    test_sim v = test_sim_new("classroom-8", busy, 12, NULL);
    CHECK_EQ_INT(ks_sim_snapshot_restore(v.sim, snap, size), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_sim_snapshot_restore(t.sim, snap, size - 8), KS_ERR_INVALID_ARG);
    snap[0] ^= 1;
    CHECK_EQ_INT(ks_sim_snapshot_restore(t.sim, snap, size), KS_ERR_INVALID_ARG);
    free(snap);
    free(frame);
    free(frame_after);
    free(frame_back);
    free(frame_again);
    test_sim_free(&t);
    test_sim_free(&u);
    test_sim_free(&v);
}

typedef struct mark {
    uint64_t step;
    uint32_t size;
    void *frame;
    uint64_t hash_next;     /* of the 500 events after the mark */
} mark;

static void seek_back_and_forth_is_exact(void)
{
    test_sim t = test_sim_new("classroom-8", busy, 21, NULL);
    static const uint64_t steps[] = { 1, 4096, 5000, 12345, 30000, 61111 };
    enum { N = sizeof steps / sizeof steps[0] };
    mark marks[N];
    for (int i = 0; i < N; i++) {
        run_and_hash(t.sim, steps[i] - ks_sim_frame_get(t.sim)->step, NULL);
        marks[i].step = steps[i];
        marks[i].frame = copy_frame(t.sim, &marks[i].size);
        CHECK_EQ_INT(ks_sim_seek(t.sim, steps[i]), KS_OK);  /* a no-op */
        marks[i].hash_next = run_and_hash(t.sim, 500, NULL);
        CHECK_EQ_INT(ks_sim_seek(t.sim, steps[i]), KS_OK);   /* back 500 */
    }
    static const int order[] = { 2, 0, 5, 3, 1, 4, 5, 0 };
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        mark *m = &marks[order[k]];
        CHECK_EQ_INT(ks_sim_seek(t.sim, m->step), KS_OK);
        uint32_t size;
        void *frame = copy_frame(t.sim, &size);
        CHECK_EQ_INT(((const ks_sim_frame *)frame)->step, m->step);
        CHECK(size == m->size && memcmp(frame, m->frame, size) == 0);
        free(frame);
        CHECK(run_and_hash(t.sim, 500, NULL) == m->hash_next);
    }
    CHECK_EQ_INT(ks_sim_seek(t.sim, 0), KS_OK);
    CHECK_EQ_INT(ks_sim_frame_get(t.sim)->step, 0);
    CHECK_EQ_INT(ks_sim_frame_get(t.sim)->now_ns, 0);
    CHECK_EQ_INT(ks_sim_burst_count(t.sim), 0);
    CHECK_EQ_INT(ks_sim_seek(t.sim, 1u << 30), KS_ERR_RANGE);     /* past the end */
    CHECK(ks_sim_frame_get(t.sim)->step < (1u << 30));
    for (int i = 0; i < N; i++)
        free(marks[i].frame);
    test_sim_free(&t);
}

/* Restoring, seeking and stepping reproduce the burst log too. */
static void burst_log_follows_seeks(void)
{
    test_sim t = test_sim_new("classroom-8", busy, 31, NULL);
    run_and_hash(t.sim, 40000, NULL);
    uint32_t n = ks_sim_burst_count(t.sim);
    CHECK(n > 20);
    ks_burst_cost *copy = malloc(n * sizeof *copy);
    memcpy(copy, ks_sim_burst_costs(t.sim), n * sizeof *copy);
    CHECK_EQ_INT(ks_sim_seek(t.sim, 9000), KS_OK);
    CHECK(ks_sim_burst_count(t.sim) < n);
    CHECK_EQ_INT(ks_sim_seek(t.sim, 40000), KS_OK);
    CHECK_EQ_INT(ks_sim_burst_count(t.sim), n);
    CHECK(memcmp(copy, ks_sim_burst_costs(t.sim), n * sizeof *copy) == 0);
    free(copy);
    test_sim_free(&t);
}

const test_case sim_snapshot_tests[] = {
    { "snapshot: round trip mid-run", snapshot_round_trip_mid_run },
    { "snapshot: seek back and forth is exact", seek_back_and_forth_is_exact },
    { "snapshot: burst log follows seeks", burst_log_follows_seeks },
    { 0 },
};
