/*
 * src/algo/mm_cid/mm_cid_conform.c: replaying events through the mm_cid model and comparing
 * its cids with the rseq_update records' (kscope/mm_cid/native/conform.h).
 *
 * Two kinds of test: traces written by hand, where the variants must disagree in
 * the way 7e019dc says (recent_cid after a > 100 ms gap), and simulated runs
 * replayed through the variant that produced them, which must agree on every
 * rseq_update (the replay host drives the same model code the simulator does).
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../hand_trace.h"
#include "../sim_test_util.h"
#include "kscope/mm_cid/native/conform.h"
#include "kscope/mm_cid/mm_cid.h"

#define MS 1000000ull

/* ---- a trace written by hand ---------------------------------------------------- */

/*
 * Seed 000: "use it as a hint to attempt re-allocating the same concurrency ID the
 * next time this mm/cpu needs to allocate" and "expanding the concurrency ID
 * allocation within the upper bound defined by min(mm->nr_cpus_allowed,
 * mm->mm_users)". Process 100 (4 CPUs): the main thread takes cid 0 on CPU 0 and
 * sleeps; threads 101 (CPU 1) and 102 (CPU 2) get 1 and 2; 101 sleeps 343 ms
 * while 102 runs on, so ticks scan at 104 ms (CPU 0's cid 0 dropped, unused
 * 101 ms) and 204 ms (CPU 1's cid 1 dropped). Then 101 comes back to CPU 1: 6.13
 * gives its recent cid 1, 6.12 the lowest free, 0; and 103 starts on CPU 3: 6.13
 * expands to 3, 6.12 takes the lowest free, 1. v613 picks which kernel wrote it.
 */
static int build_recent_cid_trace(hand *h, int v613)
{
    const int tg = 100;
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 100, tg);
    hand_fork(h, 2 * MS, 0, 100, 101, tg);
    hand_fork(h, 2 * MS + 1000, 0, 100, 102, tg);
    hand_fork(h, 2 * MS + 2000, 0, 100, 103, tg);
    hand_switch(h, 3 * MS, 0, 100, 0, tg);                   /* main thread sleeps: CPU 0 keeps cid 0 */
    hand_switch(h, 5 * MS, 1, 0, 101, tg);
    hand_rseq(h, 5 * MS + 1000, 1, 101, 1, tg);          /* CPU 0 still owns 0: 6.12 first free 1; 6.13 expands: 1 */
    hand_switch(h, 6 * MS, 2, 0, 102, tg);
    hand_rseq(h, 6 * MS + 1000, 2, 102, 2, tg);
    hand_switch(h, 7 * MS, 1, 101, 0, tg);                   /* 101 sleeps 300 ms */
    /* 102 runs on CPU 2 from 6 ms to 400 ms: the ticks scan at ~104, 208, 312 ms. The
     * first scan drops CPU 0's cid 0 (unused since 3 ms); the second drops CPU 1's 1. */
    hand_switch(h, 350 * MS, 1, 0, 101, tg);
    hand_rseq(h, 350 * MS + 1000, 1, 101, v613 ? 1 : 0, tg);
    hand_switch(h, 360 * MS, 3, 0, 103, tg);
    hand_rseq(h, 360 * MS + 1000, 3, 103, v613 ? 3 : 1, tg);
    hand_switch(h, 400 * MS, 2, 102, 0, tg);
    return h->n;
}

/* Replays ev through a fresh checker for `variant` (scan_at >= 0: ks_conform_set_scan_at
 * first; < 0: the default); its summary, the checker kept in *keep if asked. */
static ks_conform_summary replay_with(const char *variant, int32_t scan_at, const ks_event *ev, int n,
                                      ks_conform **keep)
{
    ks_conform_summary s;
    memset(&s, 0, sizeof s);
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new(variant, 4, 250, 0, &c), KS_OK);
    if (!c)
        return s;
    if (scan_at >= 0)
        CHECK_EQ_INT(ks_conform_set_scan_at(c, scan_at), KS_OK);
    CHECK_EQ_INT(ks_conform_feed(c, ev, (uint32_t)n), KS_OK);
    CHECK_EQ_INT(ks_conform_result(c, &s), KS_OK);
    if (keep)
        *keep = c;
    else
        ks_conform_free(c);
    return s;
}

static ks_conform_summary replay(const char *variant, const ks_event *ev, int n, ks_conform **keep)
{
    return replay_with(variant, -1, ev, n, keep);
}

/* 6.13 and 6.12 disagree exactly where recent_cid and expansion matter. */
static void variants_differ_on_recent_cid(void)
{
    hand h613, h612;
    int n613 = build_recent_cid_trace(&h613, 1);
    int n612 = build_recent_cid_trace(&h612, 0);
    /* the 6.13 kernel's trace: v6.13 agrees on all, v6.12 not on 103's and 101's cids */
    ks_conform_summary a = replay("v6.13", h613.ev, n613, NULL);
    CHECK_EQ_INT(a.rseq_updates, 4);
    CHECK_EQ_INT(a.compared, 4);
    CHECK_EQ_INT(a.agree, 4);
    CHECK_EQ_INT(a.gaps, 0);
    CHECK(a.scans >= 2);
    ks_conform *c = NULL;
    ks_conform_summary b = replay("v6.12", h613.ev, n613, &c);
    CHECK_EQ_INT(b.compared, 4);
    CHECK_EQ_INT(b.agree, 2);
    CHECK_EQ_INT(b.kept, 2);
    ks_conform_disagreement d;
    CHECK_EQ_INT(ks_conform_disagreement_get(c, 0, &d), KS_OK);
    CHECK_EQ_INT(d.tid, 101);
    CHECK_EQ_INT(d.kernel_cid, 1);
    CHECK_EQ_INT(d.model_cid, 0);
    CHECK_EQ_INT(d.path, KS_MM_CID_FIRST_FREE);
    CHECK(strstr(d.why, "FIRST_FREE") != NULL);
    /* a model mismatch (6.12's allocator on a 6.13 kernel), not a trace limitation; 103's
     * first cid on CPU 3 may also hang on the unknown state of a process older than the
     * trace (process 100 is never forked in it), and is attributed to that */
    CHECK_EQ_INT(d.cause, KS_CONFORM_UNEXPLAINED);
    CHECK_EQ_INT(b.causes[KS_CONFORM_UNEXPLAINED], 1);
    CHECK_EQ_INT(b.causes[KS_CONFORM_STATE_BEFORE_TRACE], 1);
    CHECK_EQ_INT(ks_conform_disagreement_get(c, 2, &d), KS_ERR_RANGE);
    ks_conform_free(c);
    /* and the other way round */
    ks_conform_summary e = replay("v6.12", h612.ev, n612, NULL);
    CHECK_EQ_INT(e.agree, 4);
    ks_conform_summary f = replay("v6.13", h612.ev, n612, NULL);
    CHECK_EQ_INT(f.agree, 2);
}

/* A missing switch-out is a gap; the replay trusts the trace and counts it. */
static void gaps_are_counted_and_named(void)
{
    hand h;
    h.n = 0;
    const int tg = 200;
    hand_switch(&h, 1 * MS, 0, 0, 201, tg);
    hand_rseq(&h, 1 * MS + 1000, 0, 201, 0, tg);
    /* 201's switch-out and 202's switch-in are lost: the next record names 202 */
    hand_rseq(&h, 5 * MS, 0, 202, 1, tg);
    hand_switch(&h, 6 * MS, 0, 202, 0, tg);
    ks_conform *c = NULL;
    ks_conform_summary s = replay("v6.13", h.ev, h.n, &c);
    CHECK_EQ_INT(s.gaps, 1);
    CHECK_EQ_INT(s.gaps_mm, 1);
    CHECK_EQ_INT(s.cold_starts, 1);
    CHECK_EQ_INT(s.compared, 2);
    CHECK_EQ_INT(s.agree, 1);           /* the model keeps CPU 0's cid 0 for 202 */
    ks_conform_disagreement d;
    CHECK_EQ_INT(ks_conform_disagreement_get(c, 0, &d), KS_OK);
    CHECK_EQ_INT(d.gap_near, 1);
    CHECK_EQ_INT(d.cause, KS_CONFORM_MISSING_EVENTS);
    CHECK_EQ_INT(s.causes[KS_CONFORM_MISSING_EVENTS], 1);
    CHECK(strstr(d.why, "lacks pid 201's switch-out on CPU 0") != NULL);
    CHECK(strcmp(ks_conform_cause_name(d.cause), "missing_events") == 0);
    CHECK(strcmp(ks_conform_cause_name(KS_CONFORM_CAUSE_COUNT), "?") == 0);
    ks_conform_free(c);
    /* without a TGID column: unknown mm */
    for (int i = 0; i < h.n; i++)
        h.ev[i].tgid = -1;
    s = replay("v6.13", h.ev, h.n, NULL);
    CHECK_EQ_INT(s.unknown_mm, 2);
    CHECK_EQ_INT(s.compared, 0);
}

/*
 * Seed 000 / 7e019dc: "the prior comparison worked fine when all threads shared the same
 * CPUs allowed mask, but not so much in scenarios where those threads have different
 * masks (e.g. each thread pinned to a single CPU)". Threads pinning themselves are moved
 * by the migration stopper; a capture filtered by pid loses those sched_migrate_task
 * records. 6.12's migrate-to compares mm_users with t->nr_cpus_allowed (1 once pinned):
 * 302, moved to CPU 1 while 301 still holds cid 1 there, leaves its cid 2 on CPU 2; 301,
 * moved from CPU 1 to CPU 3, takes cid 1 along; 302 then allocates on CPU 1: cid 3.
 */
static void stopper_migrations_pin_the_task(void)
{
    hand h;
    h.n = 0;
    const int tg = 300;
    hand_switch(&h, 1 * MS, 0, 0, 300, tg);
    hand_fork(&h, 2 * MS, 0, 300, 301, tg);
    hand_fork(&h, 2 * MS + 1000, 0, 300, 302, tg);
    hand_switch(&h, 3 * MS, 0, 300, 0, tg);
    hand_switch(&h, 5 * MS, 1, 0, 301, tg);
    hand_rseq(&h, 5 * MS + 1000, 1, 301, 1, tg);
    hand_switch(&h, 6 * MS, 2, 0, 302, tg);
    hand_rseq(&h, 6 * MS + 1000, 2, 302, 2, tg);
    hand_switch(&h, 7 * MS, 2, 302, 50, tg);
    strcpy(h.ev[h.n - 1].u.sched_switch.next_comm, "migration/2");
    hand_switch(&h, 7 * MS + 10000, 1, 301, 40, tg);
    strcpy(h.ev[h.n - 1].u.sched_switch.next_comm, "migration/1");
    hand_switch(&h, 7 * MS + 20000, 1, 40, 302, 40);
    hand_rseq(&h, 7 * MS + 21000, 1, 302, 3, tg);
    hand_switch(&h, 7 * MS + 30000, 3, 0, 301, tg);
    hand_rseq(&h, 7 * MS + 31000, 3, 301, 1, tg);
    ks_conform_summary s = replay("v6.12", h.ev, h.n, NULL);
    CHECK_EQ_INT(s.stopper_migrations, 2);
    CHECK_EQ_INT(s.missing_migrations, 0);
    CHECK_EQ_INT(s.compared, 4);
    CHECK_EQ_INT(s.agree, 4);
}

/* Resync: after a disagreement the model takes the kernel's cid and keeps it. */
static void resync_adopts_the_kernels_cid(void)
{
    hand h;
    h.n = 0;
    const int tg = 200;
    hand_switch(&h, 1 * MS, 0, 0, 201, tg);
    hand_rseq(&h, 1 * MS + 1000, 0, 201, 0, tg);
    hand_switch(&h, 2 * MS, 1, 0, 202, tg);
    hand_rseq(&h, 2 * MS + 1000, 1, 202, 1, tg);
    hand_switch(&h, 3 * MS, 1, 202, 0, tg);
    hand_rseq(&h, 5 * MS, 0, 201, 1, tg);        /* the kernel says 1 (the model: 0) */
    hand_switch(&h, 6 * MS, 1, 0, 202, tg);
    hand_rseq(&h, 6 * MS + 1000, 1, 202, 0, tg); /* ... and 202 on CPU 1 got 0: consistent */
    for (int on = 0; on < 2; on++) {
        ks_conform *c = NULL;
        CHECK_EQ_INT(ks_conform_new("v6.13", 4, 250, 0, &c), KS_OK);
        CHECK_EQ_INT(ks_conform_set_resync(c, on), KS_OK);
        ks_conform_feed(c, h.ev, (uint32_t)h.n);
        ks_conform_summary s;
        ks_conform_result(c, &s);
        CHECK_EQ_INT(s.compared, 4);
        CHECK_EQ_INT(s.agree, on ? 3 : 2);  /* with resync, CPU 1 holds 0 after the swap */
        CHECK_EQ_INT(s.resyncs, on ? 1 : 0);
        ks_conform_free(c);
    }
}

static void bad_arguments(void)
{
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new("v6.99", 4, 250, 0, &c), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_conform_new("v6.13+race", 4, 250, 0, &c), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_conform_new("v6.13", 0, 250, 0, &c), KS_ERR_INVALID_ARG);
    CHECK(c == NULL);
}

/* ---- simulated runs replayed: the self-check ------------------------------------- */

static const char free4[] =
    "{\"name\": \"free4\", \"duration_ms\": 1500, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 4, \"placement\": \"free\", \"index_by\": \"mm_cid\","
    " \"delay_ms\": 150}, {\"kind\": \"pipe_pairs\", \"comm\": \"hb\", \"groups\": 1,"
    " \"pairs_per_group\": 3, \"messages\": 400, \"work_us\": 2500},"
    " {\"kind\": \"fork_churn\", \"comm\": \"forker\", \"children\": 40,"
    " \"child_runtime_us\": 3000, \"concurrency\": 4, \"fork_us\": 300}]}";

static void simulated_run_agrees(const char *algo, const char *variant, const char *json,
                                 const char *preset, int scans)
{
    test_sim t = test_sim_new(preset, json, 11, algo);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    ks_conform *c = NULL;
    ks_topology_summary ts;
    ks_topology_summarize(t.topo, &ts);
    int32_t nr_cpus = ts.cpus;
    CHECK_EQ_INT(ks_conform_new(variant, nr_cpus, 250, 8, &c), KS_OK);
    /* one call with the whole run, as the CLI feeds a decoded trace: the replay learns
     * every pid's tgid before it needs it */
    uint32_t n = 0, cap = 1024;
    ks_event *evs = malloc(cap * sizeof *evs);
    int32_t produced;
    while (evs && ks_sim_step(t.sim, &evs[n], &produced) == KS_OK && produced)
        if (++n == cap) {
            cap *= 2;
            ks_event *grown = realloc(evs, cap * sizeof *evs);
            if (!grown) {
                free(evs);
                evs = NULL;
            }
            evs = grown;
        }
    CHECK(evs != NULL);
    ks_conform_feed(c, evs, n);
    free(evs);
    ks_conform_summary s;
    ks_conform_result(c, &s);
    CHECK(s.rseq_updates > 50);
    CHECK_EQ_INT(s.compared, s.rseq_updates);
    CHECK_EQ_INT(s.agree, s.compared);
    CHECK_EQ_INT(s.gaps, 0);
    CHECK(!scans || s.scans > 0);     /* the modelled ticks ran the 100 ms scan */
    if (s.agree != s.compared) {
        ks_conform_disagreement d;
        for (int i = 0; i < s.kept && i < 4; i++)
            if (ks_conform_disagreement_get(c, i, &d) == KS_OK)
                printf("    %s: %.6f tid %d cpu %d kernel %d model %d: %s\n", algo,
                       (double)d.ts_ns / 1e9, d.tid, d.cpu, d.kernel_cid, d.model_cid, d.why);
    }
    ks_conform_free(c);
    test_sim_free(&t);
}

static void simulated_runs_agree_with_their_variant(void)
{
    simulated_run_agrees("mm_cid:v6.13", "v6.13", free4, "classroom-8", 1);
    simulated_run_agrees("mm_cid:v6.12", "v6.12", free4, "classroom-8", 1);
    simulated_run_agrees("mm_cid:v6.18", "v6.18", free4, "classroom-8", 1);
}

static void workload_files_agree(void)
{
    static const char *const files[] = { "fork-churn.json", "hackbench-2g.json" };
    for (int i = 0; i < 2; i++) {
        char *json = read_workload_file(files[i]);
        CHECK(json != NULL);
        if (json)
            simulated_run_agrees("mm_cid:v6.13", "v6.13", json, "classroom-8", 0);
        free(json);
    }
}

/*
 * Where the scan runs on a real kernel: task_mm_cid_work is task_work a tick queues
 * (TWA_RESUME); it runs on the task's next return to user space just before
 * rseq_handle_notify_resume records an rseq_update, which then follows no switch-in or
 * migration. Process 500 (v6.12: lowest free cid): 500 takes cid 0 on CPU 0 and sleeps at 3 ms; 501 runs on CPU 1
 * (cid 1) until 300 ms; 502 starts on CPU 2 at 310 ms. If a scan ran after 103 ms it freed
 * CPU 0's idle cid 0, and 502 gets 0; else 2.
 */
static int build_scan_trace(hand *h, int marked)
{
    const int tg = 500;
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 500, tg);
    hand_rseq(h, 1 * MS + 1000, 0, 500, 0, tg);
    hand_fork(h, 2 * MS, 0, 500, 501, tg);
    hand_fork(h, 2 * MS + 1000, 0, 500, 502, tg);
    hand_switch(h, 3 * MS, 0, 500, 0, tg);
    hand_switch(h, 4 * MS, 1, 0, 501, tg);
    hand_rseq(h, 4 * MS + 1000, 1, 501, 1, tg);
    if (marked)                                     /* the tick's task_work: no switch before it */
        hand_rseq(h, 150 * MS, 1, 501, 1, tg);
    hand_switch(h, 300 * MS, 1, 501, 0, tg);
    hand_switch(h, 310 * MS, 2, 0, 502, tg);
    hand_rseq(h, 310 * MS + 1000, 2, 502, 0, tg);        /* the kernel had scanned: 0 was free */
    return h->n;
}

static void scan_runs_where_the_trace_shows_task_work(void)
{
    hand h;
    /* marked: the scan runs at the unprompted rseq_update, 502 then agrees */
    int n = build_scan_trace(&h, 1);
    ks_conform_summary a = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, n, NULL);
    CHECK_EQ_INT(a.unprompted, 1);
    CHECK_EQ_INT(a.scans, 1);
    CHECK_EQ_INT(a.compared, 4);
    CHECK_EQ_INT(a.agree, 4);
    /* unmarked: no scan is guessed; the disagreement is put down to the untraced scan */
    n = build_scan_trace(&h, 0);
    ks_conform *c = NULL;
    ks_conform_summary b = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, n, &c);
    CHECK_EQ_INT(b.unprompted, 0);
    CHECK_EQ_INT(b.scans, 0);
    CHECK_EQ_INT(b.agree, 2);
    CHECK_EQ_INT(b.causes[KS_CONFORM_SCAN_NOT_VISIBLE], 1);
    ks_conform_disagreement d;
    CHECK_EQ_INT(ks_conform_disagreement_get(c, 0, &d), KS_OK);
    CHECK_EQ_INT(d.tid, 502);
    CHECK_EQ_INT(d.model_cid, 2);
    CHECK_EQ_INT(d.cause, KS_CONFORM_SCAN_NOT_VISIBLE);
    ks_conform_free(c);
    /* the simulator's way (scan at every modelled tick) scans while 501 runs */
    ks_conform_summary t = replay_with("v6.12", KS_CONFORM_SCAN_AT_TICK, h.ev, n, NULL);
    CHECK(t.scans >= 2);
    CHECK_EQ_INT(t.compared, 3);
    CHECK_EQ_INT(t.agree, 3);
    CHECK_EQ_INT(ks_conform_set_scan_at(NULL, 0), KS_ERR_INVALID_ARG);
}

/*
 * A scan the trace cannot show, and an event recorded inside context_switch().
 * Process 600 (v6.12, lowest free cid): threads 600-602 take cids 0-2 on CPUs 0-2 and
 * sleep by 4 ms; the mm's first scan is due at 101 ms. At 200 ms 602 is switched in on
 * CPU 2 and returns to user space (a prompted rseq_update). In the kernel a tick had
 * queued task_mm_cid_work on 602 before it blocked, so the scan runs there, unseen: it
 * drops CPUs 0 and 1 (unused > 100 ms), then CPU 2's cid 2 (>= the weight, 1) lazily;
 * 602's switch-out at 201 ms frees it, and at 202 ms CPU 2 gets the lowest free cid, 0.
 * The model, which runs no scan there, keeps 2: scan_not_visible, naming the return.
 * After each switch on CPU 2 comes a generic event (kscope_mm_cid_get, recorded in
 * switch_mm_cid() before switch_to()) naming prev: the task still current, not a gap.
 */
static void unseen_scan_at_a_return_after_switch_in(void)
{
    hand h;
    h.n = 0;
    const int tg = 600;
    hand_switch(&h, 1 * MS, 0, 0, 600, tg);
    hand_add(&h, 1 * MS + 500, KS_EV_GENERIC, 0, 0, -1);            /* in context_switch: prev */
    hand_rseq(&h, 1 * MS + 1000, 0, 600, 0, tg);
    hand_fork(&h, 2 * MS, 0, 600, 601, tg);
    hand_fork(&h, 2 * MS + 1000, 0, 600, 602, tg);
    hand_switch(&h, 2 * MS + 2000, 0, 600, 0, tg);
    hand_add(&h, 2 * MS + 2500, KS_EV_GENERIC, 0, 600, tg);
    hand_switch(&h, 3 * MS, 1, 0, 601, tg);
    hand_rseq(&h, 3 * MS + 1000, 1, 601, 1, tg);
    hand_switch(&h, 3 * MS + 2000, 1, 601, 0, tg);
    hand_switch(&h, 4 * MS, 2, 0, 602, tg);
    hand_rseq(&h, 4 * MS + 1000, 2, 602, 2, tg);
    hand_switch(&h, 4 * MS + 2000, 2, 602, 0, tg);
    hand_switch(&h, 200 * MS, 2, 0, 602, tg);
    hand_add(&h, 200 * MS + 500, KS_EV_GENERIC, 2, 0, -1);
    hand_rseq(&h, 200 * MS + 1000, 2, 602, 2, tg);                  /* the unseen scan runs here */
    hand_switch(&h, 201 * MS, 2, 602, 0, tg);
    hand_add(&h, 201 * MS + 500, KS_EV_GENERIC, 2, 602, tg);
    hand_switch(&h, 202 * MS, 2, 0, 602, tg);
    hand_add(&h, 202 * MS + 500, KS_EV_GENERIC, 2, 0, -1);
    hand_rseq(&h, 202 * MS + 1000, 2, 602, 0, tg);
    ks_conform *c = NULL;
    ks_conform_summary s = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, h.n, &c);
    CHECK_EQ_INT(s.gaps, 0);
    CHECK_EQ_INT(s.unprompted, 0);
    CHECK_EQ_INT(s.scans, 0);
    CHECK_EQ_INT(s.compared, 5);
    CHECK_EQ_INT(s.agree, 4);
    CHECK_EQ_INT(s.causes[KS_CONFORM_SCAN_NOT_VISIBLE], 1);
    ks_conform_disagreement d;
    CHECK_EQ_INT(ks_conform_disagreement_get(c, 0, &d), KS_OK);
    CHECK_EQ_INT(d.tid, 602);
    CHECK_EQ_INT(d.model_cid, 2);
    CHECK_EQ_INT(d.kernel_cid, 0);
    CHECK_EQ_INT(d.gap_near, 0);
    CHECK(strstr(d.why, "may have run unseen at a return to user after a switch-in") != NULL);
    CHECK(strstr(d.why, "first pid 602 at 0.200001") != NULL);
    ks_conform_free(c);
    /* the same generic event naming prev after another event there is a gap */
    hand_add(&h, 202 * MS + 2000, KS_EV_GENERIC, 2, 0, -1);
    s = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, h.n, NULL);
    CHECK_EQ_INT(s.gaps, 1);
}

/*
 * A simulated trace (tick grid, HZ 250 from 0): the tick's task_work runs on the task's
 * return to user space. Process 500 (v6.12): 500 takes cid 0 on CPU 0 and sleeps at 3 ms.
 * The scan is due from 101 ms; 501 runs on CPU 1 from 130 ms (cid 1), the tick at 132 ms
 * queues the scan on it, and the trace shows 501 switched out at that tick's time (the
 * tick's balance preempted it): the work waits for its next return to user, after its
 * switch-in at 150 ms. So 502, on CPU 2 at 136 ms, still finds 0 taken and gets 2; after
 * the scan at 150 ms (CPU 0's idle cid 0 dropped: its clock reads 128 ms, the simulator's
 * housekeeping update; then CPU 2's 2 by compaction) 503 gets 0. A scan inside the tick
 * (before the task_work was modelled) gave 502 cid 0.
 */
static void build_preempted_tick_trace(hand *h, uint64_t out_ts)
{
    const int tg = 500;
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 500, tg);
    hand_rseq(h, 1 * MS + 1000, 0, 500, 0, tg);
    hand_fork(h, 2 * MS, 0, 500, 501, tg);
    hand_fork(h, 2 * MS + 1000, 0, 500, 502, tg);
    hand_fork(h, 2 * MS + 2000, 0, 500, 503, tg);
    hand_switch(h, 3 * MS, 0, 500, 0, tg);
    hand_switch(h, 130 * MS + 500, 1, 0, 501, tg);
    hand_rseq(h, 130 * MS + 1000, 1, 501, 1, tg);
    hand_switch(h, out_ts, 1, 501, 0, tg);                   /* at the tick: preempted */
    hand_switch(h, 136 * MS, 2, 0, 502, tg);
    hand_rseq(h, 136 * MS + 1000, 2, 502, out_ts == 132 * MS ? 2 : 0, tg);
    hand_switch(h, 137 * MS, 2, 502, 0, tg);
    hand_switch(h, 150 * MS, 1, 0, 501, tg);
    hand_rseq(h, 150 * MS + 1000, 1, 501, 1, tg);            /* the queued scan runs first */
    hand_switch(h, 160 * MS, 3, 0, 503, tg);
    hand_rseq(h, 160 * MS + 1000, 3, 503, out_ts == 132 * MS ? 0 : 2, tg);
}

static void grid_tick_work_runs_after_a_preempting_switch(void)
{
    hand h;
    build_preempted_tick_trace(&h, 132 * MS);
    ks_conform_summary s = replay_with("v6.12", KS_CONFORM_SCAN_AT_TICK, h.ev, h.n, NULL);
    CHECK_EQ_INT(s.compared, 5);
    CHECK_EQ_INT(s.scans, 1);
    CHECK_EQ_INT(s.agree, 5);
    /* 501 not preempted by the tick (its switch-out comes 1 ms later): it returned to user
     * space at 132 ms and scanned there, so 502 gets 0 (and 503, after compaction, 2) */
    build_preempted_tick_trace(&h, 133 * MS);
    ks_conform_summary u = replay_with("v6.12", KS_CONFORM_SCAN_AT_TICK, h.ev, h.n, NULL);
    CHECK_EQ_INT(u.scans, 1);
    CHECK_EQ_INT(u.agree, 5);
}

/*
 * A kernel trace that recorded its ticks (ks_conform_set_ticks). Process 500 (v6.12):
 * 500 takes cid 0 on CPU 0 and sleeps at 3 ms; 501 takes 1 on CPU 1. The scan is due from
 * 101 ms. 501 is back on CPU 1 at 150 ms and returns to user space; the tick at 152 ms finds
 * it again in the kernel on its way to block (no rseq_update before its switch-out at
 * 152.5 ms), so the scan waits for its next return, after its switch-in at 250 ms: 502 (on
 * CPU 2 at 200 ms) still gets 2; after the scan (CPU 0's idle cid 0 dropped, then CPU 2's 2
 * by compaction) 503 gets 0. Without the recorded tick nothing shows the scan: 503 gets 3.
 */
static int build_recorded_tick_trace(hand *h)
{
    const int tg = 500;
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 500, tg);
    hand_rseq(h, 1 * MS + 1000, 0, 500, 0, tg);
    hand_fork(h, 2 * MS, 0, 500, 501, tg);
    hand_fork(h, 2 * MS + 1000, 0, 500, 502, tg);
    hand_fork(h, 2 * MS + 2000, 0, 500, 503, tg);
    hand_switch(h, 3 * MS, 0, 500, 0, tg);
    hand_switch(h, 4 * MS, 1, 0, 501, tg);
    hand_rseq(h, 4 * MS + 1000, 1, 501, 1, tg);
    hand_switch(h, 5 * MS, 1, 501, 0, tg);
    hand_switch(h, 150 * MS, 1, 0, 501, tg);
    hand_rseq(h, 150 * MS + 10000, 1, 501, 1, tg);
    hand_switch(h, 152 * MS + 500000, 1, 501, 0, tg);       /* blocks: no return since the tick */
    hand_switch(h, 200 * MS, 2, 0, 502, tg);
    hand_rseq(h, 200 * MS + 1000, 2, 502, 2, tg);
    hand_switch(h, 201 * MS, 2, 502, 0, tg);
    hand_switch(h, 250 * MS, 1, 0, 501, tg);
    hand_rseq(h, 250 * MS + 10000, 1, 501, 1, tg);          /* the tick's work runs first */
    hand_switch(h, 260 * MS, 3, 0, 503, tg);
    hand_rseq(h, 260 * MS + 1000, 3, 503, 0, tg);
    return h->n;
}

static void recorded_ticks_place_the_scan_a_trace_cannot_show(void)
{
    hand h;
    int n = build_recorded_tick_trace(&h);
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new("v6.12", 4, 250, 0, &c), KS_OK);
    if (!c)
        return;
    CHECK_EQ_INT(ks_conform_set_scan_at(c, KS_CONFORM_SCAN_AT_RETURN), KS_OK);
    const uint64_t ts[] = { 152 * MS };
    const int32_t cpu[] = { 1 };
    CHECK_EQ_INT(ks_conform_set_ticks(c, ts, cpu, 1), KS_OK);
    CHECK_EQ_INT(ks_conform_feed(c, h.ev, (uint32_t)n), KS_OK);
    ks_conform_summary s;
    CHECK_EQ_INT(ks_conform_result(c, &s), KS_OK);
    CHECK_EQ_INT(s.compared, 6);
    CHECK_EQ_INT(s.scans, 1);
    CHECK_EQ_INT(s.agree, 6);
    ks_conform_free(c);
    /* without it: no scan, and 503's cid is the model's 3 */
    ks_conform_summary u = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, n, NULL);
    CHECK_EQ_INT(u.scans, 0);
    CHECK_EQ_INT(u.agree, 5);
    /* ticks out of time order are refused */
    CHECK_EQ_INT(ks_conform_new("v6.12", 4, 250, 0, &c), KS_OK);
    const uint64_t back[] = { 2 * MS, 1 * MS };
    const int32_t cpus[] = { 0, 0 };
    CHECK_EQ_INT(ks_conform_set_ticks(c, back, cpus, 2), KS_ERR_INVALID_ARG);
    ks_conform_free(c);
}

/*
 * A wakeup that moves its task (set_task_cpu: sched_migrate_task) enqueues it on the new
 * CPU later, through a wake list, and sched_mm_cid_migrate_to runs only then. Process 600
 * (v6.12): 601 last ran on CPU 1 (cid 1). At 10 ms 602 wakes it onto CPU 3; before the
 * enqueue there (its sched_wakeup, 10.2 ms) 600 starts on CPU 1 and keeps CPU 1's cid 1, so
 * the migration finds CPU 1 running the mm and leaves the cid there: 601 gets 3 on CPU 3.
 * Applied at the sched_migrate_task, the model moved cid 1 to CPU 3 and answered 3 and 1.
 */
static void wakeup_migration_reaches_the_model_at_the_enqueue(void)
{
    hand h;
    const int tg = 600;
    h.n = 0;
    hand_switch(&h, 1 * MS, 0, 0, 600, tg);
    hand_rseq(&h, 1 * MS + 1000, 0, 600, 0, tg);
    hand_fork(&h, 2 * MS, 0, 600, 601, tg);
    hand_fork(&h, 2 * MS + 1000, 0, 600, 602, tg);
    hand_fork(&h, 2 * MS + 2000, 0, 600, 603, tg);
    hand_switch(&h, 3 * MS, 0, 600, 0, tg);
    hand_switch(&h, 4 * MS, 1, 0, 601, tg);
    hand_rseq(&h, 4 * MS + 1000, 1, 601, 1, tg);
    hand_switch(&h, 5 * MS, 1, 601, 0, tg);
    hand_switch(&h, 6 * MS, 2, 0, 602, tg);
    hand_rseq(&h, 6 * MS + 1000, 2, 602, 2, tg);
    ks_event *w = hand_add(&h, 10 * MS, KS_EV_SCHED_WAKING, 2, 602, tg);
    w->u.sched_wakeup.pid = 601;
    w->u.sched_wakeup.target_cpu = 3;
    hand_migrate(&h, 10 * MS + 1000, 2, 602, 601, 1, 3, tg);
    hand_switch(&h, 10 * MS + 100000, 1, 0, 603, tg);
    hand_rseq(&h, 10 * MS + 101000, 1, 603, 1, tg);
    hand_wakeup(&h, 10 * MS + 200000, 3, 0, 601, 3, tg);     /* the enqueue, on CPU 3 */
    hand_switch(&h, 10 * MS + 300000, 3, 0, 601, tg);
    hand_rseq(&h, 10 * MS + 301000, 3, 601, 3, tg);
    ks_conform_summary s = replay_with("v6.12", KS_CONFORM_SCAN_AT_RETURN, h.ev, h.n, NULL);
    CHECK_EQ_INT(s.compared, 5);
    CHECK_EQ_INT(s.agree, 5);
}

const test_case mm_cid_conform_tests[] = {
    { "conform: a wakeup's migration reaches the model at the enqueue (sched_wakeup)",
      wakeup_migration_reaches_the_model_at_the_enqueue },
    { "conform: a kernel's recorded ticks place the scan at the task's next return",
      recorded_ticks_place_the_scan_a_trace_cannot_show },
    { "conform: a simulated tick's task_work waits for the return after a preempting switch",
      grid_tick_work_runs_after_a_preempting_switch },
    { "conform: a scan run unseen after a switch-in is named; context_switch events name prev",
      unseen_scan_at_a_return_after_switch_in },
    { "conform: on a kernel the scan runs where the trace shows task_work ran",
      scan_runs_where_the_trace_shows_task_work },
    { "conform: v6.13 and v6.12 disagree on recent_cid after > 100 ms", variants_differ_on_recent_cid },
    { "conform: a missing switch is a gap, named in why; no TGID: unknown mm", gaps_are_counted_and_named },
    { "conform: tasks moved by migration/N are pinned there (6.12 migrate-to)",
      stopper_migrations_pin_the_task },
    { "conform: resync adopts the kernel's cid (a swap between CPUs)", resync_adopts_the_kernels_cid },
    { "conform: bad variant, +race, no CPUs", bad_arguments },
    { "conform: simulated v6.12/v6.13/v6.18 runs replay at 100% agreement", simulated_runs_agree_with_their_variant },
    { "conform: simulated fork churn (many mms, exits) and hackbench replay at 100%",
      workload_files_agree },
    { 0 },
};
