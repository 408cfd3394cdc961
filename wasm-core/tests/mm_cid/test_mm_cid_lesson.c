/* The mm_cid lesson view (ks_mm_cid_lesson_get): one block agreeing with the separate
 * view functions, areas found by name and summed up from the cache's line places. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "kscope/mm_cid/mm_cid.h"
#include "../sim_test_util.h"

/* librseq's pacing, 4 threads pinned on classroom-8's CPUs 0, 2, 4, 6: the warm-up's
 * ticks run the scan, so 6.12 and 6.13 hand out different cids. */
static const char bench[] =
    "{\"name\":\"lesson\",\"duration_ms\":6000,\"processes\":[{\"kind\":\"intermittent\","
    "\"comm\":\"rseq-bench\",\"cpus\":[0,2,4,6],\"index_by\":\"mm_cid\",\"delay_ms\":200,"
    "\"order\":\"fixed\",\"warmup_sweeps\":20000,\"loops\":3}]}";

static void *lesson_of(test_sim *t, int32_t tgid, ks_mm_cid_lesson **h)
{
    uint32_t size = ks_mm_cid_lesson_size(t->sim);
    uint64_t *buf = calloc(size / 8 + 1, 8);
    CHECK(buf != NULL);
    CHECK_EQ_INT(ks_mm_cid_lesson_get(t->sim, tgid, buf, size - 1), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_mm_cid_lesson_get(t->sim, tgid, buf, size), KS_OK);
    *h = (ks_mm_cid_lesson *)buf;
    return buf;
}

/* Steps n events (fewer at the end). */
static void step_n(test_sim *t, int n)
{
    ks_event ev;
    int32_t produced = 1;
    for (int i = 0; i < n && produced; i++)
        CHECK_EQ_INT(ks_sim_step(t->sim, &ev, &produced), KS_OK);
}

static void lesson_matches_the_separate_views(void)
{
    test_sim t = test_sim_new("classroom-8", bench, 1, "mm_cid:v6.13");
    CHECK_EQ_INT(t.status, KS_OK);
    int32_t tgid = 1000;    /* SCHED_TID_BASE: the first task leads the process */
    step_n(&t, 60);
    ks_mm_cid_lesson *h;
    uint8_t *block = lesson_of(&t, tgid, &h);
    const ks_sim_frame *f = ks_sim_frame_get(t.sim);
    CHECK_EQ_INT(h->now_ns, f->now_ns);
    CHECK_EQ_INT(h->step, 60);
    CHECK(h->frame == (uint64_t)(uintptr_t)f);
    CHECK_EQ_INT(h->mm_status, KS_OK);
    CHECK_EQ_INT(h->nr_cpus, 8);
    CHECK_EQ_INT(h->mask_bytes, 1);
    CHECK_EQ_INT(h->size, ks_mm_cid_lesson_size(t.sim));
    CHECK_EQ_INT(h->log_count, ks_mm_cid_log_count(t.sim));
    CHECK(h->log_records == (uint64_t)(uintptr_t)ks_mm_cid_log_records(t.sim));
    CHECK_EQ_INT(h->burst_count, ks_sim_burst_count(t.sim));
    CHECK(h->burst_count > 0);

    ks_mm_cid_mm mm;
    CHECK_EQ_INT(ks_mm_cid_mm_get(t.sim, tgid, &mm), KS_OK);
    CHECK(memcmp(&mm, &h->mm, sizeof mm) == 0);
    uint8_t mask[1];
    ks_mm_cid_mask_get(t.sim, tgid, KS_MM_CID_MASK_CIDMASK, mask, 1);
    CHECK_EQ_INT(block[h->cidmask_off], mask[0]);
    ks_mm_cid_mask_get(t.sim, tgid, KS_MM_CID_MASK_CPUS_ALLOWED, mask, 1);
    CHECK_EQ_INT(block[h->cpus_allowed_off], 0x55);       /* CPUs 0, 2, 4, 6 */
    ks_mm_cid_pcpu rows[8];
    ks_mm_cid_pcpu_get(t.sim, tgid, rows, 8);
    CHECK(memcmp(rows, block + h->pcpu_off, sizeof rows) == 0);

    /* Every burst so far swept the area of its index: each such area is found and all
     * of its 256 lines are accounted for (in an LLC, or cold). */
    const ks_mm_cid_area *areas = (const ks_mm_cid_area *)(block + h->areas_off);
    const ks_burst_cost *bursts = ks_sim_burst_costs(t.sim);
    for (uint32_t i = 0; i < h->burst_count; i++) {
        const ks_mm_cid_area *a = &areas[bursts[i].index];
        CHECK_EQ_INT(a->index, bursts[i].index);
        CHECK(a->object >= 0);
        CHECK_EQ_INT(a->lines, 256);
        CHECK(a->llc_lines + a->cold_lines <= 256);
        CHECK(a->llc >= -1 && a->llc < 2);
    }
    /* The last burst's area was just written by its CPU: that core owns it, in its L3. */
    const ks_burst_cost *last = &bursts[h->burst_count - 1];
    const ks_mm_cid_area *hot = &areas[last->index];
    ks_cpu cpu = ks_topology_cpus(t.topo)[last->cpu];
    CHECK_EQ_INT(hot->llc, cpu.llc);
    CHECK_EQ_INT(hot->llc_lines, 256);
    CHECK_EQ_INT(hot->core, cpu.core);
    CHECK_EQ_INT(hot->cold_lines, 0);
    int untouched = 0;
    for (int32_t k = 0; k < 8; k++)
        untouched += areas[k].object < 0 && areas[k].llc == -1 && areas[k].lines == 0;
    CHECK(untouched >= 4);                      /* 4 threads: cids 4-7 never used */
    free(block);
    test_sim_free(&t);
}

static void lesson_outlives_the_mm_and_needs_the_model(void)
{
    test_sim t = test_sim_new("classroom-8", bench, 1, "mm_cid:v6.12");
    step_n(&t, 100000);                         /* to the end: every thread has exited */
    ks_mm_cid_lesson *h;
    uint8_t *block = lesson_of(&t, 1000, &h);
    CHECK_EQ_INT(h->mm_status, KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(h->mm.tgid, -1);
    CHECK_EQ_INT(block[h->cidmask_off], 0);
    CHECK_EQ_INT(((ks_mm_cid_pcpu *)(block + h->pcpu_off))[3].cid, -1);
    CHECK(h->burst_count >= 12);
    CHECK(((ks_mm_cid_area *)(block + h->areas_off))[0].object >= 0);
    free(block);
    test_sim_free(&t);

    test_sim none = test_sim_new("classroom-8", bench, 1, "none");
    uint64_t buf[64];
    CHECK_EQ_INT(ks_mm_cid_lesson_size(none.sim), 0);
    CHECK_EQ_INT(ks_mm_cid_lesson_get(none.sim, 1000, buf, sizeof buf), KS_ERR_NOT_FOUND);
    test_sim_free(&none);
}

/* Writes the request at the start of buf and asks the generic export for the view. */
static int32_t view(test_sim *t, void *buf, uint32_t len, int32_t which, int32_t tgid, int32_t arg)
{
    ks_mm_cid_view_request q = { .view = which, .tgid = tgid, .arg = arg };
    if (len >= sizeof q)
        memcpy(buf, &q, sizeof q);
    return ks_sim_model_view_get(t->sim, buf, len);
}

static void model_view_export_gives_the_same_bytes(void)
{
    test_sim t = test_sim_new("classroom-8", bench, 1, "mm_cid:v6.13");
    CHECK_EQ_INT(t.status, KS_OK);
    int32_t tgid = 1000;
    step_n(&t, 60);
    uint64_t buf[512];
    /* the lesson block: size, then the block itself, byte for byte */
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_LESSON_SIZE, 0, 0), KS_OK);
    uint32_t size;
    memcpy(&size, buf, 4);
    CHECK_EQ_INT(size, ks_mm_cid_lesson_size(t.sim));
    CHECK(size <= sizeof buf);
    ks_mm_cid_lesson *h;
    uint8_t *block = lesson_of(&t, tgid, &h);
    CHECK_EQ_INT(view(&t, buf, size - 1, KS_MM_CID_VIEW_LESSON, tgid, 0), KS_ERR_RANGE);
    memset(buf, 0, sizeof buf);                 /* the block's padding is not written */
    CHECK_EQ_INT(view(&t, buf, size, KS_MM_CID_VIEW_LESSON, tgid, 0), KS_OK);
    CHECK(memcmp(buf, block, size) == 0);
    free(block);
    /* the per-mm scalars, masks and per-CPU rows */
    ks_mm_cid_mm mm;
    CHECK_EQ_INT(ks_mm_cid_mm_get(t.sim, tgid, &mm), KS_OK);
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_MM, tgid, 0), KS_OK);
    CHECK(memcmp(buf, &mm, sizeof mm) == 0);
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_MM, 4242, 0), KS_ERR_NOT_FOUND);
    uint8_t mask[1];
    CHECK_EQ_INT(ks_mm_cid_mask_get(t.sim, tgid, KS_MM_CID_MASK_CIDMASK, mask, 1), KS_OK);
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_MASK, tgid, KS_MM_CID_MASK_CIDMASK), KS_OK);
    CHECK_EQ_INT(((uint8_t *)buf)[0], mask[0]);
    CHECK(mask[0] != 0);
    ks_mm_cid_pcpu rows[8];
    CHECK_EQ_INT(ks_mm_cid_pcpu_get(t.sim, tgid, rows, 8), KS_OK);
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_PCPU, tgid, 0), KS_OK);
    CHECK(memcmp(buf, rows, sizeof rows) == 0);
    CHECK_EQ_INT(view(&t, buf, sizeof rows - 1, KS_MM_CID_VIEW_PCPU, tgid, 0), KS_ERR_RANGE);
    /* the log's place, and a path's name and help */
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_LOG, 0, 0), KS_OK);
    ks_mm_cid_log_view log;
    memcpy(&log, buf, sizeof log);
    CHECK_EQ_INT(log.first_seq, ks_mm_cid_log_first_seq(t.sim));
    CHECK_EQ_INT(log.count, ks_mm_cid_log_count(t.sim));
    CHECK(log.count > 0);
    CHECK(log.records == (uint64_t)(uintptr_t)ks_mm_cid_log_records(t.sim));
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_PATH, 0, KS_MM_CID_FIRST_FREE), KS_OK);
    CHECK(strcmp((char *)buf, "FIRST_FREE") == 0);
    CHECK(strcmp((char *)buf + strlen("FIRST_FREE") + 1, ks_mm_cid_path_help(KS_MM_CID_FIRST_FREE)) == 0);
    CHECK_EQ_INT(view(&t, buf, sizeof buf, KS_MM_CID_VIEW_PATH, 0, KS_MM_CID_PATH_COUNT), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(view(&t, buf, 8, KS_MM_CID_VIEW_PATH, 0, 0), KS_ERR_RANGE);   /* no room for the request */
    CHECK_EQ_INT(view(&t, buf, sizeof buf, 99, 0, 0), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, NULL, 16), KS_ERR_INVALID_ARG);
    test_sim_free(&t);
    /* a model without views */
    test_sim none = test_sim_new("classroom-8", bench, 1, "none");
    CHECK_EQ_INT(none.status, KS_OK);
    CHECK_EQ_INT(view(&none, buf, sizeof buf, KS_MM_CID_VIEW_LOG, 0, 0), KS_ERR_NOT_FOUND);
    test_sim_free(&none);
}

const test_case mm_cid_lesson_tests[] = {
    { "mm_cid lesson: the generic model view export gives the same bytes as the C views",
      model_view_export_gives_the_same_bytes },
    { "mm_cid lesson: one block agrees with the separate views", lesson_matches_the_separate_views },
    { "mm_cid lesson: filled after the mm is gone; not found without the model",
      lesson_outlives_the_mm_and_needs_the_model },
    { 0 },
};
