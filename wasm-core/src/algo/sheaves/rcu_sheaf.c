/*
 * rcu_sheaf.c: kfree_rcu() through the rcu_free sheaf (v6.18 .. 7.3), its grace period,
 * and, for a cache without sheaves (maple_node at 3accabda4), kfree_rcu's batches.
 *
 *   kfree_rcu(obj, rcu) -> kvfree_call_rcu -> kfree_rcu_sheaf -> __kfree_rcu_sheaf:
 *     no rcu_free sheaf: take the spare if it is empty (rcu_free = spare, spare = NULL),
 *     else barn_get_empty_sheaf(), else alloc_empty_sheaf(); push the object; when the
 *     sheaf is full: sheaf->node = numa_node_id(), rcu_free = NULL, call_rcu(rcu_free_sheaf).
 *     So the fix's kept spare often becomes the next rcu_free sheaf: a barn trip saved.
 *   rcu_free_sheaf (the callback, on the CPU that queued it, after a grace period): into
 *     the barn of sheaf->node: barn_put_full_sheaf() while nr_full < MAX_FULL_SHEAVES (a
 *     racy check); else sheaf_flush_unused() (every object back to its slab) and then
 *     barn_put_empty_sheaf() while nr_empty < MAX_EMPTY_SHEAVES, else free_empty_sheaf().
 *   Without sheaves: kvfree_call_rcu puts the pointer in the CPU's kfree_rcu batch (a
 *     per-CPU page of pointers under a CPU-local lock); after a grace period the batch is
 *     freed with kfree_bulk -> __kmem_cache_free_bulk (slabs.c) on that CPU.
 *
 * The grace period: one length per run (rcu_gp_ns, an explicit input the repro states);
 * grace periods follow each other back to back and a callback queued during one is ready
 * when the next one ends (it must wait for a whole grace period that starts after it).
 * Ready callbacks run in RCU's softirq on the CPU that queued them, taking its time, as
 * rcu_do_batch (kernel/rcu/tree.c, 7.3) runs them for a CPU busy with a task: at most
 * bl = max(blimit 10, pending >> 7) per pass, and a pass ends when the count is reached;
 * the softirq is re-raised and __do_softirq restarts at most MAX_SOFTIRQ_RESTART (10)
 * times, so at most 10 x bl per tick. The softirq runs on the scheduling-clock tick
 * (tick_ns; ticks of all CPUs aligned, sched_skew_tick off), at the CPU's first operation
 * boundary after it: what arrives in the barn arrives in per-tick bursts from every CPU of
 * the node, which is what makes the barn overflow. No callback offloading (rcu_nocbs).
 */
#include "sheaves.h"

uint64_t shv_rcu_due(const shv_model *m, uint64_t queued_ns)
{
    uint64_t gp = m->cfg.rcu_gp_ns ? m->cfg.rcu_gp_ns : 1;
    return (queued_ns / gp + 2) * gp;
}

static void call_rcu_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t s)
{
    shv_cache *ca = &m->caches[c];
    shv_sheaf *sh = &m->sheaves[s];
    sh->node = shv_node_of(m, cpu);
    sh->due_ns = shv_rcu_due(m, m->clock[cpu]);
    sh->next = SHV_NONE;
    sh->filled_by = cpu;
    if (ca->rcu_tail[cpu] == SHV_NONE)
        ca->rcu_head[cpu] = s;
    else
        m->sheaves[ca->rcu_tail[cpu]].next = s;
    ca->rcu_tail[cpu] = s;
}

static void kfree_rcu_batch(shv_model *m, int32_t c, int32_t cpu)
{
    shv_rcu_batch *ring = &m->caches[c].batches[(size_t)cpu * SHV_RCU_RING];
    uint64_t due = shv_rcu_due(m, m->clock[cpu]);
    int32_t free_slot = -1;
    for (int32_t i = 0; i < SHV_RCU_RING; i++) {
        if (ring[i].count > 0 && ring[i].due_ns == due) {
            ring[i].count++;
            return;
        }
        if (ring[i].count == 0 && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0) {        /* cannot happen with two grace periods in flight */
        shv_slab_free_bulk(m, c, cpu, 1);
        return;
    }
    ring[free_slot] = (shv_rcu_batch){ .due_ns = due, .count = 1 };
}

void shv_kfree_rcu(shv_model *m, int32_t c, int32_t cpu)
{
    shv_cache *ca = &m->caches[c];
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.fastpath_ns);
    if (ca->capacity == 0) {
        kfree_rcu_batch(m, c, cpu);
        return;
    }
    shv_pcs *p = &ca->pcs[cpu];
    shv_count(m, c, KS_SHEAVES_FN_KFREE_RCU_SHEAF);
    if (p->rcu_free == SHV_NONE) {
        if (p->spare != SHV_NONE && m->sheaves[p->spare].size == 0) {
            p->rcu_free = p->spare;
            p->spare = SHV_NONE;
        } else {
            int32_t empty = shv_barn_get_empty_sheaf(m, c, cpu, shv_node_of(m, cpu));
            if (empty == SHV_NONE)
                empty = shv_alloc_empty_sheaf(m, c, cpu);
            if (empty == SHV_NONE) {       /* kvfree_call_rcu's own batching: not modelled */
                shv_slab_free_bulk(m, c, cpu, 1);
                return;
            }
            p->rcu_free = empty;
        }
    }
    shv_sheaf *sh = &m->sheaves[p->rcu_free];
    sh->size++;
    sh->last_cpu = cpu;
    if (sh->size >= ca->capacity) {
        int32_t s = p->rcu_free;
        p->rcu_free = SHV_NONE;
        call_rcu_sheaf(m, c, cpu, s);
    }
}

static void rcu_free_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t s)
{
    shv_cache *ca = &m->caches[c];
    int32_t node = m->sheaves[s].node;
    shv_barn *b = &ca->barn[node];
    shv_count(m, c, KS_SHEAVES_FN_RCU_FREE_SHEAF);
    if (m->sheaves[s].size > 0) {
        if (b->nr_full < (uint32_t)m->cfg.barn_max) {
            shv_barn_put_full_sheaf(m, c, cpu, node, s);
            return;
        }
        shv_sheaf_flush_unused(m, c, cpu, s);
    }
    if (b->nr_empty < (uint32_t)m->cfg.barn_max) {
        shv_barn_put_empty_sheaf(m, c, cpu, node, s);
        return;
    }
    shv_free_empty_sheaf(m, c, cpu, s);
}

#define RCU_BLIMIT 10            /* DEFAULT_RCU_BLIMIT */
#define RCU_DIVISOR 7            /* rcu_divisor: bl = max(blimit, pending >> 7) */
#define SOFTIRQ_RESTARTS 10      /* MAX_SOFTIRQ_RESTART */

void shv_rcu_run_due(shv_model *m, int32_t cpu)
{
    uint64_t tick = m->clock[cpu] / m->cfg.tick_ns;
    int32_t softirq = tick > m->rcu_tick[cpu];
    if (softirq)
        m->rcu_tick[cpu] = tick;
    for (int32_t c = 0; c < SHV_CACHES; c++) {
        shv_cache *ca = &m->caches[c];
        int64_t budget = 0;
        if (softirq) {
            int64_t pending = 0;
            for (int32_t s = ca->rcu_head[cpu]; s != SHV_NONE && pending < (1 << 24)
                 && m->sheaves[s].due_ns <= m->clock[cpu]; s = m->sheaves[s].next)
                pending++;
            int64_t bl = pending >> RCU_DIVISOR > RCU_BLIMIT ? pending >> RCU_DIVISOR : RCU_BLIMIT;
            budget = bl * SOFTIRQ_RESTARTS;
        }
        while (budget-- > 0 && ca->rcu_head[cpu] != SHV_NONE
               && m->sheaves[ca->rcu_head[cpu]].due_ns <= m->clock[cpu]) {
            int32_t s = ca->rcu_head[cpu];
            ca->rcu_head[cpu] = m->sheaves[s].next;
            if (ca->rcu_head[cpu] == SHV_NONE)
                ca->rcu_tail[cpu] = SHV_NONE;
            m->sheaves[s].next = SHV_NONE;
            rcu_free_sheaf(m, c, cpu, s);
        }
        shv_rcu_batch *ring = &ca->batches[(size_t)cpu * SHV_RCU_RING];
        for (int32_t i = 0; i < SHV_RCU_RING; i++)
            if (ring[i].count > 0 && ring[i].due_ns <= m->clock[cpu]) {
                int64_t n = ring[i].count;
                ring[i].count = 0;
                shv_count(m, c, KS_SHEAVES_FN_KVFREE_RCU_BULK);
                shv_slab_free_bulk(m, c, cpu, (uint32_t)n);
            }
    }
}
