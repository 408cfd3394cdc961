/*
 * The simulator's public face (kscope/sim.h): build, step, run, frames, stats.
 *
 * One step = one event. An *action* is what happens when the earliest timer
 * fires (a CPU's work piece ends, a task's or a driver's timer, the tick); it
 * may record several events (a wakeup: sched_waking, sched_migrate_task,
 * sched_wakeup, then sched_switch and rseq_update on the target CPU), all with
 * the action's timestamp. They wait in a ring and ks_sim_step hands out one
 * per call; only when the ring is empty does the next action run. So the
 * machine state a frame shows is the state after the action that produced the
 * current event (events of one action share a timestamp; views that animate
 * event by event should apply the events themselves).
 *
 * The run ends when the next timer lies past duration_ms, or nothing is left
 * to happen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* ---- building ------------------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Identifies (workload, topology, algorithm, cache parameters): snapshots of one run
 * restore only into a simulation with the same hash and seed. */
static uint64_t config_hash(const ks_sim *s, const char *json, int32_t len, const char *algo,
                            const ks_cache_params *params)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv1a(h, json, (size_t)len);
    const char *topo_name = ks_topology_name(s->topo);
    h = fnv1a(h, topo_name, strlen(topo_name));
    h = fnv1a(h, s->cpu_info, (size_t)s->nr_cpus * sizeof *s->cpu_info);
    h = fnv1a(h, algo, strlen(algo));
    return fnv1a(h, params, sizeof *params);
}

/* The masks placement scans: per LLC, node, socket, and each core's SMT siblings. */
static int32_t build_topology_masks(ks_sim *s)
{
    ks_topology_summary sum;
    ks_topology_summarize(s->topo, &sum);
    s->nr_llcs = sum.llcs;
    s->nr_nodes = sum.nodes;
    s->nr_sockets = sum.sockets;
    s->nr_cores = sum.cores;
    s->llc_mask = calloc((size_t)sum.llcs, sizeof *s->llc_mask);
    s->node_mask = calloc((size_t)sum.nodes, sizeof *s->node_mask);
    s->socket_mask = calloc((size_t)sum.sockets, sizeof *s->socket_mask);
    s->core_mask = calloc((size_t)sum.cores, sizeof *s->core_mask);
    s->idle_comm = calloc((size_t)s->nr_cpus, sizeof *s->idle_comm);
    if (!s->llc_mask || !s->node_mask || !s->socket_mask || !s->core_mask || !s->idle_comm)
        return KS_ERR_NO_MEMORY;
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
        const ks_cpu *c = &s->cpu_info[cpu];
        cpumask_set(&s->llc_mask[c->llc], cpu);
        cpumask_set(&s->node_mask[c->node], cpu);
        cpumask_set(&s->socket_mask[c->socket], cpu);
        cpumask_set(&s->core_mask[c->core], cpu);
        cpumask_set(&s->masks[0], cpu);
        cpumask_set(&s->masks[1 + cpu], cpu);
        char name[32] = { 0 };
        snprintf(name, sizeof name, "swapper/%d", (int)cpu);
        memcpy(s->idle_comm[cpu], name, KS_COMM_LEN - 1);
    }
    s->nr_masks = 1 + s->nr_cpus;
    return KS_OK;
}

static int32_t alloc_state(ks_sim *s)
{
    int32_t nr_procs = s->wl.nr_procs;
    s->tasks = calloc((size_t)s->max_tasks, sizeof *s->tasks);
    s->rqs = calloc((size_t)s->nr_cpus, sizeof *s->rqs);
    s->drivers = calloc((size_t)nr_procs, sizeof *s->drivers);
    s->nr_order = driver_count_order(&s->wl);
    s->nr_area = driver_count_area(&s->wl, s->nr_cpus);
    s->order = calloc((size_t)s->nr_order + 1, sizeof *s->order);
    s->area_obj = calloc((size_t)s->nr_area + 1, sizeof *s->area_obj);
    s->masks = calloc((size_t)(1 + s->nr_cpus + nr_procs + s->wl.nr_repins), sizeof *s->masks);
    s->repin_mask = calloc((size_t)s->wl.nr_repins + 1, sizeof *s->repin_mask);
    s->pending.capacity = 256;
    while (s->pending.capacity < 8u * (uint32_t)s->nr_cpus)
        s->pending.capacity *= 2;
    s->pending.ev = calloc(s->pending.capacity, sizeof *s->pending.ev);
    s->slot_task0 = s->nr_cpus;
    s->slot_driver0 = s->slot_task0 + s->max_tasks;
    s->slot_repin0 = s->slot_driver0 + nr_procs;
    s->slot_tick = s->slot_repin0 + s->wl.nr_repins;
    s->frame_capacity = (uint32_t)(sizeof(ks_sim_frame) + (size_t)s->nr_cpus * sizeof(ks_sim_cpu) +
                                   (size_t)s->max_tasks * (sizeof(ks_sim_task) + sizeof(int32_t)));
    s->frame = calloc(1, s->frame_capacity);
    if (!s->tasks || !s->rqs || !s->drivers || !s->order || !s->area_obj || !s->masks || !s->repin_mask ||
        !s->pending.ev || !s->frame)
        return KS_ERR_NO_MEMORY;
    return timers_init(&s->timers, s->slot_tick + 1);
}

static void init_core(ks_sim *s)
{
    rng_seed(&s->core.rng, s->seed);
    s->core.deferring_cpu = -1;
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
        s->rqs[cpu] = (sim_rq){ .curr = -1, .head = -1, .tail = -1, .rt_published = 140 };
        cpumask_set(&s->core.idle, cpu);
    }
}

/* Shows the algorithm the tasks that exist at t=0, as if each had just been forked
 * and had then set its affinity (the benchmark pins its threads itself). */
static int32_t start_algorithm(ks_sim *s, const char *variant)
{
    if (s->ops->init) {
        int32_t status = s->ops->init(s, variant, &s->algo);
        if (status != KS_OK)
            return status;
    }
    for (int32_t t = 0; t < s->core.nr_tasks; t++) {
        if (s->ops->task_fork)
            s->ops->task_fork(s->algo, s, -1, t);
        if (s->ops->set_cpus_allowed)
            s->ops->set_cpus_allowed(s->algo, s, t);
    }
    return KS_OK;
}

static int32_t fail_config(ks_parse_error *err, const char *field, const char *message)
{
    if (err) {
        memset(err, 0, sizeof *err);
        strncpy(err->field, field, sizeof err->field - 1);
        strncpy(err->message, message, sizeof err->message - 1);
    }
    return KS_ERR_NOT_FOUND;
}

/* "auto": the algorithm a current kernel runs for this workload: the registry's choice
 * for a workload with a process that registers rseq (sched_ops_auto_rseq), "none" for
 * one without (no rseq_update is recorded, and no cid can be seen). */
static const char *resolve_algo(const workload *wl, const char *algo)
{
    if (strcmp(algo, "auto") != 0)
        return algo;
    for (int32_t i = 0; i < wl->nr_procs; i++)
        if (wl->procs[i].rseq)
            return sched_ops_auto_rseq();
    return "none";
}

static int32_t build(ks_sim *s, const char *json, int32_t len, const ks_sim_config *config,
                     ks_parse_error *err)
{
    ks_cache_params params;
    ks_cache_default_params(&params);
    if (config)
        params = config->cache;
    const char *algo = config && config->algo ? config->algo : "none";
    s->seed = config ? config->seed : 0;
    ks_topology_summary sum;
    int32_t status = ks_topology_summarize(s->topo, &sum);
    if (status != KS_OK)
        return status;
    if (sum.cpus < 1 || sum.cpus > CPUMASK_MAX_CPUS)
        return KS_ERR_RANGE;
    s->cpu_info = ks_topology_cpus(s->topo);
    s->nr_cpus = sum.cpus;
    s->nwords = cpumask_words(sum.cpus);
    status = workload_parse(json, len, s->topo, &s->wl, err);
    if (status != KS_OK)
        return status;
    algo = resolve_algo(&s->wl, algo);
    if (strlen(algo) >= sizeof s->algo_name)
        return fail_config(err, "algo", "unknown scheduling algorithm");
    strcpy(s->algo_name, algo);
    const char *variant;
    s->ops = sched_ops_find(algo, &variant);
    if (!s->ops)
        return fail_config(err, "algo", "unknown scheduling algorithm");
    s->max_tasks = workload_max_tasks(&s->wl);
    s->max_mms = workload_max_mms(&s->wl);
    if ((status = alloc_state(s)) != KS_OK || (status = build_topology_masks(s)) != KS_OK)
        return status;
    if ((status = ks_cache_new(s->topo, &params, &s->cache)) != KS_OK)
        return status;
    s->cache_params = params;
    s->cost_model = KS_COST_MODEL_V1;
    if ((status = ks_topology_cost_params(s->topo, &s->cost_params)) != KS_OK)
        return status;
    s->core_idle_ns = calloc((size_t)(s->nr_cores > 0 ? s->nr_cores : 1), sizeof *s->core_idle_ns);
    if (!s->core_idle_ns)
        return KS_ERR_NO_MEMORY;
    init_core(s);
    if ((status = driver_setup(s)) != KS_OK || (status = start_algorithm(s, variant)) != KS_OK)
        return status;
    driver_arm_starts(s);
    timer_arm(s, s->slot_tick, SCHED_TICK_NS);
    s->config_hash = config_hash(s, json, len, algo, &params);
    return sim_checkpoint_take(s);
}

const char *ks_sim_algo_name(const ks_sim *sim)
{
    return sim ? sim->algo_name : "";
}

int32_t ks_sim_new(const ks_topology *topo, const char *workload_json, int32_t json_len,
                   const ks_sim_config *config, ks_sim **out, ks_parse_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!out)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    if (!topo || !workload_json || json_len < 0)
        return KS_ERR_INVALID_ARG;
    ks_sim *s = calloc(1, sizeof *s);
    if (!s)
        return KS_ERR_NO_MEMORY;
    s->topo = topo;
    int32_t status = build(s, workload_json, json_len, config, err);
    if (status != KS_OK) {
        ks_sim_free(s);
        return status;
    }
    *out = s;
    return KS_OK;
}

void ks_sim_free(ks_sim *sim)
{
    if (!sim)
        return;
    if (sim->ops && sim->ops->release && sim->algo)
        sim->ops->release(sim->algo);
    ks_cache_free(sim->cache);
    workload_free(&sim->wl);
    timers_free(&sim->timers);
    sim_checkpoints_free(sim);
    free(sim->tasks);
    free(sim->rqs);
    free(sim->drivers);
    free(sim->order);
    free(sim->area_obj);
    free(sim->masks);
    free(sim->llc_mask);
    free(sim->node_mask);
    free(sim->socket_mask);
    free(sim->core_mask);
    free(sim->idle_comm);
    free(sim->pending.ev);
    free(sim->bursts);
    free(sim->burst_parts);
    free(sim->core_idle_ns);
    free(sim->frame);
    free(sim->repin_mask);
    free(sim);
}

/* ---- stepping ----------------------------------------------------------------------- */

/* Runs what the timer in `slot` stands for. */
static void run_action(ks_sim *s, int32_t slot)
{
    if (slot < s->slot_task0)
        sched_cpu_timer(s, slot);
    else if (slot < s->slot_driver0)
        driver_task_timer(s, slot - s->slot_task0);
    else if (slot < s->slot_repin0)
        driver_timer(s, slot - s->slot_driver0);
    else if (slot < s->slot_tick)
        driver_repin(s, slot - s->slot_repin0);
    else
        sched_tick(s);
}

int32_t sim_step_internal(ks_sim *s, ks_event *out, int32_t *produced)
{
    *produced = 0;
    while (s->pending.count == 0) {
        int32_t slot = timer_first(&s->timers);
        if (s->core.finished || slot < 0 || timer_expires(&s->timers, slot) > s->wl.duration_ns) {
            s->core.finished = 1;
            return KS_OK;
        }
        s->core.now = timer_expires(&s->timers, slot);
        timer_cancel(s, slot);
        run_action(s, slot);
        if (s->core.oom)
            return KS_ERR_NO_MEMORY;
    }
    event_ring *r = &s->pending;
    *out = r->ev[r->head];
    r->head = (r->head + 1) & (r->capacity - 1);
    r->count--;
    s->core.step++;
    s->core.stats.events++;
    s->core.stats.events_by_type[out->type]++;
    *produced = 1;
    return KS_OK;
}

int32_t ks_sim_step(ks_sim *sim, ks_event *out, int32_t *produced)
{
    if (!sim || !out || !produced)
        return KS_ERR_INVALID_ARG;
    int32_t status = sim_step_internal(sim, out, produced);
    if (status == KS_OK && *produced && sim->core.step % sim->ckpt_every == 0)
        status = sim_checkpoint_take(sim);
    return status;
}

/* Whether an event is about tid: as the current task or as the task it describes. */
static int event_mentions(const ks_event *ev, int32_t tid)
{
    if (ev->pid == tid)
        return 1;
    switch (ev->type) {
    case KS_EV_SCHED_SWITCH:
        return ev->u.sched_switch.prev_pid == tid || ev->u.sched_switch.next_pid == tid;
    case KS_EV_SCHED_WAKING:
    case KS_EV_SCHED_WAKEUP:
    case KS_EV_SCHED_WAKEUP_NEW:
        return ev->u.sched_wakeup.pid == tid;
    case KS_EV_SCHED_MIGRATE_TASK:
        return ev->u.sched_migrate_task.pid == tid;
    case KS_EV_SCHED_PROCESS_FORK:
        return ev->u.sched_process_fork.child_pid == tid;
    case KS_EV_SCHED_PROCESS_EXIT:
    case KS_EV_SCHED_PROCESS_FREE:
        return ev->u.sched_process_exit.pid == tid;
    default:
        return 0;
    }
}

/* Reverses tail[from, to) in place (a step of rotating the ring into time order). */
static void reverse_events(ks_event *tail, uint32_t from, uint32_t to)
{
    for (; from + 1 < to; from++, to--) {
        ks_event tmp = tail[from];
        tail[from] = tail[to - 1];
        tail[to - 1] = tmp;
    }
}

/* The run loop behind both run_until calls: events go to log (if any) and to the
 * tail ring (if any); afterwards the ring is rotated so tail[0] is the oldest kept. */
static int32_t run_limited(ks_sim *sim, const ks_run_limit *limit, ks_event_log *log,
                           ks_event *tail, uint32_t tail_cap, uint32_t *n)
{
    uint32_t count = 0;
    int32_t status = KS_OK;
    while (!limit->max_events || count < limit->max_events) {
        ks_event ev;
        int32_t produced;
        status = ks_sim_step(sim, &ev, &produced);
        if (status != KS_OK || !produced)
            break;
        if (tail_cap)
            tail[count % tail_cap] = ev;
        count++;
        if (log && (status = ks_event_log_append(log, &ev)) != KS_OK)
            break;
        if ((limit->until_ns && ev.ts_ns >= limit->until_ns) ||
            (limit->type_mask & (1u << ev.type)) ||
            (limit->tid && event_mentions(&ev, limit->tid)))
            break;
    }
    if (tail_cap && count > tail_cap) {             /* rotate left by count % cap */
        uint32_t k = count % tail_cap;
        reverse_events(tail, 0, k);
        reverse_events(tail, k, tail_cap);
        reverse_events(tail, 0, tail_cap);
    }
    if (n)
        *n = count;
    return status;
}

int32_t ks_sim_run_until(ks_sim *sim, const ks_run_limit *limit, ks_event_log *log, uint32_t *n)
{
    if (n)
        *n = 0;
    if (!sim || !limit)
        return KS_ERR_INVALID_ARG;
    return run_limited(sim, limit, log, NULL, 0, n);
}

int32_t ks_sim_run_until_tail(ks_sim *sim, const ks_run_limit *limit, ks_event *tail,
                              uint32_t tail_cap, uint32_t *n)
{
    if (n)
        *n = 0;
    if (!sim || !limit || (tail_cap && !tail))
        return KS_ERR_INVALID_ARG;
    return run_limited(sim, limit, NULL, tail, tail_cap, n);
}

/* ---- views ------------------------------------------------------------------------- */

static void fill_frame_task(const ks_sim *s, int32_t t, ks_sim_task *out)
{
    const sim_task *p = &s->tasks[t];
    *out = (ks_sim_task){
        .tid = p->tid, .tgid = p->tgid, .cpu = p->cpu, .state = p->state, .policy = p->policy,
        .prio = p->prio, .nr_cpus_allowed = p->nr_cpus_allowed,
        .mm_cid = p->state == KS_TASK_DEAD ? -1 : sched_task_rseq_cid(s, t),
        .vruntime_ns = p->vruntime < 0 ? 0 : (uint64_t)p->vruntime, .sum_exec_ns = p->sum_exec,
    };
    memcpy(out->comm, p->comm, KS_COMM_LEN);
    if (p->state == KS_TASK_RUNNING)                /* include the running segment */
        out->sum_exec_ns += s->core.now - p->exec_start;
}

const ks_sim_frame *ks_sim_frame_get(ks_sim *sim)
{
    if (!sim)
        return NULL;
    uint8_t *base = sim->frame;
    ks_sim_frame *f = (ks_sim_frame *)base;
    memset(f, 0, sizeof *f);
    f->now_ns = sim->core.now;
    f->step = sim->core.step;
    f->nr_cpus = sim->nr_cpus;
    f->nr_tasks = sim->core.nr_tasks;
    f->cpus_off = sizeof *f;
    f->tasks_off = f->cpus_off + (uint32_t)sim->nr_cpus * sizeof(ks_sim_cpu);
    f->rq_tids_off = f->tasks_off + (uint32_t)sim->core.nr_tasks * sizeof(ks_sim_task);
    ks_sim_cpu *cpus = (ks_sim_cpu *)(base + f->cpus_off);
    ks_sim_task *tasks = (ks_sim_task *)(base + f->tasks_off);
    int32_t *rq_tids = (int32_t *)(base + f->rq_tids_off);
    int32_t n = 0;
    for (int32_t c = 0; c < sim->nr_cpus; c++) {
        const sim_rq *rq = &sim->rqs[c];
        uint64_t busy = rq->busy_ns;
        if (rq->curr >= 0)
            busy += sim->core.now - sim->tasks[rq->curr].exec_start;
        cpus[c] = (ks_sim_cpu){ .cpu = c, .curr_tid = rq->curr >= 0 ? sim->tasks[rq->curr].tid : -1,
                                .nr_running = rq_nr_running(sim, c), .rq_offset = n,
                                .busy_ns = busy };
        for (int32_t t = rq->head; t >= 0; t = sim->tasks[t].rq_next)
            rq_tids[n++] = sim->tasks[t].tid;
    }
    for (int32_t t = 0; t < sim->core.nr_tasks; t++)
        fill_frame_task(sim, t, &tasks[t]);
    f->nr_rq_tids = n;
    f->size = f->rq_tids_off + (uint32_t)n * sizeof(int32_t);
    return f;
}

ks_cache *ks_sim_cache(ks_sim *sim)
{
    return sim ? sim->cache : NULL;
}

int32_t ks_sim_model_view_get(ks_sim *sim, void *buf, uint32_t len)
{
    if (!sim || !buf)
        return KS_ERR_INVALID_ARG;
    if (!sim->ops->view_get)
        return KS_ERR_NOT_FOUND;
    return sim->ops->view_get(sim->algo, sim, buf, len);
}

int32_t ks_sim_get_stats(const ks_sim *sim, ks_sim_stats *out)
{
    if (!sim || !out)
        return KS_ERR_INVALID_ARG;
    *out = sim->core.stats;
    out->now_ns = sim->core.now;
    out->events = sim->core.step;
    return KS_OK;
}

uint32_t ks_sim_burst_count(const ks_sim *sim)
{
    return sim ? sim->core.nr_bursts : 0;
}

const ks_burst_cost *ks_sim_burst_costs(const ks_sim *sim)
{
    return sim ? sim->bursts : NULL;
}
