/*
 * model.c: the sheaves model's machine and caches (kmem_cache creation), its sheaf pool,
 * its clock and what every other file charges time through.
 *
 * kmem_cache_create for the two caches (kernel functions re-implemented, 7.3 unless said):
 *   calculate_order()     min_objects = 4 * (fls(nr_present_cpus) + 1), the smallest order
 *                         that holds min_objects (get_order(min_objects * size)) with a
 *                         leftover <= 1/16 of the slab (calc_slab_order), at most order 3.
 *                         maple_node (256 B) on 344 or 384 CPUs: order 2, 64 objects.
 *   set_min_partial()     ilog2(size) / 2 clamped to [MIN_PARTIAL 5, MAX_PARTIAL 10].
 *   set_cpu_partial()     (v6.17 .. v6.19; gone by 7.3, whose slub.c has no cpu partial lists) 52
 *                         objects for sizes >= 256, 120 below, and slub_set_cpu_partial()
 *                         turns them into DIV_ROUND_UP(2 x objects, objects per slab) slabs.
 *   struct slab_sheaf     a 32-byte header + 8 bytes per object: 1 + ceil(8 C / 64) lines.
 *   numa_mem_id()         the CPU's node: a CPU always uses its own node's barn.
 *
 * Cost tables (cost model v2, the preset's figures, computed once per run):
 *   trip_ns[d]            one line from distance d (ks_cost_sweep_run, one line, DIRTY);
 *   obj_ns[cache][d]      an object's lines on allocation, left at distance d (the object
 *                         is written: initialised by vm_area_alloc / the maple tree);
 *   xfer_ns[d][lines]     a sheaf's header and object array taken by another CPU, left
 *                         Modified at distance d, read and written in address order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sheaves.h"

static const char *const FN_NAMES[KS_SHEAVES_FN_COUNT] = {
    "__pcs_replace_empty_main", "barn_replace_empty_sheaf", "barn_get_empty_sheaf",
    "barn_put_empty_sheaf", "barn_put_full_sheaf", "barn_replace_full_sheaf",
    "__pcs_replace_full_main", "refill_sheaf", "alloc_full_sheaf", "alloc_empty_sheaf",
    "free_empty_sheaf", "sheaf_flush_unused", "__kfree_rcu_sheaf", "rcu_free_sheaf",
    "get_partial_node", "get_any_partial", "new_slab", "__put_partials", "discard_slab",
    "kfree_rcu_bulk", "___slab_alloc",
};

const char *ks_sheaves_fn_name(int32_t fn)
{
    return fn >= 0 && fn < KS_SHEAVES_FN_COUNT ? FN_NAMES[fn] : NULL;
}

static int32_t fls32(uint32_t x)
{
    int32_t r = 0;
    while (x) {
        r++;
        x >>= 1;
    }
    return r;
}

static int32_t ilog2_32(uint32_t x)
{
    return fls32(x) - 1;
}

static uint32_t get_order(uint64_t bytes)
{
    uint32_t order = 0;
    while ((4096ull << order) < bytes)
        order++;
    return order;
}

/* calculate_order() + calc_slab_order(): objects per slab (slub_max_order 3). */
static uint32_t objects_per_slab(uint32_t size, int32_t nr_cpus)
{
    uint32_t min_objects = 4u * (uint32_t)(fls32((uint32_t)nr_cpus) + 1);
    uint32_t max_objects = (4096u << 3) / size;
    if (min_objects > max_objects)
        min_objects = max_objects;
    uint32_t min_order = get_order((uint64_t)min_objects * size);
    for (uint32_t fraction = 16; fraction > 1; fraction /= 2)
        for (uint32_t order = min_order; order <= 3; order++) {
            uint32_t slab = 4096u << order;
            if (slab % size <= slab / fraction)
                return slab / size;
        }
    return (4096u << 3) / size;
}

static void cache_setup(shv_cache *c, const char *name, uint32_t size, uint32_t capacity,
                        int32_t nr_cpus)
{
    strncpy(c->name, name, sizeof c->name - 1);
    c->object_size = size;
    c->capacity = capacity;
    c->objs_per_slab = objects_per_slab(size, nr_cpus);
    uint32_t mp = (uint32_t)ilog2_32(size) / 2;
    c->min_partial = mp < 5 ? 5 : mp > 10 ? 10 : mp;
    uint32_t cpu_partial_objects = size >= 256 ? 52 : 120;   /* v6.17 set_cpu_partial */
    c->cpu_partial_slabs = (2 * cpu_partial_objects + c->objs_per_slab - 1) / c->objs_per_slab;
    c->object_lines = (size + 63) / 64;
}

int32_t shv_node_of(const shv_model *m, int32_t cpu)
{
    return m->cpus[cpu].node;
}

int32_t shv_distance(const shv_model *m, int32_t a, int32_t b)
{
    if (a < 0 || b < 0 || a == b)
        return KS_SRC_L1;
    const ks_cpu *x = &m->cpus[a], *y = &m->cpus[b];
    if (x->core == y->core)
        return KS_SRC_L1;                 /* SMT siblings share the L1 */
    if (x->llc == y->llc)
        return KS_SRC_SAME_LLC_CORE;
    if (x->socket == y->socket)
        return KS_SRC_OTHER_LLC;
    return KS_SRC_OTHER_SOCKET;
}

static int32_t where_of(int32_t src)
{
    switch (src) {
    case KS_SRC_SAME_LLC_CORE: return KS_WHERE_SAME_LLC_CORE;
    case KS_SRC_OTHER_LLC: return KS_WHERE_OTHER_LLC;
    case KS_SRC_OTHER_SOCKET: return KS_WHERE_OTHER_SOCKET;
    case KS_SRC_LLC: return KS_WHERE_OWN_LLC;
    default: return KS_WHERE_OWN_PRIVATE;
    }
}

/* A burst of `lines` lines left Modified at distance src, written in address order. */
static double sweep_ns(const shv_model *m, int32_t src, uint32_t lines)
{
    if (lines == 0)
        return 0;
    ks_cost_sweep sw;
    memset(&sw, 0, sizeof sw);
    sw.order = KS_ORDER_SEQUENTIAL;
    sw.is_store = 1;
    sw.since_own_touch_ns = 0;
    sw.n_groups = 1;
    sw.groups[0].lines = lines;
    sw.groups[0].where = where_of(src);
    sw.groups[0].state = src == KS_SRC_L1 || src == KS_SRC_LLC ? KS_LINE_CLEAN : KS_LINE_DIRTY;
    ks_cost_result r;
    if (ks_cost_sweep_run(&m->cost, &sw, &r) != KS_OK)
        return 0;
    return r.total_ns;
}

void shv_charge(shv_model *m, int32_t cpu, int32_t part, double ns)
{
    if (ns <= 0)
        return;
    m->clock[cpu] += (uint64_t)(ns + 0.5);
    if (m->measuring && part >= 0 && part < KS_COST_PARTS)
        m->part_ns[part] += ns;
}

void shv_count(shv_model *m, int32_t cache, int32_t fn)
{
    if (m->measuring)
        m->caches[cache].fn[fn]++;
}

uint32_t shv_rand(shv_model *m)
{
    /* xorshift64*: the state is the model's, so runs repeat */
    m->rng ^= m->rng >> 12;
    m->rng ^= m->rng << 25;
    m->rng ^= m->rng >> 27;
    return (uint32_t)((m->rng * 2685821657736338717ull) >> 32);
}

int32_t shv_sheaf_new(shv_model *m, int32_t cache, int32_t cpu)
{
    int32_t s = m->free_sheaf;
    if (s != SHV_NONE) {
        m->free_sheaf = m->sheaves[s].next;
    } else {
        if (m->n_sheaves == m->cap_sheaves) {
            int32_t cap = m->cap_sheaves ? m->cap_sheaves * 2 : 1024;
            shv_sheaf *p = realloc(m->sheaves, (size_t)cap * sizeof *p);
            if (!p)
                return SHV_NONE;
            m->sheaves = p;
            m->cap_sheaves = cap;
        }
        s = m->n_sheaves++;
    }
    m->sheaves[s] = (shv_sheaf){ .size = 0, .next = SHV_NONE, .node = -1, .last_cpu = cpu,
                                 .filled_by = cpu, .in_use = 1 };
    shv_cache *c = &m->caches[cache];
    if (++c->sheaves_live > c->sheaves_live_max)
        c->sheaves_live_max = c->sheaves_live;
    return s;
}

void shv_sheaf_release(shv_model *m, int32_t cache, int32_t s)
{
    m->sheaves[s].in_use = 0;
    m->sheaves[s].next = m->free_sheaf;
    m->free_sheaf = s;
    m->caches[cache].sheaves_live--;
}

/* A CPU starts using a sheaf another CPU wrote last: its header and array lines move. */
void shv_sheaf_take(shv_model *m, int32_t cache, int32_t cpu, int32_t s)
{
    shv_sheaf *sh = &m->sheaves[s];
    int32_t d = shv_distance(m, sh->last_cpu, cpu);
    if (d != KS_SRC_L1) {
        int32_t lines = (int32_t)(1 + (8 * m->caches[cache].capacity + 63) / 64);
        if (lines > m->xfer_max_lines)
            lines = m->xfer_max_lines;
        double ns = m->xfer_ns[d * (m->xfer_max_lines + 1) + lines];
        shv_charge(m, cpu, KS_COST_REMOTE, ns);
    }
    sh->last_cpu = cpu;
}

int32_t shv_model_init(shv_model *m, const ks_sheaves_mmap2_config *cfg, const ks_topology *topo)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->free_sheaf = SHV_NONE;
    if (!topo) {
        if (ks_topology_from_preset(cfg->preset, &m->topo) != KS_OK)
            return KS_ERR_NOT_FOUND;
        topo = m->topo;      /* owned: freed by shv_model_free */
    }
    ks_topology_summary sum;
    ks_topology_summarize(topo, &sum);
    m->cpus = ks_topology_cpus(topo);
    m->nr_cpus = sum.cpus;
    m->nr_nodes = sum.nodes;
    if (m->nr_nodes > 64 || m->nr_nodes < 1)
        return KS_ERR_RANGE;
    for (int32_t i = 0; i < m->nr_cpus; i++)
        m->node_socket[m->cpus[i].node] = m->cpus[i].socket;
    if (ks_topology_cost_params(topo, &m->cost) != KS_OK)
        return KS_ERR_INVALID_ARG;
    m->rng = 0x9e3779b97f4a7c15ull ^ cfg->seed;
    if (m->rng == 0)
        m->rng = 1;
    m->clock = calloc((size_t)m->nr_cpus, sizeof *m->clock);
    m->rcu_tick = calloc((size_t)m->nr_cpus, sizeof *m->rcu_tick);
    if (!m->clock || !m->rcu_tick)
        return KS_ERR_NO_MEMORY;

    /* vm_area_struct: 192 bytes as the host's kmem_cache_alloc bytes_alloc says; both
     * caches ask for sheaf_capacity 32 (mm/vma_init.c, lib/maple_tree.c). */
    uint32_t maple_cap = cfg->variant == KS_SHEAVES_BASELINE ? 0 : (uint32_t)cfg->maple_capacity;
    cache_setup(&m->caches[SHV_VMA], "vm_area_struct", 192, (uint32_t)cfg->vma_capacity, m->nr_cpus);
    cache_setup(&m->caches[SHV_MAPLE], "maple_node", 256, maple_cap, m->nr_cpus);

    for (int32_t d = 0; d < KS_SRC_COUNT; d++)
        m->trip_ns[d] = sweep_ns(m, d, 1);
    uint32_t max_cap = (uint32_t)(cfg->maple_capacity > cfg->vma_capacity ? cfg->maple_capacity
                                                                          : cfg->vma_capacity);
    m->xfer_max_lines = (int32_t)(1 + (8 * max_cap + 63) / 64);
    m->xfer_ns = calloc((size_t)KS_SRC_COUNT * (size_t)(m->xfer_max_lines + 1), sizeof *m->xfer_ns);
    if (!m->xfer_ns)
        return KS_ERR_NO_MEMORY;
    for (int32_t d = 0; d < KS_SRC_COUNT; d++) {
        for (int32_t l = 0; l <= m->xfer_max_lines; l++)
            m->xfer_ns[d * (m->xfer_max_lines + 1) + l] = sweep_ns(m, d, (uint32_t)l);
        for (int32_t c = 0; c < SHV_CACHES; c++)
            m->obj_ns[c][d] = sweep_ns(m, d, m->caches[c].object_lines);
    }

    for (int32_t ci = 0; ci < SHV_CACHES; ci++) {
        shv_cache *c = &m->caches[ci];
        c->pcs = calloc((size_t)m->nr_cpus, sizeof *c->pcs);
        c->cpu = calloc((size_t)m->nr_cpus, sizeof *c->cpu);
        c->rcu_head = malloc((size_t)m->nr_cpus * sizeof *c->rcu_head);
        c->rcu_tail = malloc((size_t)m->nr_cpus * sizeof *c->rcu_tail);
        c->batches = calloc((size_t)m->nr_cpus * SHV_RCU_RING, sizeof *c->batches);
        c->barn = calloc((size_t)m->nr_nodes, sizeof *c->barn);
        c->node = calloc((size_t)m->nr_nodes, sizeof *c->node);
        if (!c->pcs || !c->cpu || !c->rcu_head || !c->rcu_tail || !c->batches || !c->barn || !c->node)
            return KS_ERR_NO_MEMORY;
        for (int32_t n = 0; n < m->nr_nodes; n++) {
            char name[32];
            snprintf(name, sizeof name, "barn:%s:node%d", c->name, (int)n);
            c->barn[n] = (shv_barn){ .full_head = SHV_NONE, .empty_head = SHV_NONE };
            c->barn[n].lock = shv_lock_new(m, name, 1);
            snprintf(name, sizeof name, "list_lock:%s:node%d", c->name, (int)n);
            c->node[n].list_lock = shv_lock_new(m, name, 0);
            c->node[n].last_flusher = -1;
            if (c->barn[n].lock < 0 || c->node[n].list_lock < 0)
                return KS_ERR_NO_MEMORY;
        }
        for (int32_t cpu = 0; cpu < m->nr_cpus; cpu++) {
            c->rcu_head[cpu] = c->rcu_tail[cpu] = SHV_NONE;
            c->pcs[cpu] = (shv_pcs){ .main = SHV_NONE, .spare = SHV_NONE, .rcu_free = SHV_NONE };
            if (c->capacity) {
                /* init_percpu_sheaves: main is never NULL, an empty sheaf to start */
                c->pcs[cpu].main = shv_sheaf_new(m, ci, cpu);
                if (c->pcs[cpu].main == SHV_NONE)
                    return KS_ERR_NO_MEMORY;
            }
        }
    }
    return KS_OK;
}

void shv_model_free(shv_model *m)
{
    for (int32_t ci = 0; ci < SHV_CACHES; ci++) {
        shv_cache *c = &m->caches[ci];
        free(c->pcs);
        free(c->cpu);
        free(c->rcu_head);
        free(c->rcu_tail);
        free(c->batches);
        free(c->barn);
        free(c->node);
    }
    for (int32_t i = 0; i < m->n_locks; i++)
        free(m->locks[i].turns);
    free(m->locks);
    free(m->sheaves);
    free(m->xfer_ns);
    free(m->clock);
    free(m->rcu_tick);
    if (m->topo)
        ks_topology_free(m->topo);
    memset(m, 0, sizeof *m);
}
