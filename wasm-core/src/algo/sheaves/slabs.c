/*
 * slabs.c: the slab layer under the sheaves, as v6.18 .. v6.19 have it (the seed's
 * kernels): each CPU's kmem_cache_cpu (a cpu slab with a lockless freelist and a cpu
 * partial list of at most cpu_partial_slabs slabs) and each node's partial list behind
 * its list_lock. By 7.3 the cpu slabs are gone, replaced by sheaves (refill_objects /
 * get_from_partial); that layer is not modelled.
 *
 *   __kmem_cache_alloc_bulk -> ___slab_alloc   (refill_sheaf, and allocations of a cache
 *                              without sheaves): objects from the cpu slab and cpu partial
 *                              slabs; when there are none, get_partial_node() on the local
 *                              node (a racy nr_partial check, then list_lock; it takes one
 *                              slab for the cpu slab and more for the cpu partial list, up
 *                              to cpu_partial_slabs / 2 of them); when the local node has
 *                              none, get_any_partial(): with probability
 *                              remote_node_defrag_ratio / 1024 (1000, the default) the other
 *                              nodes, nearest first, whose nr_partial > min_partial; else
 *                              new_slab() (the page allocator).
 *   __kmem_cache_free_bulk -> __slab_free       (sheaf_flush_unused, the kfree_rcu batches):
 *                              a cmpxchg on each slab's freelist; a slab that was full
 *                              goes to the freeing CPU's cpu partial list (put_cpu_partial,
 *                              no lock); past cpu_partial_slabs, __put_partials moves them
 *                              to the node's partial list under list_lock.
 *
 * Counts, not freelists (sheaves.h): a node's partial list is its number of free objects,
 * a partial slab taken by a refill is assumed half free (objs_per_slab / 2, an
 * ASSUMPTION: the model does not track slabs' fill), objects go back to the freeing CPU's
 * node, and empty slabs are never discarded.
 *
 * Costs: the freelist is walked object by object (each object's free pointer is a
 * dependent load: no overlap), its line left by whoever freed it last; each slab's
 * freelist word costs one line trip; inside list_lock, list_hold_ns per slab, and the
 * lines the list operations touch beside the node's own (which comes with the lock):
 * get_partial_node 2 per slab taken (its freelist/counters, the next slab's link) + 1,
 * __put_partials 1 per slab (add_partial links it after the old tail).
 */
#include "sheaves.h"

static void take_partial(shv_model *m, int32_t c, int32_t cpu, int32_t nd)
{
    shv_cache *ca = &m->caches[c];
    shv_node *n = &ca->node[nd];
    shv_cpuslab *cs = &ca->cpu[cpu];
    int64_t avail = ca->objs_per_slab / 2 > 0 ? ca->objs_per_slab / 2 : 1;
    int64_t want = (int64_t)(1 + ca->cpu_partial_slabs / 2 + 1) * avail;
    shv_count(m, c, KS_SHEAVES_FN_GET_PARTIAL_NODE);
    if (n->free_objs <= 0)                     /* !n->nr_partial: no lock */
        return;
    int64_t take = n->free_objs < want ? n->free_objs : want;
    int32_t slabs = (int32_t)((take + avail - 1) / avail);
    shv_lock_run(m, n->list_lock, cpu, (double)m->cfg.list_hold_ns * slabs, 1 + 2 * slabs);
    take = n->free_objs < take ? n->free_objs : take;  /* others may have taken meanwhile */
    n->free_objs -= take;
    cs->free_objs += take;
    cs->partial_slabs += slabs > 1 ? slabs - 1 : 0;
    cs->src_cpu = n->last_flusher;
}

static int64_t node_partial_slabs(const shv_cache *ca, int32_t nd)
{
    int64_t avail = ca->objs_per_slab / 2 > 0 ? ca->objs_per_slab / 2 : 1;
    return (ca->node[nd].free_objs + avail - 1) / avail;
}

/* get_any_partial: other nodes, nearest first (same socket, then the others). */
static void any_partial(shv_model *m, int32_t c, int32_t cpu)
{
    shv_cache *ca = &m->caches[c];
    int32_t home = shv_node_of(m, cpu);
    shv_count(m, c, KS_SHEAVES_FN_GET_ANY_PARTIAL);
    if (shv_rand(m) % 1024 >= 1000)            /* remote_node_defrag_ratio = 1000 */
        return;
    int32_t sock = m->cpus[cpu].socket;
    for (int32_t pass = 0; pass < 2; pass++)
        for (int32_t nd = 0; nd < m->nr_nodes; nd++) {
            if (nd == home)
                continue;
            int32_t same = m->node_socket[nd] == sock;
            if (same != (pass == 0))
                continue;
            if (node_partial_slabs(ca, nd) > (int64_t)ca->min_partial) {
                int64_t before = ca->cpu[cpu].free_objs;
                take_partial(m, c, cpu, nd);
                if (ca->cpu[cpu].free_objs > before)
                    return;
            }
        }
}

void shv_slab_alloc_bulk(shv_model *m, int32_t c, int32_t cpu, uint32_t n)
{
    shv_cache *ca = &m->caches[c];
    shv_cpuslab *cs = &ca->cpu[cpu];
    int32_t home = shv_node_of(m, cpu);
    int32_t guard = 0;
    while (n > 0 && guard++ < 64) {
        if (cs->free_objs > 0) {
            uint32_t take = cs->free_objs < (int64_t)n ? (uint32_t)cs->free_objs : n;
            cs->free_objs -= take;
            n -= take;
            int32_t d = shv_distance(m, cs->src_cpu, cpu);
            if (d == KS_SRC_L1)
                d = KS_SRC_LLC;     /* own frees from a grace period ago: in the own LLC */
            shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.fastpath_ns * take);
            shv_charge(m, cpu, d == KS_SRC_LLC ? KS_COST_LLC : KS_COST_REMOTE,
                       m->trip_ns[d] * take);
            if (cs->partial_slabs > 0 && cs->free_objs < (int64_t)(ca->objs_per_slab / 2)
                                                          * cs->partial_slabs)
                cs->partial_slabs--;
            continue;
        }
        int64_t before = cs->free_objs;
        take_partial(m, c, cpu, home);
        if (cs->free_objs > before)
            continue;
        any_partial(m, c, cpu);
        if (cs->free_objs > before)
            continue;
        shv_count(m, c, KS_SHEAVES_FN_NEW_SLAB);
        shv_charge(m, cpu, KS_COST_DRAM, (double)m->cfg.new_slab_ns);
        cs->free_objs += ca->objs_per_slab;
        cs->src_cpu = cpu;
    }
}

void shv_slab_free_bulk(shv_model *m, int32_t c, int32_t cpu, uint32_t n)
{
    if (n == 0)
        return;
    shv_cache *ca = &m->caches[c];
    shv_cpuslab *cs = &ca->cpu[cpu];
    int32_t home = shv_node_of(m, cpu);
    shv_node *nd = &ca->node[home];
    int32_t slabs = (int32_t)((n + ca->objs_per_slab - 1) / ca->objs_per_slab);
    int32_t d = shv_distance(m, nd->last_flusher, cpu);
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.fastpath_ns * n);
    shv_charge(m, cpu, KS_COST_REMOTE, m->trip_ns[d] * slabs);
    uint32_t left = n;
    for (int32_t k = 0; k < slabs; k++) {
        uint32_t objs = left < ca->objs_per_slab ? left : ca->objs_per_slab;
        left -= objs;
        /* put_cpu_partial: a full list (>= cpu_partial_slabs) is drained first */
        if (cs->partial_slabs >= (int32_t)ca->cpu_partial_slabs && cs->partial_slabs > 0) {
            shv_count(m, c, KS_SHEAVES_FN_PUT_PARTIALS);
            int32_t moved = cs->partial_slabs;
            /* __put_partials: add_partial per slab, each linking after the list's tail */
            shv_lock_run(m, nd->list_lock, cpu, (double)m->cfg.list_hold_ns * moved, moved);
            int64_t keep = ca->objs_per_slab / 2;   /* the cpu slab's own free objects stay */
            if (keep > cs->free_objs)
                keep = cs->free_objs;
            nd->free_objs += cs->free_objs - keep;
            cs->free_objs = keep;
            cs->partial_slabs = 0;
            nd->last_flusher = cpu;
        }
        cs->free_objs += objs;
        cs->partial_slabs++;
        cs->src_cpu = cpu;
    }
}
