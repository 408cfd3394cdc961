/*
 * mm_cid's age test reads the remote CPU's rq clock (src/algo/mm_cid/mm_cid_scan.c):
 * sched_mm_cid_remote_clear_old (kernel/sched/core.c, v6.4 to v6.18) drops a CPU's cid
 * when that CPU's rq->clock is 100 ms past the cid's last use. An idle CPU's clock stands
 * still until something calls update_rq_clock() for it (src/sched/rq.c), so a cid used
 * long ago on a CPU idle since looks fresh to the scan until that clock moves.
 *
 * Scripted like tests/mm_cid/test_mm_cid.c (the hooks the scheduler core calls, in a chosen
 * order), moving each rq clock by hand where the kernel would; and replayed from a trace
 * written by hand, as a kernel would have recorded it.
 */
#include <string.h>

#include "../check.h"
#include "../hand_trace.h"
#include "../sim_test_util.h"
#include "kscope/mm_cid/native/conform.h"
#include "../../src/sched/sim_internal.h"
#include "../../src/algo/mm_cid/mm_cid.h"

#define MS 1000000ull

static const char pinned4[] =
    "{\"name\": \"pinned4\", \"duration_ms\": 1000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 4, \"cpus\": [0, 1, 2, 3], \"index_by\": \"mm_cid\"}]}";

static void at_ms(ks_sim *s, double ms)
{
    s->core.now = (uint64_t)(ms * MS);
}

/* task is woken onto cpu and switched in there: the enqueue and __schedule() update cpu's
 * clock, then context_switch() runs switch_mm_cid. */
static int32_t run_on(ks_sim *s, int32_t task, int32_t cpu)
{
    rq_update_clock(s, cpu);
    int32_t prev = s->rqs[cpu].curr;
    if (prev >= 0)
        s->tasks[prev].state = KS_TASK_SLEEPING;
    s->ops->switch_to(s->algo, s, prev, task, cpu);
    s->rqs[cpu].curr = task;
    s->tasks[task].state = KS_TASK_RUNNING;
    return sched_task_rseq_cid(s, task);
}

/* cpu's task blocks; cpu goes idle (its clock updated by __schedule(), nothing else). */
static void go_idle(ks_sim *s, int32_t cpu)
{
    rq_update_clock(s, cpu);
    int32_t prev = s->rqs[cpu].curr;
    s->ops->switch_to(s->algo, s, prev, -1, cpu);
    if (prev >= 0)
        s->tasks[prev].state = KS_TASK_SLEEPING;
    s->rqs[cpu].curr = -1;
}

/* sched_tick() on a busy cpu: its own clock, then task_tick_mm_cid, which queues the
 * scan's task_work; the tick interrupted user code, so it runs on the return from the
 * interrupt. No nohz kick here: the idle clocks are moved by hand. */
static void tick(ks_sim *s, int32_t cpu)
{
    int32_t curr = s->rqs[cpu].curr;
    rq_update_clock(s, cpu);
    s->ops->tick(s->algo, s, cpu, curr);
    if (curr >= 0 && (s->tasks[curr].flags & TF_NOTIFY_RESUME)) {
        s->tasks[curr].flags &= ~TF_NOTIFY_RESUME;
        s->ops->task_work_run(s->algo, s, curr, cpu);
    }
}

static const mm_cid_pcpu *slot(ks_sim *s, int32_t cpu)
{
    return &mm_cid_mm_of(sched_algo_state(s, &mm_cid_ops), 0)->pcpu[cpu];
}

static int count_of(ks_sim *s, int32_t path)
{
    const ks_mm_cid_record *r = ks_mm_cid_log_records(s);
    int n = 0;
    for (uint32_t i = 0; i < ks_mm_cid_log_count(s); i++)
        n += r[i].path == path;
    return n;
}

static const ks_mm_cid_record *last_of(ks_sim *s, int32_t path)
{
    const ks_mm_cid_record *r = ks_mm_cid_log_records(s);
    for (uint32_t i = ks_mm_cid_log_count(s); i-- > 0;)
        if (r[i].path == path)
            return &r[i];
    return NULL;
}

/* A cid used 150 ms ago on a CPU idle since, whose rq clock was not updated, is not
 * reclaimed by the scan; once that CPU's clock moves, the next scan reclaims it, with
 * the age its own clock gives. A CPU running the mm gets its time set from its own clock. */
static void idle_cpu_with_a_still_clock_keeps_its_cid(void)
{
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13", "mm_cid:v6.18" };
    for (int v = 0; v < 3; v++) {
        test_sim t = test_sim_new("classroom-8", pinned4, 1, variants[v]);
        CHECK_EQ_INT(t.status, KS_OK);
        if (t.status != KS_OK)
            continue;
        ks_sim *s = t.sim;
        int32_t c0 = run_on(s, 0, 0);
        at_ms(s, 1);
        go_idle(s, 0);                              /* CPU 0's cid last used at 1 ms */
        CHECK_EQ_INT(sched_rq_clock(s, 0), 1 * MS);
        at_ms(s, 2);
        run_on(s, 1, 1);                            /* T1 runs on CPU 1 from 2 ms */
        at_ms(s, 151);                              /* the mm's scan is due from 100 ms */
        tick(s, 1);
        CHECK_EQ_INT(count_of(s, KS_MM_CID_SCAN), 1);
        CHECK_EQ_INT(sched_rq_clock(s, 0), 1 * MS); /* idle since, nothing updated it */
        CHECK_EQ_INT(slot(s, 0)->cid, c0);          /* 150 ms by the global time: kept */
        CHECK_EQ_INT(count_of(s, KS_MM_CID_SCAN_DROPPED_OLD), 0);
        CHECK_EQ_INT(slot(s, 1)->time, 151 * MS);   /* running: bumped to its own clock */
        /* CPU 0's clock moves (the nohz blocked-load update, a wakeup enqueued there...)
         * at 240 ms; the next scan, due from 251 ms, reclaims the cid */
        at_ms(s, 240);
        rq_update_clock(s, 0);
        at_ms(s, 252);
        tick(s, 1);
        CHECK_EQ_INT(count_of(s, KS_MM_CID_SCAN), 2);
        CHECK_EQ_INT(slot(s, 0)->cid, MM_CID_UNSET);
        const ks_mm_cid_record *r = last_of(s, KS_MM_CID_SCAN_DROPPED_OLD);
        CHECK(r != NULL && r->cpu == 0 && r->cid == c0);
        if (r)
            CHECK_EQ_INT(r->age_ns, 239 * MS);      /* CPU 0's clock (240) - last use (1) */
        test_sim_free(&t);
    }
}

/* ---- the same in a replayed kernel trace --------------------------------------------- */

/*
 * Process 700 on a quiet 4-CPU machine (v6.12, lowest free cid): 700 takes cid 0 on CPU 0
 * and sleeps at 3 ms; nothing runs until 701 starts on CPU 1 at 140 ms (cid 1) and returns
 * to user space at 141 ms with no switch in between: the tick's task_work, the scan, ran
 * there. CPU 0 has been idle for 138 ms, but no CPU went idle or ticked since 3 ms, so its
 * rq clock still reads 3 ms: the kernel keeps its cid 0, and 702, starting on CPU 2 at
 * 145 ms, gets the lowest free cid, 2. (Aged by the replay's time, the scan would have
 * freed 0 and the model would answer 0.)
 */
static int build_quiet_machine_trace(hand *h)
{
    h->n = 0;
    hand_switch(h, 1 * MS, 0, 0, 700, 700);
    hand_rseq(h, 1 * MS + 1000, 0, 700, 0, 700);
    hand_fork(h, 2 * MS, 0, 700, 701, 700);
    hand_fork(h, 2 * MS + 1000, 0, 700, 702, 700);
    hand_switch(h, 3 * MS, 0, 700, 0, 700);
    hand_switch(h, 140 * MS, 1, 0, 701, 700);
    hand_rseq(h, 140 * MS + 1000, 1, 701, 1, 700);
    hand_rseq(h, 141 * MS, 1, 701, 1, 700);                   /* unprompted: the scan ran here */
    hand_switch(h, 145 * MS, 2, 0, 702, 700);
    hand_rseq(h, 145 * MS + 1000, 2, 702, 2, 700);
    return h->n;
}

static void replayed_kernel_keeps_the_cid_of_a_cpu_whose_clock_stood_still(void)
{
    hand h;
    int n = build_quiet_machine_trace(&h);
    ks_conform *c = NULL;
    CHECK_EQ_INT(ks_conform_new("v6.12", 4, 250, 0, &c), KS_OK);
    if (!c)
        return;
    CHECK_EQ_INT(ks_conform_set_scan_at(c, KS_CONFORM_SCAN_AT_RETURN), KS_OK);
    CHECK_EQ_INT(ks_conform_feed(c, h.ev, (uint32_t)n), KS_OK);
    ks_conform_summary s;
    CHECK_EQ_INT(ks_conform_result(c, &s), KS_OK);
    CHECK_EQ_INT(s.scans, 1);
    CHECK_EQ_INT(s.compared, 4);
    CHECK_EQ_INT(s.agree, 4);
    ks_conform_free(c);
}

const test_case mm_cid_rq_clock_tests[] = {
    { "mm_cid rq clock: a cid on an idle CPU whose clock stood still is kept by the scan",
      idle_cpu_with_a_still_clock_keeps_its_cid },
    { "mm_cid rq clock: a replayed kernel keeps the cid of a CPU whose clock stood still",
      replayed_kernel_keeps_the_cid_of_a_cpu_whose_clock_stood_still },
    { 0 },
};
