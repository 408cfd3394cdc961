/*
 * The bridge from the v1 cache model's line state to a cost model v2 burst:
 * ks_cost_sweep_from_cache() describes a sweep of one object from one CPU as v2's
 * groups of lines (where each line was left, its state, its age, how long its
 * holder has idled), reading v1's holders as they stand (kscope/cache.h).
 *
 * Why from v1's state. v1 already tracks, per 64-byte line, which private caches
 * hold a copy (and in which MESI state, since when) and which LLCs hold a victim
 * copy: the coherence bookkeeping. v2 knows what happens to those copies over time
 * (a C-state flush of an idle holder, capacity eviction by background traffic) and
 * what a sweep of them costs. So the driver keeps v1 as the state (its accesses
 * still move the lines) and asks v2 for the price.
 *
 * The lines are read raw: no time decay is applied here (v1's decay by a
 * background rate would duplicate v2's capacity mechanism; v2 applies the same
 * background rates itself, from the sweep's background fields).
 *
 * Per line, seen from the sweeping CPU's core, nearest first (as v1's load finds it):
 *   this core holds a copy               KS_WHERE_OWN_PRIVATE (Modified: DIRTY)
 *   another core holds it Modified/Excl. that core's distance (SAME_LLC_CORE /
 *                                        OTHER_LLC / OTHER_SOCKET), DIRTY if Modified,
 *                                        holder_idle_ns = that core's idle time now
 *   other cores hold it Shared           the nearest one's distance, CLEAN
 *   an LLC holds a victim copy           own LLC: OWN_LLC; another: OTHER_LLC /
 *                                        OTHER_SOCKET, CLEAN, holder idle 0
 *   nowhere                              DRAM (home_remote: its page's socket is not ours)
 * Lines with the same (where, state, home_remote) form one group, its age the
 * youngest line's (a sweep's lines were touched within a µs of each other) and its
 * holder's idle the shortest. More than KS_COST_MAX_GROUPS keys (not seen with one
 * area): the rest join the last group.
 *
 * since_own_touch_ns: since this core last touched any of the lines (its TLB entries
 * for them), KS_COST_NEVER when it holds none. Simplified: a core that touched the
 * area and then lost every line to another core counts as never having touched it.
 */
#include "cache_model.h"
#include "cost_internal.h"

#define INTERLEAVE_LINES (4096 / KS_CACHE_LINE)

static int32_t where_of_core(const ks_cache *c, int32_t core, int32_t holder)
{
    if (holder == core)
        return KS_WHERE_OWN_PRIVATE;
    if (c->core_llc[core] == c->core_llc[holder])
        return KS_WHERE_SAME_LLC_CORE;
    if (c->core_socket[core] == c->core_socket[holder])
        return KS_WHERE_OTHER_LLC;
    return KS_WHERE_OTHER_SOCKET;
}

static int32_t where_of_llc(const ks_cache *c, int32_t core, int32_t llc)
{
    if (c->core_llc[core] == llc)
        return KS_WHERE_OWN_LLC;
    if (c->core_socket[core] == c->llc_socket[llc])
        return KS_WHERE_OTHER_LLC;
    return KS_WHERE_OTHER_SOCKET;
}

static int home_remote(const ks_cache *c, const cache_object *o, uint32_t line, int32_t core)
{
    int32_t n = c->node_socket_count[o->home_node];
    if (n == 0)
        return 1;
    int32_t socket = c->node_sockets[o->home_node * c->sockets
                                     + (int32_t)((line / INTERLEAVE_LINES) % (uint32_t)n)];
    return socket != c->core_socket[core];
}

static uint64_t age(uint64_t now, uint64_t t)
{
    return now > t ? now - t : 0;
}

/* One line's group key and its age / holder idle. */
typedef struct line_view {
    int32_t where, state, home_remote;
    uint64_t age_ns, holder_idle_ns;
} line_view;

static line_view view_line(const ks_cache *c, const line_state *ls, int32_t core, int remote_home,
                           uint64_t now, const uint64_t *core_idle_ns, uint64_t *own_touch)
{
    line_view v = { .where = KS_WHERE_DRAM, .state = KS_LINE_CLEAN, .home_remote = remote_home,
                    .age_ns = KS_COST_NEVER };
    int best = KS_WHERE_COUNT;
    for (uint8_t i = 0; i < ls->n_priv; i++) {
        int32_t holder = ls->priv_core[i];
        int32_t w = where_of_core(c, core, holder);
        if (w == KS_WHERE_OWN_PRIVATE && (*own_touch == KS_COST_NEVER || ls->priv_time[i] > *own_touch))
            *own_touch = ls->priv_time[i];
        if (w >= best)
            continue;
        best = w;
        v.where = w;
        v.state = ls->priv_state[i] == PRIV_M ? KS_LINE_DIRTY : KS_LINE_CLEAN;
        v.age_ns = age(now, ls->priv_time[i]);
        v.holder_idle_ns = w == KS_WHERE_OWN_PRIVATE || !core_idle_ns ? 0 : core_idle_ns[holder];
    }
    if (best != KS_WHERE_COUNT)
        return v;
    for (uint8_t i = 0; i < ls->n_llc; i++) {
        int32_t w = where_of_llc(c, core, ls->llc_id[i]);
        if (w >= best)
            continue;
        best = w;
        v.where = w;
        v.age_ns = age(now, ls->llc_time[i]);
    }
    return v;
}

int32_t ks_cost_sweep_from_cache(const ks_cache *cache, int32_t cpu, int32_t object, uint64_t now_ns,
                                 const uint64_t *core_idle_ns, ks_cost_sweep *sweep)
{
    if (!cache || !sweep || cpu < 0 || cpu >= cache->cpus || object < 0 || object >= cache->n_objects)
        return KS_ERR_INVALID_ARG;
    const cache_object *o = &cache->objects[object];
    int32_t core = cache->cpu_core[cpu];
    uint64_t own_touch = KS_COST_NEVER;
    sweep->n_groups = 0;
    for (uint32_t l = 0; l < o->lines; l++) {
        line_view v = view_line(cache, &cache->lines[o->first_line + l], core,
                                home_remote(cache, o, l, core), now_ns, core_idle_ns, &own_touch);
        int g = 0;
        while (g < sweep->n_groups && !(sweep->groups[g].where == v.where && sweep->groups[g].state == v.state
                                         && sweep->groups[g].home_remote == v.home_remote))
            g++;
        if (g == sweep->n_groups && g == KS_COST_MAX_GROUPS)
            g = KS_COST_MAX_GROUPS - 1;
        ks_cost_lines *grp = &sweep->groups[g];
        if (g == sweep->n_groups) {
            *grp = (ks_cost_lines){ .where = v.where, .state = v.state, .home_remote = v.home_remote,
                                    .age_ns = v.age_ns, .holder_idle_ns = v.holder_idle_ns };
            sweep->n_groups++;
        } else {
            if (v.age_ns < grp->age_ns)
                grp->age_ns = v.age_ns;
            if (v.holder_idle_ns < grp->holder_idle_ns)
                grp->holder_idle_ns = v.holder_idle_ns;
        }
        grp->lines++;
    }
    sweep->since_own_touch_ns = own_touch == KS_COST_NEVER ? KS_COST_NEVER : age(now_ns, own_touch);
    return KS_OK;
}
