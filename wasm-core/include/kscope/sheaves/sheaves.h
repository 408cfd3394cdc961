/*
 * kscope/sheaves/sheaves.h: the SLUB sheaves model's public names (seed 002, issue 17).
 *
 * The model (src/algo/sheaves/) counts calls of mm/slub.c's sheaf functions the way
 * the seed's bpftrace did (`@cnt[func] = count()` on entry: a call that returns NULL
 * after its racy pre-check counts too). This header numbers those counters, so the
 * backend and (later) the browser's views read the same table; their names are in
 * kscope/sheaves/native/mmap2.h (ks_sheaves_fn_name), native-only until a view needs them.
 */
#ifndef KSCOPE_SHEAVES_SHEAVES_H
#define KSCOPE_SHEAVES_SHEAVES_H

#include <stdint.h>
#include "kscope/status.h"

/* Counted kernel functions (mm/slub.c unless said). */
typedef enum ks_sheaves_fn {
    KS_SHEAVES_FN_PCS_REPLACE_EMPTY_MAIN = 0, /* __pcs_replace_empty_main */
    KS_SHEAVES_FN_BARN_REPLACE_EMPTY_SHEAF,   /* barn_replace_empty_sheaf */
    KS_SHEAVES_FN_BARN_GET_EMPTY_SHEAF,       /* barn_get_empty_sheaf */
    KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF,       /* barn_put_empty_sheaf */
    KS_SHEAVES_FN_BARN_PUT_FULL_SHEAF,        /* barn_put_full_sheaf */
    KS_SHEAVES_FN_BARN_REPLACE_FULL_SHEAF,    /* barn_replace_full_sheaf */
    KS_SHEAVES_FN_PCS_REPLACE_FULL_MAIN,      /* __pcs_replace_full_main */
    KS_SHEAVES_FN_REFILL_SHEAF,               /* refill_sheaf */
    KS_SHEAVES_FN_ALLOC_FULL_SHEAF,           /* alloc_full_sheaf (6.19: no empty sheaf to refill) */
    KS_SHEAVES_FN_ALLOC_EMPTY_SHEAF,          /* alloc_empty_sheaf (a kzalloc) */
    KS_SHEAVES_FN_FREE_EMPTY_SHEAF,           /* free_empty_sheaf */
    KS_SHEAVES_FN_SHEAF_FLUSH_UNUSED,         /* sheaf_flush_unused */
    KS_SHEAVES_FN_KFREE_RCU_SHEAF,            /* __kfree_rcu_sheaf */
    KS_SHEAVES_FN_RCU_FREE_SHEAF,             /* rcu_free_sheaf (the RCU callback) */
    KS_SHEAVES_FN_GET_PARTIAL_NODE,           /* get_partial_node */
    KS_SHEAVES_FN_GET_ANY_PARTIAL,            /* get_any_partial */
    KS_SHEAVES_FN_NEW_SLAB,                   /* new_slab (page allocator) */
    KS_SHEAVES_FN_PUT_PARTIALS,               /* __put_partials (cpu partial -> node, list_lock) */
    KS_SHEAVES_FN_DISCARD_SLAB,               /* discard_slab */
    KS_SHEAVES_FN_KVFREE_RCU_BULK,            /* kfree_rcu batch freed after a GP (caches without sheaves) */
    KS_SHEAVES_FN_SLAB_ALLOC_SLOWPATH,        /* ___slab_alloc (caches without sheaves) */
    KS_SHEAVES_FN_COUNT
} ks_sheaves_fn;

#endif
