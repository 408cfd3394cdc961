/*
 * The cache-line cost model (src/machine/cache_model.c): coherence invariants
 * under random traffic, cost ordering per preset, time-decay warm/cold, HITM
 * counting, snapshot round trips and argument checks. The invariant test also
 * reads the internal line state (cache_model.h) to see LLC copies that the
 * public place view does not show.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kscope/cache.h"
#include "../src/machine/cache_model.h"

/* splitmix64: a tiny seeded generator so every run draws the same sequence. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(uint64_t *rng, uint32_t n)
{
    return (uint32_t)(splitmix64(rng) % n);
}

static ks_topology *preset(const char *name)
{
    ks_topology *topo = NULL;
    CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
    return topo;
}

static ks_cache *new_cache(const ks_topology *topo, int32_t private_rate, int32_t llc_rate,
                           int32_t track_words)
{
    ks_cache_params p;
    ks_cache_default_params(&p);
    if (private_rate >= 0)
        p.private_background_bytes_per_us = private_rate;
    if (llc_rate >= 0)
        p.llc_background_bytes_per_us = llc_rate;
    p.track_words = track_words;
    ks_cache *cache = NULL;
    CHECK_EQ_INT(ks_cache_new(topo, &p, &cache), KS_OK);
    return cache;
}

static int32_t add_object(ks_cache *cache, const char *name, uint32_t size, int32_t node)
{
    int32_t id = -1;
    CHECK_EQ_INT(ks_cache_add_object(cache, name, size, node, &id), KS_OK);
    return id;
}

/* One access; returns the source of its single line (or -1 if several / failed). */
static int access1(ks_cache *cache, int32_t cpu, int32_t obj, uint32_t off, uint32_t len,
                   int32_t store, uint64_t now, ks_access_cost *cost)
{
    ks_access_cost local;
    ks_access_cost *c = cost ? cost : &local;
    if (ks_cache_access(cache, cpu, obj, off, len, store, now, c) != KS_OK || c->lines != 1)
        return -1;
    for (int s = 0; s < KS_SRC_COUNT; s++)
        if (c->lines_from[s])
            return s;
    return -1;
}

static const char *const all_presets[] = {
    "classroom-8", "epyc-9654-2s", "genoa-4n", "spr-2s", "gnr-2s-snc", "hcc-2s-480",
};
#define N_PRESETS (int)(sizeof all_presets / sizeof all_presets[0])

/* ---- (1) coherence invariant ------------------------------------------------ */

/* Checks every line's raw state and its place view; returns the number of bad lines. */
static int check_invariants(ks_cache *cache, uint64_t now)
{
    int bad = 0;
    for (uint32_t i = 0; i < cache->n_lines; i++) {
        const line_state *ls = &cache->lines[i];
        int modified = 0, exclusive = 0;
        for (int s = 0; s < ls->n_priv; s++) {
            modified += ls->priv_state[s] == PRIV_M;
            exclusive += ls->priv_state[s] == PRIV_E;
            for (int t = 0; t < s; t++)
                bad += ls->priv_core[t] == ls->priv_core[s];
        }
        if (modified + exclusive > 1)
            bad++;
        if ((modified || exclusive) && ls->n_priv != 1)
            bad++;      /* a Modified or Exclusive copy is the only private copy */
        if (modified && ls->n_llc != 0)
            bad++;      /* and a Modified one the only copy anywhere */
    }
    for (int32_t o = 0; o < ks_cache_object_count(cache); o++) {
        const ks_line_place *pl = ks_cache_line_places(cache, o, now);
        for (uint32_t l = 0; l < ks_cache_object_lines(cache, o); l++) {
            if (pl[l].state == 3 || pl[l].state == 2)
                bad += pl[l].owner_core < 0 || pl[l].sharers != 1;
            else
                bad += pl[l].owner_core != -1;
            bad += pl[l].state == 0 && (pl[l].sharers != 0 || pl[l].owner_llc != -1);
        }
    }
    return bad;
}

static void run_random_traffic(const char *name, uint64_t seed, int ops)
{
    ks_topology *topo = preset(name);
    if (!topo)
        return;
    ks_topology_summary s;
    ks_topology_summarize(topo, &s);
    ks_cache *cache = new_cache(topo, -1, -1, 1);
    if (!cache) {
        ks_topology_free(topo);
        return;
    }
    int32_t objs[3] = {
        add_object(cache, "lock", 64, 0),
        add_object(cache, "mask", 256, s.nodes - 1),
        add_object(cache, "area", 1024, 0),
    };
    uint64_t rng = seed, now = 1000;
    int bad = 0, modified_seen = 0;
    for (int i = 0; i < ops; i++) {
        int32_t obj = objs[below(&rng, 3)];
        uint32_t bytes = ks_cache_object_lines(cache, obj) * KS_CACHE_LINE;
        uint32_t off = below(&rng, bytes);
        uint32_t len = 1 + below(&rng, bytes - off < 200 ? bytes - off : 200);
        /* Mostly short steps, sometimes gaps long enough for copies to decay. */
        now += below(&rng, 8) == 0 ? below(&rng, 20000000) : below(&rng, 2000);
        ks_access_cost cost;
        CHECK_EQ_INT(ks_cache_access(cache, (int32_t)below(&rng, (uint32_t)s.cpus), obj, off, len,
                                     (int32_t)below(&rng, 3) == 0, now, &cost), KS_OK);
        if (i % 16 == 0)
            bad += check_invariants(cache, now);
        for (uint32_t l = 0; l < cache->n_lines; l++)
            modified_seen += cache->lines[l].n_priv == 1 && cache->lines[l].priv_state[0] == PRIV_M;
    }
    bad += check_invariants(cache, now);
    CHECK_EQ_INT(bad, 0);
    CHECK(modified_seen > 0);   /* the sequence did exercise Modified lines */
    ks_cache_free(cache);
    ks_topology_free(topo);
}

static void random_traffic_keeps_one_writer(void)
{
    for (int p = 0; p < N_PRESETS; p++)
        run_random_traffic(all_presets[p], 0x5eed0000u + (uint64_t)p, 3000);
}

/* ---- (2) cost ordering ---------------------------------------------------- */

static void latency_tables_are_ordered(void)
{
    for (int p = 0; p < N_PRESETS; p++) {
        ks_topology *topo = preset(all_presets[p]);
        if (!topo)
            continue;
        ks_latency_table t;
        CHECK_EQ_INT(ks_topology_latency(topo, &t), KS_OK);
        CHECK(t.core_mhz > 0);
        CHECK(t.cycles[KS_SRC_L1] > 0);
        for (int s = KS_SRC_L1; s < KS_SRC_OTHER_SOCKET; s++)
            CHECK(t.cycles[s] <= t.cycles[s + 1]);
        CHECK(t.cycles[KS_SRC_LLC] <= t.cycles[KS_SRC_DRAM_LOCAL]);
        CHECK(t.cycles[KS_SRC_DRAM_LOCAL] <= t.cycles[KS_SRC_DRAM_REMOTE]);
        ks_topology_free(topo);
    }
    CHECK_EQ_INT(ks_topology_latency(NULL, NULL), KS_ERR_INVALID_ARG);
}

typedef struct cpu_pick {
    int32_t base;               /* a CPU in socket 0 */
    int32_t same_llc;           /* another core, same LLC (-1 if none) */
    int32_t other_llc;          /* another LLC, same socket (-1 if none) */
    int32_t other_socket;       /* -1 if one socket */
} cpu_pick;

static cpu_pick pick_cpus(const ks_topology *topo)
{
    ks_topology_summary s;
    ks_topology_summarize(topo, &s);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    cpu_pick p = { .base = 0, .same_llc = -1, .other_llc = -1, .other_socket = -1 };
    const ks_cpu *b = &cpus[0];
    for (int32_t i = 1; i < s.cpus; i++) {
        const ks_cpu *c = &cpus[i];
        if (p.same_llc < 0 && c->llc == b->llc && c->core != b->core)
            p.same_llc = i;
        if (p.other_llc < 0 && c->llc != b->llc && c->socket == b->socket)
            p.other_llc = i;
        if (p.other_socket < 0 && c->socket != b->socket)
            p.other_socket = i;
    }
    return p;
}

/* Sets up one fresh line per source and checks where it was found and that the
 * observed costs grow with distance. */
static void observed_costs_grow_with_distance(void)
{
    for (int p = 0; p < N_PRESETS; p++) {
        ks_topology *topo = preset(all_presets[p]);
        if (!topo)
            continue;
        ks_topology_summary s;
        ks_topology_summarize(topo, &s);
        ks_cache *cache = new_cache(topo, 1000, 8000, 0);
        if (!cache) {
            ks_topology_free(topo);
            continue;
        }
        cpu_pick cp = pick_cpus(topo);
        /* Node of CPU 0 is node 0 on every preset; its first page lives on socket 0. */
        int32_t obj = add_object(cache, "probe", 16 * KS_CACHE_LINE, 0);
        uint64_t l2_ns = (uint64_t)s.l2_kib * 1024;    /* bytes / (1000 B/us), the default */
        uint64_t cycles[KS_SRC_COUNT] = { 0 };
        ks_access_cost c;
        uint64_t t = 1000000;

        /* line 0: DRAM local, then L1 at once, L2 a little later, own LLC after L2 decays */
        CHECK_EQ_INT(access1(cache, cp.base, obj, 0, 8, 0, t, &c), KS_SRC_DRAM_LOCAL);
        cycles[KS_SRC_DRAM_LOCAL] = c.cycles;
        CHECK_EQ_INT(access1(cache, cp.base, obj, 0, 8, 0, t + 10, &c), KS_SRC_L1);
        cycles[KS_SRC_L1] = c.cycles;
        t += 10 + 100000;      /* 100 us: past every preset's L1d residency (<= 49 us) */
        CHECK_EQ_INT(access1(cache, cp.base, obj, 0, 8, 0, t, &c), KS_SRC_L2);
        cycles[KS_SRC_L2] = c.cycles;
        t += l2_ns + 1000;
        CHECK_EQ_INT(access1(cache, cp.base, obj, 0, 8, 0, t, &c), KS_SRC_LLC);
        cycles[KS_SRC_LLC] = c.cycles;

        /* line 1: written by base, read by a core of the same LLC */
        if (cp.same_llc >= 0) {
            access1(cache, cp.base, obj, 64, 8, 1, t, NULL);
            CHECK_EQ_INT(access1(cache, cp.same_llc, obj, 64, 8, 0, t + 10, &c), KS_SRC_SAME_LLC_CORE);
            cycles[KS_SRC_SAME_LLC_CORE] = c.cycles;
        }
        /* line 2: written by base, read from another LLC of the socket */
        if (cp.other_llc >= 0) {
            access1(cache, cp.base, obj, 128, 8, 1, t, NULL);
            CHECK_EQ_INT(access1(cache, cp.other_llc, obj, 128, 8, 0, t + 10, &c), KS_SRC_OTHER_LLC);
            cycles[KS_SRC_OTHER_LLC] = c.cycles;
        }
        /* line 3: written by base, read from the other socket; line 4: fresh, remote DRAM */
        if (cp.other_socket >= 0) {
            access1(cache, cp.base, obj, 192, 8, 1, t, NULL);
            CHECK_EQ_INT(access1(cache, cp.other_socket, obj, 192, 8, 0, t + 10, &c), KS_SRC_OTHER_SOCKET);
            cycles[KS_SRC_OTHER_SOCKET] = c.cycles;
            CHECK_EQ_INT(access1(cache, cp.other_socket, obj, 256, 8, 0, t + 20, &c), KS_SRC_DRAM_REMOTE);
            cycles[KS_SRC_DRAM_REMOTE] = c.cycles;
        }
        uint64_t prev = 0;
        for (int src = KS_SRC_L1; src <= KS_SRC_OTHER_SOCKET; src++)
            if (cycles[src]) {
                CHECK(cycles[src] >= prev);
                prev = cycles[src];
            }
        if (cycles[KS_SRC_DRAM_REMOTE])
            CHECK(cycles[KS_SRC_DRAM_LOCAL] <= cycles[KS_SRC_DRAM_REMOTE]);
        ks_cache_free(cache);
        ks_topology_free(topo);
    }
}

/* ---- (3) warm and cold ---------------------------------------------------- */

static uint32_t lines_from_private(const ks_access_cost *c)
{
    return c->lines_from[KS_SRC_L1] + c->lines_from[KS_SRC_L2];
}

static uint32_t lines_cold(const ks_access_cost *c)
{
    return c->lines_from[KS_SRC_LLC] + c->lines_from[KS_SRC_DRAM_LOCAL]
           + c->lines_from[KS_SRC_DRAM_REMOTE];
}

static void area_goes_cold_after_a_gap(void)
{
    ks_topology *topo = preset("epyc-9654-2s");
    if (!topo)
        return;
    const uint32_t area = 16 * 1024, lines = area / KS_CACHE_LINE;
    ks_cache *busy = new_cache(topo, 1000, 8000, 0);       /* the default background */
    ks_cache *quiet = new_cache(topo, 0, 0, 0);            /* no background: never evicted */
    ks_access_cost c;
    for (int k = 0; busy && quiet && k < 2; k++) {
        ks_cache *cache = k ? quiet : busy;
        int32_t obj = add_object(cache, "per-cid data area", area, 0);
        uint64_t t = 5000;
        CHECK_EQ_INT(ks_cache_access(cache, 3, obj, 0, area, 1, t, &c), KS_OK);
        CHECK_EQ_INT(c.lines, lines);
        CHECK_EQ_INT(c.lines_from[KS_SRC_DRAM_LOCAL], lines);
        /* soon after: warm */
        CHECK_EQ_INT(ks_cache_access(cache, 3, obj, 0, area, 1, t + 2000, &c), KS_OK);
        CHECK_EQ_INT(c.lines_from[KS_SRC_L1], lines);
        uint64_t warm = c.cycles;
        /* 200 ms later: cold with background traffic, still warm without */
        CHECK_EQ_INT(ks_cache_access(cache, 3, obj, 0, area, 1, t + 2000 + 200000000ull, &c), KS_OK);
        if (cache == busy) {
            CHECK_EQ_INT(lines_cold(&c), lines);
            CHECK(c.cycles > 10 * warm);
        } else {
            CHECK_EQ_INT(lines_from_private(&c), lines);
            CHECK_EQ_INT(c.cycles, warm);
        }
    }
    /* With background: 3 ms later the area is out of the core but still in its LLC,
     * so a sibling core of that CCX finds it there. */
    if (busy) {
        int32_t obj = add_object(busy, "second area", area, 0);
        CHECK_EQ_INT(ks_cache_access(busy, 3, obj, 0, area, 1, 1000, &c), KS_OK);
        CHECK_EQ_INT(ks_cache_access(busy, 4, obj, 0, area, 0, 1000 + 3000000, &c), KS_OK);
        CHECK_EQ_INT(c.lines_from[KS_SRC_LLC], lines);
    }
    ks_cache_free(busy);
    ks_cache_free(quiet);
    ks_topology_free(topo);
}

/* ---- (4) HITM ------------------------------------------------------------- */

static void loads_of_modified_lines_count_hitm(void)
{
    ks_topology *topo = preset("epyc-9654-2s");
    if (!topo)
        return;
    ks_cache *cache = new_cache(topo, -1, -1, 1);
    if (!cache) {
        ks_topology_free(topo);
        return;
    }
    const ks_cpu *cpus = ks_topology_cpus(topo);
    const int32_t a = 0, b = 20, far = 100;   /* b: node 0, another CCX; far: node 1 */
    CHECK_EQ_INT(cpus[b].node, cpus[a].node);
    CHECK(cpus[far].node != cpus[a].node);
    int32_t obj = add_object(cache, "cpupri_vec[0].mask", 128, 0);
    ks_access_cost c;

    CHECK_EQ_INT(ks_cache_access(cache, a, obj, 8, 8, 1, 100, &c), KS_OK);     /* A stores word 1 */
    CHECK_EQ_INT(ks_cache_access(cache, b, obj, 8, 8, 0, 200, &c), KS_OK);     /* B loads it */
    CHECK_EQ_INT(c.local_hitm, 1);
    CHECK_EQ_INT(c.remote_hitm, 0);
    const ks_line_stats *ls = ks_cache_line_stats(cache, obj);
    const ks_line_stats *ws = ks_cache_word_stats(cache, obj);
    CHECK(ls && ws);
    if (!ls || !ws)
        goto out;
    CHECK_EQ_INT(ls[0].local_hitm, 1);
    CHECK_EQ_INT(ls[0].stores, 1);
    CHECK_EQ_INT(ls[0].loads, 1);
    CHECK_EQ_INT(ws[1].local_hitm, 1);
    CHECK_EQ_INT(ws[0].local_hitm + ws[2].local_hitm, 0);
    /* B's load downgraded A: a second load by B hits its own cache, no HITM */
    CHECK_EQ_INT(ks_cache_access(cache, b, obj, 8, 8, 0, 300, &c), KS_OK);
    CHECK_EQ_INT(c.local_hitm + c.remote_hitm, 0);
    CHECK_EQ_INT(c.lines_from[KS_SRC_L1], 1);

    /* A stores again (invalidating B), the far CPU on node 1 loads: a remote HITM */
    CHECK_EQ_INT(ks_cache_access(cache, a, obj, 8, 8, 1, 400, &c), KS_OK);
    CHECK_EQ_INT(ks_cache_access(cache, far, obj, 8, 8, 0, 500, &c), KS_OK);
    CHECK_EQ_INT(c.remote_hitm, 1);
    CHECK_EQ_INT(c.lines_from[KS_SRC_OTHER_SOCKET], 1);
    CHECK_EQ_INT(ls[0].remote_hitm, 1);
    CHECK_EQ_INT(ws[1].remote_hitm, 1);

    /* A store into a line Modified elsewhere is a store, never a HITM */
    CHECK_EQ_INT(ks_cache_access(cache, a, obj, 72, 8, 1, 600, &c), KS_OK);
    CHECK_EQ_INT(ks_cache_access(cache, far, obj, 72, 8, 1, 700, &c), KS_OK);
    CHECK_EQ_INT(c.local_hitm + c.remote_hitm, 0);
    CHECK_EQ_INT(c.lines_from[KS_SRC_OTHER_SOCKET], 1);
    CHECK_EQ_INT(ls[1].stores, 2);
    CHECK_EQ_INT(ls[1].local_hitm + ls[1].remote_hitm, 0);

    /* the place view: line 1 is Modified in far's core */
    const ks_line_place *pl = ks_cache_line_places(cache, obj, 800);
    CHECK(pl != NULL);
    if (pl) {
        CHECK_EQ_INT(pl[1].state, 3);
        CHECK_EQ_INT(pl[1].owner_core, cpus[far].core);
        CHECK_EQ_INT(pl[1].owner_llc, cpus[far].llc);
        CHECK_EQ_INT(pl[0].state, 1);          /* A's store, then far's load: both Shared */
        CHECK_EQ_INT(pl[0].sharers, 2);
        CHECK_EQ_INT(pl[0].owner_core, -1);
    }
    /* SMT siblings share the core's cache: CPU 192 is CPU 0's sibling */
    CHECK_EQ_INT(ks_cache_access(cache, 192, obj, 72, 8, 0, 900, &c), KS_OK);
    CHECK_EQ_INT(c.remote_hitm, 1);            /* far still owned line 1 */
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 72, 8, 0, 950, &c), KS_OK);
    CHECK_EQ_INT(c.lines_from[KS_SRC_L1], 1);
out:
    ks_cache_free(cache);
    ks_topology_free(topo);
}

/* ---- (5) snapshots -------------------------------------------------------- */

typedef struct op {
    int32_t cpu, obj, store;
    uint32_t off, len;
    uint64_t now;
} op;

static void make_ops(op *ops, int n, uint32_t cpus, const uint32_t *bytes, uint64_t seed)
{
    uint64_t rng = seed, now = 1;
    for (int i = 0; i < n; i++) {
        op *o = &ops[i];
        o->obj = (int32_t)below(&rng, 3);
        o->off = below(&rng, bytes[o->obj]);
        o->len = 1 + below(&rng, bytes[o->obj] - o->off);
        o->cpu = (int32_t)below(&rng, cpus);
        o->store = below(&rng, 2) == 0;
        now += below(&rng, 6) == 0 ? below(&rng, 5000000) : below(&rng, 500);
        o->now = now;
    }
}

/* Runs ops[from, to) on cache, storing each cost in costs[i]. */
static void run_ops(ks_cache *cache, const op *ops, int from, int to, ks_access_cost *costs)
{
    for (int i = from; i < to; i++)
        CHECK_EQ_INT(ks_cache_access(cache, ops[i].cpu, ops[i].obj, ops[i].off, ops[i].len,
                                     ops[i].store, ops[i].now, &costs[i]), KS_OK);
}

/* A snapshot image of cache in a fresh buffer (NULL on failure); *size gets its length. */
static uint8_t *save_image(const ks_cache *cache, uint32_t *size)
{
    *size = ks_cache_snapshot_size(cache);
    uint8_t *buf = *size ? malloc(*size) : NULL;
    if (buf && ks_cache_snapshot_save(cache, buf, *size) != KS_OK) {
        free(buf);
        buf = NULL;
    }
    CHECK(buf != NULL);
    return buf;
}

enum { SNAP_OPS = 600, SNAP_MID = 250 };

/* Restores mid into target, replays the second half and compares with the first run. */
static void check_replay(ks_cache *target, const uint8_t *mid, uint32_t mid_size, const op *ops,
                         const ks_access_cost *first, const uint8_t *end, uint32_t end_size)
{
    static ks_access_cost again[SNAP_OPS];
    CHECK_EQ_INT(ks_cache_snapshot_restore(target, mid, mid_size), KS_OK);
    CHECK_EQ_INT(ks_cache_object_count(target), 3);
    const char *name = ks_cache_object_name(target, 1);
    CHECK(name && strcmp(name, "b") == 0);
    CHECK_EQ_INT(ks_cache_object_lines(target, 1), 4);
    run_ops(target, ops, SNAP_MID, SNAP_OPS, again);
    CHECK(memcmp(&first[SNAP_MID], &again[SNAP_MID], (SNAP_OPS - SNAP_MID) * sizeof *first) == 0);
    uint32_t size = 0;
    uint8_t *now = save_image(target, &size);
    CHECK_EQ_INT(size, end_size);
    CHECK(now && size == end_size && memcmp(now, end, end_size) == 0);
    free(now);
}

static void snapshot_round_trip_replays_exactly(void)
{
    static op ops[SNAP_OPS];
    static ks_access_cost first[SNAP_OPS];
    ks_topology *topo = preset("epyc-9654-2s");
    ks_cache *cache = topo ? new_cache(topo, -1, -1, 1) : NULL;
    ks_cache *fresh = topo ? new_cache(topo, 0, 0, 0) : NULL;
    if (!cache || !fresh)
        goto out;
    add_object(cache, "a", 4096, 0);
    add_object(cache, "b", 200, 1);
    add_object(cache, "c", 64, 0);
    const uint32_t bytes[3] = { 4096, 256, 64 };
    make_ops(ops, SNAP_OPS, 384, bytes, 42);

    uint32_t mid_size = 0, end_size = 0;
    run_ops(cache, ops, 0, SNAP_MID, first);
    uint8_t *mid = save_image(cache, &mid_size);
    run_ops(cache, ops, SNAP_MID, SNAP_OPS, first);
    uint8_t *end = save_image(cache, &end_size);
    if (mid && end) {
        /* into the same cache, and into a fresh one on the same topology */
        check_replay(cache, mid, mid_size, ops, first, end, end_size);
        check_replay(fresh, mid, mid_size, ops, first, end, end_size);
        /* a damaged or truncated image is refused and changes nothing */
        CHECK_EQ_INT(ks_cache_snapshot_restore(fresh, mid, mid_size - 1), KS_ERR_INVALID_ARG);
        mid[0] ^= 0xff;
        CHECK_EQ_INT(ks_cache_snapshot_restore(fresh, mid, mid_size), KS_ERR_INVALID_ARG);
        uint32_t size = 0;
        uint8_t *still = save_image(fresh, &size);
        CHECK(still && size == end_size && memcmp(still, end, end_size) == 0);
        if (still)
            CHECK_EQ_INT(ks_cache_snapshot_save(fresh, still, size - 1), KS_ERR_RANGE);
        free(still);
    }
    free(mid);
    free(end);
out:
    ks_cache_free(cache);
    ks_cache_free(fresh);
    ks_topology_free(topo);
}

static void snapshot_refuses_another_topology(void)
{
    ks_topology *small = preset("classroom-8"), *big = preset("epyc-9654-2s");
    if (!small || !big)
        goto out;
    ks_cache *a = new_cache(small, -1, -1, 1), *b = new_cache(big, -1, -1, 1);
    if (a && b) {
        add_object(a, "x", 64, 0);
        uint32_t size = ks_cache_snapshot_size(a);
        uint8_t *buf = malloc(size);
        if (buf) {
            CHECK_EQ_INT(ks_cache_snapshot_save(a, buf, size), KS_OK);
            CHECK_EQ_INT(ks_cache_snapshot_restore(b, buf, size), KS_ERR_INVALID_ARG);
            CHECK_EQ_INT(ks_cache_object_count(b), 0);
        }
        free(buf);
    }
    ks_cache_free(a);
    ks_cache_free(b);
out:
    ks_topology_free(small);
    ks_topology_free(big);
}

/* ---- (6) bad arguments ---------------------------------------------------- */

static void bad_arguments_change_nothing(void)
{
    ks_topology *topo = preset("classroom-8");
    if (!topo)
        return;
    ks_cache *cache = new_cache(topo, -1, -1, 1);
    if (!cache) {
        ks_topology_free(topo);
        return;
    }
    int32_t obj = add_object(cache, "x", 100, 0);      /* 2 lines: bytes 0..127 */
    CHECK_EQ_INT(ks_cache_object_lines(cache, obj), 2);
    ks_access_cost c;
    CHECK_EQ_INT(ks_cache_access(cache, 1, obj, 0, 8, 1, 10, &c), KS_OK);
    uint32_t size = ks_cache_snapshot_size(cache);
    uint8_t *before = malloc(size), *after = malloc(size);
    if (!before || !after)
        goto out;
    CHECK_EQ_INT(ks_cache_snapshot_save(cache, before, size), KS_OK);

    memset(&c, 0x5a, sizeof c);
    ks_access_cost untouched = c;
    CHECK_EQ_INT(ks_cache_access(cache, 0, 7, 0, 8, 0, 20, &c), KS_ERR_RANGE);       /* object */
    CHECK_EQ_INT(ks_cache_access(cache, 0, -1, 0, 8, 0, 20, &c), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 120, 9, 0, 20, &c), KS_ERR_RANGE);   /* past end */
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 0xffffffffu, 2, 0, 20, &c), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_cache_access(cache, 8, obj, 0, 8, 0, 20, &c), KS_ERR_RANGE);     /* cpu */
    CHECK_EQ_INT(ks_cache_access(cache, -1, obj, 0, 8, 0, 20, &c), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_cache_access(NULL, 0, obj, 0, 8, 0, 20, &c), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 0, 8, 0, 20, NULL), KS_ERR_INVALID_ARG);
    CHECK(memcmp(&c, &untouched, sizeof c) == 0);
    int32_t id = 99;
    CHECK_EQ_INT(ks_cache_add_object(cache, "y", 64, 1, &id), KS_ERR_RANGE);         /* node */
    CHECK_EQ_INT(ks_cache_add_object(cache, "y", 0, 0, &id), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cache_add_object(cache, NULL, 64, 0, &id), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(id, 99);
    CHECK(ks_cache_line_stats(cache, 3) == NULL);
    CHECK(ks_cache_word_stats(cache, -1) == NULL);
    CHECK(ks_cache_line_places(cache, 1, 0) == NULL);
    CHECK(ks_cache_object_name(cache, 1) == NULL);
    CHECK_EQ_INT(ks_cache_object_lines(cache, 1), 0);

    CHECK_EQ_INT(ks_cache_snapshot_save(cache, after, size), KS_OK);
    CHECK(memcmp(before, after, size) == 0);

    /* the last byte of the last whole line is in range; a zero-length access is free */
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 127, 1, 0, 30, &c), KS_OK);
    CHECK_EQ_INT(c.lines, 1);
    CHECK_EQ_INT(ks_cache_access(cache, 0, obj, 128, 0, 0, 30, &c), KS_OK);
    CHECK_EQ_INT(c.lines, 0);
    CHECK_EQ_INT(c.cycles, 0);

    ks_cache_params bad;
    ks_cache_default_params(&bad);
    bad.track_words = 2;
    ks_cache *other = NULL;
    CHECK_EQ_INT(ks_cache_new(topo, &bad, &other), KS_ERR_INVALID_ARG);
    bad.track_words = 0;
    bad.llc_background_bytes_per_us = -1;
    CHECK_EQ_INT(ks_cache_new(topo, &bad, &other), KS_ERR_INVALID_ARG);
    CHECK(other == NULL);
    CHECK_EQ_INT(ks_cache_new(NULL, NULL, &other), KS_ERR_INVALID_ARG);
out:
    free(before);
    free(after);
    ks_cache_free(cache);
    ks_topology_free(topo);
}

/* Word counters off: no word array; a 200-CPU read of one line keeps 8 private copies. */
static void bounded_sharers_and_no_words(void)
{
    ks_topology *topo = preset("epyc-9654-2s");
    if (!topo)
        return;
    ks_cache *cache = new_cache(topo, -1, -1, 0);
    if (cache) {
        int32_t obj = add_object(cache, "read mostly", 64, 0);
        CHECK(ks_cache_word_stats(cache, obj) == NULL);
        ks_access_cost c;
        for (int32_t cpu = 0; cpu < 200; cpu++)
            CHECK_EQ_INT(ks_cache_access(cache, cpu, obj, 0, 8, 0, 100 + (uint64_t)cpu, &c), KS_OK);
        const ks_line_place *pl = ks_cache_line_places(cache, obj, 400);
        if (pl) {
            CHECK_EQ_INT(pl[0].sharers, LINE_PRIV_SLOTS);
            CHECK_EQ_INT(pl[0].state, 1);
        }
        CHECK_EQ_INT(ks_cache_line_stats(cache, obj)[0].loads, 200);
        /* The 8 kept copies are the last readers' (CPUs 192..199 = cores 0..7). Core 190's
         * copy was pushed out into its LLC (23), where it now finds the line. */
        CHECK_EQ_INT(access1(cache, 0, obj, 0, 8, 0, 500, NULL), KS_SRC_L1);
        CHECK_EQ_INT(access1(cache, 190, obj, 0, 8, 0, 510, NULL), KS_SRC_LLC);
    }
    ks_cache_free(cache);
    ks_topology_free(topo);
}

const test_case cache_model_tests[] = {
    { "cache: random traffic keeps one writer per line", random_traffic_keeps_one_writer },
    { "cache: latency tables are ordered by distance", latency_tables_are_ordered },
    { "cache: observed costs grow with distance", observed_costs_grow_with_distance },
    { "cache: an area goes cold after a gap", area_goes_cold_after_a_gap },
    { "cache: loads of modified lines count HITM", loads_of_modified_lines_count_hitm },
    { "cache: snapshot round trip replays exactly", snapshot_round_trip_replays_exactly },
    { "cache: snapshot refuses another topology", snapshot_refuses_another_topology },
    { "cache: bad arguments change nothing", bad_arguments_change_nothing },
    { "cache: bounded sharers, no word counters", bounded_sharers_and_no_words },
    { 0 },
};
