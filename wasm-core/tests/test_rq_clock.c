/*
 * The per-CPU rq clock (src/sched/rq.c): rq->clock moves only when the kernel calls
 * update_rq_clock() for that CPU - at its switches, at a wakeup or migration enqueued on
 * it, at its own ticks while it runs something, and for an idle CPU at the nohz
 * blocked-load update (newly idle CPU, or a busy CPU's tick kick, at most every 32 ms).
 * Checked on the trace replay (src/sched/replay.c), where each trace event says which
 * clock moves, and on the simulator (src/sched/core.c).
 */
#include <string.h>

#include "check.h"
#include "hand_trace.h"
#include "sim_test_util.h"
#include "../src/sched/replay.h"
#include "../src/sched/sim_internal.h"

#define MS 1000000ull

/* A replay of a kernel's trace (no tick grid) on 4 CPUs, fed t. */
static sched_replay *replay_kernel(const hand *t)
{
    const char *variant = NULL;
    const ks_sched_ops *ops = sched_ops_find(sched_ops_auto_rseq(), &variant); /* the registry's cid model */
    sched_replay *r = NULL;
    CHECK(ops != NULL);
    CHECK_EQ_INT(replay_new(ops, variant, 4, 250, NULL, &r), KS_OK);
    if (!r)
        return NULL;
    replay_set_tick_grid(r, 0);
    CHECK_EQ_INT(replay_feed(r, t->ev, (uint32_t)t->n), KS_OK);
    return r;
}

static uint64_t clock_of(sched_replay *r, int cpu)
{
    return sched_rq_clock(replay_host(r), cpu);
}

/* update_rq_clock() in __schedule(), ttwu (the target's rq) and a migration's enqueue on
 * dst; an idle CPU's clock does not follow time. */
static void clock_moves_at_switches_wakeups_and_migrations_only(void)
{
    hand t = { .n = 0 };
    hand_switch(&t, 1 * MS, 0, 0, 101, 100);
    hand_switch(&t, 3 * MS, 0, 101, 0, 100);                  /* CPU 0 idles from 3 ms */
    hand_switch(&t, 200 * MS, 1, 0, 102, 100);                /* nothing touches CPU 0 for 197 ms */
    sched_replay *r = replay_kernel(&t);
    if (!r)
        return;
    CHECK_EQ_INT(clock_of(r, 0), 3 * MS);
    CHECK_EQ_INT(clock_of(r, 1), 200 * MS);
    CHECK_EQ_INT(clock_of(r, 2), 3 * MS);       /* idle: only CPU 0's newly idle update */
    replay_free(r);

    hand_wakeup(&t, 250 * MS, 1, 102, 101, 0, 100);       /* recorded on CPU 1, enqueued on CPU 0 */
    hand_migrate(&t, 260 * MS, 1, 102, 103, 3, 2, 100);   /* 103 moves from CPU 3 to CPU 2 */
    r = replay_kernel(&t);
    if (!r)
        return;
    CHECK_EQ_INT(clock_of(r, 0), 250 * MS);
    CHECK_EQ_INT(clock_of(r, 2), 260 * MS);
    /* idle CPU 3 moved only with CPU 1's tick kicks (at most every 32 ms from 204 ms) */
    CHECK(clock_of(r, 3) >= 204 * MS && clock_of(r, 3) < 260 * MS);
    replay_free(r);
}

/* nohz_newidle_balance -> nohz_run_idle_balance: a CPU going idle refreshes every idle
 * CPU's clock, at most once per 32 ms (nohz.next_blocked, LOAD_AVG_PERIOD). */
static void newly_idle_cpu_moves_idle_clocks_every_32ms(void)
{
    hand t = { .n = 0 };
    hand_switch(&t, 1 * MS, 0, 0, 101, 100);
    hand_switch(&t, 2 * MS, 0, 101, 0, 100);                  /* update at 2 ms; next not before 34 ms */
    hand_switch(&t, 40 * MS, 1, 0, 102, 100);
    hand_switch(&t, 41 * MS, 1, 102, 0, 100);                 /* due: CPUs 0, 2, 3 move to 41 ms */
    hand_switch(&t, 50 * MS, 1, 0, 102, 100);
    hand_switch(&t, 51 * MS, 1, 102, 0, 100);                 /* 10 ms later: not due, CPU 0 stays */
    sched_replay *r = replay_kernel(&t);
    if (!r)
        return;
    CHECK_EQ_INT(clock_of(r, 0), 41 * MS);
    CHECK_EQ_INT(clock_of(r, 2), 41 * MS);
    CHECK_EQ_INT(clock_of(r, 3), 41 * MS);
    CHECK_EQ_INT(clock_of(r, 1), 51 * MS);      /* its own switch */
    CHECK_EQ_INT(replay_host(r)->core.nohz_next_blocked, 73 * MS);
    replay_free(r);
}

/* Replaying a kernel, a CPU that runs a task ticks (untraced): its ticks kick the same
 * update (nohz_balancer_kick), so an idle CPU's clock lags by at most ~32 ms + a tick
 * while another CPU stays busy. */
static void busy_cpu_ticks_move_idle_clocks(void)
{
    hand t = { .n = 0 };
    hand_switch(&t, 1 * MS, 0, 0, 101, 100);
    hand_switch(&t, 3 * MS, 0, 101, 0, 100);                  /* CPU 0 idles from 3 ms */
    hand_switch(&t, 10 * MS, 1, 0, 102, 100);                 /* CPU 1 busy from 10 ms */
    hand_wakeup(&t, 150 * MS, 1, 102, 103, 1, 100);       /* any event: the replay catches up */
    sched_replay *r = replay_kernel(&t);
    if (!r)
        return;
    uint64_t c0 = clock_of(r, 0);
    CHECK(c0 > 150 * MS - 36 * MS && c0 <= 150 * MS);
    CHECK(replay_host(r)->core.nohz_next_blocked > 150 * MS - 4 * MS);
    replay_free(r);
    /* no CPU busy: nothing ticks, the idle clock stands still */
    t.n = 2;
    hand_wakeup(&t, 150 * MS, 0, 0, 103, 2, 100);
    r = replay_kernel(&t);
    if (!r)
        return;
    CHECK_EQ_INT(clock_of(r, 0), 3 * MS);
    CHECK_EQ_INT(clock_of(r, 2), 150 * MS);
    replay_free(r);
}

/* The simulator: a CPU's clock never runs ahead of time, is its switch time right after a
 * switch, and an idle CPU's clock stands still between the nohz blocked-load updates. */
static void simulator_clock_follows_the_same_rules(void)
{
    static const char json[] =
        "{\"name\": \"i\", \"duration_ms\": 1500, \"processes\": [{\"kind\": \"intermittent\","
        " \"comm\": \"bench\", \"threads\": 4, \"cpus\": [0, 1, 2, 3], \"index_by\": \"cpu\","
        " \"delay_ms\": 200}]}";
    test_sim t = test_sim_new("classroom-8", json, 1, "auto");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    ks_sim *s = t.sim;
    ks_event ev;
    int32_t produced;
    int ahead = 0, switch_stale = 0;
    uint64_t max_idle_lag = 0;
    while (ks_sim_step(s, &ev, &produced) == KS_OK && produced) {
        for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
            uint64_t clock = sched_rq_clock(s, cpu);
            ahead += clock > s->core.now;
            if (s->rqs[cpu].curr < 0 && clock && s->core.now - clock > max_idle_lag)
                max_idle_lag = s->core.now - clock;
        }
        if (ev.type == KS_EV_SCHED_SWITCH && sched_rq_clock(s, ev.cpu) != ev.ts_ns)
            switch_stale++;
    }
    CHECK_EQ_INT(ahead, 0);
    CHECK_EQ_INT(switch_stale, 0);
    /* idle clocks lag, but the machine's housekeeping (SIM_HOUSEKEEPING, rq.c) runs the
     * nohz blocked-load update every 32 ms, at a 4 ms tick: never by more than 36 ms */
    CHECK(max_idle_lag > 4 * MS && max_idle_lag <= 36 * MS);
    test_sim_free(&t);
}

const test_case rq_clock_tests[] = {
    { "rq clock: moves at switches, wakeups and migrations onto the CPU, not with time",
      clock_moves_at_switches_wakeups_and_migrations_only },
    { "rq clock: a newly idle CPU moves the idle CPUs' clocks, at most every 32 ms",
      newly_idle_cpu_moves_idle_clocks_every_32ms },
    { "rq clock: replaying a kernel, a busy CPU's ticks move idle clocks; none busy, none move",
      busy_cpu_ticks_move_idle_clocks },
    { "rq clock: the simulator follows the same rules", simulator_clock_follows_the_same_rules },
    { 0 },
};
