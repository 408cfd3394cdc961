/*
 * src/algo/mm_cid/ (all of it): the RSEQ concurrency-ID allocator before (v6.12) and after
 * (v6.13, v6.18) commit 7e019dc. Each behaviour test quotes the sentence of seed
 * 000 / 003 (the commit message) it pins.
 *
 * Two kinds of test. Scripted ones put tasks on CPUs by calling the hooks the
 * scheduler core would call (switch_to, migrate, tick, task_exit,
 * set_cpus_allowed) in a chosen order, at chosen times, so one interleaving is
 * pinned exactly. Whole-simulation ones run workloads through the real scheduler
 * and check the allocator's invariants after every event.
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../sim_test_util.h"
#include "../../src/sched/sim_internal.h"
#include "../../src/algo/mm_cid/mm_cid.h"

#define MS 1000000ull

/* ---- scripting the scheduler ------------------------------------------------------ */

/* Four threads pinned to CPUs 0..3, as seed 000's benchmark pins its threads. */
static const char pinned4[] =
    "{\"name\": \"pinned4\", \"duration_ms\": 1000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 4, \"cpus\": [0, 1, 2, 3], \"index_by\": \"mm_cid\"}]}";
/* Threads sharing one mask: all 8 CPUs. */
static const char free3[] =
    "{\"name\": \"free3\", \"duration_ms\": 1000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 3, \"placement\": \"free\", \"index_by\": \"mm_cid\"}]}";
static const char free4[] =
    "{\"name\": \"free4\", \"duration_ms\": 1000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 4, \"placement\": \"free\", \"index_by\": \"mm_cid\"}]}";
/* Two threads allowed on CPUs 0 and 1 only: mm->nr_cpus_allowed = 2 of 8. */
static const char pair01[] =
    "{\"name\": \"pair01\", \"duration_ms\": 1000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"bench\", \"threads\": 2, \"placement\": \"free\", \"cpus\": [0, 1],"
    " \"index_by\": \"mm_cid\"}]}";

typedef struct script {
    test_sim t;
    ks_sim *s;
} script;

static script script_new(const char *algo, const char *json)
{
    script sc = { .t = test_sim_new("classroom-8", json, 1, algo) };
    CHECK_EQ_INT(sc.t.status, KS_OK);
    sc.s = sc.t.sim;
    return sc;
}

static void at_ms(script *sc, double ms)
{
    sc->s->core.now = (uint64_t)(ms * MS);
}

/* Wakes task onto cpu and switches it in: migrate (if it moves), then switch_to. */
static int32_t run_on(script *sc, int32_t task, int32_t cpu)
{
    ks_sim *s = sc->s;
    int32_t from = s->tasks[task].cpu;
    rq_update_clock(s, cpu);            /* the wakeup's enqueue, then __schedule() */
    if (from != cpu) {
        s->tasks[task].cpu = cpu;
        s->ops->migrate(s->algo, s, task, from, cpu);
    }
    int32_t prev = s->rqs[cpu].curr;
    if (prev >= 0)
        s->tasks[prev].state = KS_TASK_SLEEPING;
    s->ops->switch_to(s->algo, s, prev, task, cpu);
    s->rqs[cpu].curr = task;
    s->tasks[task].state = KS_TASK_RUNNING;
    return sched_task_rseq_cid(s, task);
}

/* cpu's current task blocks; the CPU goes idle. */
static void idle(script *sc, int32_t cpu)
{
    ks_sim *s = sc->s;
    int32_t prev = s->rqs[cpu].curr;
    rq_update_clock(s, cpu);            /* __schedule() */
    s->ops->switch_to(s->algo, s, prev, -1, cpu);
    if (prev >= 0 && s->tasks[prev].state != KS_TASK_DEAD)
        s->tasks[prev].state = KS_TASK_SLEEPING;
    s->rqs[cpu].curr = -1;
    if (prev >= 0)
        rq_newidle_blocked_update(s, cpu);  /* the idle CPUs' clocks (src/sched/rq.c) */
}

/* The return to user space of curr on cpu: task_work a tick queued runs (the core's
 * resume_user_mode_work, src/sched/core.c). */
static void return_to_user(ks_sim *s, int32_t cpu, int32_t curr)
{
    if (curr >= 0 && (s->tasks[curr].flags & TF_NOTIFY_RESUME)) {
        s->tasks[curr].flags &= ~TF_NOTIFY_RESUME;
        s->ops->task_work_run(s->algo, s, curr, cpu);
    }
}

static void tick(script *sc, int32_t cpu)
{
    if (sc->s->rqs[cpu].curr >= 0) {
        for (int32_t c = 0; c < sc->s->nr_cpus; c++)    /* the busy CPUs' own ticks */
            if (sc->s->rqs[c].curr >= 0)
                rq_update_clock(sc->s, c);
        int32_t curr = sc->s->rqs[cpu].curr;
        sc->s->ops->tick(sc->s->algo, sc->s, cpu, curr);
        rq_tick_blocked_kick(sc->s, cpu);               /* nohz_balancer_kick() */
        return_to_user(sc->s, cpu, curr);               /* the tick interrupted user code */
    }
}

/* The idle CPUs' rq clocks move to now: the nohz blocked-load update another CPU ran
 * (src/sched/rq.c). Without it an idle CPU's clock stands at its last switch, and the
 * scan's age test (sched_mm_cid_remote_clear_old reads that CPU's rq->clock) finds its
 * cid as fresh as when it was last used: tests/test_mm_cid_rq_clock.c pins that. */
static void idle_clocks_move(script *sc)
{
    sc->s->core.nohz_next_blocked = 0;
    rq_tick_blocked_kick(sc->s, -1);
}

/* The running task exits (do_exit: the hook, then the last switch). */
static void exit_task(script *sc, int32_t task)
{
    ks_sim *s = sc->s;
    s->ops->task_exit(s->algo, s, task);
    s->tasks[task].state = KS_TASK_DEAD;
    idle(sc, s->tasks[task].cpu);
}

/* sched_setaffinity(): cpu >= 0 pins the task there, -1 allows every CPU. */
static void set_affinity(script *sc, int32_t task, int32_t cpu)
{
    ks_sim *s = sc->s;
    s->tasks[task].mask = cpu < 0 ? 0 : 1 + cpu;
    s->tasks[task].nr_cpus_allowed = cpu < 0 ? s->nr_cpus : 1;
    s->ops->set_cpus_allowed(s->algo, s, task);
}

static mm_cid_state *state(script *sc)
{
    return sched_algo_state(sc->s, &mm_cid_ops);
}

static const mm_cid_pcpu *slot(script *sc, int32_t cpu)
{
    return &mm_cid_mm_of(state(sc), 0)->pcpu[cpu];
}

static const ks_mm_cid_record *last_record(script *sc)
{
    uint32_t n = ks_mm_cid_log_count(sc->s);
    return n ? &ks_mm_cid_log_records(sc->s)[n - 1] : NULL;
}

/* The newest record of a path, or NULL. */
static const ks_mm_cid_record *last_of(script *sc, int32_t path)
{
    const ks_mm_cid_record *r = ks_mm_cid_log_records(sc->s);
    for (uint32_t i = ks_mm_cid_log_count(sc->s); i-- > 0;)
        if (r[i].path == path)
            return &r[i];
    return NULL;
}

static int count_of(script *sc, int32_t path)
{
    const ks_mm_cid_record *r = ks_mm_cid_log_records(sc->s);
    int n = 0;
    for (uint32_t i = 0; i < ks_mm_cid_log_count(sc->s); i++)
        n += r[i].path == path;
    return n;
}

static void check_invariants(script *sc)
{
    char why[160];
    int32_t bad = mm_cid_check_invariants(sc->s, why, sizeof why);
    if (bad)
        printf("    %s\n", why);
    CHECK_EQ_INT(bad, 0);
}

/* ---- the behaviours of the commit message ------------------------------------------- */

/* Seed 000 (223baf9's reference): "introduced a per-mm/cpu current concurrency id (mm_cid),
 * which keeps a reference to the concurrency id allocated for each CPU. This reference
 * expires shortly after a 100ms delay." The scan runs from the tick of a running thread of
 * the mm, at most every 100 ms; a slot unused for >= 100 ms loses its cid. */
static void cid_stays_with_its_cpu_then_expires_after_100ms(void)
{
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13" };
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], pinned4);
        int32_t c0 = run_on(&sc, 0, 0);
        at_ms(&sc, 1);
        idle(&sc, 0);
        CHECK_EQ_INT(slot(&sc, 0)->cid, c0);               /* the CPU keeps it: lazy put */
        at_ms(&sc, 50);
        CHECK_EQ_INT(run_on(&sc, 0, 0), c0);
        CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_KEEP_PCPU_CID);
        at_ms(&sc, 51);
        idle(&sc, 0);
        at_ms(&sc, 60);
        run_on(&sc, 1, 1);                                  /* T1 runs on CPU 1 for a long time */
        run_on(&sc, 2, 2);
        run_on(&sc, 3, 3);
        at_ms(&sc, 96);
        tick(&sc, 1);                                       /* before mm_cid_next_scan: no scan */
        tick(&sc, 4);                                       /* an idle CPU has no tick work */
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN), 0);
        at_ms(&sc, 100);
        idle(&sc, 2);                                       /* CPU 2 last used its cid at 100 ms */
        tick(&sc, 1);
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN), 1);
        CHECK_EQ_INT(slot(&sc, 0)->cid, c0);                /* unused for 49 ms: kept */
        at_ms(&sc, 100.5);
        idle(&sc, 3);
        at_ms(&sc, 104);
        tick(&sc, 1);
        at_ms(&sc, 196);
        tick(&sc, 1);
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN), 1);     /* at most every 100 ms */
        at_ms(&sc, 200);
        idle_clocks_move(&sc);                              /* ages by the idle CPUs' clocks */
        tick(&sc, 1);
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN), 2);
        CHECK_EQ_INT(slot(&sc, 0)->cid, MM_CID_UNSET);      /* unused for 149 ms: dropped */
        CHECK_EQ_INT(slot(&sc, 2)->cid, MM_CID_UNSET);      /* exactly 100 ms: dropped */
        CHECK(slot(&sc, 1)->cid != MM_CID_UNSET);           /* running: its time was bumped */
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN_DROPPED_OLD), 2);  /* not CPU 3: 99.5 ms */
        /* ...but compaction then takes CPU 3's cid 3: only 2 cids remain taken. */
        const ks_mm_cid_record *compact = last_of(&sc, KS_MM_CID_COMPACT_DROPPED);
        CHECK(compact && compact->cpu == 3 && compact->cid == 3 && compact->bound == 2);
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_COMPACT_DROPPED), 1);
        const ks_mm_cid_record *r = ks_mm_cid_log_records(sc.s);
        for (uint32_t i = 0; i < ks_mm_cid_log_count(sc.s); i++)
            if (r[i].path == KS_MM_CID_SCAN_DROPPED_OLD) {
                CHECK(r[i].cpu == 0 || r[i].cpu == 2);
                CHECK_EQ_INT(r[i].age_ns, r[i].cpu == 0 ? 149 * MS : 100 * MS);
                CHECK_EQ_INT(r[i].other_cpu, 1);            /* scanned from CPU 1's tick */
            }
        at_ms(&sc, 210);
        run_on(&sc, 0, 0);
        CHECK(last_record(&sc)->path != KS_MM_CID_KEEP_PCPU_CID);
        check_invariants(&sc);
        test_sim_free(&sc.t);
    }
}

/* Seed 000: 'Add a "recent_cid" field to the per-mm/cpu mm_cid structure to keep track of
 * which mm_cid value was last used, and use it as a hint to attempt re-allocating the same
 * concurrency ID the next time this mm/cpu needs to allocate a concurrency ID'. After a gap
 * > 100 ms, v6.13 gives each pinned thread its old cid back; v6.12 the lowest free one. */
static void recent_cid_comes_back_after_a_gap(void)
{
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13" };
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], pinned4);
        int32_t before[3];
        for (int32_t t = 0; t < 3; t++)
            before[t] = run_on(&sc, t, t);
        at_ms(&sc, 1);
        for (int32_t cpu = 0; cpu < 3; cpu++)
            idle(&sc, cpu);
        at_ms(&sc, 150);                                    /* a gap of 149 ms */
        idle_clocks_move(&sc);
        run_on(&sc, 3, 3);
        tick(&sc, 3);                                       /* the scan drops CPUs 0-2's cids */
        CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN_DROPPED_OLD), 3);
        int32_t after[3], same = 0;
        for (int32_t t = 2; t >= 0; t--) {
            at_ms(&sc, 160 + t);
            after[t] = run_on(&sc, t, t);
            same += after[t] == before[t];
            if (v == 1) {
                CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_RECENT_CID);
                CHECK_EQ_INT(last_record(&sc)->recent_cid, before[t]);
            } else {
                CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_FIRST_FREE);
                CHECK_EQ_INT(last_record(&sc)->recent_cid, -1);
            }
        }
        if (v == 1) {
            CHECK_EQ_INT(same, 3);                          /* every thread its own cid again */
        } else {
            CHECK_EQ_INT(after[2], 0);                      /* the lowest free one */
            CHECK(before[2] != 0);
            CHECK(same < 3);
        }
        check_invariants(&sc);
        test_sim_free(&sc.t);
    }
}

/* Seed 000: "Add a per-mm max_nr_cid to keep track of the highest number of concurrency IDs
 * allocated for the mm. This is used for expanding the concurrency ID allocation within the
 * upper bound defined by: min(mm->nr_cpus_allowed, mm->mm_users). When the next unused CID
 * value reaches this threshold, stop trying to expand the cid allocation and use the first
 * available cid value instead." Three threads on 8 CPUs: the bound is min(8, 3) = 3. */
static void expansion_up_to_min_of_cpus_and_users_then_first_free(void)
{
    script sc = script_new("mm_cid:v6.13", free3);
    CHECK_EQ_INT(run_on(&sc, 0, 0), 0);
    const ks_mm_cid_record *r = last_record(&sc);
    CHECK_EQ_INT(r->path, KS_MM_CID_EXPAND_MAX_NR_CID);
    CHECK_EQ_INT(r->bound, 3);
    CHECK_EQ_INT(r->max_nr_cid, 1);
    at_ms(&sc, 1);
    idle(&sc, 0);
    at_ms(&sc, 150);
    idle_clocks_move(&sc);
    CHECK_EQ_INT(run_on(&sc, 2, 2), 1);
    CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_EXPAND_MAX_NR_CID);
    tick(&sc, 2);                                           /* CPU 0's cid 0 is dropped */
    CHECK_EQ_INT(slot(&sc, 0)->cid, MM_CID_UNSET);
    at_ms(&sc, 160);
    /* cid 0 is free, but spreading wins: T1 gets a never-used cid (v6.12 would take 0). */
    CHECK_EQ_INT(run_on(&sc, 1, 1), 2);
    r = last_record(&sc);
    CHECK_EQ_INT(r->path, KS_MM_CID_EXPAND_MAX_NR_CID);
    CHECK_EQ_INT(r->max_nr_cid, 3);
    at_ms(&sc, 170);
    CHECK_EQ_INT(run_on(&sc, 0, 0), 0);                     /* and T0 finds its own again */
    CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_RECENT_CID);
    at_ms(&sc, 175);
    idle(&sc, 2);                                           /* frees cid 1 (compaction marked it) */
    CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_PUT_LAZY);
    at_ms(&sc, 180);
    /* T2 on a CPU with no hint; max_nr_cid has reached min(8, 3): the first free cid. */
    CHECK_EQ_INT(run_on(&sc, 2, 4), 1);
    r = last_record(&sc);
    CHECK_EQ_INT(r->path, KS_MM_CID_FIRST_FREE);
    CHECK_EQ_INT(r->bound, 8);                              /* below mm->nr_cpus_allowed */
    CHECK_EQ_INT(r->max_nr_cid, 3);
    CHECK_EQ_INT(count_of(&sc, KS_MM_CID_EXPAND_MAX_NR_CID), 3);
    check_invariants(&sc);
    test_sim_free(&sc.t);

    /* The same sequence on v6.12: no expansion, the lowest free cid every time. */
    sc = script_new("mm_cid:v6.12", free3);
    run_on(&sc, 0, 0);
    at_ms(&sc, 1);
    idle(&sc, 0);
    at_ms(&sc, 150);
    idle_clocks_move(&sc);
    run_on(&sc, 2, 2);
    tick(&sc, 2);
    at_ms(&sc, 160);
    CHECK_EQ_INT(run_on(&sc, 1, 1), 0);                     /* T0's old data, on CPU 1 */
    CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_FIRST_FREE);
    CHECK_EQ_INT(last_record(&sc)->bound, 8);               /* nr_cpu_ids */
    CHECK_EQ_INT(count_of(&sc, KS_MM_CID_EXPAND_MAX_NR_CID), 0);
    test_sim_free(&sc.t);
}

/* Seed 000: "In __mm_cid_try_get, only return cid values within the range
 * [ 0, mm->nr_cpus_allowed ] rather than [ 0, nr_cpu_ids ]. This prevents allocating cids
 * above the number of allowed cpus in rare scenarios where cid allocation races with a
 * concurrent remote-clear of the per-mm/cpu cid." Scripted: one remote clear stops in its
 * window (slot empty, cid bit still set) while the thread comes back to that CPU. */
static void race_with_remote_clear_stays_below_nr_cpus_allowed(void)
{
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13" };
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], pair01);
        CHECK_EQ_INT(run_on(&sc, 0, 0), 0);
        CHECK_EQ_INT(run_on(&sc, 1, 1), 1);
        at_ms(&sc, 1);
        idle(&sc, 1);
        at_ms(&sc, 150);
        mm_cid_remote_clear_hold(sc.s, 1, 1);
        CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_REMOTE_CLEAR_HELD);
        CHECK_EQ_INT(slot(&sc, 1)->cid, MM_CID_UNSET);
        check_invariants(&sc);                              /* held: owned by no slot, still set */
        int32_t cid = run_on(&sc, 1, 1);
        const ks_mm_cid_record *r = last_of(&sc, KS_MM_CID_FIRST_FREE);
        CHECK(r != NULL);
        if (!r)
            continue;
        if (v == 0) {
            CHECK_EQ_INT(cid, 2);                           /* >= the 2 allowed CPUs */
            CHECK(r->flags & KS_MM_CID_F_OVER_ALLOWED);
            CHECK_EQ_INT(r->bound, 8);
        } else {
            CHECK_EQ_INT(cid, 1);                           /* waited for the clear to finish */
            CHECK(r->flags & KS_MM_CID_F_WAITED);
            CHECK(!(r->flags & KS_MM_CID_F_OVER_ALLOWED));
            CHECK_EQ_INT(r->bound, 2);
        }
        CHECK_EQ_INT(last_record(&sc)->path,
                     v == 0 ? KS_MM_CID_REMOTE_CLEAR_DONE : KS_MM_CID_FIRST_FREE);
        check_invariants(&sc);
        test_sim_free(&sc.t);
    }
}

/* The same interleaving through the real scheduler ("+race": every remote clear keeps its
 * window open until the next allocation): two pipe partners allowed on CPUs 0-1 of 8. */
/* Each thread works 250 ms while the other's CPU idles: long enough for the scan to find
 * the idle CPU's cid 100 ms old by that CPU's rq clock, which lags the time by up to
 * 32 ms + a tick (src/sched/rq.c). */
static void race_in_a_whole_run(void)
{
    static const char json[] =
        "{\"name\": \"race\", \"duration_ms\": 3000, \"processes\": [{\"kind\": \"pipe_pairs\","
        " \"comm\": \"pp\", \"groups\": 1, \"pairs_per_group\": 1, \"messages\": 100,"
        " \"work_us\": 250000, \"cpus\": [0, 1]}]}";
    const char *variants[] = { "mm_cid:v6.12+race", "mm_cid:v6.13+race", "mm_cid:v6.18+race" };
    for (int v = 0; v < 3; v++) {
        test_sim t = test_sim_new("classroom-8", json, 3, variants[v]);
        CHECK_EQ_INT(t.status, KS_OK);
        ks_event ev;
        int32_t produced;
        int max_cid = -1, bad = 0;
        char why[160];
        while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
            if (ev.type == KS_EV_RSEQ_UPDATE && ev.u.rseq_update.mm_cid > max_cid)
                max_cid = ev.u.rseq_update.mm_cid;
            if (!bad && mm_cid_check_invariants(t.sim, why, sizeof why)) {
                printf("    %s: %s\n", variants[v], why);
                bad = 1;
            }
        }
        CHECK_EQ_INT(bad, 0);
        int held = 0, over = 0, waited = 0;
        const ks_mm_cid_record *r = ks_mm_cid_log_records(t.sim);
        for (uint32_t i = 0; i < ks_mm_cid_log_count(t.sim); i++) {
            held += r[i].path == KS_MM_CID_REMOTE_CLEAR_HELD;
            over += (r[i].flags & KS_MM_CID_F_OVER_ALLOWED) != 0;
            waited += (r[i].flags & KS_MM_CID_F_WAITED) != 0;
        }
        CHECK(held > 0);
        if (v == 0) {
            CHECK(over > 0);
            CHECK_EQ_INT(max_cid, 2);                       /* user space saw cid 2 of 2 CPUs */
        } else {
            CHECK_EQ_INT(over, 0);
            CHECK(waited > 0);
            CHECK_EQ_INT(max_cid, 1);
        }
        test_sim_free(&t);
    }
}

/* Seed 000: "In sched_mm_cid_migrate_to, use mm->nr_cpus_allowed rather than
 * t->nr_cpus_allowed. [...] the prior comparison worked fine when all threads shared the
 * same CPUs allowed mask, but not so much in scenarios where those threads have different
 * masks (e.g. each thread pinned to a single CPU)." Threads start allowed everywhere and pin
 * themselves (as the benchmark does), so the mm's union is all 8 CPUs; T1 is re-pinned
 * from CPU 1 to CPU 0, where T0's cid lives. */
static void migrate_to_compares_mm_users_with_the_mm_allowed_cpus(void)
{
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13" };
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], pinned4);
        for (int32_t t = 0; t < 4; t++) {
            set_affinity(&sc, t, -1);
            set_affinity(&sc, t, t);
        }
        CHECK_EQ_INT(mm_cid_mm_of(state(&sc), 0)->nr_cpus_allowed, 8);
        run_on(&sc, 0, 0);
        int32_t c1 = run_on(&sc, 1, 1);
        at_ms(&sc, 1);
        idle(&sc, 0);
        idle(&sc, 1);
        at_ms(&sc, 10);
        set_affinity(&sc, 1, 0);
        CHECK_EQ_INT(run_on(&sc, 1, 0), slot(&sc, 0)->cid);   /* T1 uses CPU 0's cid */
        const ks_mm_cid_record *kept = last_of(&sc, KS_MM_CID_MIGRATE_KEPT_SRC);
        const ks_mm_cid_record *dropped = last_of(&sc, KS_MM_CID_MIGRATE_SRC_DROPPED);
        ks_mm_cid_mm mm;
        CHECK_EQ_INT(ks_mm_cid_mm_get(sc.s, 1000, &mm), KS_OK);
        if (v == 0) {
            /* mm_users 4 >= t->nr_cpus_allowed 1: CPU 1 keeps T1's old cid, 2 cids for 1 CPU's work */
            CHECK(kept != NULL && !dropped);
            CHECK(kept && kept->bound == 1 && kept->other_cpu == 1 && kept->cid == c1);
            CHECK_EQ_INT(slot(&sc, 1)->cid, c1);
            CHECK_EQ_INT(mm.cidmask_weight, 2);
        } else {
            /* mm_users 4 < mm->nr_cpus_allowed 8: the source cid is freed at once */
            CHECK(dropped != NULL && !kept);
            CHECK(dropped && dropped->bound == 8 && dropped->cid == c1);
            CHECK_EQ_INT(slot(&sc, 1)->cid, MM_CID_UNSET);
            CHECK_EQ_INT(slot(&sc, 1)->recent_cid, MM_CID_UNSET);
            CHECK_EQ_INT(mm.cidmask_weight, 1);
        }
        check_invariants(&sc);
        test_sim_free(&sc.t);
    }
    /* With one shared mask (all 8 CPUs), t->nr_cpus_allowed == mm->nr_cpus_allowed: both agree. */
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], free4);
        run_on(&sc, 0, 0);
        run_on(&sc, 1, 1);
        at_ms(&sc, 1);
        idle(&sc, 0);
        idle(&sc, 1);
        at_ms(&sc, 10);
        run_on(&sc, 1, 0);
        CHECK(last_of(&sc, KS_MM_CID_MIGRATE_SRC_DROPPED) != NULL);
        CHECK(last_of(&sc, KS_MM_CID_MIGRATE_KEPT_SRC) == NULL);
        CHECK_EQ_INT(slot(&sc, 1)->cid, MM_CID_UNSET);
        test_sim_free(&sc.t);
    }
}

/* 02d954c0 (the v6.18 variant; not in seed 000): "reduce the value of max_nr_cid so
 * expansion of cid allocation will preserve cache locality if the number of threads or
 * allowed cpus increase again", and the recent_cid hint only counts below it. */
static void v618_shrinks_max_nr_cid_when_threads_exit(void)
{
    const char *variants[] = { "mm_cid:v6.13", "mm_cid:v6.18" };
    for (int v = 0; v < 2; v++) {
        script sc = script_new(variants[v], free4);
        for (int32_t t = 0; t < 4; t++)
            CHECK_EQ_INT(run_on(&sc, t, t), t);
        at_ms(&sc, 1);
        exit_task(&sc, 0);
        exit_task(&sc, 1);
        idle(&sc, 3);
        at_ms(&sc, 150);
        tick(&sc, 2);                                       /* drops CPU 3's cid 3 */
        at_ms(&sc, 160);
        int32_t cid = run_on(&sc, 3, 3);
        if (v == 0) {
            CHECK_EQ_INT(cid, 3);                           /* the hint, though 2 threads remain */
            CHECK_EQ_INT(count_of(&sc, KS_MM_CID_MAX_NR_CID_SHRUNK), 0);
        } else {
            CHECK_EQ_INT(cid, 0);                           /* compact: below max_nr_cid = 2 */
            const ks_mm_cid_record *r = last_of(&sc, KS_MM_CID_MAX_NR_CID_SHRUNK);
            CHECK(r && r->prev_cid == 4 && r->max_nr_cid == 2);
        }
        check_invariants(&sc);
        test_sim_free(&sc.t);
    }
}

/* ---- whole runs --------------------------------------------------------------------- */

/* Seed 000: "intermittent workloads behaving in bursts spaced by more than 100ms on each
 * CPU exhibit bad cache locality [...] because concurrency IDs are allocated over various
 * CPUs and cores". The intermittent benchmark, pinned threads, 200 ms apart. Its areas are
 * 1 MiB here so that a burst lasts ~2 ms and the 4 ms tick lands in some (the kernel's scan
 * needs a tick while a thread of the mm runs; with 16 KiB bursts of µs it almost never
 * runs, in the kernel as here). */
/* One run of seed 000's benchmark shape (8 pinned threads, 200 ms apart, 1 MiB areas) on
 * epyc-9654-2s under `algo`: its bursts, how many used another cid than the thread's first,
 * how many used cid 0 or 1, and how many scans the mm saw. */
typedef struct whole_run {
    uint32_t bursts;
    int changed;
    int low;
    int32_t nr_scans;
} whole_run;

static whole_run run_seed000_shape(const char *algo)
{
    static const char json[] =
        "{\"name\": \"i\", \"duration_ms\": 9700, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"bench\", \"threads\": 8, \"index_by\": \"mm_cid\", \"delay_ms\": 200,"
        " \"area_bytes\": 1048576}]}";
    whole_run r = { 0, 0, 0, -1 };
    test_sim t = test_sim_new("epyc-9654-2s", json, 1, algo);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return r;
    run_and_hash(t.sim, 0, NULL);
    r.bursts = ks_sim_burst_count(t.sim);
    const ks_burst_cost *b = ks_sim_burst_costs(t.sim);
    int32_t first[8];
    for (int i = 0; i < 8; i++)
        first[i] = -1;
    for (uint32_t i = 0; i < r.bursts; i++) {
        int32_t thread = b[i].tid - 1000;
        if (first[thread] < 0)
            first[thread] = b[i].index;
        r.changed += b[i].index != first[thread];
        r.low += b[i].index <= 1;
    }
    ks_mm_cid_mm mm;
    CHECK_EQ_INT(ks_mm_cid_mm_get(t.sim, 1000, &mm), KS_OK);
    r.nr_scans = mm.nr_scans;
    test_sim_free(&t);
    return r;
}

static void intermittent_v613_keeps_each_threads_cid(void)
{
    whole_run old = run_seed000_shape("mm_cid:v6.12");
    whole_run cur = run_seed000_shape("mm_cid:v6.13");
    CHECK(old.bursts >= 40 && cur.bursts >= 40);
    CHECK(old.nr_scans > 5 && cur.nr_scans > 5);            /* the scan did run */
    CHECK(old.changed > (int)old.bursts / 2);               /* threads lose their cid... */
    CHECK(old.low > (int)old.bursts * 3 / 4);               /* ...to cids 0 and 1 */
    CHECK_EQ_INT(cur.changed, 0);                           /* each thread its own, always */
}

/* A tiny LCG for the random-affinity workload (deterministic). */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Processes whose threads are allowed random CPU subsets of classroom-8. */
static void random_affinity_workload(char *out, size_t cap, uint32_t seed)
{
    size_t n = (size_t)snprintf(out, cap, "{\"name\": \"rand\", \"duration_ms\": 400, \"processes\": [");
    for (int p = 0; p < 6; p++) {
        char cpus[64] = "";
        size_t k = 0;
        uint32_t mask = 0;
        while (!mask)
            mask = lcg(&seed) & 0xff;
        for (int c = 0; c < 8; c++)
            if (mask & (1u << c))
                k += (size_t)snprintf(cpus + k, sizeof cpus - k, "%s%d", k ? ", " : "", c);
        if (p % 3 == 0)
            n += (size_t)snprintf(out + n, cap - n, "%s{\"kind\": \"pipe_pairs\", \"comm\": \"pp%d\","
                " \"groups\": 1, \"pairs_per_group\": %u, \"messages\": 400, \"work_us\": %u,"
                " \"cpus\": [%s]}", p ? ", " : "", p, 1 + lcg(&seed) % 3, 20 + lcg(&seed) % 3000, cpus);
        else if (p % 3 == 1)
            n += (size_t)snprintf(out + n, cap - n, "%s{\"kind\": \"intermittent\", \"comm\": \"in%d\","
                " \"threads\": %u, \"placement\": \"free\", \"cpus\": [%s], \"index_by\": \"mm_cid\","
                " \"delay_ms\": %u, \"area_bytes\": 262144}", p ? ", " : "", p, 2 + lcg(&seed) % 6,
                cpus, lcg(&seed) % 30);
        else
            n += (size_t)snprintf(out + n, cap - n, "%s{\"kind\": \"periodic_rt\", \"comm\": \"rt%d\","
                " \"threads\": %u, \"prio\": 40, \"period_us\": 5000, \"runtime_us\": %u,"
                " \"cpus\": [%s]}", p ? ", " : "", p, 1 + lcg(&seed) % 4, 100 + lcg(&seed) % 4000,
                cpus);
    }
    snprintf(out + n, cap - n, "]}");
}

/* Steps to the end (or max events), checking the scheduler's and the allocator's
 * invariants and every rseq_update's cid after each event; adds path counts to paths. */
static uint64_t run_all_checked(const char *preset, const char *json, const char *algo,
                                uint64_t max_events, int *paths)
{
    test_sim t = test_sim_new(preset, json, 7, algo);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return 0;
    ks_event ev;
    int32_t produced;
    uint64_t n = 0;
    char why[160];
    /* 6.13-6.18 keep cids below the mm's allowed CPUs; 6.19 lets them reach max_cids, up to
     * 1.25 x that (its "+25% allowance"), so only nr_cpu_ids bounds them there. */
    int is613 = strstr(algo, "v6.12") == NULL && strstr(algo, "v6.19") == NULL;
    while ((!max_events || n < max_events) && ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
        n++;
        int bad = sim_check_invariants(t.sim, why, sizeof why) ||
                  mm_cid_check_invariants(t.sim, why, sizeof why);
        if (!bad && ev.type == KS_EV_RSEQ_UPDATE) {
            ks_mm_cid_mm mm;
            int32_t cid = ev.u.rseq_update.mm_cid;
            bad = cid < 0 || cid >= 8 || ks_mm_cid_mm_get(t.sim, ev.tgid, &mm) != KS_OK ||
                  (is613 && cid >= mm.nr_cpus_allowed);
            if (bad)
                snprintf(why, sizeof why, "rseq_update of %d reports cid %d", ev.pid, cid);
        }
        if (bad) {
            printf("    %s, %s, step %llu: %s\n", algo, json, (unsigned long long)n, why);
            CHECK(0);
            break;
        }
    }
    const ks_mm_cid_record *r = ks_mm_cid_log_records(t.sim);
    for (uint32_t i = 0; i < ks_mm_cid_log_count(t.sim); i++)
        paths[r[i].path]++;
    test_sim_free(&t);
    return n;
}

/* Seed 000's first invariant, the reason mm_cid exists: running threads of one mm have
 * distinct cids, at every step, in every variant, under random affinity, fork/exit churn
 * and the intermittent benchmark. */
static void cids_unique_at_every_step(void)
{
    static const char churn[] =
        "{\"name\": \"churn\", \"duration_ms\": 300, \"processes\": ["
        " {\"kind\": \"fork_churn\", \"comm\": \"forker\", \"children\": 60, \"child_runtime_us\": 3000,"
        "  \"concurrency\": 6, \"fork_us\": 200},"
        " {\"kind\": \"pipe_pairs\", \"comm\": \"hb\", \"groups\": 2, \"pairs_per_group\": 3,"
        "  \"messages\": 25, \"work_us\": 2500},"
        " {\"kind\": \"intermittent\", \"comm\": \"bench\", \"threads\": 6, \"placement\": \"free\","
        "  \"index_by\": \"mm_cid\", \"delay_ms\": 3, \"area_bytes\": 1048576}]}";
    static const char bench[] =
        "{\"name\": \"bench\", \"duration_ms\": 4000, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"bench\", \"threads\": 8, \"index_by\": \"mm_cid\", \"delay_ms\": 60,"
        " \"area_bytes\": 1048576}]}";
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13", "mm_cid:v6.18", "mm_cid:v6.12+race",
                               "mm_cid:v6.13+race", "mm_cid:v6.19" };
    int paths[KS_MM_CID_PATH_COUNT] = { 0 };
    char json[2048];
    for (int v = 0; v < 6; v++) {
        CHECK(run_all_checked("classroom-8", churn, variants[v], 0, paths) > 1000);
        CHECK(run_all_checked("classroom-8", bench, variants[v], 0, paths) > 300);
        for (uint32_t seed = 1; seed <= 3; seed++) {
            random_affinity_workload(json, sizeof json, seed * 7919u + (uint32_t)v);
            CHECK(run_all_checked("classroom-8", json, variants[v], 20000, paths) > 2000);
        }
    }
    char *file = read_workload_file("seed000-8core-200ms.json");
    CHECK(file != NULL);
    if (file)
        for (int v = 0; v < 3; v++)
            CHECK(run_all_checked("epyc-9654-2s", file, variants[v], 0, paths) > 40);
    free(file);
    /* Every branch ran somewhere (the race ones only with +race). 6.19's hand-overs and its
     * return to per-task mode need threads created or exiting while others run, which these
     * workloads (threads made at t=0, none exiting) lack: tests/mm_cid/test_mm_cid_v619.c
     * replays a hand-written trace whose cids come out right only through both. */
    for (int p = 0; p < KS_MM_CID_PATH_COUNT; p++) {
        if (p == KS_MM_CID_HANDOVER || p == KS_MM_CID_MODE_PER_TASK)
            continue;
        if (!paths[p])
            printf("    path %s never ran\n", ks_mm_cid_path_name(p));
        CHECK(paths[p] > 0);
    }
}

/* ---- determinism, seeking, snapshots, views -------------------------------------------- */

static const char busy[] =
    "{\"name\": \"busy\", \"duration_ms\": 1500, \"processes\": ["
    " {\"kind\": \"fork_churn\", \"comm\": \"forker\", \"children\": 40, \"child_runtime_us\": 3000,"
    "  \"concurrency\": 4, \"fork_us\": 300},"
    " {\"kind\": \"pipe_pairs\", \"comm\": \"hb\", \"groups\": 1, \"pairs_per_group\": 3,"
    "  \"messages\": 400, \"work_us\": 2500},"
    " {\"kind\": \"intermittent\", \"comm\": \"bench\", \"threads\": 6, \"placement\": \"free\","
    "  \"index_by\": \"mm_cid\", \"delay_ms\": 20, \"area_bytes\": 1048576}]}";

/* What a view shows of one process: mm scalars, masks, per-CPU table. */
typedef struct view_copy {
    ks_mm_cid_mm mm;
    uint8_t cidmask[1], allowed[1];
    ks_mm_cid_pcpu pcpu[8];
} view_copy;

static int same_view(const view_copy *a, const view_copy *b)
{
    return memcmp(&a->mm, &b->mm, sizeof a->mm) == 0 && a->cidmask[0] == b->cidmask[0] &&
           a->allowed[0] == b->allowed[0] && memcmp(a->pcpu, b->pcpu, sizeof a->pcpu) == 0;
}

static view_copy copy_view(ks_sim *sim, int32_t tgid)
{
    view_copy v;
    memset(&v, 0, sizeof v);
    CHECK_EQ_INT(ks_mm_cid_mm_get(sim, tgid, &v.mm), KS_OK);
    CHECK_EQ_INT(ks_mm_cid_mask_get(sim, tgid, KS_MM_CID_MASK_CIDMASK, v.cidmask, 1), KS_OK);
    CHECK_EQ_INT(ks_mm_cid_mask_get(sim, tgid, KS_MM_CID_MASK_CPUS_ALLOWED, v.allowed, 1), KS_OK);
    CHECK_EQ_INT(ks_mm_cid_pcpu_get(sim, tgid, v.pcpu, 8), KS_OK);
    return v;
}

/* The intermittent process's tgid in `busy`: its first task's tid. */
static int32_t bench_tgid(ks_sim *sim)
{
    const ks_sim_frame *f = ks_sim_frame_get(sim);
    const ks_sim_task *tasks = (const ks_sim_task *)((const char *)f + f->tasks_off);
    for (int32_t i = 0; i < f->nr_tasks; i++)
        if (strcmp(tasks[i].comm, "bench") == 0)
            return tasks[i].tgid;
    return -1;
}

static void same_seed_same_stream_and_variants_differ(void)
{
    uint64_t h[2][2];
    const char *variants[] = { "mm_cid:v6.12", "mm_cid:v6.13" };
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 2; i++) {
            test_sim t = test_sim_new("classroom-8", busy, 5, variants[v]);
            CHECK_EQ_INT(t.status, KS_OK);
            h[v][i] = run_and_hash(t.sim, 0, NULL);
            test_sim_free(&t);
        }
    CHECK(h[0][0] == h[0][1]);
    CHECK(h[1][0] == h[1][1]);
    CHECK(h[0][0] != h[1][0]);                              /* the cids differ, so do rseq_updates */
    test_sim none = test_sim_new("classroom-8", busy, 5, NULL);
    CHECK(run_and_hash(none.sim, 0, NULL) != h[1][0]);
    ks_mm_cid_mm mm;
    CHECK_EQ_INT(ks_mm_cid_mm_get(none.sim, bench_tgid(none.sim), &mm), KS_ERR_NOT_FOUND);
    CHECK_EQ_INT(ks_mm_cid_log_count(none.sim), 0);
    test_sim_free(&none);
}

static void seek_and_snapshot_restore_the_allocator_exactly(void)
{
    const char *variants[] = { "mm_cid:v6.12+race", "mm_cid:v6.13", "mm_cid:v6.18" };
    for (int v = 0; v < 3; v++) {
        test_sim t = test_sim_new("classroom-8", busy, 9, variants[v]);
        CHECK_EQ_INT(t.status, KS_OK);
        run_and_hash(t.sim, 3000, NULL);
        int32_t tgid = bench_tgid(t.sim);
        view_copy at3000 = copy_view(t.sim, tgid);
        uint32_t nlog = ks_mm_cid_log_count(t.sim);
        uint32_t size = ks_sim_snapshot_size(t.sim);
        uint8_t *snap = malloc(size);
        CHECK_EQ_INT(ks_sim_snapshot_save(t.sim, snap, size), KS_OK);
        uint64_t n_rest;
        uint64_t h_rest = run_and_hash(t.sim, 0, &n_rest);
        uint32_t nlog_end = ks_mm_cid_log_count(t.sim);
        CHECK(nlog_end > nlog);
        ks_mm_cid_record *log_end = malloc((size_t)nlog_end * sizeof *log_end);
        memcpy(log_end, ks_mm_cid_log_records(t.sim), (size_t)nlog_end * sizeof *log_end);

        /* Seek back: the views and the log are as they were at step 3000. */
        CHECK_EQ_INT(ks_sim_seek(t.sim, 3000), KS_OK);
        view_copy back = copy_view(t.sim, tgid);
        CHECK(same_view(&at3000, &back));
        CHECK_EQ_INT(ks_mm_cid_log_count(t.sim), nlog);
        CHECK_EQ_INT(ks_mm_cid_log_first_seq(t.sim), 0);
        /* Seeking forward (through later checkpoints) finds the whole log again... */
        CHECK_EQ_INT(ks_sim_seek(t.sim, 3000 + n_rest), KS_OK);
        CHECK_EQ_INT(ks_mm_cid_log_count(t.sim), nlog_end);
        CHECK(memcmp(log_end, ks_mm_cid_log_records(t.sim), (size_t)nlog_end * sizeof *log_end) == 0);
        /* ...and so does stepping forward: the same stream, the same log, record for record. */
        CHECK_EQ_INT(ks_sim_seek(t.sim, 3000), KS_OK);
        CHECK_EQ_INT(ks_mm_cid_log_count(t.sim), nlog);
        CHECK(run_and_hash(t.sim, 0, NULL) == h_rest);
        CHECK_EQ_INT(ks_mm_cid_log_count(t.sim), nlog_end);
        CHECK(memcmp(log_end, ks_mm_cid_log_records(t.sim), (size_t)nlog_end * sizeof *log_end) == 0);

        /* A snapshot restored into a fresh simulation continues identically; its log
         * starts at the snapshot's record number. */
        test_sim u = test_sim_new("classroom-8", busy, 9, variants[v]);
        CHECK_EQ_INT(ks_sim_snapshot_restore(u.sim, snap, size), KS_OK);
        view_copy restored = copy_view(u.sim, tgid);
        CHECK(same_view(&at3000, &restored));
        uint64_t n_u;
        CHECK(run_and_hash(u.sim, 0, &n_u) == h_rest);
        CHECK_EQ_INT(n_u, n_rest);
        CHECK_EQ_INT(ks_mm_cid_log_first_seq(u.sim), nlog);
        CHECK_EQ_INT(ks_mm_cid_log_count(u.sim), nlog_end - nlog);
        CHECK(memcmp(log_end + nlog, ks_mm_cid_log_records(u.sim),
                     (size_t)(nlog_end - nlog) * sizeof *log_end) == 0);
        /* Another variant's snapshot does not fit. */
        test_sim w = test_sim_new("classroom-8", busy, 9, v ? "mm_cid:v6.12" : "mm_cid:v6.13");
        CHECK(ks_sim_snapshot_restore(w.sim, snap, size) != KS_OK);
        free(log_end);
        free(snap);
        test_sim_free(&t);
        test_sim_free(&u);
        test_sim_free(&w);
    }
}

static void views_show_the_data_structure(void)
{
    script sc = script_new("mm_cid:v6.13", pinned4);
    run_on(&sc, 0, 0);
    run_on(&sc, 1, 1);
    at_ms(&sc, 5);
    idle(&sc, 1);
    view_copy v = copy_view(sc.s, 1000);
    CHECK_EQ_INT(v.mm.tgid, 1000);
    CHECK_EQ_INT(v.mm.variant, KS_MM_CID_V6_13);
    CHECK_EQ_INT(v.mm.nr_cpu_ids, 8);
    CHECK_EQ_INT(v.mm.nr_cpus_allowed, 4);
    CHECK_EQ_INT(v.mm.max_nr_cid, 2);
    CHECK_EQ_INT(v.mm.mm_users, 4);
    CHECK_EQ_INT(v.mm.cidmask_weight, 2);
    CHECK_EQ_INT(v.mm.next_scan_ns, 100 * MS);
    CHECK_EQ_INT(v.cidmask[0], 0x03);
    CHECK_EQ_INT(v.allowed[0], 0x0f);
    CHECK_EQ_INT(v.pcpu[0].cid, 0);
    CHECK_EQ_INT(v.pcpu[0].running_tid, 1000);
    CHECK_EQ_INT(v.pcpu[1].cid, 1);
    CHECK_EQ_INT(v.pcpu[1].recent_cid, 1);
    CHECK_EQ_INT(v.pcpu[1].running_tid, -1);
    CHECK_EQ_INT(v.pcpu[1].time_ns, 5 * MS);
    CHECK_EQ_INT(v.pcpu[2].cid, -1);
    uint8_t small[1];
    ks_mm_cid_pcpu rows[4];
    CHECK_EQ_INT(ks_mm_cid_mask_get(sc.s, 1000, KS_MM_CID_MASK_CIDMASK, small, 0), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_mm_cid_pcpu_get(sc.s, 1000, rows, 4), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_mm_cid_mm_get(sc.s, 4242, &v.mm), KS_ERR_NOT_FOUND);
    const ks_mm_cid_record *r = ks_mm_cid_log_records(sc.s);
    CHECK_EQ_INT(ks_mm_cid_log_count(sc.s), 2);
    CHECK_EQ_INT(r[0].path, KS_MM_CID_EXPAND_MAX_NR_CID);
    CHECK_EQ_INT(r[0].tid, 1000);
    CHECK_EQ_INT(r[0].cpu, 0);
    CHECK_EQ_INT(r[0].cid, 0);
    CHECK_EQ_INT(r[1].tid, 1001);
    test_sim_free(&sc.t);

    /* v6.12 has no per-mm union nor max_nr_cid: the views say -1 / zero. */
    sc = script_new("mm_cid:v6.12", pinned4);
    run_on(&sc, 0, 0);
    v = copy_view(sc.s, 1000);
    CHECK_EQ_INT(v.mm.nr_cpus_allowed, -1);
    CHECK_EQ_INT(v.mm.max_nr_cid, -1);
    CHECK_EQ_INT(v.allowed[0], 0);
    CHECK_EQ_INT(v.pcpu[0].recent_cid, -1);
    test_sim_free(&sc.t);

    for (int p = 0; p < KS_MM_CID_PATH_COUNT; p++) {
        CHECK(strcmp(ks_mm_cid_path_name(p), "?") != 0);
        CHECK(strlen(ks_mm_cid_path_help(p)) > 20);
        for (int q = 0; q < p; q++)
            CHECK(strcmp(ks_mm_cid_path_name(p), ks_mm_cid_path_name(q)) != 0);
    }
    CHECK_EQ_STR(ks_mm_cid_path_name(KS_MM_CID_RECENT_CID), "RECENT_CID");
    CHECK_EQ_STR(ks_mm_cid_path_name(KS_MM_CID_PATH_COUNT), "?");
    CHECK_EQ_STR(ks_mm_cid_path_name(-1), "?");

    /* Variant names: unknown ones fail the build of the simulation. */
    const char *good[] = { "mm_cid", "mm_cid:v6.12", "mm_cid:v6.18+race" };
    const char *bad[] = { "mm_cid:v6.14", "mm_cid:v6.13+fast", "mm_cid:6.13" };
    for (int i = 0; i < 3; i++) {
        test_sim t = test_sim_new("classroom-8", pinned4, 1, good[i]);
        CHECK_EQ_INT(t.status, KS_OK);
        test_sim_free(&t);
        t = test_sim_new("classroom-8", pinned4, 1, bad[i]);
        CHECK(t.status != KS_OK);
        test_sim_free(&t);
    }
}

/* ---- bug-injection toggles (the lesson's "what breaks" steps) ----------------------- */

/* "+no_recent_cid": 7e019dc without its recent_cid field. The gap scenario of
 * recent_cid_comes_back_after_a_gap: after > 100 ms idle a thread no longer gets its old cid
 * back; the allocator falls through to the lowest free one (expansion has reached
 * min(nr_cpus_allowed, mm_users) = 4), and no CPU carries a hint. */
static void toggle_no_recent_cid_loses_the_old_cid_after_idle(void)
{
    script sc = script_new("mm_cid:v6.13+no_recent_cid", pinned4);
    int32_t before[3];
    for (int32_t t = 0; t < 3; t++)
        before[t] = run_on(&sc, t, t);
    at_ms(&sc, 1);
    for (int32_t cpu = 0; cpu < 3; cpu++)
        idle(&sc, cpu);
    at_ms(&sc, 150);
    idle_clocks_move(&sc);
    run_on(&sc, 3, 3);
    tick(&sc, 3);
    CHECK_EQ_INT(count_of(&sc, KS_MM_CID_SCAN_DROPPED_OLD), 3);
    int32_t after[3], same = 0;
    for (int32_t t = 2; t >= 0; t--) {
        at_ms(&sc, 160 + t);
        after[t] = run_on(&sc, t, t);
        same += after[t] == before[t];
        CHECK_EQ_INT(last_record(&sc)->path, KS_MM_CID_FIRST_FREE);
        CHECK_EQ_INT(slot(&sc, t)->recent_cid, MM_CID_UNSET);
    }
    CHECK_EQ_INT(after[2], 0);                              /* T2's old cid was 2 */
    CHECK_EQ_INT(before[2], 2);
    CHECK(same < 3);
    CHECK_EQ_INT(count_of(&sc, KS_MM_CID_RECENT_CID), 0);
    check_invariants(&sc);
    test_sim_free(&sc.t);
}

/* The same toggle in a whole run of seed 000's benchmark shape: v6.13 keeps every thread's
 * cid (intermittent_v613_keeps_each_threads_cid); without recent_cid, threads lose theirs. */
static void toggle_no_recent_cid_in_a_whole_run(void)
{
    whole_run kept = run_seed000_shape("mm_cid:v6.13");
    whole_run lost = run_seed000_shape("mm_cid:v6.13+no_recent_cid");
    CHECK(kept.bursts >= 40 && lost.bursts >= 40);
    CHECK_EQ_INT(kept.changed, 0);
    CHECK(lost.changed > 0);
}

/* "+task_nr_cpus_allowed": migrate-to's test from before 7e019dc, on a 6.13 allocator. The
 * scenario of migrate_to_compares_mm_users_with_the_mm_allowed_cpus: threads pinned one per
 * CPU, T1 re-pinned onto CPU 0. With the toggle mm_users 4 >= t->nr_cpus_allowed 1, so CPU 1
 * keeps T1's old cid: two cids for one CPU's work, exactly as v6.12 did. */
static void toggle_task_nr_cpus_allowed_keeps_the_source_cid(void)
{
    script sc = script_new("mm_cid:v6.13+task_nr_cpus_allowed", pinned4);
    for (int32_t t = 0; t < 4; t++) {
        set_affinity(&sc, t, -1);
        set_affinity(&sc, t, t);
    }
    CHECK_EQ_INT(mm_cid_mm_of(state(&sc), 0)->nr_cpus_allowed, 8);
    run_on(&sc, 0, 0);
    int32_t c1 = run_on(&sc, 1, 1);
    at_ms(&sc, 1);
    idle(&sc, 0);
    idle(&sc, 1);
    at_ms(&sc, 10);
    set_affinity(&sc, 1, 0);
    CHECK_EQ_INT(run_on(&sc, 1, 0), slot(&sc, 0)->cid);
    const ks_mm_cid_record *kept = last_of(&sc, KS_MM_CID_MIGRATE_KEPT_SRC);
    CHECK(kept != NULL && last_of(&sc, KS_MM_CID_MIGRATE_SRC_DROPPED) == NULL);
    CHECK(kept && kept->bound == 1 && kept->cid == c1);
    CHECK_EQ_INT(slot(&sc, 1)->cid, c1);
    ks_mm_cid_mm mm;
    CHECK_EQ_INT(ks_mm_cid_mm_get(sc.s, 1000, &mm), KS_OK);
    CHECK_EQ_INT(mm.cidmask_weight, 2);
    /* Only migrate-to changes: the recent_cid hint still works on this run. */
    CHECK_EQ_INT(slot(&sc, 0)->recent_cid, slot(&sc, 0)->cid);
    check_invariants(&sc);
    test_sim_free(&sc.t);
}

/* The same case from a workload file, through the simulator: 4 threads allowed all 8 CPUs
 * pin themselves one per CPU at 0 ms (workload "repin"; the mm's cpus_allowed stays all 8
 * on 6.13+), then thread 1 re-pins onto CPU 0 at 1000 ms and migrates there at its next
 * wakeup. v6.13: mm_users 4 < mm->nr_cpus_allowed 8, so migrate-to takes CPU 1's cid; with
 * "+task_nr_cpus_allowed" 4 >= t->nr_cpus_allowed 1 and CPU 1 keeps it. */
static const char repin_json[] =
    "{\"name\": \"repin\", \"duration_ms\": 4000, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"rseq-bench\", \"threads\": 4, \"placement\": \"free\", \"index_by\": \"mm_cid\","
    " \"delay_ms\": 200, \"order\": \"fixed\", \"loops\": 3, \"repin\": ["
    " {\"thread\": 0, \"at_ms\": 0, \"cpus\": [0]}, {\"thread\": 1, \"at_ms\": 0, \"cpus\": [1]},"
    " {\"thread\": 2, \"at_ms\": 0, \"cpus\": [2]}, {\"thread\": 3, \"at_ms\": 0, \"cpus\": [3]},"
    " {\"thread\": 1, \"at_ms\": 1000, \"cpus\": [0]}]}]}";

static const ks_mm_cid_record *repin_migration(test_sim *t)
{
    ks_event ev;
    int32_t produced = 1;
    while (produced)
        if (ks_sim_step(t->sim, &ev, &produced) != KS_OK)
            return NULL;
    const ks_mm_cid_record *r = ks_mm_cid_log_records(t->sim);
    for (uint32_t i = 0; i < ks_mm_cid_log_count(t->sim); i++)
        if (r[i].tid == 1001 && r[i].other_cpu == 1 && r[i].cpu == 0 &&
            (r[i].path == KS_MM_CID_MIGRATE_KEPT_SRC || r[i].path == KS_MM_CID_MIGRATE_SRC_DROPPED ||
             r[i].path == KS_MM_CID_MIGRATE_TAKEN_FROM_SRC))
            return &r[i];
    return NULL;
}

static void workload_repin_shows_the_migrate_to_toggle(void)
{
    test_sim fixed = test_sim_new("classroom-8", repin_json, 1, "mm_cid:v6.13");
    test_sim old = test_sim_new("classroom-8", repin_json, 1, "mm_cid:v6.13+task_nr_cpus_allowed");
    CHECK_EQ_INT(fixed.status, KS_OK);
    CHECK_EQ_INT(old.status, KS_OK);
    if (fixed.status != KS_OK || old.status != KS_OK)
        return;
    const ks_mm_cid_record *a = repin_migration(&fixed);
    const ks_mm_cid_record *b = repin_migration(&old);
    CHECK(a != NULL && b != NULL);
    if (a && b) {
        CHECK_EQ_INT(a->path, KS_MM_CID_MIGRATE_SRC_DROPPED);
        CHECK_EQ_INT(a->bound, 8);
        CHECK(a->ts_ns >= 1000000000ull);
        CHECK_EQ_INT(b->path, KS_MM_CID_MIGRATE_KEPT_SRC);
        CHECK_EQ_INT(b->bound, 1);
        CHECK_EQ_INT(a->ts_ns, b->ts_ns);
        CHECK_EQ_INT(a->flags & KS_MM_CID_F_TASK_ALLOWED, 0);
        CHECK(b->flags & KS_MM_CID_F_TASK_ALLOWED);
    }
    test_sim_free(&fixed);
    test_sim_free(&old);
}

/* Toggle names: any order, with +race; only on 6.13+; unknown or repeated ones fail. */
static void toggle_names_parse(void)
{
    const char *good[] = { "mm_cid:v6.13+no_recent_cid", "mm_cid:v6.18+task_nr_cpus_allowed",
                           "mm_cid:v6.13+task_nr_cpus_allowed+no_recent_cid+race",
                           "mm_cid:+no_recent_cid" };
    const char *bad[] = { "mm_cid:v6.12+no_recent_cid", "mm_cid:v6.12+task_nr_cpus_allowed",
                          "mm_cid:v6.13+no_recent_cid+no_recent_cid", "mm_cid:v6.13+no_recent",
                          "mm_cid:v6.13+", "mm_cid:v6.13+race+" };
    for (int i = 0; i < 4; i++) {
        test_sim t = test_sim_new("classroom-8", pinned4, 1, good[i]);
        CHECK_EQ_INT(t.status, KS_OK);
        test_sim_free(&t);
    }
    for (int i = 0; i < 6; i++) {
        test_sim t = test_sim_new("classroom-8", pinned4, 1, bad[i]);
        CHECK(t.status != KS_OK);
        test_sim_free(&t);
    }
}

/* Counts a run's rseq_update events and those that report a cid (>= 0, < the CPUs). */
static void count_rseq_cids(ks_sim *sim, int32_t nr_cpus, int32_t *updates, int32_t *with_cid)
{
    ks_event ev;
    int32_t produced;
    *updates = *with_cid = 0;
    while (ks_sim_step(sim, &ev, &produced) == KS_OK && produced) {
        if (ev.type != KS_EV_RSEQ_UPDATE)
            continue;
        (*updates)++;
        if (ev.u.rseq_update.mm_cid >= 0 && ev.u.rseq_update.mm_cid < nr_cpus)
            (*with_cid)++;
    }
}

/* Issue 13: /simulate and `kscope sim` ran seed 000's workloads with "none", so every
 * rseq_update said mm_cid=-1. "auto" runs what a current kernel runs: the 6.18 model
 * when a process registers rseq; none (and no rseq_update) when no process does. */
static void auto_algo_runs_mm_cid_where_rseq_is_registered(void)
{
    const char *files[] = { "seed000-8core-200ms.json", "seed000-librseq-8core-200ms.json" };
    for (int i = 0; i < 2; i++) {
        char *json = read_workload_file(files[i]);
        CHECK(json != NULL);
        if (!json)
            continue;
        test_sim t = test_sim_new("epyc-9654-2s", json, 1, "auto");
        CHECK_EQ_INT(t.status, KS_OK);
        CHECK_EQ_STR(ks_sim_algo_name(t.sim), "mm_cid:v6.18");
        int32_t updates, with_cid;
        count_rseq_cids(t.sim, 8, &updates, &with_cid);
        CHECK(updates > 0);
        CHECK_EQ_INT(with_cid, updates);            /* every rseq_update carries a real cid */
        test_sim_free(&t);
        /* "none" stays what it says: a kernel without CONFIG_SCHED_MM_CID */
        t = test_sim_new("epyc-9654-2s", json, 1, "none");
        CHECK_EQ_STR(ks_sim_algo_name(t.sim), "none");
        count_rseq_cids(t.sim, 8, &updates, &with_cid);
        CHECK(updates > 0);
        CHECK_EQ_INT(with_cid, 0);
        test_sim_free(&t);
        free(json);
    }
    static const char no_rseq[] =
        "{\"name\": \"no-rseq\", \"duration_ms\": 300, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"old-glibc\", \"rseq\": false, \"threads\": 4, \"cpus\": [0, 1, 2, 3]}]}";
    test_sim t = test_sim_new("classroom-8", no_rseq, 1, "auto");
    CHECK_EQ_INT(t.status, KS_OK);
    CHECK_EQ_STR(ks_sim_algo_name(t.sim), "none");
    int32_t updates, with_cid;
    count_rseq_cids(t.sim, 8, &updates, &with_cid);
    CHECK_EQ_INT(updates, 0);
    test_sim_free(&t);
    /* an explicit model is run as named */
    t = test_sim_new("classroom-8", pinned4, 1, "mm_cid:v6.12");
    CHECK_EQ_STR(ks_sim_algo_name(t.sim), "mm_cid:v6.12");
    test_sim_free(&t);
}

const test_case mm_cid_tests[] = {
    { "mm_cid: algo auto runs the 6.18 model where a process registers rseq (seed 000), none elsewhere",
      auto_algo_runs_mm_cid_where_rseq_is_registered },
    { "mm_cid: a CPU keeps its cid, the scan drops it after 100 ms unused",
      cid_stays_with_its_cpu_then_expires_after_100ms },
    { "mm_cid: recent_cid comes back after a gap > 100 ms (6.13), lowest free (6.12)",
      recent_cid_comes_back_after_a_gap },
    { "mm_cid: expansion up to min(nr_cpus_allowed, mm_users), then first free",
      expansion_up_to_min_of_cpus_and_users_then_first_free },
    { "mm_cid: racing a remote clear stays below nr_cpus_allowed (6.13), not 6.12",
      race_with_remote_clear_stays_below_nr_cpus_allowed },
    { "mm_cid: the race in a whole run (+race)", race_in_a_whole_run },
    { "mm_cid: migrate-to compares mm_users with the mm's allowed CPUs",
      migrate_to_compares_mm_users_with_the_mm_allowed_cpus },
    { "mm_cid: 6.18 shrinks max_nr_cid when threads exit", v618_shrinks_max_nr_cid_when_threads_exit },
    { "mm_cid: intermittent benchmark, 6.13 threads keep their cid",
      intermittent_v613_keeps_each_threads_cid },
    { "mm_cid: cids unique among running threads at every step", cids_unique_at_every_step },
    { "mm_cid: same seed same stream, variants differ",
      same_seed_same_stream_and_variants_differ },
    { "mm_cid: seek and snapshots restore the allocator exactly",
      seek_and_snapshot_restore_the_allocator_exactly },
    { "mm_cid: views show the data structure", views_show_the_data_structure },
    { "mm_cid: toggle +no_recent_cid: a thread back after idle loses its cid",
      toggle_no_recent_cid_loses_the_old_cid_after_idle },
    { "mm_cid: toggle +no_recent_cid in a whole benchmark run", toggle_no_recent_cid_in_a_whole_run },
    { "mm_cid: toggle +task_nr_cpus_allowed: the source CPU keeps the migrated cid",
      toggle_task_nr_cpus_allowed_keeps_the_source_cid },
    { "workload repin: the migrate-to toggle changes a run (dropped vs kept source cid)",
      workload_repin_shows_the_migrate_to_toggle },
    { "mm_cid: toggle names parse", toggle_names_parse },
    { 0 },
};
