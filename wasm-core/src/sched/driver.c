/*
 * Workload drivers: what the simulated programs do with the CPU.
 *
 * The scheduler (core.c) only knows that a running task has `work_left` ns of
 * CPU work; when that reaches zero it asks the task's driver what comes next.
 * Each workload kind of workload.c is a small state machine here:
 *
 *   intermittent  Seed 000's benchmark (Mathieu Desnoyers' rseq mm_cid locality
 *                 test, librseq's tests/basic_percpu_benchmark.c): N threads take
 *                 turns, never two at once, in a random order. A thread wakes,
 *                 reads its rseq cpu_id or mm_cid, sweeps (load + store) the
 *                 16 KiB area of that index, sleeps. Two pacings: "reshuffle" (a
 *                 driver timer wakes the next thread `delay` after a burst, new
 *                 order each round) and "fixed" (librseq's: one order, each
 *                 thread sleeping N x delay on its own timer, with its warm-up and
 *                 its start and exit rendezvous; see the intermittent section).
 *                 The sweep's cost comes from the cache model (cache.h) and *is*
 *                 the burst's runtime, so an area that went cold, or lives in
 *                 another LLC, makes a longer burst. Area objects are registered
 *                 on first use, homed on the NUMA node of the CPU that touches
 *                 them first (first-touch policy).
 *   periodic_rt   cyclictest-like SCHED_FIFO threads: an hrtimer every period
 *                 (all threads in phase) wakes each thread for `runtime`; a
 *                 thread still busy at its next period skips it.
 *   pipe_pairs    hackbench-like: per group one process of sender/receiver
 *                 pairs. A sender works, writes (wakes its receiver), blocks
 *                 reading the reply; the receiver works, replies, blocks. After
 *                 `messages` round trips both exit.
 *   fork_churn    a parent forks `children` short-lived processes, at most
 *                 `concurrency` alive at once, blocking in wait() at the limit;
 *                 an exiting child wakes it.
 *
 * Timer-driven wakeups (a driver's start, the intermittent delay, the RT
 * period) fire on the CPU the sleeping task last ran on, as an hrtimer armed by
 * that task would: the waker in the trace is whatever runs there (usually the
 * idle task). Simplified: a sweep's accesses all happen when the burst starts
 * (a preempted burst keeps its cost); syscalls (pipe, fork, wait) cost no time
 * beyond the work each kind specifies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

static const wl_process *spec_of(const ks_sim *s, int32_t task)
{
    return &s->wl.procs[s->tasks[task].proc];
}

/* ---- set-up ------------------------------------------------------------------ */

int32_t driver_count_order(const workload *wl)
{
    int32_t n = 0;
    for (int32_t i = 0; i < wl->nr_procs; i++)
        if (wl->procs[i].kind == WL_INTERMITTENT)
            n += wl->procs[i].threads;
    return n;
}

int32_t driver_count_area(const workload *wl, int32_t nr_cpus)
{
    int32_t n = 0;
    for (int32_t i = 0; i < wl->nr_procs; i++)
        if (wl->procs[i].kind == WL_INTERMITTENT)
            n += nr_cpus;
    return n;
}

/* The n-th CPU (mod weight) of a mask: spreads unpinned tasks' initial CPUs. */
static int32_t nth_cpu(const ks_sim *s, const cpumask *m, int32_t n)
{
    int32_t weight = cpumask_weight(m, s->nwords);
    n %= weight;
    for (int32_t w = 0; w < s->nwords; w++) {
        int32_t here = __builtin_popcountll(m->bits[w]);
        if (n >= here) {
            n -= here;
            continue;
        }
        uint64_t bits = m->bits[w];
        while (n--)
            bits &= bits - 1;
        return w * 64 + __builtin_ctzll(bits);
    }
    return 0;
}

/* The affinity of a process's unpinned tasks: all CPUs, or its "cpus" list. */
static int32_t process_mask(ks_sim *s, const wl_process *w)
{
    if (w->nr_cpus == 0 || w->pinned)
        return 0;
    cpumask *m = &s->masks[s->nr_masks];
    memset(m, 0, sizeof *m);
    for (int32_t i = 0; i < w->nr_cpus; i++)
        cpumask_set(m, s->wl.cpus[w->cpus_off + i]);
    return s->nr_masks++;
}

typedef struct task_init {
    int32_t proc, role, mm, leader, mask, cpu;
} task_init;

/* A task that exists at t=0, asleep on its initial CPU. */
static int32_t add_task(ks_sim *s, const wl_process *w, task_init in)
{
    int32_t t = s->core.nr_tasks++;
    sim_task *p = &s->tasks[t];
    memset(p, 0, sizeof *p);
    p->tid = SCHED_TID_BASE + t;
    p->tgid = in.leader >= 0 ? s->tasks[in.leader].tid : p->tid;
    p->mm = in.mm;
    p->proc = in.proc;
    p->role = in.role;
    p->policy = w->kind == WL_PERIODIC_RT ? KS_SCHED_FIFO : KS_SCHED_NORMAL;
    p->prio = w->kind == WL_PERIODIC_RT ? 99 - w->rt_priority : SCHED_NORMAL_PRIO;
    p->state = KS_TASK_SLEEPING;
    p->cpu = in.cpu;
    p->mask = in.mask;
    p->nr_cpus_allowed = cpumask_weight(&s->masks[in.mask], s->nwords);
    p->rq_next = p->rq_prev = -1;
    p->flags = w->rseq ? TF_RSEQ : 0;
    p->parent = -1;
    memcpy(p->comm, w->comm, KS_COMM_LEN);
    return t;
}

/* Thread i of a pinned intermittent process: CPU cpus[i], or CPU i (core i's first
 * hardware thread on the presets' thread-major numbering). */
static int32_t pinned_cpu(const ks_sim *s, const wl_process *w, int32_t i)
{
    return w->nr_cpus ? s->wl.cpus[w->cpus_off + i] : i;
}

/* The masks of the workload's "repin" entries (after the processes' masks). */
static void repin_masks(ks_sim *s)
{
    for (int32_t k = 0; k < s->wl.nr_repins; k++) {
        const wl_repin *rp = &s->wl.repins[k];
        cpumask *m = &s->masks[s->nr_masks];
        memset(m, 0, sizeof *m);
        for (int32_t i = 0; i < rp->nr_cpus; i++)
            cpumask_set(m, s->wl.cpus[rp->cpus_off + i]);
        s->repin_mask[k] = s->nr_masks++;
    }
}

int32_t driver_setup(ks_sim *s)
{
    int32_t spread = 0, mm = 0, order_off = 0, area_off = 0;
    for (int32_t proc = 0; proc < s->wl.nr_procs; proc++) {
        const wl_process *w = &s->wl.procs[proc];
        sim_driver *d = &s->drivers[proc];
        memset(d, 0, sizeof *d);
        d->first_task = s->core.nr_tasks;
        d->mask = process_mask(s, w);
        d->mm_base = mm;
        const cpumask *m = &s->masks[d->mask];
        int32_t groups = w->kind == WL_PIPE_PAIRS ? w->groups : 1;
        int32_t per_group = w->kind == WL_PIPE_PAIRS ? 2 * w->pairs
                          : w->kind == WL_FORK_CHURN ? 1 : w->threads;
        for (int32_t g = 0; g < groups; g++, mm++) {
            int32_t leader = -1;
            for (int32_t i = 0; i < per_group; i++) {
                task_init in = { .proc = proc, .role = i, .mm = mm, .leader = leader,
                                 .mask = d->mask };
                if (w->pinned) {
                    in.cpu = pinned_cpu(s, w, i);
                    in.mask = 1 + in.cpu;
                } else {
                    in.cpu = nth_cpu(s, m, spread++);
                }
                int32_t t = add_task(s, w, in);
                if (leader < 0)
                    leader = t;
            }
        }
        if (w->kind == WL_FORK_CHURN)
            mm += w->children;
        d->nr_initial = s->core.nr_tasks - d->first_task;
        d->timer_cpu = s->tasks[d->first_task].cpu;
        if (w->kind == WL_INTERMITTENT) {
            d->order_off = order_off;
            for (int32_t i = 0; i < d->nr_initial; i++)
                s->order[order_off + i] = d->first_task + i;
            order_off += d->nr_initial;
            d->area_off = area_off;
            for (int32_t i = 0; i < s->nr_cpus; i++)
                s->area_obj[area_off + i] = -1;
            area_off += s->nr_cpus;
        }
    }
    repin_masks(s);
    return KS_OK;
}

/* periodic_rt's phase_spread_us: thread `task`'s fixed offset in its period, from a
 * splitmix64 hash of its index (no RNG draw: the same phases for every seed). */
static uint64_t periodic_phase(const wl_process *w, int32_t task)
{
    if (!w->phase_spread_ns)
        return 0;
    uint64_t z = (uint64_t)task + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z % w->phase_spread_ns;
}

void driver_arm_starts(ks_sim *s)
{
    for (int32_t k = 0; k < s->wl.nr_repins; k++)
        timer_arm(s, s->slot_repin0 + k, s->wl.repins[k].at_ns);
    for (int32_t proc = 0; proc < s->wl.nr_procs; proc++) {
        const wl_process *w = &s->wl.procs[proc];
        const sim_driver *d = &s->drivers[proc];
        if (w->kind == WL_PERIODIC_RT) {
            for (int32_t i = 0; i < d->nr_initial; i++)
                timer_arm(s, s->slot_task0 + d->first_task + i,
                          w->start_ns + periodic_phase(w, d->first_task + i));
        } else {
            timer_arm(s, s->slot_driver0 + proc, w->start_ns);
        }
    }
}

/* ---- intermittent -------------------------------------------------------------- */

/*
 * What a thread does, in either pacing (librseq tests/basic_percpu_benchmark.c,
 * test_percpu_benchmark_thread(), read at compudj/librseq commit 95febd5e):
 *
 *   burst     `cpu = get_current_cpu_id(); pdata = rseq_percpu_ptr(percpudata, cpu);
 *             for (j = 0; j < AREA_LEN; j++) pdata[j]++;` with AREA_LEN 16 KiB: the
 *             index is the rseq mm_cid (built with BUILDOPT_RSEQ_PERCPU_MM_CID) or
 *             cpu_id (rseq_cpu_start()), read once per sweep; every byte is loaded and
 *             stored, so each of the 256 lines is loaded, then stored (the model
 *             sweeps the loads, then the stores: the same per-line transitions).
 *             Only the sweep sits between the two clock_gettime() calls, so a
 *             burst's measured time is the sweep's modelled cost, nothing else.
 *   warm-up   `for (i = 0; i < 20000; i++)` the same sweep, cid re-read each time,
 *             right before the first measured sweep with no sleep between. No other
 *             task shares the thread's CPU, so the cid cannot change during it (a
 *             scan can only mark it lazy-put; it goes at the next switch-out). The
 *             model runs sweep 1 (the cold one), sweep 2 (hot) and the last sweep
 *             at its real time (so the lines' last-touch times are right), and
 *             counts sweeps 2..n at sweep 2's cost: the area stays in the core's
 *             caches while it is swept every few hundred ns.
 *   loops     LOOPS_PER_THREAD = 5 measured sweeps; main prints
 *             total_time / (nr_threads * LOOPS_PER_THREAD): the mean over every
 *             measured burst, the first (just after the warm-up) included.
 *
 * "fixed" pacing, librseq's: main draws one random permutation, rand_order[]
 * (srand(time(NULL)) and a swap with rand() % nr_threads per slot), before it
 * creates the threads; thread i pins itself to the i-th allowed CPU
 * (set_affinity()) and takes position rand_order[i]. Then:
 *
 *   start     all threads meet (`nr_active_threads == nr_threads`, spinning on
 *             test_go): each runs once on its CPU and so takes a cid there. Here they
 *             wake together at start_ms, in thread order, and meet at once.
 *   stagger   `poll(NULL, 0, thread_delay * thread_index)`: position k sleeps
 *             k x delay, then warms up and makes its first measured burst.
 *   period    after every measured burst `poll(NULL, 0, thread_delay * nr_threads)`:
 *             each thread sleeps threads x delay on its own, so the round order
 *             never changes (bursts drift by their own µs, far below delay).
 *   end       a thread done with its loops spins on test_stop until all are done
 *             (the exit rendezvous: it stays on its CPU, keeps its cid, and its
 *             ticks run the model's periodic work), then every thread exits.
 *
 * Timers fire on the CPU the thread sleeps on, as poll()'s hrtimer does, and the
 * thread wakes there (it is pinned). Not modelled: poll()'s timer slack (50 µs
 * by default) and wakeup latency, which shift bursts by µs; the main thread
 * (asleep in pthread_join() on one of the CPUs: one more mm user, holding no
 * cid once it has slept 100 ms); the areas' zeroing by main at
 * rseq_mempool_percpu_zmalloc() (here an area is homed where it is first swept).
 *
 * "reshuffle" pacing (the default, kscope's original reading of the seed's text):
 * one driver timer wakes the threads one at a time in a random order drawn anew
 * each round, delay after the previous burst ends; no start or exit rendezvous.
 */

/* Reshuffle: wakes the next thread of the round, drawing a new order when a round
 * begins; after `loops` rounds the driver stops and the threads sleep on. */
static void intermittent_wake_next(ks_sim *s, int32_t proc)
{
    sim_driver *d = &s->drivers[proc];
    if (d->pos == 0)
        rng_shuffle(&s->core.rng, s->order + d->order_off, d->nr_initial);
    int32_t t = s->order[d->order_off + d->pos];
    s->tasks[t].flags |= TF_BURST_PENDING;
    sched_wake(s, t, d->timer_cpu);
}

/* Fixed: the start rendezvous. order[] becomes rand_order's inverse (order[k] = the
 * thread at position k), drawn once; every thread wakes on its CPU and runs a moment. */
static void fixed_start(ks_sim *s, int32_t proc)
{
    sim_driver *d = &s->drivers[proc];
    rng_shuffle(&s->core.rng, s->order + d->order_off, d->nr_initial);
    for (int32_t i = 0; i < d->nr_initial; i++) {
        int32_t t = d->first_task + i;
        s->tasks[t].flags |= TF_RENDEZVOUS;
        sched_set_work(s, t, 1);
        sched_wake(s, t, s->tasks[t].cpu);
    }
}

/* Fixed: a thread's position in the order (librseq's thread_index). */
static int32_t fixed_position(const ks_sim *s, int32_t task)
{
    const sim_driver *d = &s->drivers[s->tasks[task].proc];
    for (int32_t k = 0; k < d->nr_initial; k++)
        if (s->order[d->order_off + k] == task)
            return k;
    return 0;
}

static void record_burst(ks_sim *s, int32_t task, int32_t index, uint64_t cost, int32_t flags,
                         const ks_cost_parts *parts)
{
    uint32_t i = s->core.nr_bursts;
    if (i >= s->bursts_capacity) {
        uint32_t capacity = s->bursts_capacity ? s->bursts_capacity * 2 : 1024;
        ks_burst_cost *grown = realloc(s->bursts, (size_t)capacity * sizeof *grown);
        if (!grown) {
            s->core.oom = 1;
            return;
        }
        s->bursts = grown;
        ks_cost_parts *grown_parts = realloc(s->burst_parts, (size_t)capacity * sizeof *grown_parts);
        if (!grown_parts) {
            s->core.oom = 1;
            return;
        }
        s->burst_parts = grown_parts;
        s->bursts_capacity = capacity;
    }
    s->burst_parts[i] = *parts;
    const sim_task *p = &s->tasks[task];
    s->bursts[i] = (ks_burst_cost){ .ts_ns = s->core.now, .tid = p->tid, .cpu = p->cpu,
                                    .index = index, .flags = flags, .cost_ns = cost };
    s->core.nr_bursts = i + 1;
    if (s->bursts_valid < i + 1)
        s->bursts_valid = i + 1;
}

/* The area of an index, registered on first touch, homed on the toucher's node. */
static int32_t area_object(ks_sim *s, int32_t task, int32_t index)
{
    const wl_process *w = spec_of(s, task);
    int32_t *obj = &s->area_obj[s->drivers[s->tasks[task].proc].area_off + index];
    if (*obj < 0) {
        char name[KS_COMM_LEN + 24];
        snprintf(name, sizeof name, "%s.area[%d]", w->comm, (int)index);
        int32_t node = s->cpu_info[s->tasks[task].cpu].node;
        if (ks_cache_add_object(s->cache, name, (uint32_t)w->area_bytes, node, obj) != KS_OK) {
            s->core.oom = 1;
            *obj = -1;
        }
    }
    return *obj;
}

/* The index the thread reads from rseq now: its concurrency id, or its
 * cpu_id (also when the model gives no cid: the benchmark's cpu_id build). */
static int32_t burst_index(const ks_sim *s, int32_t task)
{
    int32_t index = s->tasks[task].cpu;
    if (spec_of(s, task)->index_by_cid) {
        int32_t cid = sched_task_rseq_cid(s, task);
        if (cid >= 0 && cid < s->nr_cpus)
            index = cid;
    }
    return index;
}

/*
 * Pricing a sweep. v1 (the default): the cache model's accesses, every line's trip
 * one after another (kscope/cache.h). v2 (ks_sim_set_cost_model; the seed benchmark's
 * repro uses it): the same accesses still move v1's lines (v1 is the state), and the
 * price is the cost model v2's (kscope/cost.h) for a sweep described from that state
 * (ks_cost_sweep_from_cache): where each line was left, by whom, how long ago, how
 * long its holder's core and this core idled (the rq's idle periods), the background
 * traffic of the cache params (an explicit workload parameter), and, for an area no
 * thread wrote before, a first-touch fault per page (cost_fault.c: librseq's per-CPU
 * pool maps every index's range copy-on-write, so the first write to each page of a
 * never-used index faults). The parts of v2's breakdown are added into `parts`.
 */

/* How long cpu's core has been idle right before a burst starting now on cpu: the
 * CPU's idle period that just ended, and the SMT siblings idle through it. 0 when the
 * CPU did not come straight out of idle. */
static uint64_t own_core_idle_ns(const ks_sim *s, int32_t cpu, uint64_t at)
{
    const sim_rq *rq = &s->rqs[cpu];
    if (at != s->core.now || rq->idle_end != at || rq->idle_end < rq->idle_since)
        return 0;
    uint64_t since = rq->idle_since;
    const cpumask *siblings = &s->core_mask[s->cpu_info[cpu].core];
    for (int32_t c = 0; c < s->nr_cpus; c++) {
        if (c == cpu || !cpumask_test(siblings, c))
            continue;
        if (s->rqs[c].curr >= 0)
            return 0;                                   /* a sibling runs: no core C-state */
        if (s->rqs[c].idle_since > since)
            since = s->rqs[c].idle_since;
    }
    return at > since ? at - since : 0;
}

/* Every core's idle time at `at` (0 if one of its CPUs runs), for the holders of lines. */
static void fill_core_idle(ks_sim *s, uint64_t at)
{
    for (int32_t c = 0; c < s->nr_cores; c++)
        s->core_idle_ns[c] = 0;                         /* the latest idle_since, or busy */
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
        int32_t core = s->cpu_info[cpu].core;
        uint64_t since = s->rqs[cpu].curr >= 0 ? UINT64_MAX : s->rqs[cpu].idle_since;
        if (since > s->core_idle_ns[core])
            s->core_idle_ns[core] = since;
    }
    for (int32_t c = 0; c < s->nr_cores; c++) {
        uint64_t since = s->core_idle_ns[c];
        s->core_idle_ns[c] = since == UINT64_MAX || since >= at ? 0 : at - since;
    }
}

#define FAULT_PAGE_BYTES 4096u

/* v2's price of the sweep about to run (before v1's accesses move the lines). */
static uint64_t price_v2(ks_sim *s, int32_t cpu, int32_t obj, uint32_t len, uint64_t at, int fresh,
                         ks_cost_parts *parts)
{
    ks_cost_sweep sw = {
        .order = KS_ORDER_SEQUENTIAL, .is_store = 1,
        .background_private_bytes_per_us = s->cache_params.private_background_bytes_per_us,
        .background_llc_bytes_per_us = s->cache_params.llc_background_bytes_per_us,
        .idle_ns = own_core_idle_ns(s, cpu, at),
    };
    if (fresh) {
        /* The faults' fills leave the new pages' lines in this core's caches. */
        sw.first_touch_pages = (int32_t)((len + FAULT_PAGE_BYTES - 1) / FAULT_PAGE_BYTES);
        sw.n_groups = 1;
        sw.groups[0] = (ks_cost_lines){ .lines = ks_cache_object_lines(s->cache, obj),
                                        .where = KS_WHERE_OWN_PRIVATE, .state = KS_LINE_DIRTY };
        sw.since_own_touch_ns = 0;
    } else {
        fill_core_idle(s, at);
        if (ks_cost_sweep_from_cache(s->cache, cpu, obj, at, s->core_idle_ns, &sw) != KS_OK)
            return 0;
    }
    ks_cost_result r;
    if (ks_cost_sweep_run(&s->cost_params, &sw, &r) != KS_OK)
        return 0;
    for (int i = 0; i < KS_COST_PARTS; i++)
        parts->part_ns[i] += r.part_ns[i];
    uint64_t ns = (uint64_t)(r.total_ns + 0.5);
    return ns ? ns : 1;
}

/* One sweep of obj from the task's CPU starting at `at`: every line loaded, then
 * stored. Returns its modelled cost in ns (v1's, or v2's with its parts added to
 * *parts); fresh: no thread wrote the area before. */
static uint64_t sweep(ks_sim *s, int32_t task, int32_t obj, uint64_t at, int fresh, ks_cost_parts *parts)
{
    ks_access_cost load = { 0 }, store = { 0 };
    uint32_t len = (uint32_t)spec_of(s, task)->area_bytes;
    int32_t cpu = s->tasks[task].cpu;
    uint64_t v2 = s->cost_model == KS_COST_MODEL_V2 ? price_v2(s, cpu, obj, len, at, fresh, parts) : 0;
    ks_cache_access(s->cache, cpu, obj, 0, len, 0, at, &load);
    ks_cache_access(s->cache, cpu, obj, 0, len, 1, at + (v2 ? v2 : load.ns), &store);
    if (v2) {                       /* the stats' access time is the price charged */
        load.ns = v2;
        store.ns = 0;
    }
    sched_note_access(s, &load);
    sched_note_access(s, &store);
    return load.ns + store.ns;
}

/* The warm-up's n sweeps (see above): sweeps 1, 2 and n modelled, 2..n at sweep 2's
 * cost. The time of the sweeps not modelled is added to the access-time stats, and
 * sweep 2's parts n - 1 times to the warm-up's. */
static uint64_t warmup_sweeps(ks_sim *s, int32_t task, int32_t obj, int32_t n, int fresh,
                              ks_cost_parts *parts)
{
    uint64_t now = s->core.now;
    uint64_t first = sweep(s, task, obj, now, fresh, parts);
    if (n == 1)
        return first;
    ks_cost_parts hot_parts = { { 0 } }, scratch = { { 0 } };
    uint64_t hot = sweep(s, task, obj, now + first, 0, &hot_parts);
    double hot_sum = 0;                 /* the parts of the rounded hot cost, n - 1 times */
    for (int i = 0; i < KS_COST_PARTS; i++)
        hot_sum += hot_parts.part_ns[i];
    double scale = hot_sum > 0 ? (double)(n - 1) * (double)hot / hot_sum : 0;
    for (int i = 0; i < KS_COST_PARTS; i++)
        parts->part_ns[i] += scale * hot_parts.part_ns[i];
    if (n > 2) {
        sweep(s, task, obj, now + first + (uint64_t)(n - 2) * hot, 0, &scratch);
        s->core.stats.access_ns += (uint64_t)(n - 3) * hot;
    }
    return first + (uint64_t)(n - 1) * hot;
}

/* A burst (or the warm-up before a thread's first one) starts now; returns its cost,
 * the CPU work it takes. */
static uint64_t start_burst(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    const wl_process *w = spec_of(s, task);
    p->flags &= ~TF_BURST_PENDING;
    int warmup = p->counter == 0 && w->warmup_sweeps > 0 && !(p->flags & TF_WARMUP);
    int32_t index = burst_index(s, task);
    int fresh = s->area_obj[s->drivers[p->proc].area_off + index] < 0;   /* never written */
    int32_t obj = area_object(s, task, index);
    uint64_t cost = 0;
    ks_cost_parts parts = { { 0 } };
    if (obj >= 0)
        cost = warmup ? warmup_sweeps(s, task, obj, w->warmup_sweeps, fresh, &parts)
                      : sweep(s, task, obj, s->core.now, fresh, &parts);
    if (warmup)
        p->flags |= TF_WARMUP;
    else
        p->flags &= ~TF_WARMUP;
    record_burst(s, task, index, cost, warmup ? KS_BURST_WARMUP : 0, &parts);
    return cost ? cost : 1;
}

/* The thread is done with its loops: librseq's exit rendezvous. The last one releases
 * the spinners (each exits at its next instant) and exits. */
static void fixed_finish(ks_sim *s, int32_t task)
{
    sim_driver *d = &s->drivers[s->tasks[task].proc];
    if (++d->finished < d->nr_initial) {
        s->tasks[task].flags |= TF_SPINNING;
        sched_set_work(s, task, s->wl.duration_ns);     /* spins to the end, unless released */
        return;
    }
    for (int32_t t = d->first_task; t < d->first_task + d->nr_initial; t++)
        if (s->tasks[t].flags & TF_SPINNING)
            sched_set_work(s, t, 1);
    sched_exit(s, task, -1);
}

static void intermittent_done(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    const wl_process *w = spec_of(s, task);
    int32_t proc = p->proc;
    sim_driver *d = &s->drivers[proc];
    if (p->flags & TF_RENDEZVOUS) {                     /* start: sleep position x delay */
        p->flags &= ~TF_RENDEZVOUS;
        timer_arm(s, s->slot_task0 + task,
                  s->core.now + (uint64_t)fixed_position(s, task) * w->delay_ns);
        sched_block(s, task);
        return;
    }
    if (p->flags & TF_SPINNING) {                       /* released from the exit rendezvous */
        sched_exit(s, task, -1);
        return;
    }
    if (p->flags & TF_WARMUP) {                         /* the first measured burst follows */
        sched_set_work(s, task, start_burst(s, task));
        return;
    }
    p->counter++;
    if (w->order_fixed) {
        if (w->loops && p->counter >= w->loops) {
            fixed_finish(s, task);
            return;
        }
        timer_arm(s, s->slot_task0 + task, s->core.now + (uint64_t)d->nr_initial * w->delay_ns);
        sched_block(s, task);
        return;
    }
    if (++d->pos == d->nr_initial) {
        d->pos = 0;
        d->round++;
    }
    d->timer_cpu = p->cpu;
    if (!w->loops || d->round < w->loops)
        timer_arm(s, s->slot_driver0 + proc, s->core.now + w->delay_ns);
    sched_block(s, task);
}

/* Fixed: the thread's own poll() timer: its next burst. */
static void fixed_timer(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    if (p->state != KS_TASK_SLEEPING)
        return;
    p->flags |= TF_BURST_PENDING;
    sched_wake(s, task, p->cpu);
}

/* ---- pipe_pairs ------------------------------------------------------------------ */

static void pipe_done(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    const wl_process *w = spec_of(s, task);
    int sender = (p->role & 1) == 0;
    int32_t partner = sender ? task + 1 : task - 1;
    if (sender && p->counter == w->messages) {          /* the last reply is in */
        sched_exit(s, task, -1);
        return;
    }
    p->counter++;
    sched_set_work(s, partner, w->work_ns);
    sched_wake(s, partner, p->cpu);                     /* write(): the reader wakes */
    if (!sender && p->counter == w->messages)
        sched_exit(s, task, -1);
    else
        sched_block(s, task);                           /* read(): wait for the other side */
}

/* ---- fork_churn ------------------------------------------------------------------ */

static void fork_parent_done(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    const wl_process *w = spec_of(s, task);
    sim_driver *d = &s->drivers[p->proc];
    if (d->forked < w->children && d->alive < w->concurrency) {
        int32_t child = sched_fork(s, task, d->mm_base + 1 + d->forked);
        d->forked++;
        if (child >= 0) {
            s->tasks[child].role = 1;
            d->alive++;
            sched_set_work(s, child, w->child_runtime_ns);
            sched_wake_new(s, child, p->cpu);
        }
    }
    if (d->forked < w->children && d->alive < w->concurrency) {
        sched_set_work(s, task, w->fork_ns);
    } else if (d->forked >= w->children && d->alive == 0) {
        sched_exit(s, task, -1);
    } else {
        s->tasks[task].flags |= TF_WAIT_CHILD;           /* wait() */
        sched_block(s, task);
    }
}

static void fork_child_done(ks_sim *s, int32_t task)
{
    const wl_process *w = spec_of(s, task);
    sim_driver *d = &s->drivers[s->tasks[task].proc];
    d->alive--;
    int32_t parent = s->tasks[task].parent;
    int32_t notify = -1;
    if (parent >= 0 && (s->tasks[parent].flags & TF_WAIT_CHILD) &&
        s->tasks[parent].state == KS_TASK_SLEEPING) {
        s->tasks[parent].flags &= ~TF_WAIT_CHILD;
        sched_set_work(s, parent, w->fork_ns);
        notify = parent;
    }
    sched_exit(s, task, notify);
}

/* ---- repin: a thread's sched_setaffinity() ------------------------------------------ */

/*
 * sched_setaffinity() -> __set_cpus_allowed_ptr() -> __do_set_cpus_allowed()
 * (kernel/sched/core.c): the thread's cpus_mask and nr_cpus_allowed change; from
 * 7e019dc on, __do_set_cpus_allowed() also calls mm_set_cpus_allowed(), which ORs
 * the new mask into the mm's cpus_allowed (ops->set_cpus_allowed: the
 * model does what its kernel version does). A sleeping thread left off its allowed
 * CPUs moves when it next wakes: select_task_rq() picks an allowed CPU and
 * set_task_cpu() runs the model's migrate hook, as in the kernel, where
 * affine_move_task() only moves running or queued tasks.
 * Simplified: a thread that is running or queued when its repin is due is not moved
 * by the migration stopper at once; it finishes its burst on its CPU and moves at its
 * next wakeup (an intermittent burst lasts microseconds).
 */
void driver_repin(ks_sim *s, int32_t k)
{
    const wl_repin *rp = &s->wl.repins[k];
    int32_t task = s->drivers[rp->proc].first_task + rp->thread;
    sim_task *p = &s->tasks[task];
    if (p->state == KS_TASK_DEAD)
        return;
    p->mask = s->repin_mask[k];
    p->nr_cpus_allowed = cpumask_weight(&s->masks[p->mask], s->nwords);
    if (s->ops->set_cpus_allowed)
        s->ops->set_cpus_allowed(s->algo, s, task);
}

/* ---- entry points from the scheduler ------------------------------------------------ */

void driver_timer(ks_sim *s, int32_t proc)
{
    const wl_process *w = &s->wl.procs[proc];
    const sim_driver *d = &s->drivers[proc];
    switch (w->kind) {
    case WL_INTERMITTENT:
        if (w->order_fixed)
            fixed_start(s, proc);
        else
            intermittent_wake_next(s, proc);
        break;
    case WL_PIPE_PAIRS:
        for (int32_t t = d->first_task; t < d->first_task + d->nr_initial; t += 2) {
            sched_set_work(s, t, w->work_ns);
            sched_wake(s, t, s->tasks[t].cpu);
        }
        break;
    case WL_FORK_CHURN:
        sched_set_work(s, d->first_task, w->fork_ns);
        sched_wake(s, d->first_task, s->tasks[d->first_task].cpu);
        break;
    default:
        break;
    }
}

void driver_task_timer(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    const wl_process *w = spec_of(s, task);
    if (w->kind == WL_INTERMITTENT && w->order_fixed) {
        fixed_timer(s, task);
        return;
    }
    if (w->kind != WL_PERIODIC_RT || p->state == KS_TASK_DEAD)
        return;
    p->counter++;
    if (p->state == KS_TASK_SLEEPING) {                 /* else: overrun, skip this period */
        sched_set_work(s, task, w->runtime_ns);
        sched_wake(s, task, p->cpu);
    }
    timer_arm(s, s->slot_task0 + task,
              w->start_ns + periodic_phase(w, task) + (uint64_t)p->counter * w->period_ns);
}

void driver_work_done(ks_sim *s, int32_t task)
{
    const wl_process *w = spec_of(s, task);
    switch (w->kind) {
    case WL_INTERMITTENT:
        intermittent_done(s, task);
        break;
    case WL_PIPE_PAIRS:
        pipe_done(s, task);
        break;
    case WL_FORK_CHURN:
        if (s->tasks[task].role == 0)
            fork_parent_done(s, task);
        else
            fork_child_done(s, task);
        break;
    case WL_PERIODIC_RT:
    default:
        sched_block(s, task);
        break;
    }
}

void driver_switch_in(ks_sim *s, int32_t task)
{
    if (s->tasks[task].flags & TF_BURST_PENDING)
        s->tasks[task].work_left = start_burst(s, task);
}
