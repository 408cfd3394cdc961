/*
 * cpupri_mem.c: the memory the kernel's cpupri code touches, as the cost model sees it.
 *
 * Seed 001 is a contention story: perf c2c on a 480-CPU machine shows one 64-byte line,
 * the bitmap of a cpupri level, loaded by cpupri_find (in _find_first_and_bit and
 * __bitmap_and) and written by cpupri_set (a locked bit set or clear on the CPU's own
 * word), at ~2.2K-8.7K cycles per load. This file is where those loads and stores happen
 * in the model, so that the same table comes out of a simulated run:
 *
 *   - Each kernel allocation is one object of the v1 cache model (kscope/cache.h) with
 *     its home node: cp->cpu_to_pri (kcalloc, 4 bytes per CPU), cp->pri_to_cpu (101 x
 *     struct cpupri_vec: with CONFIG_CPUMASK_OFFSTACK=y, as on the seed's 480-CPU machine,
 *     a vec is { atomic_t count; cpumask_var_t mask; }: 16 bytes, the count at 16 x L),
 *     and each level's bitmap (zalloc_cpumask_var: cpumask_size() = 8 x ceil(nr_cpu_ids /
 *     64) bytes, 64 for 480 CPUs, so word k holds CPUs 64k..64k+63). The seed's split
 *     allocates one bitmap per (level, node) on that node (zalloc_cpumask_var_node);
 *     kscope's 6.12 patch one block per node (counts, then the 101 bitmaps, line aligned,
 *     kzalloc_node); and root_domain's RT overload state (rd->rto_count's line,
 *     rd->rto_mask: rt_set_overload / rt_clear_overload). ASSUMPTION: the root domain (cp->pri_to_cpu, cpu_to_pri and the
 *     global bitmaps) lives on node 0, where boot allocates def_root_domain.
 *   - Each access is a v1 cache access from the CPU that executes it (which keeps the
 *     per-line and per-8-byte-word load/store/HITM counters perf c2c reports) and, when it
 *     must move the line (a load of a line Modified elsewhere: a HITM; a store or locked
 *     RMW that must fetch or invalidate another copy), a request to that line's
 *     first-come-first-served server (ks_cost_line_request, cost model v2): it waits
 *     until the line's previous transfer ends, then takes one transfer at its distance.
 *     A locked RMW (lock bts/btr of cpumask_set_cpu/cpumask_clear_cpu, lock inc/dec of
 *     atomic_inc/atomic_dec) is one read for ownership: perf samples it as a load (HITM
 *     when the line was Modified elsewhere) and a store that hits L1.
 *   - A CPU issues its accesses one after another (each starts when its previous one
 *     ended): the kernel code is a dependent chain (count, barrier, mask).
 *   - perf c2c's rows: per (object, 8-byte word, symbol) loads, stores, local and remote
 *     HITM, store L1 hit/miss, and the sum of the latencies of the "sampled" loads:
 *     perf c2c record samples loads with latency >= 30 cycles on x86 (ldlat=30, the
 *     default of cpu/mem-loads,ldlat=30/P, perf-c2c(1)), so an L1 hit is not in the table.
 *   - Words of one scan share one miss: _find_first_and_bit and __bitmap_and load the
 *     words of a bitmap one after another; the first load fetches the line (HITM or not,
 *     waiting or not) and the later ones complete with the same fill (an out-of-order core
 *     issues them together), so each later word is a sample of the same latency.
 *
 * Not modelled: the store buffer (a store's latency is charged to the CPU as a load's
 * would be), prefetchers (one line), the rest of each kernel path (only these accesses
 * are kernel time here).
 */
#include <stdio.h>
#include <string.h>

#include "cpupri.h"

const char *const cpupri_site_names[SITE_COUNT] = {
    [SITE_CPUPRI_SET] = "cpupri_set",
    [SITE_FIND_FITNESS] = "cpupri_find_fitness",
    [SITE_FIND_FIRST_AND_BIT] = "_find_first_and_bit",
    [SITE_BITMAP_AND] = "__bitmap_and",
    [SITE_FIND_FIRST_AND_AND_BIT] = "_find_first_and_and_bit",
    [SITE_MEMCPY] = "memcpy",
    [SITE_BITMAP_INTERSECTS] = "__bitmap_intersects",
    [SITE_BITMAP_OR] = "__bitmap_or",
    [SITE_ENQUEUE_PUSHABLE] = "enqueue_pushable_task",
    [SITE_DEQUEUE_PUSHABLE] = "dequeue_pushable_task",
};

static int32_t add_object(cpupri_state *st, ks_sim *sim, const char *name, uint32_t bytes,
                          int32_t home, int32_t level, int32_t node, int32_t *out)
{
    ks_cache *cache = sched_cache(sim);
    int32_t id;
    int32_t status = ks_cache_add_object(cache, name, bytes, home, &id);
    if (status != KS_OK)
        return status;
    int32_t lines = (int32_t)((bytes + KS_CACHE_LINE - 1) / KS_CACHE_LINE);
    if (st->nr_servers + lines > CPUPRI_MAX_LINES)
        return KS_ERR_RANGE;
    cpupri_object *o = &st->objects[st->nr_objects];
    o->cache_id = id;
    o->level = level;
    o->node = node;
    o->first_server = st->nr_servers;
    o->lines = lines;
    snprintf(o->name, sizeof o->name, "%s", name);
    st->nr_servers += lines;
    *out = st->nr_objects++;
    return KS_OK;
}

#define TRY(x)                      \
    do {                            \
        int32_t try_status_ = (x);  \
        if (try_status_ != KS_OK)   \
            return try_status_;     \
    } while (0)

int32_t cpupri_mem_init(cpupri_state *st, ks_sim *sim)
{
    TRY(ks_topology_cost_params(sched_topology(sim), &st->cost));
    char name[40];
    TRY(add_object(st, sim, "cpupri.cpu_to_pri", 4u * (uint32_t)st->nr_cpus, 0, -1, -1,
                   &st->obj_cpu_to_pri));
    /* root_domain's RT lines: rto_count at 0x4 of its line 1 (the series' cover letter's
     * offsets, on its tree; VERIFY against a 6.12 pahole), and the rto_mask bitmap */
    TRY(add_object(st, sim, "root_domain", 2 * KS_CACHE_LINE, 0, -1, -1, &st->obj_root_domain));
    TRY(add_object(st, sim, "root_domain.rto_mask", (uint32_t)st->mask_bytes, 0, -1, -1,
                   &st->obj_rto_mask));
    for (int32_t l = 0; l < CPUPRI_LEVELS; l++)
        for (int32_t n = 0; n < CPUPRI_MAX_NODES; n++)
            st->obj_mask[l][n] = -1;
    for (int32_t n = 0; n < CPUPRI_MAX_NODES; n++)
        st->obj_block[n] = -1;
    st->obj_pri_to_cpu = -1;
    if (st->variant != KS_CPUPRI_PERNODE_KSCOPE)
        TRY(add_object(st, sim, "cpupri.pri_to_cpu", 16u * CPUPRI_LEVELS, 0, -1, -1,
                       &st->obj_pri_to_cpu));
    switch (st->variant) {
    case KS_CPUPRI_GLOBAL:
        for (int32_t l = 0; l < CPUPRI_LEVELS; l++) {
            snprintf(name, sizeof name, "cpupri_vec[%d].mask", l);
            TRY(add_object(st, sim, name, (uint32_t)st->mask_bytes, 0, l, -1,
                           &st->obj_mask[l][0]));
        }
        break;
    case KS_CPUPRI_PERNODE:
        for (int32_t l = 0; l < CPUPRI_LEVELS; l++)
            for (int32_t n = 0; n < st->nr_nodes; n++) {
                snprintf(name, sizeof name, "cpupri_vec[%d].masks[%d]", l, n);
                TRY(add_object(st, sim, name, (uint32_t)st->mask_bytes, n, l, n,
                               &st->obj_mask[l][n]));
            }
        break;
    default:
        for (int32_t n = 0; n < st->nr_nodes; n++) {
            snprintf(name, sizeof name, "cpupri_node[%d]", n);
            TRY(add_object(st, sim, name,
                           (uint32_t)(448 + CPUPRI_LEVELS * st->mask_bytes), n, -1, n,
                           &st->obj_block[n]));
        }
        break;
    }
    return KS_OK;
}

static int32_t source_of(const ks_access_cost *c)
{
    for (int32_t s = KS_SRC_COUNT - 1; s >= 0; s--)
        if (c->lines_from[s])
            return s;
    return KS_SRC_L1;
}

static cpupri_row *row_of(cpupri_state *st, int32_t obj, uint32_t offset, int32_t site)
{
    uint32_t h = ((uint32_t)obj * 2654435761u) ^ (offset * 40503u) ^ ((uint32_t)site * 97u);
    for (uint32_t i = 0; i < CPUPRI_ROW_HASH; i++) {
        uint32_t slot = (h + i) & (CPUPRI_ROW_HASH - 1);
        int32_t r = st->row_hash[slot];
        if (r == 0) {
            if (st->nr_rows >= CPUPRI_MAX_ROWS)
                return NULL;
            cpupri_row *row = &st->rows[st->nr_rows];
            memset(row, 0, sizeof *row);
            row->object = obj;
            row->offset = offset;
            row->site = site;
            st->row_hash[slot] = ++st->nr_rows;
            return row;
        }
        cpupri_row *row = &st->rows[r - 1];
        if (row->object == obj && row->offset == offset && row->site == site)
            return row;
    }
    return NULL;
}

static double cycles_of(const cpupri_state *st, double ns)
{
    return ns * (double)st->cost.latency.core_mhz / 1000.0;
}

/* Counts a load of one word on its row with the given latency and wait (ns). */
static void count_load(cpupri_state *st, int32_t obj, uint32_t word_off, int32_t site,
                       double lat_ns, double wait_ns, int32_t lhitm, int32_t rhitm)
{
    cpupri_row *row = row_of(st, obj, word_off, site);
    if (!row)
        return;
    row->loads++;
    row->local_hitm += (uint32_t)lhitm;
    row->remote_hitm += (uint32_t)rhitm;
    double cyc = cycles_of(st, lat_ns);
    if (cyc >= CPUPRI_LDLAT_CYCLES) {
        row->sampled_loads++;
        row->load_cycles_sum += cyc;
        row->wait_cycles_sum += cycles_of(st, wait_ns);
    }
}

static void count_store(cpupri_state *st, int32_t obj, uint32_t word_off, int32_t site, int l1_hit)
{
    cpupri_row *row = row_of(st, obj, word_off, site);
    if (!row)
        return;
    row->stores++;
    if (l1_hit)
        row->store_l1_hit++;
    else
        row->store_l1_miss++;
}

/* One access of one line's bytes; returns its latency (ns), *wait its waiting part. */
static double access_line(cpupri_state *st, ks_sim *sim, int32_t cpu, int32_t obj,
                          uint32_t offset, uint32_t len, int32_t kind, int32_t site,
                          double start, double *wait)
{
    const cpupri_object *o = &st->objects[obj];
    ks_cache *cache = sched_cache(sim);
    ks_access_cost ld = { 0 }, sto = { 0 };
    int32_t src = KS_SRC_L1, needs = 0;
    uint64_t now = (uint64_t)start;
    if (kind != ACC_STORE) {
        ks_cache_access(cache, cpu, o->cache_id, offset, len, 0, now, &ld);
        src = source_of(&ld);
        needs = ld.local_hitm + ld.remote_hitm > 0;
    }
    if (kind != ACC_LOAD) {
        ks_cache_access(cache, cpu, o->cache_id, offset, len, 1, now, &sto);
        int32_t s2 = source_of(&sto);
        if (kind == ACC_STORE || st->cost.latency.cycles[s2] > st->cost.latency.cycles[src])
            src = s2;
        needs = needs || src > KS_SRC_L2;
    }
    if (kind == ACC_RMW && src > KS_SRC_L2)
        needs = 1;
    ks_cost_result r;
    int32_t server = o->first_server + (int32_t)(offset / KS_CACHE_LINE);
    ks_cost_line_request(&st->cost, &st->servers[server], start, src, needs, &r);
    *wait = r.part_ns[KS_COST_CONTENTION];
    double lat = r.total_ns;
    for (uint32_t w = offset & ~7u; w < offset + len; w += 8) {
        int first = w == (offset & ~7u);
        if (kind != ACC_STORE)
            count_load(st, obj, w, site, lat, *wait, first ? (int32_t)ld.local_hitm : 0,
                       first ? (int32_t)ld.remote_hitm : 0);
        if (kind == ACC_STORE)
            count_store(st, obj, w, site, src <= KS_SRC_L2);
        else if (kind == ACC_RMW)
            count_store(st, obj, w, site, 1);
    }
    st->accesses++;
    return lat;
}

static void charge(cpupri_state *st, int32_t cpu, double lat, double wait)
{
    st->cpu_kernel_ns[cpu] += lat;
    st->access_ns += lat;
    st->wait_ns += wait;
}

double cpupri_mem_access(cpupri_state *st, ks_sim *sim, int32_t cpu, int32_t obj,
                         uint32_t offset, uint32_t len, int32_t kind, int32_t site, double t)
{
    double start = t > st->cpu_free_at[cpu] ? t : st->cpu_free_at[cpu];
    double wait = 0;
    double lat = access_line(st, sim, cpu, obj, offset, len, kind, site, start, &wait);
    charge(st, cpu, lat, wait);
    st->cpu_free_at[cpu] = start + lat;
    return start + lat;
}

double cpupri_mem_scan(cpupri_state *st, ks_sim *sim, int32_t cpu, int32_t obj, uint32_t base,
                       int32_t nwords, int32_t site, double t)
{
    double at = t > st->cpu_free_at[cpu] ? t : st->cpu_free_at[cpu];
    const cpupri_object *o = &st->objects[obj];
    ks_cache *cache = sched_cache(sim);
    int32_t w = 0;
    while (w < nwords) {
        uint32_t off = base + 8u * (uint32_t)w;
        double wait = 0;
        double lat = access_line(st, sim, cpu, obj, off, 8, ACC_LOAD, site, at, &wait);
        charge(st, cpu, lat, wait);
        /* the rest of this line's words in the scan: the same fill */
        for (w++; w < nwords && (base + 8u * (uint32_t)w) % KS_CACHE_LINE != 0; w++) {
            uint32_t o2 = base + 8u * (uint32_t)w;
            ks_access_cost c;
            ks_cache_access(cache, cpu, o->cache_id, o2, 8, 0, (uint64_t)at, &c);
            count_load(st, obj, o2, site, lat, wait, (int32_t)c.local_hitm,
                       (int32_t)c.remote_hitm);
        }
        at += lat;
    }
    st->cpu_free_at[cpu] = at;
    return at;
}
