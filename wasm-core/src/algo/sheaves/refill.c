/*
 * refill.c: making, filling and emptying sheaves (mm/slub.c, v6.18 .. 7.3).
 *
 *   alloc_empty_sheaf    kzalloc of struct slab_sheaf + capacity pointers (kzalloc_sheaf_ns,
 *                        an ASSUMPTION: the model has no kmalloc caches).
 *   free_empty_sheaf     kfree of it (charged as half a kzalloc, same ASSUMPTION).
 *   refill_sheaf         fill to capacity from the slabs: __kmem_cache_alloc_bulk
 *                        (slabs.c). The model never runs out of memory, so it never fails.
 *   alloc_full_sheaf     (6.19) alloc_empty_sheaf + refill_sheaf, when
 *                        __pcs_replace_empty_main has no empty sheaf to refill; 7.3 writes
 *                        the same two steps inline.
 *   sheaf_flush_unused   every object back to the slabs (__kmem_cache_free_bulk, slabs.c):
 *                        rcu_free_sheaf does it when the barn already holds
 *                        MAX_FULL_SHEAVES full sheaves.
 */
#include "sheaves.h"

int32_t shv_alloc_empty_sheaf(shv_model *m, int32_t c, int32_t cpu)
{
    shv_count(m, c, KS_SHEAVES_FN_ALLOC_EMPTY_SHEAF);
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.kzalloc_sheaf_ns);
    return shv_sheaf_new(m, c, cpu);
}

void shv_free_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf)
{
    shv_count(m, c, KS_SHEAVES_FN_FREE_EMPTY_SHEAF);
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.kzalloc_sheaf_ns / 2);
    shv_sheaf_release(m, c, sheaf);
}

int32_t shv_refill_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf)
{
    shv_sheaf *sh = &m->sheaves[sheaf];
    uint32_t cap = m->caches[c].capacity;
    shv_count(m, c, KS_SHEAVES_FN_REFILL_SHEAF);
    if (sh->size < cap)
        shv_slab_alloc_bulk(m, c, cpu, cap - sh->size);
    m->sheaves[sheaf].size = cap;
    m->sheaves[sheaf].filled_by = cpu;
    m->sheaves[sheaf].last_cpu = cpu;
    return 0;
}

int32_t shv_alloc_full_sheaf(shv_model *m, int32_t c, int32_t cpu)
{
    shv_count(m, c, KS_SHEAVES_FN_ALLOC_FULL_SHEAF);
    int32_t s = shv_alloc_empty_sheaf(m, c, cpu);
    if (s == SHV_NONE)
        return SHV_NONE;
    shv_refill_sheaf(m, c, cpu, s);
    return s;
}

void shv_sheaf_flush_unused(shv_model *m, int32_t c, int32_t cpu, int32_t sheaf)
{
    shv_count(m, c, KS_SHEAVES_FN_SHEAF_FLUSH_UNUSED);
    uint32_t n = m->sheaves[sheaf].size;
    m->sheaves[sheaf].size = 0;
    m->sheaves[sheaf].last_cpu = cpu;
    shv_slab_free_bulk(m, c, cpu, n);
}
