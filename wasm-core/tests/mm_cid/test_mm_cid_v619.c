/*
 * mm_cid v6.19 (src/algo/mm_cid/mm_cid_v619.c): the ownership-mode rework as Linux 6.19 to
 * 7.3 run it (read in Debian's linux-source-7.3: kernel/sched/sched.h, core.c). Pinned here:
 *   - per-task mode: a thread's cid is given at fork and kept on every CPU, however long
 *     it slept (no scan takes it back);
 *   - per-CPU mode once threads outnumber max_cids: a cid stays with its CPU, a thread
 *     takes the cid of the CPU it runs on;
 *   - the way back, when exits bring users under pcpu_thrs: CPU cids are dropped, a running
 *     thread's cid is kept in transit and becomes its own at switch-out, threads without
 *     one take the lowest free cid below the new max_cids.
 * The fork/exit cases are hand-written traces replayed through the conform host (what a
 * 7.3 kernel would have recorded, worked out from the source step by step in the
 * comments); the whole-run properties step the simulator.
 */
#include <string.h>

#include "../check.h"
#include "../hand_trace.h"
#include "../sim_test_util.h"
#include "kscope/mm_cid/native/conform.h"
#include "../../src/algo/mm_cid/mm_cid.h"

#define MS 1000000ull
#define US 1000ull

/* sched_process_exit of pid (of tgid), recorded on cpu by the exiting thread. */
static void hand_exit(hand *h, uint64_t ts, int cpu, int pid, int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_SCHED_PROCESS_EXIT, cpu, pid, tgid);
    e->u.sched_process_exit.pid = pid;
    e->u.sched_process_exit.group_dead = 0;
}

/* Replays h with variant; the summary. */
static ks_conform_summary replay(const hand *h, const char *variant, int32_t nr_cpus)
{
    ks_conform_summary s;
    memset(&s, 0, sizeof s);
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new(variant, nr_cpus, 250, 4, &c), KS_OK);
    if (!c)
        return s;
    CHECK_EQ_INT(ks_conform_set_scan_at(c, KS_CONFORM_SCAN_AT_RETURN), KS_OK);
    CHECK_EQ_INT(ks_conform_feed(c, h->ev, (uint32_t)h->n), KS_OK);
    CHECK_EQ_INT(ks_conform_result(c, &s), KS_OK);
    for (int32_t i = 0; i < s.kept && s.agree != s.compared && !strcmp(variant, "v6.19"); i++) {
        ks_conform_disagreement d;
        if (ks_conform_disagreement_get(c, i, &d) == KS_OK)
            printf("    %s: tid %d at %llu ns: %s\n", variant, d.tid, (unsigned long long)d.ts_ns, d.why);
    }
    ks_conform_free(c);
    return s;
}

/*
 * Process 700 on 4 CPUs forks 701 and 702: per-task mode (3 users, max_cids = min(3 + 0, 4)),
 * so the threads own cids 0, 1, 2 from fork on. 702 runs first, on CPU 1, while cids 0 and 1
 * are not running anywhere: it still reports 2 (6.18 would hand it cid 1, the next never-used
 * one). Half a second later 701 and 700 come back on other CPUs with the cids they had.
 */
static void per_task_mode_a_thread_keeps_its_cid(void)
{
    hand h = { .n = 0 };
    hand_switch(&h, 1 * MS, 0, 0, 700, 700);
    hand_rseq(&h, 1 * MS + 10 * US, 0, 700, 0, 700);
    hand_fork(&h, 2 * MS, 0, 700, 701, 700);
    hand_fork(&h, 2 * MS + 100 * US, 0, 700, 702, 700);
    hand_switch(&h, 3 * MS, 0, 700, 0, 700);
    hand_switch(&h, 10 * MS, 1, 0, 702, 700);
    hand_rseq(&h, 10 * MS + 10 * US, 1, 702, 2, 700);
    hand_switch(&h, 11 * MS, 1, 702, 0, 700);
    hand_switch(&h, 500 * MS, 2, 0, 701, 700);
    hand_rseq(&h, 500 * MS + 10 * US, 2, 701, 1, 700);
    hand_switch(&h, 501 * MS, 3, 0, 700, 700);
    hand_rseq(&h, 501 * MS + 10 * US, 3, 700, 0, 700);
    hand_switch(&h, 502 * MS, 3, 700, 0, 700);
    hand_switch(&h, 503 * MS, 0, 0, 702, 700);
    hand_rseq(&h, 503 * MS + 10 * US, 0, 702, 2, 700);
    ks_conform_summary s = replay(&h, "v6.19", 4);
    CHECK_EQ_INT(s.compared, 5);
    CHECK_EQ_INT(s.agree, 5);
    ks_conform_summary old = replay(&h, "v6.18", 4);
    CHECK_EQ_INT(old.compared, 5);
    CHECK(old.agree < 5);                           /* 6.18's allocator answers otherwise */
}

/*
 * Process 700 on 8 CPUs, running on CPU 0, forks 701..708. Up to 707 each child gets its own
 * cid (1..7). The fork of 708 makes 9 users > max_cids = min(8 + 2, 8): per-CPU mode, with
 * pcpu_thrs = max(min(8 - 2, 8 / 2), 1) = 4. The forking thread's cid 0 goes into transit
 * toward CPU 0; 701..707, not running, lose theirs at once. 700 switches out: CPU 0 owns
 * cid 0. 701 on CPU 1 and 702 on CPU 2 get new CPU cids 1 and 2 (the lowest free).
 * 703..708 run on CPU 3 one after the other and exit there: every one takes CPU 3's cid 3.
 * The exit of 708 leaves 3 users < 4: back to per-task mode while 702 runs on CPU 2. The
 * CPUs' cids 0, 1, 3 go back to the pool; 702's cid 2 goes into transit. max_cids is now
 * min(3 + 0, 8) = 3. 701 runs on CPU 4: it holds only a stale copy of CPU 1's cid, so it
 * takes the lowest free, 0. 702 switches out below max_cids: cid 2 becomes its own, and it
 * keeps it on CPU 5. 700 (a stale copy of CPU 0's cid) takes the lowest free, 1.
 */
static int build_mode_round_trip(hand *h)
{
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 700, 700);
    hand_rseq(h, 1 * MS + 10 * US, 0, 700, 0, 700);
    for (int k = 1; k <= 8; k++)
        hand_fork(h, 2 * MS + (uint64_t)k * 10 * US, 0, 700, 700 + k, 700);
    hand_switch(h, 3 * MS, 0, 700, 0, 700);
    hand_switch(h, 4 * MS, 1, 0, 701, 700);
    hand_rseq(h, 4 * MS + 10 * US, 1, 701, 1, 700);
    hand_switch(h, 4 * MS + 100 * US, 2, 0, 702, 700);
    hand_rseq(h, 4 * MS + 110 * US, 2, 702, 2, 700);
    hand_switch(h, 5 * MS, 1, 701, 0, 700);         /* 701 sleeps; CPU 1 keeps cid 1 */
    for (int k = 3; k <= 8; k++) {
        uint64_t t = (uint64_t)(6 + k) * MS;
        hand_switch(h, t, 3, 0, 700 + k, 700);
        hand_rseq(h, t + 10 * US, 3, 700 + k, 3, 700);
        hand_exit(h, t + 100 * US, 3, 700 + k, 700);
        hand_switch(h, t + 200 * US, 3, 700 + k, 0, 700);
    }
    hand_switch(h, 20 * MS, 4, 0, 701, 700);
    hand_rseq(h, 20 * MS + 10 * US, 4, 701, 0, 700);
    hand_switch(h, 21 * MS, 2, 702, 0, 700);
    hand_switch(h, 22 * MS, 5, 0, 702, 700);
    hand_rseq(h, 22 * MS + 10 * US, 5, 702, 2, 700);
    hand_switch(h, 23 * MS, 0, 0, 700, 700);
    hand_rseq(h, 23 * MS + 10 * US, 0, 700, 1, 700);
    return h->n;
}

static void per_cpu_mode_and_back(void)
{
    hand h;
    build_mode_round_trip(&h);
    ks_conform_summary s = replay(&h, "v6.19", 8);
    CHECK_EQ_INT(s.compared, 12);
    CHECK_EQ_INT(s.agree, 12);
    CHECK_EQ_INT(s.gaps, 0);
    CHECK_EQ_INT(s.variant, KS_MM_CID_V6_19);
}

/* ---- whole runs in the simulator ------------------------------------------------------ */

/* Steps a run to the end checking the invariants; calls see() on every rseq_update. */
typedef void (*rseq_fn)(void *ctx, const ks_event *ev);

static int32_t run_checked(const char *json, rseq_fn see, void *ctx, int32_t *paths)
{
    test_sim t = test_sim_new("classroom-8", json, 3, "mm_cid:v6.19");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return 0;
    ks_event ev;
    int32_t produced, n = 0;
    char why[200];
    while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
        if (mm_cid_check_invariants(t.sim, why, sizeof why)) {
            printf("    step %d: %s\n", n, why);
            CHECK(0);
            break;
        }
        if (ev.type == KS_EV_RSEQ_UPDATE)
            see(ctx, &ev);
        n++;
    }
    const ks_mm_cid_record *r = ks_mm_cid_log_records(t.sim);
    for (uint32_t i = 0; paths && i < ks_mm_cid_log_count(t.sim); i++)
        paths[r[i].path]++;
    test_sim_free(&t);
    return n;
}

typedef struct by_key {
    int32_t key[64], cid[64], n, changes;
} by_key;

static void note(by_key *b, int32_t key, int32_t cid)
{
    for (int32_t i = 0; i < b->n; i++)
        if (b->key[i] == key) {
            b->changes += b->cid[i] != cid;
            b->cid[i] = cid;
            return;
        }
    if (b->n < 64) {
        b->key[b->n] = key;
        b->cid[b->n++] = cid;
    }
}

static void note_tid(void *ctx, const ks_event *ev) { note(ctx, ev->pid, ev->u.rseq_update.mm_cid); }
static void note_cpu(void *ctx, const ks_event *ev) { note(ctx, ev->cpu, ev->u.rseq_update.mm_cid); }

/* 6 free threads on 8 CPUs, 150 ms apart (longer than 6.12-6.18's 100 ms scan period): per-task
 * mode, every thread reports one cid for the whole run (the simulator keeps each on its CPU
 * here; the hand trace above moves them). */
static void whole_run_threads_keep_their_cids(void)
{
    static const char json[] =
        "{\"name\": \"b\", \"duration_ms\": 6000, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"bench\", \"threads\": 6, \"placement\": \"free\", \"index_by\": \"mm_cid\","
        " \"delay_ms\": 150}]}";
    by_key b = { .n = 0 };
    int32_t paths[KS_MM_CID_PATH_COUNT] = { 0 };
    CHECK(run_checked(json, note_tid, &b, paths) > 150);
    CHECK_EQ_INT(b.n, 6);
    CHECK_EQ_INT(b.changes, 0);
    CHECK(paths[KS_MM_CID_KEEP_TASK_CID] > 20);
    CHECK_EQ_INT(paths[KS_MM_CID_MODE_PER_CPU], 0);
    CHECK_EQ_INT(paths[KS_MM_CID_SCAN] + paths[KS_MM_CID_SCAN_DROPPED_OLD], 0);
}

/* 12 free threads on 8 CPUs: users 12 > max_cids 8, per-CPU mode; a CPU's cid never
 * changes (no scan, no exits), and threads that share a CPU report the same cid. */
static void whole_run_cids_stay_with_cpus(void)
{
    static const char json[] =
        "{\"name\": \"b\", \"duration_ms\": 1500, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"bench\", \"threads\": 12, \"placement\": \"free\", \"index_by\": \"mm_cid\","
        " \"delay_ms\": 5}]}";
    by_key cpus = { .n = 0 };
    int32_t paths[KS_MM_CID_PATH_COUNT] = { 0 };
    CHECK(run_checked(json, note_cpu, &cpus, paths) > 100);
    CHECK(cpus.n >= 4);
    CHECK_EQ_INT(cpus.changes, 0);
    CHECK_EQ_INT(paths[KS_MM_CID_MODE_PER_CPU], 1);
    CHECK(paths[KS_MM_CID_KEEP_PCPU_CID] > 20);
    by_key tids = { .n = 0 };
    run_checked(json, note_tid, &tids, NULL);
    CHECK_EQ_INT(tids.n, 12);
    int32_t distinct = 0;
    for (int32_t i = 0; i < tids.n; i++) {
        int seen = 0;
        for (int32_t j = 0; j < i; j++)
            seen |= tids.cid[j] == tids.cid[i];
        distinct += !seen;
    }
    CHECK(distinct <= 8);                           /* 12 threads, at most 8 CPU cids */
}

/* "v6.19" parses; the 6.13 toggles and +race do not apply to it. */
static void variant_names(void)
{
    const char *bad[] = { "mm_cid:v6.19+race", "mm_cid:v6.19+no_recent_cid",
                          "mm_cid:v6.19+task_nr_cpus_allowed" };
    for (int i = 0; i < 3; i++) {
        test_sim t = test_sim_new("classroom-8", "{\"name\": \"x\", \"duration_ms\": 10, \"processes\": "
                                  "[{\"kind\": \"intermittent\", \"comm\": \"b\", \"threads\": 2}]}",
                                  1, bad[i]);
        CHECK(t.status != KS_OK);
        test_sim_free(&t);
    }
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new("v6.19", 8, 250, 0, &c), KS_OK);
    ks_conform_free(c);
}

const test_case mm_cid_v619_tests[] = {
    { "mm_cid v6.19: per-task mode, a thread keeps its cid on every CPU", per_task_mode_a_thread_keeps_its_cid },
    { "mm_cid v6.19: per-CPU mode past max_cids, back to per-task after exits", per_cpu_mode_and_back },
    { "mm_cid v6.19: whole run, threads keep their cids", whole_run_threads_keep_their_cids },
    { "mm_cid v6.19: whole run, per-CPU mode, cids stay with CPUs", whole_run_cids_stay_with_cpus },
    { "mm_cid v6.19: variant names", variant_names },
    { 0 },
};
