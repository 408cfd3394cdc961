/*
 * cpupri_vec.c: the priority map itself: convert_prio, cpupri_set with its count and
 * barrier protocol, and the search (__cpupri_find, cpupri_find_fitness), in the three
 * layouts the model runs. Re-implemented from kernel/sched/cpupri.c as in v6.12 (the
 * file both per-node patches apply to), the seed's diff (Pan Deng, "[PATCH v2 4/4]
 * sched/rt: Split cpupri_vec->cpumask to per NUMA node to reduce contention", 2025-07-21)
 * and kscope's own patch (kernel-patches/cpupri-per-node/6.12/0001).
 *
 * What the map is. Each root domain keeps, for every CPU, the priority class of the
 * highest RT task queued (or running) on it, both ways: cp->cpu_to_pri[cpu], and per
 * level L (0 = no RT task, 1..99 = RT priority, 100 = deadline/stop) a vector: how many
 * CPUs are at L (count) and which (a bitmap). An RT task that must move (its CPU runs an
 * equal or higher RT task) asks cpupri_find for the lowest level below its own with a CPU
 * it may run on: the search walks the levels upwards, reading each count (skip if 0,
 * then smp_rmb) and the bitmap ANDed with the task's allowed CPUs.
 *
 * The protocol (cpupri_set, v6.12). A CPU moving from level a to level b:
 *     1. set its bit in b's bitmap      (lock bts on the CPU's word)
 *     2. b's count + 1                  (smp_mb__before_atomic; lock inc)
 *     3. a's count - 1                  (smp_mb__after_atomic; lock dec)
 *     4. clear its bit in a's bitmap    (smp_mb__after_atomic; lock btr)
 * "we must add the new value first, otherwise we risk the cpu being missed by the
 * priority loop in cpupri_find" (the kernel's comment), and mask before count on add,
 * count before mask on removal, because the search reads the count first. While the four
 * steps become visible, a reader may see the CPU at both levels, never at neither.
 *
 * The bug toggle "+unordered_set" runs the steps as 3, 4, 2, 1 (old level given up
 * first, count published before its bit): a search in the window between step 4 and
 * step 1 does not see the CPU at any level. If the CPU moves between two levels below
 * the searcher's (or from a level with other CPUs to a higher one), the search returns a
 * worse level than the true lowest, or nothing (the RT task stays queued behind a running
 * one). The model times the steps with the cost model and answers every search from what
 * was visible at its time (in_flight below), so the window is the cost model's transfer
 * and queueing time. On x86 (TSO, locked instructions are full barriers) only the program
 * order can break this; on arm64 the barriers matter too: the toggle models the program
 * order.
 *
 * The layouts (ks_cpupri_variant):
 *   global          v6.12: one count and one bitmap per level; a set writes the level's
 *                   shared bitmap line from every CPU of the machine.
 *   pernode         the seed (CONFIG_CPUMASK_OFFSTACK=y path): per level, one count
 *                   (global) and one bitmap per node, allocated on that node and
 *                   initialised to the complement of the node's CPUs, so the AND of the
 *                   node bitmaps is the old global bitmap. A set writes its own node's
 *                   line. The search checks nodes from the searching CPU's own
 *                   (cpumask_first_and_and with cpumask_of_node: words until one
 *                   matches), and to build lowest_mask copies node 0's bitmap and ANDs
 *                   every other node's (all words of every node line).
 *   pernode-kscope  kscope's 6.12 patch: per node one block (counts of the 101 levels,
 *                   then the bitmaps), both written only by that node's CPUs; the search
 *                   reads, per node from the local one, the count (skip if 0), the bitmap
 *                   until an allowed bit (cpumask_intersects), and ORs matching nodes'
 *                   bitmaps into lowest_mask. Same answers as global.
 *
 * Simplified (stated in the lesson): one root domain, every CPU online and active
 * (cpu_active_mask = all), no capacity fitness (no preset is asymmetric: cpupri_find
 * without fitness_fn), the seed's masks[] pointer array and kscope's cpu_node[] writes
 * not modelled as accesses (a node never changes without hotplug), a second cpupri_set on
 * a CPU overwrites the first's in-flight record (it starts after the first completes, the
 * rq lock serialises them).
 */
#include <string.h>

#include "cpupri.h"

/* convert_prio(), cpupri.c v6.12: kernel prio -> cpupri level. */
int32_t cpupri_convert_prio(int32_t prio)
{
    if (prio == CPUPRI_INVALID)
        return CPUPRI_INVALID;
    if (prio >= 0 && prio <= 98)
        return 99 - prio;                       /* MAX_RT_PRIO-1 - prio: 1 ... 99 */
    if (prio == 99)
        return CPUPRI_NORMAL;                   /* MAX_RT_PRIO-1: no RT task */
    if (prio == 100)
        return CPUPRI_HIGHER;                   /* MAX_RT_PRIO: deadline / stop */
    return CPUPRI_NORMAL;                       /* (fair prios never reach cpupri_set) */
}

/* ---- where each piece lives ---------------------------------------------------------- */

static int32_t count_node(const cpupri_state *st, int32_t node)
{
    return st->variant == KS_CPUPRI_PERNODE_KSCOPE ? node : 0;
}

static int32_t mask_node(const cpupri_state *st, int32_t node)
{
    return st->variant == KS_CPUPRI_GLOBAL ? 0 : node;
}

/* The object and offset of level l's count (of node n's block for kscope). */
static void count_at(const cpupri_state *st, int32_t l, int32_t n, int32_t *obj, uint32_t *off)
{
    if (st->variant == KS_CPUPRI_PERNODE_KSCOPE) {
        *obj = st->obj_block[n];
        *off = 4u * (uint32_t)l;
    } else {
        *obj = st->obj_pri_to_cpu;
        *off = 16u * (uint32_t)l;               /* struct cpupri_vec, OFFSTACK: 16 bytes */
    }
}

/* The object and base offset of level l's bitmap (node n's). */
static void mask_at(const cpupri_state *st, int32_t l, int32_t n, int32_t *obj, uint32_t *base)
{
    if (st->variant == KS_CPUPRI_PERNODE_KSCOPE) {
        *obj = st->obj_block[n];
        *base = 448u + (uint32_t)l * (uint32_t)st->mask_bytes;
    } else {
        *obj = st->obj_mask[l][mask_node(st, n)];
        *base = 0;
    }
}

/* ---- what a reader sees at time r ---------------------------------------------------- */

static int32_t visible_count(const cpupri_state *st, int32_t l, int32_t n, double r)
{
    int32_t c = st->count[l][n];
    for (int32_t w = 0; w < st->nwords; w++)
        for (uint64_t bits = st->inflight_cpus.bits[w]; bits; bits &= bits - 1) {
            int32_t cpu = w * 64 + __builtin_ctzll(bits);
            const cpupri_inflight *f = &st->inflight[cpu];
            if (f->t_end <= r)
                continue;
            if (f->newpri == l && count_node(st, f->new_node) == n && f->t_new_count > r)
                c--;
            if (f->oldpri == l && count_node(st, f->old_node) == n && f->t_old_count > r)
                c++;
        }
    return c;
}

static void visible_mask(const cpupri_state *st, int32_t l, int32_t n, double r, cpumask *out)
{
    *out = st->mask[l][n];
    for (int32_t w = 0; w < st->nwords; w++)
        for (uint64_t bits = st->inflight_cpus.bits[w]; bits; bits &= bits - 1) {
            int32_t cpu = w * 64 + __builtin_ctzll(bits);
            const cpupri_inflight *f = &st->inflight[cpu];
            if (f->t_end <= r)
                continue;
            if (f->newpri == l && mask_node(st, f->new_node) == n && f->t_new_bit > r)
                cpumask_clear_cpu(out, cpu);
            if (f->oldpri == l && mask_node(st, f->old_node) == n && f->t_old_bit > r)
                cpumask_set(out, cpu);
        }
}

/* ---- cpupri_set ---------------------------------------------------------------------- */

/* One locked RMW of the protocol; returns when it is visible. */
static double step(cpupri_state *st, ks_sim *sim, int32_t by, int32_t cpu, int32_t level,
                   int32_t node, int is_bit, double t)
{
    int32_t obj;
    uint32_t off;
    if (is_bit) {
        mask_at(st, level, node, &obj, &off);
        off += 8u * (uint32_t)(cpu / 64);
    } else {
        count_at(st, level, node, &obj, &off);
    }
    return cpupri_mem_access(st, sim, by, obj, off, is_bit ? 8 : 4, ACC_RMW, SITE_CPUPRI_SET, t);
}

/* cpupri_set(), cpupri.c v6.12 (and the seed's / kscope's per-node forms). */
void cpupri_set(cpupri_state *st, ks_sim *sim, int32_t by, int32_t cpu, int32_t newprio, double t)
{
    int32_t newpri = cpupri_convert_prio(newprio);
    int32_t oldpri = st->cpu_to_pri[cpu];
    /* int *currpri = &cp->cpu_to_pri[cpu]; oldpri = *currpri */
    t = cpupri_mem_access(st, sim, by, st->obj_cpu_to_pri, 4u * (uint32_t)cpu, 4, ACC_LOAD,
                          SITE_CPUPRI_SET, t);
    if (newpri == oldpri)
        return;
    int32_t node = st->node_of[cpu];
    int32_t old_node = st->variant == KS_CPUPRI_PERNODE_KSCOPE && st->cpu_node[cpu] >= 0
                           ? st->cpu_node[cpu] : node;
    cpupri_inflight f = { .oldpri = oldpri, .newpri = newpri, .old_node = old_node,
                          .new_node = node };
    int has_new = newpri != CPUPRI_INVALID, has_old = oldpri != CPUPRI_INVALID;
    if (!(st->flags & KS_CPUPRI_FLAG_UNORDERED_SET)) {
        if (has_new) {
            f.t_new_bit = t = step(st, sim, by, cpu, newpri, node, 1, t);
            f.t_new_count = t = step(st, sim, by, cpu, newpri, node, 0, t);
        }
        if (has_old) {
            f.t_old_count = t = step(st, sim, by, cpu, oldpri, old_node, 0, t);
            f.t_old_bit = t = step(st, sim, by, cpu, oldpri, old_node, 1, t);
        }
    } else {                                    /* the bug: old level first, count first */
        if (has_old) {
            f.t_old_count = t = step(st, sim, by, cpu, oldpri, old_node, 0, t);
            f.t_old_bit = t = step(st, sim, by, cpu, oldpri, old_node, 1, t);
        }
        if (has_new) {
            f.t_new_count = t = step(st, sim, by, cpu, newpri, node, 0, t);
            f.t_new_bit = t = step(st, sim, by, cpu, newpri, node, 1, t);
        }
    }
    /* *currpri = newpri */
    t = cpupri_mem_access(st, sim, by, st->obj_cpu_to_pri, 4u * (uint32_t)cpu, 4, ACC_STORE,
                          SITE_CPUPRI_SET, t);
    f.t_end = t;
    /* the committed state */
    if (has_new) {
        st->count[newpri][count_node(st, node)]++;
        cpumask_set(&st->mask[newpri][mask_node(st, node)], cpu);
    }
    if (has_old) {
        st->count[oldpri][count_node(st, old_node)]--;
        cpumask_clear_cpu(&st->mask[oldpri][mask_node(st, old_node)], cpu);
    }
    st->cpu_to_pri[cpu] = newpri;
    if (st->variant == KS_CPUPRI_PERNODE_KSCOPE)
        st->cpu_node[cpu] = has_new ? node : -1;
    st->inflight[cpu] = f;
    cpumask_set(&st->inflight_cpus, cpu);
    cpumask_set(&st->setters, by);
    st->sets++;
}

/* ---- the search ------------------------------------------------------------------------ */

/* Words a first-match scan loads: up to the first word where a & b (& c) is non-zero,
 * all of them if none is; *hit says whether one was. */
static int32_t words_until_match(const cpupri_state *st, const cpumask *a, const cpumask *b,
                                 const cpumask *c, int *hit)
{
    for (int32_t w = 0; w < st->nwords; w++)
        if (a->bits[w] & b->bits[w] & (c ? c->bits[w] : ~0ull)) {
            *hit = 1;
            return w + 1;
        }
    *hit = 0;
    return st->nwords;
}

/* __cpupri_find() for level idx, global layout (v6.12). */
static int find_level_global(cpupri_state *st, ks_sim *sim, int32_t cpu, const cpumask *allowed,
                             cpumask *lowest, int32_t idx, double *t, int32_t *scanned)
{
    int32_t obj;
    uint32_t off;
    count_at(st, idx, 0, &obj, &off);
    double r = *t;
    *t = cpupri_mem_access(st, sim, cpu, obj, off, 4, ACC_LOAD, SITE_FIND_FITNESS, *t);
    if (visible_count(st, idx, 0, r) == 0)              /* skip; smp_rmb() */
        return 0;
    cpumask m;
    r = *t;
    visible_mask(st, idx, 0, r, &m);
    int hit;
    int32_t nw = words_until_match(st, allowed, &m, NULL, &hit);
    mask_at(st, idx, 0, &obj, &off);
    *t = cpupri_mem_scan(st, sim, cpu, obj, off, nw, SITE_FIND_FIRST_AND_BIT, *t);
    (*scanned)++;
    if (!hit)                                           /* cpumask_any_and >= nr_cpu_ids */
        return 0;
    if (lowest) {                                       /* cpumask_and(lowest, cpus, mask) */
        r = *t;
        *t = cpupri_mem_scan(st, sim, cpu, obj, off, st->nwords, SITE_BITMAP_AND, *t);
        visible_mask(st, idx, 0, r, &m);
        cpumask_and(lowest, allowed, &m, st->nwords);   /* & cpu_active_mask: all */
        if (cpumask_empty(lowest, st->nwords))
            return 0;
    }
    return 1;
}

/* __cpupri_find() + available_cpu_in_nodes(), the seed's OFFSTACK path. */
static int find_level_pernode(cpupri_state *st, ks_sim *sim, int32_t cpu, const cpumask *allowed,
                              cpumask *lowest, int32_t idx, double *t, int32_t *scanned)
{
    int32_t obj;
    uint32_t off;
    count_at(st, idx, 0, &obj, &off);
    double r = *t;
    *t = cpupri_mem_access(st, sim, cpu, obj, off, 4, ACC_LOAD, SITE_FIND_FITNESS, *t);
    if (visible_count(st, idx, 0, r) == 0)
        return 0;
    int hit = 0;
    cpumask m;
    for (int32_t i = 0; i < st->nr_nodes && !hit; i++) {  /* from numa_node_id() */
        int32_t nid = (st->node_of[cpu] + i) % st->nr_nodes;
        r = *t;
        visible_mask(st, idx, nid, r, &m);
        int32_t nw = words_until_match(st, allowed, &m, &st->node_cpus[nid], &hit);
        mask_at(st, idx, nid, &obj, &off);
        *t = cpupri_mem_scan(st, sim, cpu, obj, off, nw, SITE_FIND_FIRST_AND_AND_BIT, *t);
        (*scanned)++;
    }
    if (!hit)
        return 0;
    if (lowest) {           /* cpumask_copy(masks[0]); cpumask_and with every other node's */
        cpumask agg;
        for (int32_t nid = 0; nid < st->nr_nodes; nid++) {
            r = *t;
            mask_at(st, idx, nid, &obj, &off);
            *t = cpupri_mem_scan(st, sim, cpu, obj, off, st->nwords,
                                 nid == 0 ? SITE_MEMCPY : SITE_BITMAP_AND, *t);
            visible_mask(st, idx, nid, r, &m);
            if (nid == 0)
                agg = m;
            else
                cpumask_and(&agg, &agg, &m, st->nwords);
        }
        cpumask_and(lowest, allowed, &agg, st->nwords);
        if (cpumask_empty(lowest, st->nwords))
            return 0;
    }
    return 1;
}

/* __cpupri_find_nodes(), kscope's 0001 on 6.12. */
static int find_level_kscope(cpupri_state *st, ks_sim *sim, int32_t cpu, const cpumask *allowed,
                             cpumask *lowest, int32_t idx, double *t, int32_t *scanned)
{
    int found = 0;
    cpumask agg;
    memset(&agg, 0, sizeof agg);
    for (int32_t i = 0; i < st->nr_nodes; i++) {
        int32_t nid = (st->node_of[cpu] + i) % st->nr_nodes;
        int32_t obj;
        uint32_t off;
        count_at(st, idx, nid, &obj, &off);
        double r = *t;
        *t = cpupri_mem_access(st, sim, cpu, obj, off, 4, ACC_LOAD, SITE_FIND_FITNESS, *t);
        if (visible_count(st, idx, nid, r) == 0)
            continue;
        cpumask m;
        r = *t;
        visible_mask(st, idx, nid, r, &m);
        int hit;
        int32_t nw = words_until_match(st, allowed, &m, NULL, &hit);
        mask_at(st, idx, nid, &obj, &off);
        *t = cpupri_mem_scan(st, sim, cpu, obj, off, nw, SITE_BITMAP_INTERSECTS, *t);
        (*scanned)++;
        if (!hit)
            continue;
        if (!found && !lowest)
            return 1;
        r = *t;
        *t = cpupri_mem_scan(st, sim, cpu, obj, off, st->nwords,
                             found ? SITE_BITMAP_OR : SITE_MEMCPY, *t);
        visible_mask(st, idx, nid, r, &m);
        for (int32_t w = 0; w < st->nwords; w++)
            agg.bits[w] |= m.bits[w];
        found = 1;
    }
    if (!found)
        return 0;
    cpumask_and(lowest, allowed, &agg, st->nwords);
    return !cpumask_empty(lowest, st->nwords);
}

int32_t cpupri_find_committed(const cpupri_state *st, int32_t prio, const cpumask *allowed,
                              cpumask *lowest)
{
    int32_t task_pri = cpupri_convert_prio(prio);
    for (int32_t idx = 0; idx < task_pri; idx++) {
        int32_t count = 0;
        cpumask agg;
        memset(&agg, st->variant == KS_CPUPRI_PERNODE ? 0xff : 0, sizeof agg);
        for (int32_t n = 0; n < (st->variant == KS_CPUPRI_GLOBAL ? 1 : st->nr_nodes); n++) {
            if (st->variant != KS_CPUPRI_PERNODE || n == 0)
                count += st->count[idx][n];
            for (int32_t w = 0; w < st->nwords; w++)
                agg.bits[w] = st->variant == KS_CPUPRI_PERNODE ? agg.bits[w] & st->mask[idx][n].bits[w]
                                                               : agg.bits[w] | st->mask[idx][n].bits[w];
        }
        if (!count)
            continue;
        cpumask l;
        cpumask_and(&l, allowed, &agg, st->nwords);
        if (cpumask_empty(&l, st->nwords))
            continue;
        if (lowest)
            *lowest = l;
        return 1;
    }
    return 0;
}

/* cpupri_find_fitness(cp, p, lowest_mask, NULL) = cpupri_find(), cpupri.c v6.12. */
int32_t cpupri_find(cpupri_state *st, ks_sim *sim, int32_t this_cpu, int32_t prio,
                    const cpumask *allowed, cpumask *lowest, double t, int32_t *nodes_scanned)
{
    /* in-flight sets that have ended are dropped first */
    for (int32_t w = 0; w < st->nwords; w++)
        for (uint64_t bits = st->inflight_cpus.bits[w]; bits; bits &= bits - 1) {
            int32_t cpu = w * 64 + __builtin_ctzll(bits);
            if (st->inflight[cpu].t_end <= t)
                cpumask_clear_cpu(&st->inflight_cpus, cpu);
        }
    int32_t task_pri = cpupri_convert_prio(prio);
    int32_t scanned = 0, found = 0;
    cpumask mine;
    memset(&mine, 0, sizeof mine);
    for (int32_t idx = 0; idx < task_pri && !found; idx++) {
        int ok;
        if (st->variant == KS_CPUPRI_GLOBAL)
            ok = find_level_global(st, sim, this_cpu, allowed, &mine, idx, &t, &scanned);
        else if (st->variant == KS_CPUPRI_PERNODE)
            ok = find_level_pernode(st, sim, this_cpu, allowed, &mine, idx, &t, &scanned);
        else
            ok = find_level_kscope(st, sim, this_cpu, allowed, &mine, idx, &t, &scanned);
        found = ok;
    }
    cpumask ref;
    int32_t ref_found = cpupri_find_committed(st, prio, allowed, &ref);
    if (ref_found != found ||
        (found && memcmp(ref.bits, mine.bits, (size_t)st->nwords * sizeof mine.bits[0]) != 0))
        st->finds_changed++;
    st->finds++;
    st->finds_found += (uint64_t)found;
    st->nodes_scanned += (uint64_t)scanned;
    if (nodes_scanned)
        *nodes_scanned = scanned;
    if (lowest)
        *lowest = mine;
    return found;
}
