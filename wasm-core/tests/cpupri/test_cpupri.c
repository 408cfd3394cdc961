/*
 * The cpupri model (src/algo/cpupri/): convert_prio, the map's bookkeeping against the
 * scheduler core's RT levels, the three layouts' answers, the bug toggle's miss, the
 * perf c2c rows of a cross-socket ping-pong, views and snapshots.
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../sim_test_util.h"
#include "../../src/sched/sim_internal.h"
#include "../../src/algo/cpupri/cpupri.h"

/* The classroom machine: 2 sockets x 4 cores x SMT2; node 0 = CPUs 0-3, 8-11. */
static const char *const classroom_rt =
    "{\"name\":\"t\",\"duration_ms\":10,\"processes\":["
    "{\"kind\":\"periodic_rt\",\"comm\":\"a\",\"rseq\":false,\"threads\":6,\"prio\":99,"
    "\"period_us\":500,\"runtime_us\":200,\"cpus\":[0,1,8,9]},"
    "{\"kind\":\"periodic_rt\",\"comm\":\"b\",\"rseq\":false,\"start_ms\":0.13,\"threads\":6,"
    "\"prio\":99,\"period_us\":500,\"runtime_us\":200,\"cpus\":[4,5,12,13]},"
    "{\"kind\":\"periodic_rt\",\"comm\":\"c\",\"rseq\":false,\"start_ms\":0.05,\"threads\":3,"
    "\"prio\":50,\"period_us\":700,\"runtime_us\":300},"
    "{\"kind\":\"periodic_rt\",\"comm\":\"d\",\"rseq\":false,\"start_ms\":0.02,\"threads\":3,"
    "\"prio\":10,\"period_us\":900,\"runtime_us\":400}]}";

static const char *const idle_wl =
    "{\"name\":\"idle\",\"duration_ms\":1,\"processes\":[{\"kind\":\"periodic_rt\","
    "\"comm\":\"x\",\"rseq\":false,\"start_ms\":0.9,\"threads\":1,\"prio\":1,"
    "\"period_us\":1000,\"runtime_us\":1}]}";

static cpupri_state *state_of(test_sim *t)
{
    return sched_algo_state(t->sim, &cpupri_ops);
}

static void convert_prio_follows_the_kernel_table(void)
{
    CHECK_EQ_INT(cpupri_convert_prio(-1), CPUPRI_INVALID);
    CHECK_EQ_INT(cpupri_convert_prio(0), 99);      /* SCHED_FIFO 99 */
    CHECK_EQ_INT(cpupri_convert_prio(49), 50);     /* SCHED_FIFO 50 */
    CHECK_EQ_INT(cpupri_convert_prio(98), 1);      /* SCHED_FIFO 1 */
    CHECK_EQ_INT(cpupri_convert_prio(99), CPUPRI_NORMAL);
    CHECK_EQ_INT(cpupri_convert_prio(100), CPUPRI_HIGHER);
}

/* After every step: each CPU's level is convert_prio of the core's highest RT prio, and
 * counts and bitmaps agree with cpu_to_pri (per node where the layout splits them). */
static int map_is_consistent(const test_sim *t, const cpupri_state *st)
{
    for (int32_t c = 0; c < st->nr_cpus; c++)
        if (st->cpu_to_pri[c] != cpupri_convert_prio(sched_rt_highest_prio(t->sim, c)))
            return 0;
    for (int32_t l = 0; l < CPUPRI_LEVELS; l++) {
        int32_t want = 0, count = 0, bits = 0;
        for (int32_t c = 0; c < st->nr_cpus; c++) {
            want += st->cpu_to_pri[c] == l;
            int32_t n = st->variant == KS_CPUPRI_GLOBAL ? 0 : st->node_of[c];
            int in = cpumask_test(&st->mask[l][n], c);
            bits += in;
            if (in != (st->cpu_to_pri[c] == l))
                return 0;
        }
        for (int32_t n = 0; n < CPUPRI_MAX_NODES; n++)
            count += st->count[l][n];
        (void)bits;
        if (count != want)
            return 0;
    }
    return 1;
}

static void map_follows_the_core_in_every_layout(void)
{
    static const char *const algos[] = { "cpupri:global", "cpupri:pernode",
                                         "cpupri:pernode-kscope" };
    for (int v = 0; v < 3; v++) {
        test_sim t = test_sim_new("classroom-2s-16", classroom_rt, 7, algos[v]);
        CHECK_EQ_INT(t.status, KS_OK);
        if (t.status != KS_OK)
            continue;
        cpupri_state *st = state_of(&t);
        CHECK(st != NULL);
        ks_event ev;
        int32_t produced = 1, steps = 0, bad = 0;
        while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced) {
            steps++;
            bad += !map_is_consistent(&t, st);
        }
        CHECK(steps > 500);
        CHECK_EQ_INT(bad, 0);
        /* rto_mask / rto_count follow the core's overload mask */
        CHECK(memcmp(st->rto_mask.bits, t.sim->core.rt_overload.bits, sizeof(uint64_t)) == 0);
        CHECK_EQ_INT(st->rto_count, cpumask_weight(&t.sim->core.rt_overload, 1));
        CHECK(st->overload_changes > 0);
        CHECK(st->sets > 100);
        CHECK(st->finds > 10);
        /* the seed's layout keeps the complement bits of the other nodes */
        if (st->variant == KS_CPUPRI_PERNODE)
            CHECK(cpumask_test(&st->mask[0][0], 4) && cpumask_test(&st->mask[0][1], 0));
        test_sim_free(&t);
    }
}

/* Random level moves applied to the three layouts give the same answers (the seed's AND
 * of complements and kscope's union are the stock bitmap), and with nothing in flight the
 * timed search answers as the committed state. */
static void three_layouts_give_the_same_answers(void)
{
    static const char *const algos[] = { "cpupri:global", "cpupri:pernode",
                                         "cpupri:pernode-kscope" };
    test_sim t[3];
    cpupri_state *st[3];
    for (int v = 0; v < 3; v++) {
        t[v] = test_sim_new("classroom-2s-16", idle_wl, 1, algos[v]);
        CHECK_EQ_INT(t[v].status, KS_OK);
        st[v] = t[v].status == KS_OK ? state_of(&t[v]) : NULL;
    }
    if (!st[0] || !st[1] || !st[2])
        goto out;
    uint64_t x = 12345;
    double now = 0;
    int32_t differ = 0, timed_differ = 0, found = 0;
    for (int i = 0; i < 400; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int32_t cpu = (int32_t)((x >> 33) % 16);
        int32_t prio = (int32_t)((x >> 40) % 4) == 0 ? 99 : (int32_t)((x >> 45) % 99);
        now += 100000;                                  /* 100 us apart: nothing in flight */
        for (int v = 0; v < 3; v++)
            cpupri_set(st[v], t[v].sim, cpu, cpu, prio, now);
        cpumask allowed;
        memset(&allowed, 0, sizeof allowed);
        allowed.bits[0] = (x >> 20) & 0xffff;
        int32_t tprio = (int32_t)((x >> 50) % 99);
        cpumask ref, got;
        int32_t rf = cpupri_find_committed(st[0], tprio, &allowed, &ref);
        found += rf;
        for (int v = 0; v < 3; v++) {
            int32_t f = cpupri_find_committed(st[v], tprio, &allowed, &got);
            differ += f != rf || (f && got.bits[0] != ref.bits[0]);
            int32_t scanned;
            f = cpupri_find(st[v], t[v].sim, cpu, tprio, &allowed, &got, now + 50000, &scanned);
            timed_differ += f != rf || (f && got.bits[0] != ref.bits[0]);
        }
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(timed_differ, 0);
    CHECK(found > 50);
out:
    for (int v = 0; v < 3; v++)
        test_sim_free(&t[v]);
}

/*
 * The bug toggle. CPU 13 runs a FIFO 60 task (level 60). CPU 6 moves from level 0 to
 * level 10 (a FIFO 10 task arrives) while CPU 2 searches for a FIFO 50 task (level 50)
 * allowed on CPUs 6 and 13. With the kernel's order CPU 6 is always seen (at level 0 or
 * 10): the answer is CPU 6, at every instant of the set. With "+unordered_set", between
 * the old bit's clear and the new bit's set CPU 6 is at no level, and CPU 13 is not below
 * level 50: the search finds nothing, so the FIFO 50 task would stay queued.
 */
static void unordered_set_misses_a_moving_cpu(void)
{
    static const char *const algos[] = { "cpupri:global", "cpupri:global+unordered_set",
                                         "cpupri:pernode+unordered_set",
                                         "cpupri:pernode-kscope+unordered_set" };
    for (int v = 0; v < 4; v++) {
        test_sim t = test_sim_new("classroom-2s-16", idle_wl, 1, algos[v]);
        CHECK_EQ_INT(t.status, KS_OK);
        if (t.status != KS_OK)
            continue;
        cpupri_state *st = state_of(&t);
        cpupri_set(st, t.sim, 13, 13, 39, 1000);        /* FIFO 60: level 60 */
        cpupri_set(st, t.sim, 6, 6, 89, 1e6);           /* FIFO 10: level 10, in flight */
        const cpupri_inflight *f = &st->inflight[6];
        CHECK_EQ_INT(f->oldpri, 0);
        CHECK_EQ_INT(f->newpri, 10);
        cpumask allowed;
        memset(&allowed, 0, sizeof allowed);
        cpumask_set(&allowed, 6);
        cpumask_set(&allowed, 13);
        int32_t misses = 0, probes = 0;
        cpupri_state *copy = malloc(sizeof *copy);
        for (double r = 1e6; r <= f->t_end; r += 1.0) {
            cpumask lowest;
            int32_t scanned;
            memcpy(copy, st, sizeof *copy);         /* probe on a copy: the search times its loads */
            int32_t found = cpupri_find(copy, t.sim, 2, 49, &allowed, &lowest, r, &scanned);
            probes++;
            misses += !found || !cpumask_test(&lowest, 6);
        }
        free(copy);
        CHECK(probes > 10);
        if (v == 0)
            CHECK_EQ_INT(misses, 0);
        else
            CHECK(misses > 0);
        /* after the set completes both orders agree */
        cpumask lowest;
        int32_t scanned;
        CHECK_EQ_INT(cpupri_find(st, t.sim, 2, 49, &allowed, &lowest, f->t_end + 1, &scanned), 1);
        CHECK(cpumask_test(&lowest, 6) && !cpumask_test(&lowest, 13));
        test_sim_free(&t);
    }
}

static const cpupri_row *find_row(const cpupri_state *st, int32_t obj, uint32_t off, int32_t site)
{
    for (int32_t i = 0; i < st->nr_rows; i++)
        if (st->rows[i].object == obj && st->rows[i].offset == off && st->rows[i].site == site)
            return &st->rows[i];
    return NULL;
}

/* Two CPUs on different sockets take turns moving 0 <-> 99: level 0's line bounces, each
 * locked RMW is a remote HITM load and an L1-hit store on its own word; a search from
 * socket 0 right after socket 1 wrote loads word 0 with a remote HITM, sampled (>= 30
 * cycles) at one cross-socket transfer or more. */
static void ping_pong_gives_remote_hitm_rows(void)
{
    test_sim t = test_sim_new("classroom-2s-16", idle_wl, 1, "cpupri:global");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    cpupri_state *st = state_of(&t);
    double now = 0;
    for (int i = 0; i < 20; i++) {
        int32_t cpu = i % 2 ? 4 : 0;                    /* socket 1, socket 0 */
        now += 10000;
        cpupri_set(st, t.sim, cpu, cpu, 0, now);
        now += 10000;
        cpupri_set(st, t.sim, cpu, cpu, 99, now);
    }
    const cpupri_row *set = find_row(st, st->obj_mask[0][0], 0, SITE_CPUPRI_SET);
    CHECK(set != NULL);
    if (set) {
        CHECK(set->remote_hitm >= 15);
        CHECK_EQ_INT(set->local_hitm, 0);
        CHECK_EQ_INT(set->stores, set->store_l1_hit);
        CHECK_EQ_INT(set->stores, 40);
    }
    cpumask allowed;
    memset(&allowed, 0, sizeof allowed);
    allowed.bits[0] = 0xffff;
    cpumask lowest;
    int32_t scanned;
    now += 10000;
    CHECK_EQ_INT(cpupri_find(st, t.sim, 1, 0, &allowed, &lowest, now, &scanned), 1);
    CHECK_EQ_INT(scanned, 1);
    const cpupri_row *find = find_row(st, st->obj_mask[0][0], 0, SITE_FIND_FIRST_AND_BIT);
    const cpupri_row *and = find_row(st, st->obj_mask[0][0], 0, SITE_BITMAP_AND);
    CHECK(find && and);
    if (find && and) {
        CHECK_EQ_INT(find->remote_hitm, 1);
        CHECK_EQ_INT(find->sampled_loads, 1);
        double cycles = find->load_cycles_sum / find->sampled_loads;
        CHECK(cycles >= st->cost.latency.cycles[KS_SRC_OTHER_SOCKET]);
        CHECK_EQ_INT(and->loads, 1);
    }
    test_sim_free(&t);
}

/* Two requests at one instant: the second waits for the first's transfer (contention). */
static void simultaneous_sets_queue_on_the_line(void)
{
    test_sim t = test_sim_new("classroom-2s-16", idle_wl, 1, "cpupri:global");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    cpupri_state *st = state_of(&t);
    for (int32_t c = 0; c < 8; c++)                     /* every core writes, all at t=5 us */
        cpupri_set(st, t.sim, c, c, 0, 5000);
    CHECK(st->wait_ns > 0);
    CHECK(st->servers[st->objects[st->obj_mask[99][0]].first_server].served >= 7);
    test_sim_free(&t);
}

static void views_and_snapshots(void)
{
    test_sim t = test_sim_new("classroom-2s-16", classroom_rt, 3, "cpupri:pernode");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return;
    ks_event ev;
    int32_t produced;
    for (int i = 0; i < 2000; i++)
        ks_sim_step(t.sim, &ev, &produced);
    uint32_t size = ks_sim_snapshot_size(t.sim);
    void *snap = malloc(size);
    CHECK_EQ_INT(ks_sim_snapshot_save(t.sim, snap, size), KS_OK);
    for (int i = 0; i < 2000; i++)
        ks_sim_step(t.sim, &ev, &produced);
    static uint8_t buf[65536];
    ks_cpupri_view_request req = { KS_CPUPRI_VIEW_SUMMARY, 0 };
    memcpy(buf, &req, sizeof req);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, sizeof buf), KS_OK);
    ks_cpupri_summary a, b;
    memcpy(&a, buf, sizeof a);
    CHECK_EQ_INT(a.variant, KS_CPUPRI_PERNODE);
    CHECK_EQ_INT(a.nr_nodes, 2);
    CHECK_EQ_INT(a.mask_bytes, 8);
    CHECK(a.sets > 0 && a.nr_rows > 0 && a.access_ns > 0);
    CHECK(a.set_cpus > 0 && a.set_cpus <= 16);
    CHECK(a.mask_line_served > 0 && a.mask_line_busy_ns > 0);
    CHECK_EQ_INT(ks_sim_snapshot_restore(t.sim, snap, size), KS_OK);
    for (int i = 0; i < 2000; i++)
        ks_sim_step(t.sim, &ev, &produced);
    memcpy(buf, &req, sizeof req);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, sizeof buf), KS_OK);
    memcpy(&b, buf, sizeof b);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    req = (ks_cpupri_view_request){ KS_CPUPRI_VIEW_C2C, 0 };
    memcpy(buf, &req, sizeof req);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, sizeof buf), KS_OK);
    ks_cpupri_c2c_row row;
    memcpy(&row, buf, sizeof row);
    CHECK(strncmp(row.object, "cpupri", 6) == 0);
    CHECK(row.symbol[0] != '\0');
    req = (ks_cpupri_view_request){ KS_CPUPRI_VIEW_LEVELS, 0 };
    memcpy(buf, &req, sizeof req);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, 8), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, sizeof buf), KS_OK);
    req = (ks_cpupri_view_request){ 99, 0 };
    memcpy(buf, &req, sizeof req);
    CHECK_EQ_INT(ks_sim_model_view_get(t.sim, buf, sizeof buf), KS_ERR_INVALID_ARG);
    free(snap);
    test_sim_free(&t);
}

/* The shipped workloads run under every layout with the map consistent at the end: the
 * classroom one whole, the seed's 480-CPU one for 1 ms. */
static void shipped_workloads_run(void)
{
    static const char *const files[] = { "rt-instances-classroom-2s-16.json",
                                         "seed001-ffmpeg-60x8.json" };
    static const char *const presets[] = { "classroom-2s-16", "hcc-2s-480" };
    static const char *const algos[] = { "cpupri:global", "cpupri:pernode",
                                         "cpupri:pernode-kscope" };
    for (int f = 0; f < 2; f++) {
        char *json = read_workload_file(files[f]);
        CHECK(json != NULL);
        if (!json)
            continue;
        for (int v = 0; v < 3; v++) {
            test_sim t = test_sim_new(presets[f], json, 1, algos[v]);
            CHECK_EQ_INT(t.status, KS_OK);
            if (t.status != KS_OK)
                continue;
            ks_event ev;
            int32_t produced = 1;
            while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced &&
                   (f == 0 || ev.ts_ns < 1000000))
                ;
            cpupri_state *st = state_of(&t);
            CHECK(map_is_consistent(&t, st));
            CHECK(st->sets > 50 && st->finds > 0 && st->nr_rows > 0);
            test_sim_free(&t);
        }
        free(json);
    }
}

static void variant_names_parse(void)
{
    static const char *const bad[] = { "cpupri:v6.12", "cpupri:global+race",
                                       "cpupri:global+unordered_set+unordered_set" };
    for (int i = 0; i < 3; i++) {
        test_sim t = test_sim_new("classroom-2s-16", idle_wl, 1, bad[i]);
        CHECK(t.status != KS_OK);
        test_sim_free(&t);
    }
    test_sim t = test_sim_new("classroom-2s-16", idle_wl, 1, "cpupri");
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status == KS_OK)
        CHECK_EQ_INT(state_of(&t)->variant, KS_CPUPRI_GLOBAL);
    test_sim_free(&t);
}

const test_case cpupri_tests[] = {
    { "cpupri: convert_prio follows the kernel's table", convert_prio_follows_the_kernel_table },
    { "cpupri: the map follows the core's RT levels in every layout",
      map_follows_the_core_in_every_layout },
    { "cpupri: global, seed pernode and kscope pernode give the same answers",
      three_layouts_give_the_same_answers },
    { "cpupri: +unordered_set misses a CPU moving between two lower levels",
      unordered_set_misses_a_moving_cpu },
    { "cpupri: a cross-socket ping-pong gives remote HITM c2c rows",
      ping_pong_gives_remote_hitm_rows },
    { "cpupri: simultaneous sets queue on the mask line", simultaneous_sets_queue_on_the_line },
    { "cpupri: views and snapshots", views_and_snapshots },
    { "cpupri: variant names parse", variant_names_parse },
    { "cpupri: the shipped workloads run under every layout", shipped_workloads_run },
    { 0 },
};
