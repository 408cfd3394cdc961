/*
 * barn.c: the per-node barn of a cache (struct node_barn, mm/slub.c, v6.18 .. 7.3) and the
 * functions that take and give sheaves under its lock.
 *
 * A barn holds the sheaves no CPU owns: a list of full ones and a list of empty ones, each
 * with a count (nr_full, nr_empty), behind one spinlock per node per cache. Every CPU of
 * the node goes through it when its own two sheaves (main, spare) cannot serve an
 * allocation or a free: that is the lock the seed's profile shows at 65.72% of cycles.
 *
 *   barn_get_empty_sheaf      an empty sheaf, or NULL. A racy look at nr_empty first: when
 *                             it is 0 the function returns without the lock.
 *   barn_put_empty_sheaf      list_add to the empty list. No limit check: "used mainly in
 *   barn_put_full_sheaf       cases where we have to undo an intended action" (7.3's comment)
 *                             -- and, before the fix, for every refilled main sheaf.
 *   barn_replace_empty_sheaf  a full sheaf for an empty one (nr_full--, nr_empty++), or NULL
 *                             without the lock when the racy nr_full is 0.
 *   barn_replace_full_sheaf   an empty sheaf for a full one; -E2BIG when nr_full >=
 *                             MAX_FULL_SHEAVES (10), -ENOMEM when nr_empty is 0, both racy
 *                             checks before the lock.
 * The 6.19+ allow_spin argument is always true here: every modelled caller may spin.
 *
 * Counting (what bpftrace's @cnt[func] counts): every call, on entry, including those that
 * return at the racy check. Lists are LIFO: list_add puts at the head and
 * list_first_entry takes the head. Inside the lock a call touches the barn's line (lock
 * word, counts, list heads) and the sheaf's barn_list link: 2 lines beside the lock's own
 * (lock.c), for the hold time the run's barn_hold_ns says.
 */
#include "sheaves.h"

static void barn_locked(shv_model *m, int32_t c, int32_t cpu, int32_t node)
{
    shv_lock_run(m, m->caches[c].barn[node].lock, cpu, (double)m->cfg.barn_hold_ns, 2);
}

static int32_t list_pop(shv_model *m, int32_t *head)
{
    int32_t s = *head;
    *head = m->sheaves[s].next;
    m->sheaves[s].next = SHV_NONE;
    return s;
}

static void list_push(shv_model *m, int32_t *head, int32_t s)
{
    m->sheaves[s].next = *head;
    *head = s;
}

int32_t shv_barn_get_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node)
{
    shv_barn *b = &m->caches[c].barn[node];
    shv_count(m, c, KS_SHEAVES_FN_BARN_GET_EMPTY_SHEAF);
    if (b->nr_empty == 0)
        return SHV_NONE;
    barn_locked(m, c, cpu, node);
    if (b->nr_empty == 0)
        return SHV_NONE;
    b->nr_empty--;
    int32_t s = list_pop(m, &b->empty_head);
    shv_sheaf_take(m, c, cpu, s);
    return s;
}

void shv_barn_put_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node, int32_t s)
{
    shv_barn *b = &m->caches[c].barn[node];
    shv_count(m, c, KS_SHEAVES_FN_BARN_PUT_EMPTY_SHEAF);
    barn_locked(m, c, cpu, node);
    list_push(m, &b->empty_head, s);
    b->nr_empty++;
}

void shv_barn_put_full_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node, int32_t s)
{
    shv_barn *b = &m->caches[c].barn[node];
    shv_count(m, c, KS_SHEAVES_FN_BARN_PUT_FULL_SHEAF);
    barn_locked(m, c, cpu, node);
    list_push(m, &b->full_head, s);
    b->nr_full++;
}

int32_t shv_barn_replace_empty_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node,
                                     int32_t empty)
{
    shv_barn *b = &m->caches[c].barn[node];
    shv_count(m, c, KS_SHEAVES_FN_BARN_REPLACE_EMPTY_SHEAF);
    if (b->nr_full == 0)
        return SHV_NONE;
    barn_locked(m, c, cpu, node);
    if (b->nr_full == 0)
        return SHV_NONE;
    int32_t full = list_pop(m, &b->full_head);
    list_push(m, &b->empty_head, empty);
    b->nr_full--;
    b->nr_empty++;
    if (m->measuring)
        m->caches[c].barn_full_hits++;
    shv_sheaf_take(m, c, cpu, full);
    return full;
}

int32_t shv_barn_replace_full_sheaf(shv_model *m, int32_t c, int32_t cpu, int32_t node,
                                    int32_t full)
{
    shv_barn *b = &m->caches[c].barn[node];
    shv_count(m, c, KS_SHEAVES_FN_BARN_REPLACE_FULL_SHEAF);
    if (b->nr_full >= (uint32_t)m->cfg.barn_max)
        return SHV_E2BIG;
    if (b->nr_empty == 0)
        return SHV_ENOMEM;
    barn_locked(m, c, cpu, node);
    if (b->nr_empty == 0)
        return SHV_ENOMEM;
    int32_t empty = list_pop(m, &b->empty_head);
    list_push(m, &b->full_head, full);
    b->nr_empty--;
    b->nr_full++;
    shv_sheaf_take(m, c, cpu, empty);
    return empty;
}
