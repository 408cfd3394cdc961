/*
 * pcs.c: the per-CPU sheaves of a cache (struct slub_percpu_sheaves: main, spare,
 * rcu_free) on the allocation and free paths, and the change seed 002 is about.
 *
 *   kmem_cache_alloc -> slab_alloc_node -> alloc_from_pcs (v6.18 .. 7.3): pop an object
 *       from main; when main is empty, __pcs_replace_empty_main first.
 *   kmem_cache_free -> slab_free -> free_to_pcs: push onto main; when main is full,
 *       __pcs_replace_full_main first. (A remote node's object would bypass the sheaves;
 *       the workload frees only local objects.)
 *   A cache without sheaves (maple_node at 3accabda4) allocates from the slab layer
 *       (slab_alloc_node's cpu freelist, slabs.c) and frees to it.
 *
 * __pcs_replace_empty_main, in order (7.3 read; 6.19 differs only where said):
 *   1. spare holds objects: swap main and spare. No barn.
 *   2. barn_replace_empty_sheaf(barn, main): a full sheaf from the barn for the empty
 *      main. Called even when the barn has none (it then returns at its racy check).
 *   3. Else: the spare (necessarily empty) if there is one, else barn_get_empty_sheaf().
 *   4. Drop the per-CPU lock; refill that sheaf from the slabs, or with none, build one:
 *      6.19 alloc_full_sheaf(), 7.3 alloc_empty_sheaf() + refill_sheaf() (same work).
 *   5. Re-take the lock. main is still empty (no interrupts in the model):
 *        nofix (v6.18 .. v6.19-rc4): barn_put_empty_sheaf(barn, main); main = full.
 *        fix (Babka's committed form: slab/for-next 2025-12-22 per the seed; read in linux-source-7.3):
 *            if (!spare) spare = main; else barn_put_empty_sheaf(barn, main); main = full.
 *        fix-v2 (Hao Li's v2 as posted, 2025-12-10): if (!spare) { spare = main;
 *            main = full; return; } before the unchanged nofix code.
 *      In step 3 the spare was taken or was NULL, so step 5 nearly always finds no spare:
 *      before the fix the CPU gave its empty sheaf back and fetched an empty one from the
 *      barn next time (two barn-lock trips); with it the CPU keeps it.
 *   The `nospare` bug toggle makes every spare slot unusable: step 1 and 3 see NULL and
 *   step 5 always puts the empty main to the barn, whatever the variant.
 *
 * __pcs_replace_full_main (unchanged by the patch):
 *   no spare: barn_get_empty_sheaf(); got one: spare = main, main = empty; else a new
 *   empty sheaf (alloc_empty_sheaf) and __pcs_install_empty_sheaf, which here puts the
 *   full main to the barn (barn_put_full_sheaf: main and spare are both full then only
 *   without a spare slot) or parks it as spare.
 *   spare not full: swap. Else barn_replace_full_sheaf(main): -E2BIG (the barn holds
 *   MAX_FULL_SHEAVES): flush the spare to the slabs and use it; -ENOMEM: a new empty sheaf.
 */
#include "sheaves.h"

static int32_t spare_slot_usable(const shv_model *m)
{
    return !m->cfg.nospare;
}

void shv_pcs_replace_empty_main(shv_model *m, int32_t c, int32_t cpu)
{
    shv_pcs *p = &m->caches[c].pcs[cpu];
    int32_t node = shv_node_of(m, cpu);
    shv_count(m, c, KS_SHEAVES_FN_PCS_REPLACE_EMPTY_MAIN);

    if (p->spare != SHV_NONE && m->sheaves[p->spare].size > 0) {          /* 1 */
        int32_t t = p->main;
        p->main = p->spare;
        p->spare = t;
        return;
    }
    int32_t full = shv_barn_replace_empty_sheaf(m, c, cpu, node, p->main); /* 2 */
    if (full != SHV_NONE) {
        p->main = full;
        return;
    }
    int32_t empty;                                                         /* 3 */
    if (p->spare != SHV_NONE) {
        empty = p->spare;
        p->spare = SHV_NONE;
    } else {
        empty = shv_barn_get_empty_sheaf(m, c, cpu, node);
    }
    if (empty != SHV_NONE) {                                               /* 4 */
        shv_refill_sheaf(m, c, cpu, empty);
        full = empty;
    } else {
        full = shv_alloc_full_sheaf(m, c, cpu);
        if (full == SHV_NONE)
            return;             /* out of model memory: the allocation falls back to slabs */
    }
    /* 5: main->size == 0 (nothing can refill it while the lock was dropped) */
    switch (m->cfg.variant) {
    case KS_SHEAVES_FIX:
        if (p->spare == SHV_NONE && spare_slot_usable(m))
            p->spare = p->main;
        else
            shv_barn_put_empty_sheaf(m, c, cpu, node, p->main);
        p->main = full;
        return;
    case KS_SHEAVES_FIX_V2:
        if (p->spare == SHV_NONE && spare_slot_usable(m)) {
            p->spare = p->main;
            p->main = full;
            return;
        }
        shv_barn_put_empty_sheaf(m, c, cpu, node, p->main);
        p->main = full;
        return;
    default:                    /* nofix */
        shv_barn_put_empty_sheaf(m, c, cpu, node, p->main);
        p->main = full;
        return;
    }
}

void shv_pcs_replace_full_main(shv_model *m, int32_t c, int32_t cpu)
{
    shv_pcs *p = &m->caches[c].pcs[cpu];
    int32_t node = shv_node_of(m, cpu);
    shv_count(m, c, KS_SHEAVES_FN_PCS_REPLACE_FULL_MAIN);

    if (p->spare == SHV_NONE || !spare_slot_usable(m)) {
        if (spare_slot_usable(m)) {
            int32_t empty = shv_barn_get_empty_sheaf(m, c, cpu, node);
            if (empty != SHV_NONE) {
                p->spare = p->main;
                p->main = empty;
                return;
            }
        } else {
            int32_t empty = shv_barn_replace_full_sheaf(m, c, cpu, node, p->main);
            if (empty >= 0) {
                p->main = empty;
                return;
            }
            if (empty == SHV_E2BIG) {     /* no spare to flush: flush main itself */
                shv_sheaf_flush_unused(m, c, cpu, p->main);
                return;
            }
        }
        int32_t empty = shv_alloc_empty_sheaf(m, c, cpu);
        if (empty == SHV_NONE) {
            shv_sheaf_flush_unused(m, c, cpu, p->main);
            return;
        }
        /* __pcs_install_empty_sheaf */
        if (p->spare == SHV_NONE && spare_slot_usable(m))
            p->spare = p->main;
        else
            shv_barn_put_full_sheaf(m, c, cpu, node, p->main);
        p->main = empty;
        return;
    }
    if (m->sheaves[p->spare].size < m->caches[c].capacity) {
        int32_t t = p->main;
        p->main = p->spare;
        p->spare = t;
        return;
    }
    int32_t empty = shv_barn_replace_full_sheaf(m, c, cpu, node, p->main);
    if (empty >= 0) {
        p->main = empty;
        return;
    }
    if (empty == SHV_E2BIG) {
        int32_t to_flush = p->spare;
        p->spare = SHV_NONE;
        shv_sheaf_flush_unused(m, c, cpu, to_flush);
        /* __pcs_install_empty_sheaf: main full, no spare -> spare = main */
        p->spare = p->main;
        p->main = to_flush;
        return;
    }
    empty = shv_alloc_empty_sheaf(m, c, cpu);
    if (empty == SHV_NONE) {
        shv_sheaf_flush_unused(m, c, cpu, p->main);
        return;
    }
    shv_barn_put_full_sheaf(m, c, cpu, node, p->main);   /* main and spare both full */
    p->main = empty;
}

/* The object's lines: where the CPU that filled the sheaf left them. */
static void charge_object(shv_model *m, int32_t c, int32_t cpu, int32_t from_cpu)
{
    int32_t d = shv_distance(m, from_cpu, cpu);
    if (d == KS_SRC_L1 && c == SHV_MAPLE)
        d = KS_SRC_LLC;   /* own objects back from a grace period ago: aged to the LLC */
    shv_charge(m, cpu, d <= KS_SRC_L2 ? KS_COST_CORE : d == KS_SRC_LLC ? KS_COST_LLC
                                                                       : KS_COST_REMOTE,
               m->obj_ns[c][d]);
}

void shv_kmem_cache_alloc(shv_model *m, int32_t c, int32_t cpu)
{
    shv_cache *ca = &m->caches[c];
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.fastpath_ns);
    if (ca->capacity == 0) {                 /* slab_alloc_node without sheaves */
        if (ca->cpu[cpu].free_objs <= 0)
            shv_count(m, c, KS_SHEAVES_FN_SLAB_ALLOC_SLOWPATH);
        int32_t src = ca->cpu[cpu].src_cpu;
        shv_slab_alloc_bulk(m, c, cpu, 1);
        charge_object(m, c, cpu, src);
        return;
    }
    shv_pcs *p = &ca->pcs[cpu];
    if (m->sheaves[p->main].size == 0)
        shv_pcs_replace_empty_main(m, c, cpu);
    shv_sheaf *main = &m->sheaves[p->main];
    if (main->size == 0) {                   /* no sheaf could be had: from the slabs */
        shv_slab_alloc_bulk(m, c, cpu, 1);
        return;
    }
    main->size--;
    charge_object(m, c, cpu, main->filled_by);
}

void shv_kmem_cache_free(shv_model *m, int32_t c, int32_t cpu)
{
    shv_cache *ca = &m->caches[c];
    shv_charge(m, cpu, KS_COST_CORE, (double)m->cfg.fastpath_ns);
    if (ca->capacity == 0) {
        shv_slab_free_bulk(m, c, cpu, 1);
        return;
    }
    shv_pcs *p = &ca->pcs[cpu];
    if (m->sheaves[p->main].size >= ca->capacity)
        shv_pcs_replace_full_main(m, c, cpu);
    shv_sheaf *main = &m->sheaves[p->main];
    if (main->size >= ca->capacity) {
        shv_slab_free_bulk(m, c, cpu, 1);
        return;
    }
    main->size++;
}
