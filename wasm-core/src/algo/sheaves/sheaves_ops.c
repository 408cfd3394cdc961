/*
 * sheaves_ops.c: the sheaves model as a plug-in of the generic simulator (ks_sched_ops,
 * src/sched/sched_ops.h), algo "sheaves:<variant>[+nospare][+capacity=N]".
 *
 *   variants   nofix (v6.18 .. v6.19-rc4), fix (as committed; in linux-source-7.3), fix-v2 (as posted),
 *              baseline (3accabda4: the workload's second cache without sheaves)
 *   toggles    +nospare (the bug toggle: no spare sheaf), +capacity=N (sheaf_capacity of
 *              the second cache, 1 .. 1024)
 *
 * Hooks used: kmem_cache_alloc (slab_alloc_node -> alloc_from_pcs) and kmem_cache_free
 * (slab_free -> free_to_pcs). The workload's cache 0 is modelled as vm_area_struct, every
 * other cache as maple_node (the two caches of seed 002's benchmark).
 *
 * What the generic simulator cannot drive yet, and so this plug-in does not do: kfree_rcu
 * (there is no allocator hook for it), the grace period's callbacks, and charging the
 * allocator's time to the running task (no hook lets a model add CPU time). The mmap2
 * runner (mmap2.c, kscope/sheaves/native/mmap2.h) does all three with its own clock; here
 * the model's clock follows sched_now() and its costs stay in the model's own counters.
 */
#include <stdlib.h>
#include <string.h>

#include "sheaves.h"
#include "../../sched/sched_ops.h"

typedef struct shv_plugin {
    shv_model m;
    int32_t next_object;
} shv_plugin;

int32_t shv_parse_algo(const char *variant, ks_sheaves_mmap2_config *cfg)
{
    static const char *const names[KS_SHEAVES_VARIANT_COUNT] = { "nofix", "fix", "fix-v2",
                                                                 "baseline" };
    const char *plus = strchr(variant, '+');
    size_t len = plus ? (size_t)(plus - variant) : strlen(variant);
    int32_t v = len == 0 ? KS_SHEAVES_FIX : -1;
    for (int32_t i = 0; i < KS_SHEAVES_VARIANT_COUNT && v < 0; i++)
        if (strlen(names[i]) == len && strncmp(names[i], variant, len) == 0)
            v = i;
    if (v < 0)
        return KS_ERR_INVALID_ARG;
    cfg->variant = v;
    while (plus) {
        const char *flag = plus + 1;
        plus = strchr(flag, '+');
        size_t fl = plus ? (size_t)(plus - flag) : strlen(flag);
        if (fl == 7 && strncmp(flag, "nospare", 7) == 0) {
            cfg->nospare = 1;
        } else if (fl > 9 && strncmp(flag, "capacity=", 9) == 0) {
            long n = 0;
            for (size_t i = 9; i < fl; i++) {
                if (flag[i] < '0' || flag[i] > '9' || n > 100000)
                    return KS_ERR_INVALID_ARG;
                n = n * 10 + (flag[i] - '0');
            }
            if (n < 1 || n > 1024)
                return KS_ERR_INVALID_ARG;
            cfg->maple_capacity = (int32_t)n;
        } else {
            return KS_ERR_INVALID_ARG;
        }
    }
    return KS_OK;
}

static int32_t shv_init(ks_sim *sim, const char *variant, void **state)
{
    ks_sheaves_mmap2_config cfg;
    ks_sheaves_mmap2_defaults(&cfg);
    if (shv_parse_algo(variant ? variant : "", &cfg) != KS_OK)
        return KS_ERR_INVALID_ARG;
    shv_plugin *p = calloc(1, sizeof *p);
    if (!p)
        return KS_ERR_NO_MEMORY;
    int32_t st = shv_model_init(&p->m, &cfg, sched_topology(sim));
    if (st != KS_OK) {
        shv_model_free(&p->m);
        free(p);
        return st;
    }
    p->m.measuring = 1;
    *state = p;
    return KS_OK;
}

static void shv_release(void *state)
{
    shv_plugin *p = state;
    if (!p)
        return;
    shv_model_free(&p->m);
    free(p);
}

static void follow_clock(shv_plugin *p, ks_sim *sim, int32_t cpu)
{
    uint64_t now = sched_now(sim);
    if (p->m.clock[cpu] < now)
        p->m.clock[cpu] = now;
    p->m.now = now;
    shv_locks_prune(&p->m, now);
    shv_rcu_run_due(&p->m, cpu);
}

static int32_t shv_alloc(void *state, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                         uint32_t size)
{
    (void)task;
    (void)size;
    shv_plugin *p = state;
    if (cpu < 0 || cpu >= p->m.nr_cpus || cache < 0)
        return -1;
    follow_clock(p, sim, cpu);
    shv_kmem_cache_alloc(&p->m, cache == 0 ? SHV_VMA : SHV_MAPLE, cpu);
    int32_t id = p->next_object;
    p->next_object = p->next_object == INT32_MAX ? 0 : p->next_object + 1;
    return id;
}

static void shv_free(void *state, ks_sim *sim, int32_t cpu, int32_t task, int32_t cache,
                     int32_t object)
{
    (void)task;
    (void)object;
    shv_plugin *p = state;
    if (cpu < 0 || cpu >= p->m.nr_cpus || cache < 0)
        return;
    follow_clock(p, sim, cpu);
    shv_kmem_cache_free(&p->m, cache == 0 ? SHV_VMA : SHV_MAPLE, cpu);
}

/* The plug-in's counters, for tests and the view to come: maple_node's calls. */
const uint64_t *shv_plugin_counters(const void *state)
{
    const shv_plugin *p = state;
    return p ? p->m.caches[SHV_MAPLE].fn : NULL;
}

const ks_sched_ops sheaves_ops = {
    .name = "sheaves",
    .init = shv_init,
    .release = shv_release,
    .kmem_cache_alloc = shv_alloc,
    .kmem_cache_free = shv_free,
};
