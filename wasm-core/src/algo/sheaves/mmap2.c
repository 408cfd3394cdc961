/*
 * mmap2.c: will-it-scale's mmap2 on the sheaves model (kscope/sheaves/native/mmap2.h).
 *
 * The benchmark (antonblanchard/will-it-scale, tests/mmap2.c and main.c): nr_tasks
 * processes, each with its own 128 MiB tmpfile, loop mmap(MAP_PRIVATE) + munmap and
 * count iterations; the harness binds task i to hwloc core i mod ncores (default), or
 * with -m to hwloc PU i mod npus. hwloc's logical order walks packages, then NUMA nodes,
 * then cores (siblings adjacent under their core): both placements are built here from
 * the preset's topology in that order.
 *
 * Per iteration the two caches see (measured on this host's 6.18 kernel with the
 * kmem:kmem_cache_alloc/free tracepoints, call sites named by the events; frees of
 * maple nodes never show a kmem_cache_free: they go through kfree_rcu, ma_free_rcu in
 * lib/maple_tree.c, seen as kvfree_call_rcu -> __kfree_rcu_sheaf in the seed's call
 * graph), in this order:
 *   work_ns / 2                               syscall, get_unmapped_area, __mmap_region
 *   kmem_cache_alloc(vm_area_struct)          vm_area_alloc
 *   kmem_cache_alloc(maple_node) x a_mmap     mas_preallocate -> mas_alloc_nodes
 *   kfree_rcu(maple_node) x r_mmap            mas_store_prealloc -> mas_wr_node_store
 *   work_ns / 2                               munmap: vms_gather_munmap_vmas, unmap_region
 *   kmem_cache_alloc(maple_node) x a_munmap   mas_store_gfp (GFP_NOWAIT)
 *   kfree_rcu(maple_node) x r_munmap          mas_wr_node_store -> ma_free_rcu
 *   kmem_cache_free(vm_area_struct)           vms_complete_munmap_vmas -> vm_area_free
 * vm_area_struct is SLAB_TYPESAFE_BY_RCU: freed at once, not through kfree_rcu.
 *
 * The simulation: every task runs on its own CPU; the CPU with the earliest clock runs
 * its next step (a work slice, or one allocator call with all its slow path), so lock
 * arrivals reach lock.c in nearly the order of their simulated times. The grace-period
 * callbacks a CPU owes run before its next step (rcu_sheaf.c). Counters count only the
 * measured window [warmup, warmup + measure); an iteration counts when it ends in it.
 */
#include <stdlib.h>
#include <string.h>

#include "sheaves.h"

enum { OP_WORK, OP_ALLOC_VMA, OP_FREE_VMA, OP_ALLOC_MAPLE, OP_RCU_MAPLE };

#define MAX_OPS 64

void ks_sheaves_mmap2_defaults(ks_sheaves_mmap2_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    strncpy(cfg->preset, "epyc-9654-2s", sizeof cfg->preset - 1);
    cfg->variant = KS_SHEAVES_NOFIX;
    cfg->placement = KS_SHEAVES_WIS_CORES;
    cfg->nr_tasks = 1;
    cfg->maple_capacity = 32;            /* lib/maple_tree.c: .sheaf_capacity = 32 */
    cfg->vma_capacity = 32;              /* mm/vma_init.c: .sheaf_capacity = 32 */
    cfg->barn_max = 10;                  /* MAX_FULL_SHEAVES, MAX_EMPTY_SHEAVES */
    cfg->maple_allocs_mmap = 1;
    cfg->maple_rcu_mmap = 1;
    cfg->maple_allocs_munmap = 1;
    cfg->maple_rcu_munmap = 1;
    cfg->seed = 1;
    cfg->work_ns = 1500;
    cfg->rcu_gp_ns = 12000000;           /* 3 jiffies at HZ=250: ASSUMPTION */
    cfg->warmup_ns = 96000000;           /* 8 grace periods: past the first callbacks' flood */
    cfg->measure_ns = 20000000;
    cfg->new_slab_ns = 1000;             /* ASSUMPTION */
    cfg->kzalloc_sheaf_ns = 100;         /* ASSUMPTION */
    cfg->barn_hold_ns = 20;              /* ASSUMPTION */
    cfg->list_hold_ns = 30;              /* ASSUMPTION */
    cfg->fastpath_ns = 10;               /* ASSUMPTION */
    cfg->tick_ns = 4000000;              /* CONFIG_HZ=250 (Debian's amd64 config) */
}

typedef struct core_ref { int32_t socket, node, core, first_cpu; } core_ref;

static int cmp_core(const void *a, const void *b)
{
    const core_ref *x = a, *y = b;
    if (x->socket != y->socket) return x->socket - y->socket;
    if (x->node != y->node) return x->node - y->node;
    return x->core - y->core;
}

/* cpu_of[i] for task i, in will-it-scale's placement. 0, or -1 out of memory. */
static int32_t place(const shv_model *m, int32_t placement, int32_t nr_tasks, int32_t *cpu_of)
{
    int32_t ncores = 0;
    core_ref *cores = malloc((size_t)m->nr_cpus * sizeof *cores);
    if (!cores)
        return -1;
    for (int32_t c = 0; c < m->nr_cpus; c++) {
        int32_t found = 0;
        for (int32_t k = 0; k < ncores; k++)
            if (cores[k].core == m->cpus[c].core) {
                found = 1;
                if (m->cpus[c].smt_index < m->cpus[cores[k].first_cpu].smt_index)
                    cores[k].first_cpu = c;
                break;
            }
        if (!found)
            cores[ncores++] = (core_ref){ m->cpus[c].socket, m->cpus[c].node, m->cpus[c].core, c };
    }
    qsort(cores, (size_t)ncores, sizeof *cores, cmp_core);
    int32_t threads = m->nr_cpus / ncores;
    for (int32_t i = 0; i < nr_tasks; i++) {
        int32_t core, smt;
        if (placement == KS_SHEAVES_WIS_PUS) {
            core = (i % m->nr_cpus) / threads;
            smt = (i % m->nr_cpus) % threads;
        } else {
            core = i % ncores;
            smt = (i / ncores) % threads;
        }
        int32_t pick = cores[core].first_cpu;
        for (int32_t c = 0; c < m->nr_cpus; c++)
            if (m->cpus[c].core == cores[core].core && m->cpus[c].smt_index == smt) {
                pick = c;
                break;
            }
        cpu_of[i] = pick;
    }
    free(cores);
    return 0;
}

static int32_t build_program(const ks_sheaves_mmap2_config *cfg, int32_t *ops)
{
    int32_t n = 0;
    ops[n++] = OP_WORK;
    ops[n++] = OP_ALLOC_VMA;
    for (int32_t i = 0; i < cfg->maple_allocs_mmap; i++) ops[n++] = OP_ALLOC_MAPLE;
    for (int32_t i = 0; i < cfg->maple_rcu_mmap; i++) ops[n++] = OP_RCU_MAPLE;
    ops[n++] = OP_WORK;
    for (int32_t i = 0; i < cfg->maple_allocs_munmap; i++) ops[n++] = OP_ALLOC_MAPLE;
    for (int32_t i = 0; i < cfg->maple_rcu_munmap; i++) ops[n++] = OP_RCU_MAPLE;
    ops[n++] = OP_FREE_VMA;
    return n;
}

static int32_t config_ok(const ks_sheaves_mmap2_config *c)
{
    if (c->variant < 0 || c->variant >= KS_SHEAVES_VARIANT_COUNT) return 0;
    if (c->placement != KS_SHEAVES_WIS_CORES && c->placement != KS_SHEAVES_WIS_PUS) return 0;
    if (c->maple_capacity < 1 || c->maple_capacity > 1024) return 0;
    if (c->vma_capacity < 1 || c->vma_capacity > 1024) return 0;
    if (c->barn_max < 0 || c->barn_max > 100000) return 0;
    int32_t per[4] = { c->maple_allocs_mmap, c->maple_rcu_mmap, c->maple_allocs_munmap,
                       c->maple_rcu_munmap };
    for (int i = 0; i < 4; i++)
        if (per[i] < 0 || per[i] > 8) return 0;
    if (c->measure_ns == 0 || c->rcu_gp_ns == 0 || c->tick_ns == 0) return 0;
    if (c->warmup_ns + c->measure_ns > 10000000000ull) return 0;   /* 10 s simulated at most */
    if (memchr(c->preset, 0, sizeof c->preset) == NULL) return 0;
    return 1;
}

/* ---- a min-heap of tasks by their CPU's clock -------------------------------------- */

typedef struct heap { int32_t *t; int32_t n; const uint64_t *clock; const int32_t *cpu_of; } heap;

static uint64_t key(const heap *h, int32_t i) { return h->clock[h->cpu_of[h->t[i]]]; }

static void sift_down(heap *h, int32_t i)
{
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < h->n && (key(h, l) < key(h, s) || (key(h, l) == key(h, s) && h->t[l] < h->t[s]))) s = l;
        if (r < h->n && (key(h, r) < key(h, s) || (key(h, r) == key(h, s) && h->t[r] < h->t[s]))) s = r;
        if (s == i) return;
        int32_t x = h->t[i]; h->t[i] = h->t[s]; h->t[s] = x;
        i = s;
    }
}

int32_t ks_sheaves_mmap2_run(const ks_sheaves_mmap2_config *cfg, ks_sheaves_mmap2_result *out)
{
    if (!cfg || !out || !config_ok(cfg))
        return KS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    shv_model m;
    int32_t st = shv_model_init(&m, cfg, NULL);
    if (st != KS_OK) {
        shv_model_free(&m);
        return st;
    }
    if (cfg->nr_tasks < 1 || cfg->nr_tasks > m.nr_cpus) {
        shv_model_free(&m);
        return KS_ERR_INVALID_ARG;
    }
    int32_t ops[MAX_OPS];
    int32_t n_ops = build_program(cfg, ops);
    int32_t nt = cfg->nr_tasks;
    int32_t *cpu_of = malloc((size_t)nt * sizeof *cpu_of);
    int32_t *pc = calloc((size_t)nt, sizeof *pc);
    int32_t *hp = malloc((size_t)nt * sizeof *hp);
    if (!cpu_of || !pc || !hp || place(&m, cfg->placement, nt, cpu_of) != 0) {
        free(cpu_of); free(pc); free(hp);
        shv_model_free(&m);
        return KS_ERR_NO_MEMORY;
    }
    uint64_t end = cfg->warmup_ns + cfg->measure_ns;
    /* start the tasks a little apart, as processes forked one by one are */
    for (int32_t i = 0; i < nt; i++)
        m.clock[cpu_of[i]] = (uint64_t)i * 37;
    heap h = { hp, nt, m.clock, cpu_of };
    for (int32_t i = 0; i < nt; i++) hp[i] = i;
    for (int32_t i = nt / 2 - 1; i >= 0; i--) sift_down(&h, i);

    uint64_t steps = 0;
    while (h.n > 0) {
        int32_t task = h.t[0], cpu = cpu_of[task];
        uint64_t t0 = m.clock[cpu];
        m.now = t0;
        if ((++steps & 1023) == 0)
            shv_locks_prune(&m, t0);
        m.measuring = t0 >= cfg->warmup_ns && t0 < end;
        shv_rcu_run_due(&m, cpu);
        switch (ops[pc[task]]) {
        case OP_WORK: shv_charge(&m, cpu, -1, (double)cfg->work_ns / 2); break;
        case OP_ALLOC_VMA: shv_kmem_cache_alloc(&m, SHV_VMA, cpu); break;
        case OP_FREE_VMA: shv_kmem_cache_free(&m, SHV_VMA, cpu); break;
        case OP_ALLOC_MAPLE: shv_kmem_cache_alloc(&m, SHV_MAPLE, cpu); break;
        case OP_RCU_MAPLE: shv_kfree_rcu(&m, SHV_MAPLE, cpu); break;
        default: break;
        }
        if (++pc[task] == n_ops) {
            pc[task] = 0;
            uint64_t t1 = m.clock[cpu];
            if (t1 >= cfg->warmup_ns && t1 < end)
                out->iterations++;
        }
        if (m.clock[cpu] >= end) {
            h.t[0] = h.t[--h.n];
        }
        if (h.n > 0)
            sift_down(&h, 0);
    }

    out->events = steps;
    out->cpu_ns = (double)nt * (double)cfg->measure_ns;
    out->ops_per_sec_per_task = (double)out->iterations / nt / ((double)cfg->measure_ns / 1e9);
    memcpy(out->fn, m.caches[SHV_MAPLE].fn, sizeof out->fn);
    memcpy(out->vma_fn, m.caches[SHV_VMA].fn, sizeof out->vma_fn);
    memcpy(out->part_ns, m.part_ns, sizeof out->part_ns);
    out->barn_wait_ns = m.barn_wait_ns;
    out->list_wait_ns = m.list_wait_ns;
    out->barn_acquisitions = m.barn_acq;
    out->list_acquisitions = m.list_acq;
    out->barn_full_hits = m.caches[SHV_MAPLE].barn_full_hits;
    out->sheaves_live_max = (uint64_t)m.caches[SHV_MAPLE].sheaves_live_max;
    free(cpu_of); free(pc); free(hp);
    shv_model_free(&m);
    return KS_OK;
}
