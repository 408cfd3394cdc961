/*
 * cpupri: the RT scheduler's CPU priority map (kernel/sched/cpupri.c), the cache line it
 * makes every CPU of a big machine share, and the per-NUMA-node split of seed 001 (Pan
 * Deng, "[PATCH v2 4/4] sched/rt: Split cpupri_vec->cpumask to per NUMA node to reduce
 * contention", 2025-07-21; not merged) and of kscope's own 6.12 patch
 * (kernel-patches/cpupri-per-node/).
 *
 * The story. When an RT task wakes on a CPU already running an RT task of equal or higher
 * priority, or is preempted there, the kernel looks for a CPU running something less
 * important: find_lowest_rq asks cpupri_find, which reads, level by level from the
 * lowest, how many CPUs are at that level and which (one bitmap per level). To keep the
 * map true, every CPU whose highest RT priority changes (an RT task arrives on an idle
 * CPU, the last one leaves) calls cpupri_set, which sets its bit in the new level's
 * bitmap and clears it in the old one with locked instructions. On a 480-CPU machine
 * running 60 FFmpeg instances of FIFO-99 threads, every wake and sleep of every thread is
 * such a move between level 0 (no RT task) and level 99, so level 0's bitmap, one 64-byte
 * line holding all 480 bits, is written from both sockets thousands of times a
 * millisecond, and every search reads it right after: perf c2c shows that line with loads
 * of 2.2K-8.7K cycles, most of it waiting for the line. The seed splits each bitmap per
 * NUMA node: a CPU writes only its node's line, and a search reads every node's line.
 * Loads drop to 0.5K-2.2K cycles, the kernel's share of cycles from 20% to 18.7%.
 *
 * This model keeps the map (cpupri_vec.c), runs the RT class's search over it
 * (cpupri_rt.c), and puts every load and store of it through the machine's cost model
 * (cpupri_mem.c), so the simulated run yields perf c2c's table for the same lines.
 *
 * Variants (the text after "cpupri:"; "" is global), then toggles:
 *   global          v6.12 stock
 *   pernode         the seed's split (CONFIG_CPUMASK_OFFSTACK=y path)
 *   pernode-kscope  kscope's 6.12 patch, booted kscope_cpupri=pernode
 *   +unordered_set  the bug toggle: cpupri_set's steps out of order (cpupri_vec.c)
 *
 * Where it plugs in (src/sched/sched_ops.h): init = cpupri_init + rq_online_rt for every
 * CPU (each CPU starts at its current level, normally 0); rt_prio_changed =
 * inc_rt_prio_smp/dec_rt_prio_smp -> cpupri_set (the CPU whose level changes executes
 * it: in the kernel it is whoever holds that rq's lock, the waker for a wakeup queued
 * from the same LLC; simplified); find_lowest_rq = find_lowest_rq. The core keeps its own
 * select_task_rq_rt, push and pull loops (they call find_lowest_rq);
 * rt_overload_changed = rt_set_overload / rt_clear_overload: root_domain's rto_mask and
 * rto_count lines as memory (the push-IPI chain that reads them is not modelled).
 */
#include <stdlib.h>
#include <string.h>

#include "cpupri.h"

static int32_t parse_variant(cpupri_state *st, const char *variant)
{
    static const char *const names[] = { "global", "pernode", "pernode-kscope" };
    size_t len = strcspn(variant, "+");
    int found = len == 0;
    st->variant = KS_CPUPRI_GLOBAL;
    for (int32_t i = 0; i < 3 && !found; i++)
        if (strlen(names[i]) == len && strncmp(variant, names[i], len) == 0) {
            st->variant = i;
            found = 1;
        }
    if (!found)
        return KS_ERR_NOT_FOUND;
    for (const char *p = variant + len; *p == '+';) {
        size_t n = strcspn(p + 1, "+");
        if (n == 13 && strncmp(p + 1, "unordered_set", 13) == 0 &&
            !(st->flags & KS_CPUPRI_FLAG_UNORDERED_SET))
            st->flags |= KS_CPUPRI_FLAG_UNORDERED_SET;
        else
            return KS_ERR_NOT_FOUND;
        p += 1 + n;
    }
    return KS_OK;
}

static void cpupri_release(void *state)
{
    free(state);
}

/* cpupri_init() (v6.12; the seed's alloc_vec_masks complement init; kscope's node blocks),
 * then rq_online_rt() -> cpupri_set(cpu, highest_prio.curr) for every CPU, at boot: no
 * modelled accesses. */
static int32_t cpupri_init(ks_sim *sim, const char *variant, void **state)
{
    cpupri_state *st = calloc(1, sizeof *st);
    if (!st)
        return KS_ERR_NO_MEMORY;
    int32_t status = parse_variant(st, variant);
    st->nr_cpus = sched_nr_cpus(sim);
    st->nwords = cpumask_words(st->nr_cpus);
    st->mask_bytes = 8 * st->nwords;                    /* cpumask_size() with OFFSTACK */
    for (int32_t c = 0; c < st->nr_cpus && status == KS_OK; c++) {
        const ks_cpu *info = sched_cpu_info(sim, c);
        st->node_of[c] = info->node;
        st->core_of[c] = info->core;
        st->llc_of[c] = info->llc;
        if (info->node < 0 || info->node >= CPUPRI_MAX_NODES)
            status = KS_ERR_INVALID_ARG;
        else if (info->node + 1 > st->nr_nodes)
            st->nr_nodes = info->node + 1;
        st->cpu_node[c] = -1;
        st->cpu_to_pri[c] = CPUPRI_INVALID;
    }
    if (status == KS_OK && st->nr_cpus > CPUPRI_MAX_CPUS)
        status = KS_ERR_INVALID_ARG;
    for (int32_t c = 0; c < st->nr_cpus && status == KS_OK; c++)
        cpumask_set(&st->node_cpus[st->node_of[c]], c);
    if (status == KS_OK && st->variant == KS_CPUPRI_PERNODE)
        for (int32_t l = 0; l < CPUPRI_LEVELS; l++)
            for (int32_t n = 0; n < st->nr_nodes; n++)
                for (int32_t c = 0; c < st->nr_cpus; c++)   /* bitmap_complement(node's) */
                    if (st->node_of[c] != n)
                        cpumask_set(&st->mask[l][n], c);
    if (status == KS_OK)
        status = cpupri_mem_init(st, sim);
    if (status != KS_OK) {
        free(st);
        return status;
    }
    for (int32_t c = 0; c < st->nr_cpus; c++) {         /* rq_online_rt() */
        int32_t pri = cpupri_convert_prio(sched_rt_highest_prio(sim, c));
        int32_t node = st->node_of[c];
        int32_t cn = st->variant == KS_CPUPRI_PERNODE_KSCOPE ? node : 0;
        int32_t mn = st->variant == KS_CPUPRI_GLOBAL ? 0 : node;
        st->count[pri][cn]++;
        cpumask_set(&st->mask[pri][mn], c);
        st->cpu_to_pri[c] = pri;
        if (st->variant == KS_CPUPRI_PERNODE_KSCOPE)
            st->cpu_node[c] = node;
    }
    *state = st;
    return KS_OK;
}

/* inc_rt_prio_smp / dec_rt_prio_smp (rt.c v6.12): cpupri_set(&rq->rd->cpupri, rq->cpu, prio). */
static void cpupri_rt_prio_changed(void *state, ks_sim *sim, int32_t cpu, int32_t old_prio,
                                   int32_t new_prio)
{
    (void)old_prio;
    cpupri_set(state, sim, cpu, cpu, new_prio, (double)sched_now(sim));
}

/* Snapshots: the whole block (no pointers in it), behind its configuration. */
typedef struct cpupri_snap_sig {
    int32_t variant, flags, nr_cpus, nr_nodes;
} cpupri_snap_sig;

static uint32_t cpupri_snapshot_size(const void *state)
{
    (void)state;
    return (uint32_t)(sizeof(cpupri_snap_sig) + sizeof(cpupri_state));
}

static int32_t cpupri_snapshot_save(const void *state, void *buf, uint32_t len)
{
    const cpupri_state *st = state;
    if (len != cpupri_snapshot_size(st))
        return KS_ERR_RANGE;
    cpupri_snap_sig sig = { st->variant, st->flags, st->nr_cpus, st->nr_nodes };
    memcpy(buf, &sig, sizeof sig);
    memcpy((uint8_t *)buf + sizeof sig, st, sizeof *st);
    return KS_OK;
}

static int32_t cpupri_snapshot_restore(void *state, const void *buf, uint32_t len)
{
    cpupri_state *st = state;
    cpupri_snap_sig want = { st->variant, st->flags, st->nr_cpus, st->nr_nodes }, got;
    if (len != cpupri_snapshot_size(st))
        return KS_ERR_INVALID_ARG;
    memcpy(&got, buf, sizeof got);
    if (memcmp(&got, &want, sizeof got) != 0)
        return KS_ERR_INVALID_ARG;
    memcpy(st, (const uint8_t *)buf + sizeof got, sizeof *st);
    return KS_OK;
}

const ks_sched_ops cpupri_ops = {
    .name = "cpupri",
    .init = cpupri_init,
    .release = cpupri_release,
    .find_lowest_rq = cpupri_find_lowest_rq,
    .rt_prio_changed = cpupri_rt_prio_changed,
    .rt_overload_changed = cpupri_rt_overload_changed,
    .view_get = cpupri_view_get,
    .snapshot_size = cpupri_snapshot_size,
    .snapshot_save = cpupri_snapshot_save,
    .snapshot_restore = cpupri_snapshot_restore,
};
