/*
 * src/sched: the hook families of ks_sched_ops that no model in the tree uses yet,
 * driven through test ops tables: RT placement (find_lowest_rq, for the RT priority map; the
 * RT state hooks rt_prio_changed and rt_overload_changed), the
 * allocator family (kmem_cache_alloc / kmem_cache_free, for SLUB per-CPU sheaf caches), and the
 * generic model view (ks_sim_model_view_get).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sim_test_util.h"
#include "../src/sched/replay.h"
#include "../src/sched/sim_internal.h"

/* Periodic SCHED_FIFO threads, more than CPUs at times: select_task_rq_rt and
 * push_rt_task look for lower-priority CPUs. */
static const char rt_json[] =
    "{\"name\": \"rt\", \"duration_ms\": 40, \"processes\": ["
    " {\"kind\": \"periodic_rt\", \"comm\": \"cyclic\", \"threads\": 12, \"prio\": 50,"
    "  \"period_us\": 1000, \"runtime_us\": 400},"
    " {\"kind\": \"periodic_rt\", \"comm\": \"watchdog\", \"threads\": 3, \"prio\": 90,"
    "  \"period_us\": 2000, \"runtime_us\": 300}]}";

typedef struct lowest_state {
    int32_t mode;           /* 0: SCHED_LOWEST_RQ_DEFAULT, 1: the core's answer, 2: -1, 3: bad */
    int32_t calls;
} lowest_state;

static int32_t test_lowest(void *st, ks_sim *sim, int32_t task, int32_t prev)
{
    lowest_state *s = st;
    s->calls++;
    CHECK(sched_task_policy(sim, task) == KS_SCHED_FIFO);
    switch (s->mode) {
    case 0: return SCHED_LOWEST_RQ_DEFAULT;
    case 1: return sched_find_lowest_rq(sim, task, prev);
    case 2: return -1;
    default: return sched_nr_cpus(sim) + 5;      /* out of range: the core's own search */
    }
}

static const ks_sched_ops lowest_ops = { .name = "lowest", .find_lowest_rq = test_lowest };

/* Runs rt_json on classroom-8, the test ops plugged in (NULL: "none"); hash + migrations. */
static uint64_t run_rt(const ks_sched_ops *ops, void *state, uint64_t *migrations)
{
    test_sim t = test_sim_new("classroom-8", rt_json, 3, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return 0;
    if (ops) {
        t.sim->ops = ops;
        t.sim->algo = state;
        sim_checkpoints_free(t.sim);
        t.sim->ckpt_bytes = 0;
        CHECK_EQ_INT(sim_checkpoint_take(t.sim), KS_OK);
    }
    uint64_t n = 0;
    uint64_t h = run_and_hash(t.sim, 0, &n);
    ks_sim_stats st;
    ks_sim_get_stats(t.sim, &st);
    *migrations = st.events_by_type[KS_EV_SCHED_MIGRATE_TASK];
    test_sim_free(&t);
    return h;
}

static void find_lowest_rq_hook_steers_rt_placement(void)
{
    uint64_t m_none, m;
    uint64_t none = run_rt(NULL, NULL, &m_none);
    CHECK(m_none > 0);                           /* RT placement moved tasks */
    /* The hook that asks for the core's search, or answers what it would: the same run. */
    for (int32_t mode = 0; mode <= 3; mode += (mode == 1 ? 2 : 1)) {
        lowest_state st = { .mode = mode };
        CHECK(run_rt(&lowest_ops, &st, &m) == none);
        CHECK(st.calls > 0);
        CHECK_EQ_INT(m, m_none);
    }
    /* "No CPU runs lower-priority work": RT tasks stay where they woke, no push (only
     * the pull side, which scans overloaded CPUs, moves them): another run. */
    lowest_state never = { .mode = 2 };
    uint64_t h = run_rt(&lowest_ops, &never, &m);
    CHECK(never.calls > 0);
    CHECK(h != none);
}

/* ---- the allocator family ---------------------------------------------------------- */

typedef struct alloc_state {
    int32_t allocs, frees, next_id;
    int32_t last_cpu, last_task, last_cache, last_object;
    uint32_t last_size;
} alloc_state;

static int32_t test_alloc(void *st, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                          uint32_t size)
{
    alloc_state *a = st;
    CHECK(cpu >= 0 && cpu < sched_nr_cpus(sim));
    a->allocs++;
    a->last_cpu = cpu, a->last_task = task, a->last_cache = cache, a->last_size = size;
    return a->next_id++;
}

static void test_free(void *st, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                      int32_t object)
{
    alloc_state *a = st;
    (void)sim;
    a->frees++;
    a->last_cpu = cpu, a->last_task = task, a->last_cache = cache, a->last_object = object;
}

static const ks_sched_ops alloc_ops = {
    .name = "alloc", .kmem_cache_alloc = test_alloc, .kmem_cache_free = test_free,
};

static void allocator_hooks_get_the_cpu_task_and_cache(void)
{
    test_sim t = test_sim_new("classroom-8", rt_json, 1, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    /* "none" keeps no objects */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 0, 0, 64), -1);
    sched_kmem_cache_free(t.sim, 0, 0, 0, 0);

    alloc_state a = { .next_id = 100 };
    t.sim->ops = &alloc_ops;
    t.sim->algo = &a;
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 3, 1, 2, 192), 100);
    CHECK_EQ_INT(a.last_cpu, 3);
    CHECK_EQ_INT(a.last_task, 1);
    CHECK_EQ_INT(a.last_cache, 2);
    CHECK_EQ_INT(a.last_size, 192);
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 5, -1, 2, 192), 101);   /* from the idle task */
    sched_kmem_cache_free(t.sim, 6, 1, 2, 100);                         /* a remote free */
    CHECK_EQ_INT(a.frees, 1);
    CHECK_EQ_INT(a.last_cpu, 6);
    CHECK_EQ_INT(a.last_object, 100);
    /* bad arguments never reach the model */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 8, 1, 2, 64), -1);       /* no CPU 8 */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, -1, 1, 2, 64), -1);
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 1, -1, 64), -1);      /* no cache */
    CHECK_EQ_INT(sched_kmem_cache_alloc(t.sim, 0, 100000, 0, 64), -1);  /* no such task */
    sched_kmem_cache_free(t.sim, 0, 1, 2, -1);
    sched_kmem_cache_free(t.sim, 9, 1, 2, 100);
    CHECK_EQ_INT(a.allocs, 2);
    CHECK_EQ_INT(a.frees, 1);
    test_sim_free(&t);
}

/* ---- the trace-replay host drives any model ------------------------------------------ */

typedef struct replay_counts {
    int32_t forks, exits, switches, migrates, allowed, ticks, max_tasks_seen;
    int32_t grows, client_grows, gaps, events, rseq_seen;
    int32_t last_next;
} replay_counts;

static int32_t rc_init(ks_sim *sim, const char *variant, void **state)
{
    (void)sim;
    static replay_counts counts;
    memset(&counts, 0, sizeof counts);
    *state = &counts;
    return strcmp(variant, "bad") == 0 ? KS_ERR_NOT_FOUND : KS_OK;
}
static void rc_fork(void *st, ks_sim *sim, int32_t parent, int32_t child)
{
    (void)parent;
    replay_counts *c = st;
    c->forks++;
    CHECK(child < sched_max_tasks(sim));
}
static void rc_exit(void *st, ks_sim *sim, int32_t task)
{
    (void)sim, (void)task;
    ((replay_counts *)st)->exits++;
}
static void rc_switch(void *st, ks_sim *sim, int32_t prev, int32_t next, int32_t cpu)
{
    (void)sim, (void)prev, (void)cpu;
    ((replay_counts *)st)->switches++;
    ((replay_counts *)st)->last_next = next;
}
static void rc_migrate(void *st, ks_sim *sim, int32_t task, int32_t from, int32_t to)
{
    (void)sim, (void)task, (void)from, (void)to;
    ((replay_counts *)st)->migrates++;
}
static void rc_allowed(void *st, ks_sim *sim, int32_t task)
{
    (void)sim, (void)task;
    ((replay_counts *)st)->allowed++;
}
static void rc_tick(void *st, ks_sim *sim, int32_t cpu, int32_t curr)
{
    CHECK_EQ_INT(sched_cpu_curr(sim, cpu), curr);
    ((replay_counts *)st)->ticks++;
}
static int32_t rc_grow(void *st, ks_sim *sim, int32_t old_tasks, int32_t old_mms)
{
    replay_counts *c = st;
    CHECK(sched_max_tasks(sim) > old_tasks || sched_max_mms(sim) > old_mms);
    c->grows++;
    c->max_tasks_seen = sched_max_tasks(sim);
    return 0;
}

static const ks_sched_ops replay_ops = {
    .name = "replayed", .init = rc_init, .task_fork = rc_fork, .task_exit = rc_exit,
    .switch_to = rc_switch, .migrate = rc_migrate, .set_cpus_allowed = rc_allowed,
    .tick = rc_tick, .grow = rc_grow,
};

static int32_t client_grow(void *ctx, int32_t max_tasks, int32_t max_mms, int32_t old_tasks,
                           int32_t old_mms)
{
    (void)max_tasks, (void)max_mms, (void)old_tasks, (void)old_mms;
    ((replay_counts *)ctx)->client_grows++;
    return 0;
}
static void client_gap(void *ctx, sched_replay *r, int32_t believed, int32_t named, int32_t cpu)
{
    (void)r, (void)believed, (void)named, (void)cpu;
    ((replay_counts *)ctx)->gaps++;
}
static void client_event(void *ctx, sched_replay *r, const ks_event *ev)
{
    replay_counts *c = ctx;
    c->events++;
    if (ev->type == KS_EV_RSEQ_UPDATE) {
        int32_t t = replay_task_of_pid(r, ev->pid);
        CHECK(t >= 0);
        c->rseq_seen += sched_cpu_curr(replay_host(r), ev->cpu) == t;   /* current where it ran */
    }
}

static ks_event ev_at(uint64_t ts, int32_t cpu, int32_t pid, int32_t tgid, uint16_t type)
{
    ks_event e = { .ts_ns = ts, .type = type, .cpu = cpu, .pid = pid, .tgid = tgid };
    snprintf(e.comm, sizeof e.comm, "t%d", pid);
    return e;
}

static ks_event ev_switch(uint64_t ts, int32_t cpu, int32_t prev, int32_t next, int32_t tgid)
{
    ks_event e = ev_at(ts, cpu, prev, tgid, KS_EV_SCHED_SWITCH);
    e.u.sched_switch.prev_pid = prev;
    e.u.sched_switch.next_pid = next;
    snprintf(e.u.sched_switch.next_comm, sizeof e.u.sched_switch.next_comm, "t%d", next);
    return e;
}

static void replay_host_drives_any_model(void)
{
    replay_counts client_counts = { 0 };
    const replay_client client = { .ctx = &client_counts, .grow = client_grow, .gap = client_gap,
                                   .event = client_event };
    sched_replay *r = NULL;
    CHECK_EQ_INT(replay_new(&replay_ops, "bad", 4, 1000, &client, &r), KS_ERR_NOT_FOUND);
    CHECK(r == NULL);
    CHECK_EQ_INT(replay_new(&replay_ops, "", 0, 1000, &client, &r), KS_ERR_INVALID_ARG);
    client_counts = (replay_counts){ 0 };
    CHECK_EQ_INT(replay_new(&replay_ops, "", 4, 1000, &client, &r), KS_OK);
    if (!r)
        return;
    CHECK_EQ_INT(client_counts.client_grows, 1);        /* sized once at the start */
    replay_counts *model = replay_model(r);
    /* 200 processes fork one thread each on CPU 0 (the tables grow past 64 tasks), each
     * child runs on CPU 1, then exits; one event names a task not believed current
     * (a gap); one migration moves a task across CPUs. 1 ms apart: the 1 kHz grid ticks. */
    ks_event evs[1200];
    uint32_t n = 0;
    uint64_t ts = 1000000;
    evs[n++] = ev_switch(ts, 0, 0, 10, 10);
    for (int32_t i = 0; i < 200; i++) {
        int32_t child = 1000 + i;
        ks_event f = ev_at(ts += 1000000, 0, 10, 10, KS_EV_SCHED_PROCESS_FORK);
        f.u.sched_process_fork.parent_pid = 10;
        f.u.sched_process_fork.child_pid = child;
        evs[n++] = f;
        evs[n++] = ev_switch(ts += 1000, 1, i ? 999 + i : 0, child, child);
        evs[n] = ev_at(ts += 1000, 1, child, child, KS_EV_RSEQ_UPDATE);
        evs[n++].u.rseq_update.mm_cid = -1;
        ks_event x = ev_at(ts += 1000, 1, child, child, KS_EV_SCHED_PROCESS_EXIT);
        x.u.sched_process_exit.pid = child;
        evs[n++] = x;
    }
    evs[n++] = ev_at(ts += 1000, 0, 77, 77, KS_EV_GENERIC);             /* a gap on CPU 0 */
    ks_event m = ev_at(ts += 1000, 0, 77, 77, KS_EV_SCHED_MIGRATE_TASK);
    m.u.sched_migrate_task.pid = 10;
    m.u.sched_migrate_task.orig_cpu = 0;
    m.u.sched_migrate_task.dest_cpu = 2;
    evs[n++] = m;
    CHECK_EQ_INT(replay_feed(r, evs, n), KS_OK);
    const replay_stats *st = replay_stats_get(r);
    CHECK_EQ_INT(st->events, n);
    CHECK_EQ_INT(model->forks, 1 + 200 + 1);         /* pid 10, the children, pid 77 */
    CHECK_EQ_INT(model->exits, 200);
    CHECK_EQ_INT(model->migrates, 1);
    CHECK(model->grows >= 2);                       /* 64 -> 128 -> 256 tasks */
    CHECK(model->max_tasks_seen >= 202);
    CHECK(client_counts.client_grows >= 3);
    CHECK_EQ_INT(st->gaps, 1);
    CHECK_EQ_INT(client_counts.gaps, 1);
    CHECK_EQ_INT(client_counts.events, n);
    CHECK_EQ_INT(client_counts.rseq_seen, 200);
    CHECK_EQ_INT(st->cold_starts, 2);                /* CPUs 0 and 1 */
    CHECK(model->ticks > 100 && (uint64_t)model->ticks == st->ticks);
    CHECK_EQ_INT(st->nr_tasks, 202);
    CHECK_EQ_INT(replay_task_info(r, replay_task_of_pid(r, 1000))->forked, 1);
    CHECK_EQ_INT(replay_task_info(r, replay_task_of_pid(r, 10))->forked, 0);
    /* bad input is counted, not replayed */
    ks_event bad[2] = { ev_at(ts - 5, 0, 10, 10, KS_EV_GENERIC), ev_at(ts + 1, 9, 10, 10, KS_EV_GENERIC) };
    CHECK_EQ_INT(replay_feed(r, bad, 2), KS_OK);
    CHECK_EQ_INT(st->bad_events, 2);
    CHECK_EQ_INT(replay_feed(r, NULL, 1), KS_ERR_INVALID_ARG);
    /* no grid: ticks run only where the client says */
    int32_t ticks = model->ticks;
    replay_set_tick_grid(r, 0);
    ks_event later = ev_switch(ts + 50000000, 3, 0, 10, 10);
    CHECK_EQ_INT(replay_feed(r, &later, 1), KS_OK);
    CHECK_EQ_INT(model->ticks, ticks);
    replay_tick(r, 3, replay_task_of_pid(r, 10));
    CHECK_EQ_INT(model->ticks, ticks + 1);
    replay_free(r);
}

/* ---- task_work: queued by a tick, run on the return to user space ---------------------- */

/* Long warm-up bursts: the ticks find the threads running. */
static const char tw_json[] =
    "{\"name\": \"tw\", \"duration_ms\": 120, \"processes\": [{\"kind\": \"intermittent\","
    " \"comm\": \"tw\", \"cpus\": [0, 1, 2], \"delay_ms\": 2, \"order\": \"fixed\","
    " \"warmup_sweeps\": 20000, \"loops\": 3}]}";

typedef struct tw_state {
    int32_t queued, ran, ran_at_tick;
    int32_t pending[64];
    uint64_t queued_at[64];
} tw_state;

static void tw_tick(void *st, ks_sim *sim, int32_t cpu, int32_t curr)
{
    tw_state *w = st;
    (void)cpu;
    if (curr < 0 || curr >= 64 || w->pending[curr])
        return;
    w->pending[curr] = 1;
    w->queued++;
    w->queued_at[curr] = sched_now(sim);
    sched_task_work_add(sim, curr);
}

static void tw_run(void *st, ks_sim *sim, int32_t task, int32_t cpu)
{
    tw_state *w = st;
    CHECK_EQ_INT(sched_cpu_curr(sim, cpu), task);       /* on its own way back to user */
    CHECK(w->pending[task]);
    w->pending[task] = 0;
    w->ran++;
    if (sched_now(sim) == w->queued_at[task])
        w->ran_at_tick++;
}

static int32_t tw_cid(const void *st, const ks_sim *sim, int32_t task)
{
    (void)st, (void)sim, (void)task;
    return 3;
}

static const ks_sched_ops tw_ops = {
    .name = "tw", .tick = tw_tick, .task_work_run = tw_run, .rseq_cid = tw_cid,
};

/* A tick that finds a thread running in user space queues its task_work; the work runs on
 * the return from that interrupt (at the tick's time), where TIF_NOTIFY_RESUME makes rseq
 * record an rseq_update that follows no switch-in, as on a kernel. Before the tick's work
 * was modelled the hook ran inside the tick and no such rseq_update existed. */
static void task_work_runs_on_the_return_to_user(void)
{
    test_sim t = test_sim_new("classroom-8", tw_json, 1, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    static tw_state w;
    memset(&w, 0, sizeof w);
    t.sim->ops = &tw_ops;
    t.sim->algo = &w;
    int32_t last_in[8];
    for (int i = 0; i < 8; i++)
        last_in[i] = -1;
    int32_t unprompted = 0, prompted = 0;
    ks_event ev;
    int32_t produced;
    while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
        if (ev.cpu < 0 || ev.cpu >= 8)
            continue;
        if (ev.type == KS_EV_SCHED_SWITCH) {
            last_in[ev.cpu] = ev.u.sched_switch.next_pid;
        } else if (ev.type == KS_EV_RSEQ_UPDATE) {
            CHECK_EQ_INT(ev.u.rseq_update.mm_cid, 3);
            if (last_in[ev.cpu] == ev.pid)
                prompted++;
            else {
                unprompted++;
                CHECK_EQ_INT(ev.ts_ns % 4000000ull, 0);     /* at a tick (HZ 250 from 0) */
            }
            last_in[ev.cpu] = -1;
        }
    }
    CHECK(w.queued > 3);
    CHECK(w.ran >= w.queued - 3);                       /* at most one pending per thread */
    CHECK(w.ran_at_tick > 0);
    CHECK_EQ_INT(unprompted, w.ran_at_tick);            /* one rseq_update per tick return */
    CHECK(prompted > 0);
    test_sim_free(&t);
}

/* rt_prio_changed / rt_overload_changed: a test model keeps its own copy of every CPU's
 * published RT prio and overload bit from the calls alone; after every step they equal the
 * core's, calls never repeat a value, and plugging the hooks in changes nothing else. */
typedef struct rt_watch {
    int32_t prio[64], over[64];
    int32_t prio_calls, over_calls, repeats;
} rt_watch;

static void watch_prio(void *st, ks_sim *sim, int32_t cpu, int32_t old_prio, int32_t new_prio)
{
    rt_watch *w = st;
    (void)sim;
    w->repeats += old_prio == new_prio || w->prio[cpu] != old_prio;
    w->prio[cpu] = new_prio;
    w->prio_calls++;
}

static void watch_over(void *st, ks_sim *sim, int32_t cpu, int32_t overloaded)
{
    rt_watch *w = st;
    (void)sim;
    w->repeats += w->over[cpu] == overloaded;
    w->over[cpu] = overloaded;
    w->over_calls++;
}

static const ks_sched_ops watch_ops = { .name = "watch", .rt_prio_changed = watch_prio,
                                        .rt_overload_changed = watch_over };

static void rt_prio_and_overload_hooks_follow_the_core(void)
{
    uint64_t m_none, m;
    uint64_t none = run_rt(NULL, NULL, &m_none);
    rt_watch w;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 64; i++)
        w.prio[i] = 99;
    CHECK(run_rt(&watch_ops, &w, &m) == none);      /* observing changes nothing */
    CHECK(w.prio_calls > 100 && w.over_calls > 10);
    CHECK_EQ_INT(w.repeats, 0);
    /* step by step against the core */
    test_sim t = test_sim_new("classroom-8", rt_json, 3, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    memset(&w, 0, sizeof w);
    for (int i = 0; i < 64; i++)
        w.prio[i] = 99;
    t.sim->ops = &watch_ops;
    t.sim->algo = &w;
    ks_event ev;
    int32_t produced = 1, bad = 0, switches_rt_to_rt = 0;
    while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
        for (int32_t c = 0; c < 8; c++) {
            bad += w.prio[c] != sched_rt_highest_prio(t.sim, c);
            int32_t level = rq_rt_level(t.sim, c);
            bad += w.prio[c] != (level > 99 ? 99 : level);
            bad += w.over[c] != (int32_t)cpumask_test(&t.sim->core.rt_overload, c);
        }
        switches_rt_to_rt += ev.type == KS_EV_SCHED_SWITCH && ev.u.sched_switch.prev_prio == 49 &&
                             ev.u.sched_switch.next_prio == 49;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(switches_rt_to_rt > 0);                   /* equal RT switches happened, no call */
    CHECK_EQ_INT(w.repeats, 0);
    test_sim_free(&t);
}

const test_case sched_hooks_tests[] = {
    { "sched hooks: a tick's task_work runs on the return to user space, then rseq_update",
      task_work_runs_on_the_return_to_user },
    { "sched hooks: rt_prio_changed and rt_overload_changed follow the core's RT state",
      rt_prio_and_overload_hooks_follow_the_core },
    { "replay host: drives a test model from events (forks, gaps, growth, ticks)", replay_host_drives_any_model },
    { "sched hooks: find_lowest_rq steers RT placement, default unchanged", find_lowest_rq_hook_steers_rt_placement },
    { "sched hooks: kmem_cache alloc/free reach the model with cpu, task, cache", allocator_hooks_get_the_cpu_task_and_cache },
    { NULL, NULL },
};
