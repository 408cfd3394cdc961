/*
 * The scheduler core: switching, wakeup placement, preemption, fork/exit and
 * balancing, modelled on kernel/sched/{core,fair,rt}.c and recording the same
 * tracepoints the kernel would.
 *
 * The problem. A teaching view of a scheduler patch (concurrency ids, the RT priority map,
 * cache-aware placement) needs a scheduler underneath that makes the same *kinds* of
 * decisions Linux makes — where a woken task lands, when it preempts, when a
 * balancer pulls it elsewhere — with every decision visible as a trace event.
 * It does not need Linux's exact arithmetic. So this is a small, readable
 * scheduler with the kernel's shape and names (the call sites and function
 * names of kernel/sched as of v6.12/v6.13, the kernels of the first seeds),
 * and each simplification is stated where it is made.
 *
 * The model.
 *
 *   Time advances from one timer to the next (timer.c); between two timers
 *   every CPU's current task simply runs. A task's CPU work comes in pieces
 *   (`work_left`, set by its workload driver, driver.c); when a piece is done
 *   the driver decides: run more, wake someone, sleep, fork, exit.
 *
 *   Classes. SCHED_FIFO tasks (prio 0..98) always run before fair tasks, by
 *   priority, FIFO within one priority, with no slice and no RT throttling
 *   (the kernel throttles RT at 95% by default: not modelled). Fair tasks are
 *   a simplified CFS/EEVDF: all have nice 0 (vruntime advances at wall speed),
 *   the runqueue is ordered by vruntime, a task runs for a fixed slice
 *   (SCHED_SLICE_NS, 3 ms) when others wait, a waking task gets vruntime
 *   max(own, min_vruntime - 3 ms) (CFS place_entity; EEVDF's lag and
 *   deadlines are not modelled) and preempts the current fair task if its
 *   vruntime is smaller by more than SCHED_WAKEUP_GRAN_NS (1 ms). A new task
 *   starts one slice after min_vruntime (START_DEBIT).
 *
 *   Wakeup placement, fair (select_task_rq_fair -> select_idle_sibling):
 *     1. the previous CPU, if idle and allowed;
 *     2. an idle core (all SMT siblings idle) in prev's LLC, scanning from prev;
 *     3. an idle CPU in prev's LLC;
 *     4. any allowed idle CPU, nearest to prev (same node, same socket, any);
 *     5. else prev (a new task: the least loaded allowed CPU, find_idlest_cpu).
 *   wake_affine (pulling the wakee towards the waker's CPU) is not modelled:
 *   placement starts from prev always.
 *   Wakeup placement, RT (select_task_rq_rt -> find_lowest_rq): stay on prev
 *   unless prev runs an RT task of higher or equal priority (or a pinned
 *   one); then take the allowed CPU of lowest RT priority level (idle and fair CPUs
 *   are one level, CPUPRI_NORMAL, as in the kernel), prev first, then the
 *   nearest by topology.
 *
 *   Preemption is immediate: an IPI and the idle exit take no time here. A
 *   preemption on the CPU whose task is in the middle of a driver decision is
 *   deferred until that decision ends (the kernel's TIF_NEED_RESCHED).
 *
 *   Balancing. A CPU about to go idle pulls first the best RT task waiting
 *   elsewhere (pull_rt_task), then one waiting fair task from the busiest CPU
 *   of its LLC, its node, the machine (newidle_balance). A CPU whose RT task is
 *   preempted or woken behind a higher one pushes it to a lower-priority CPU
 *   (push_rt_tasks). Every tick (SCHED_TICK_NS, 4 ms = HZ 250) a periodic
 *   balance lets idle CPUs pull from anywhere and CPUs with one task pull from
 *   an LLC sibling with three or more. No load tracking (PELT), no group
 *   imbalance maths, no NUMA balancing: counts of tasks stand for load.
 *
 * Events. Each decision appends ks_events, with ftrace's conventions: the
 * record's cpu/pid/comm are the CPU the tracepoint fires on and the task
 * current there (pid 0 "swapper/N" when idle); sched_waking, sched_migrate_task
 * and sched_wakeup are recorded on the waker's CPU; sched_switch on the
 * switching CPU, followed by rseq_update for a task that registered rseq (the
 * kernel updates rseq on the return to user space after each switch), and an
 * rseq_update after a tick that queued task_work on a running task (task_work_add sets
 * TIF_NOTIFY_RESUME: the work runs on the return from the interrupt, then rseq).
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* ---- events ------------------------------------------------------------- */

/* Doubles the pending ring (rare: only when one action emits more than ever before). */
static int grow_pending(event_ring *r)
{
    uint32_t capacity = r->capacity * 2;
    ks_event *grown = malloc((size_t)capacity * sizeof *grown);
    if (!grown)
        return 0;
    for (uint32_t i = 0; i < r->count; i++)
        grown[i] = r->ev[(r->head + i) & (r->capacity - 1)];
    free(r->ev);
    r->ev = grown;
    r->head = 0;
    r->capacity = capacity;
    return 1;
}

ks_event *sched_emit(ks_sim *s, uint32_t type, int32_t cpu)
{
    event_ring *r = &s->pending;
    if (r->count == r->capacity && !grow_pending(r)) {
        s->core.oom = 1;
        r->count--;                 /* overwrite the last one; the step reports the error */
    }
    ks_event *ev = &r->ev[(r->head + r->count++) & (r->capacity - 1)];
    memset(ev, 0, sizeof *ev);
    ev->ts_ns = s->core.now;
    ev->type = type;
    ev->cpu = cpu;
    int32_t curr = s->rqs[cpu].curr;
    if (curr < 0) {
        memcpy(ev->comm, s->idle_comm[cpu], KS_COMM_LEN);
    } else {
        const sim_task *p = &s->tasks[curr];
        ev->pid = p->tid;
        ev->tgid = p->tgid;
        memcpy(ev->comm, p->comm, KS_COMM_LEN);
    }
    return ev;
}

/* comm, pid and prio of a task or of cpu's idle task (task -1). */
static void task_ident(const ks_sim *s, int32_t task, int32_t cpu, char *comm, int32_t *pid,
                       int32_t *prio)
{
    if (task < 0) {
        memcpy(comm, s->idle_comm[cpu], KS_COMM_LEN);
        *pid = 0;
        *prio = SCHED_NORMAL_PRIO;
        return;
    }
    const sim_task *p = &s->tasks[task];
    memcpy(comm, p->comm, KS_COMM_LEN);
    *pid = p->tid;
    *prio = p->prio;
}

static void emit_switch(ks_sim *s, int32_t cpu, int32_t prev, int32_t next, int64_t prev_state)
{
    ks_ev_sched_switch *e = &sched_emit(s, KS_EV_SCHED_SWITCH, cpu)->u.sched_switch;
    task_ident(s, prev, cpu, e->prev_comm, &e->prev_pid, &e->prev_prio);
    e->prev_state = prev_state;
    task_ident(s, next, cpu, e->next_comm, &e->next_pid, &e->next_prio);
}

static void emit_wakeup(ks_sim *s, uint32_t type, int32_t cpu, int32_t task, int32_t target)
{
    ks_ev_sched_wakeup *e = &sched_emit(s, type, cpu)->u.sched_wakeup;
    task_ident(s, task, cpu, e->comm, &e->pid, &e->prio);
    e->target_cpu = target;
}

static void emit_migrate(ks_sim *s, int32_t cpu, int32_t task, int32_t from, int32_t to)
{
    ks_ev_sched_migrate_task *e =
        &sched_emit(s, KS_EV_SCHED_MIGRATE_TASK, cpu)->u.sched_migrate_task;
    task_ident(s, task, cpu, e->comm, &e->pid, &e->prio);
    e->orig_cpu = from;
    e->dest_cpu = to;
}

/* True when no other thread of task's process is still alive (the kernel's group_dead). */
static int32_t is_last_thread(const ks_sim *s, int32_t task)
{
    for (int32_t t = 0; t < s->core.nr_tasks; t++)
        if (t != task && s->tasks[t].tgid == s->tasks[task].tgid && s->tasks[t].state != KS_TASK_DEAD)
            return 0;
    return 1;
}

/* sched_process_exit (with group_dead, as 6.16+ print it) or sched_process_free (without). */
static void emit_exit(ks_sim *s, uint32_t type, int32_t cpu, int32_t task)
{
    ks_ev_sched_process_exit *e = &sched_emit(s, type, cpu)->u.sched_process_exit;
    task_ident(s, task, cpu, e->comm, &e->pid, &e->prio);
    e->group_dead = type == KS_EV_SCHED_PROCESS_EXIT ? is_last_thread(s, task) : -1;
}

int32_t sched_task_rseq_cid(const ks_sim *s, int32_t task)
{
    return s->ops->rseq_cid ? s->ops->rseq_cid(s->algo, s, task) : -1;
}

/* rseq_update on the return to user space after a switch: cpu_id, node_id and the
 * concurrency id the plugged model gives. */
static void emit_rseq(ks_sim *s, int32_t cpu, int32_t task)
{
    ks_ev_rseq_update *e = &sched_emit(s, KS_EV_RSEQ_UPDATE, cpu)->u.rseq_update;
    e->cpu_id = cpu;
    e->node_id = s->cpu_info[cpu].node;
    e->mm_cid = sched_task_rseq_cid(s, task);   /* rseq ABI field */
}

/* resume_user_mode_work(): the task's queued task_work runs (TIF_NOTIFY_RESUME), just
 * before rseq_handle_notify_resume. */
static void run_task_work(ks_sim *s, int32_t cpu, int32_t task)
{
    s->tasks[task].flags &= ~TF_NOTIFY_RESUME;
    if (s->ops->task_work_run)
        s->ops->task_work_run(s->algo, s, task, cpu);
}

/* The return to user space of a task a tick interrupted (irqentry_exit_to_user_mode):
 * a pending preemption schedules first (the task returns after its next switch-in, where
 * sched_schedule runs its work); else the queued work runs, and TIF_NOTIFY_RESUME makes
 * rseq_handle_notify_resume record an rseq_update there, as the kernel does. Simplified:
 * the simulator's tasks are always in user space when a tick finds them (their bursts),
 * so a tick never finds one in the kernel on its way to block. */
static void tick_return_to_user(ks_sim *s, int32_t cpu)
{
    int32_t t = s->rqs[cpu].curr;
    if (t < 0 || !(s->tasks[t].flags & TF_NOTIFY_RESUME))
        return;
    run_task_work(s, cpu, t);
    if (s->tasks[t].flags & TF_RSEQ)
        emit_rseq(s, cpu, t);
}

/* ---- accounting and the CPU timer --------------------------------------- */

/* update_curr(): charges the running task for the time since its segment started. */
void sched_update_curr(ks_sim *s, int32_t cpu)
{
    sim_rq *rq = &s->rqs[cpu];
    if (rq->curr < 0)
        return;
    sim_task *p = &s->tasks[rq->curr];
    uint64_t delta = s->core.now - p->exec_start;
    if (!delta)
        return;
    p->exec_start = s->core.now;
    p->work_left = delta >= p->work_left ? 0 : p->work_left - delta;
    p->sum_exec += delta;
    rq->busy_ns += delta;
    if (!task_is_rt(p)) {
        p->vruntime += (int64_t)delta;
        rq_update_min_vruntime(s, cpu);
    }
}

/* Arms the CPU's timer for the end of the running task's work or of its slice. */
static void arm_cpu_timer(ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    if (rq->curr < 0) {
        timer_cancel(s, cpu);
        return;
    }
    const sim_task *p = &s->tasks[rq->curr];
    uint64_t end = p->exec_start + p->work_left;
    if (!task_is_rt(p) && rq->nr_queued_fair) {
        uint64_t slice_end = p->slice_start + SCHED_SLICE_NS;
        if (slice_end < end)
            end = slice_end;
    }
    if (end < s->core.now)
        end = s->core.now;
    timer_arm(s, cpu, end);
}

/* ---- placement helpers -------------------------------------------------- */

/* The CPU of m nearest to `from`: from itself, its LLC, node, socket, then any. */
static int32_t nearest_in(const ks_sim *s, const cpumask *m, int32_t from)
{
    if (cpumask_test(m, from))
        return from;
    const ks_cpu *ci = &s->cpu_info[from];
    const cpumask *levels[] = { &s->llc_mask[ci->llc], &s->node_mask[ci->node],
                                &s->socket_mask[ci->socket], NULL };
    for (int i = 0; i < 4; i++) {
        int32_t cpu = cpumask_next_and_wrap(m, levels[i], from, s->nwords);
        if (cpu >= 0)
            return cpu;
    }
    return -1;
}

/* find_idlest_cpu(), reduced: the allowed CPU with the fewest tasks, nearest first. */
static int32_t least_loaded_cpu(const ks_sim *s, int32_t task, int32_t from)
{
    cpumask m = *task_mask(s, task);
    int32_t best = -1, best_nr = 0;
    for (int32_t cpu = nearest_in(s, &m, from); cpu >= 0; cpu = nearest_in(s, &m, from)) {
        int32_t nr = rq_nr_running(s, cpu);
        if (best < 0 || nr < best_nr) {
            best = cpu;
            best_nr = nr;
        }
        cpumask_clear_cpu(&m, cpu);
    }
    return best;
}

/* select_idle_sibling(): prev if idle, an idle core / CPU in prev's LLC, the nearest idle CPU. */
static int32_t select_idle_sibling(const ks_sim *s, int32_t task, int32_t prev)
{
    const cpumask *allowed = task_mask(s, task);
    if (cpumask_test(allowed, prev) && cpumask_test(&s->core.idle, prev))
        return prev;
    cpumask idle;
    cpumask_and(&idle, &s->core.idle, allowed, s->nwords);
    if (cpumask_empty(&idle, s->nwords))
        return -1;
    cpumask in_llc;
    cpumask_and(&in_llc, &idle, &s->llc_mask[s->cpu_info[prev].llc], s->nwords);
    int32_t first_idle = cpumask_next_and_wrap(&in_llc, NULL, prev, s->nwords);
    for (int32_t cpu = first_idle; cpu >= 0;
         cpu = cpumask_next_and_wrap(&in_llc, NULL, cpu, s->nwords)) {
        if (cpumask_subset(&s->core_mask[s->cpu_info[cpu].core], &s->core.idle, s->nwords))
            return cpu;                                 /* select_idle_core() */
        cpumask_clear_cpu(&in_llc, cpu);
    }
    if (first_idle >= 0)
        return first_idle;                              /* select_idle_cpu() */
    return nearest_in(s, &idle, prev);
}

/* find_lowest_rq(): the allowed CPU at the lowest RT priority level below the task's
 * priority, prev first, then the nearest; -1 if every allowed CPU runs higher RT. */
int32_t sched_find_lowest_rq(const ks_sim *s, int32_t task, int32_t prev)
{
    const sim_task *p = &s->tasks[task];
    const cpumask *allowed = task_mask(s, task);
    cpumask lowest;
    for (int32_t w = 0; w < s->nwords; w++)   /* CPUPRI_NORMAL: no RT task running or waiting */
        lowest.bits[w] = allowed->bits[w] & ~s->core.rt_curr.bits[w] & ~s->core.rt_overload.bits[w];
    if (cpumask_empty(&lowest, s->nwords)) {     /* every allowed CPU has RT work: scan */
        int32_t best_level = p->prio;
        for (int32_t w = 0; w < s->nwords; w++)
            for (uint64_t bits = allowed->bits[w]; bits; bits &= bits - 1) {
                int32_t cpu = w * 64 + __builtin_ctzll(bits);
                int32_t level = rq_rt_level(s, cpu);
                if (level > best_level) {
                    memset(&lowest, 0, sizeof lowest);
                    best_level = level;
                }
                if (level == best_level && level > p->prio)
                    cpumask_set(&lowest, cpu);
            }
        if (cpumask_empty(&lowest, s->nwords))
            return -1;
    }
    return nearest_in(s, &lowest, prev);
}

/* The placement family's RT hook (an RT priority-map model) if the algorithm has one, else the
 * core's search; an answer outside the task's allowed CPUs (other than -1, "none") is
 * the core's search too. */
static int32_t find_lowest_rq(ks_sim *s, int32_t task, int32_t prev)
{
    if (s->ops->find_lowest_rq) {
        int32_t cpu = s->ops->find_lowest_rq(s->algo, s, task, prev);
        if (cpu == -1 || (cpu >= 0 && cpu < s->nr_cpus && cpumask_test(task_mask(s, task), cpu)))
            return cpu;
    }
    return sched_find_lowest_rq(s, task, prev);
}

static int32_t select_task_rq_rt(ks_sim *s, int32_t task, int32_t prev)
{
    const sim_task *p = &s->tasks[task];
    if (!cpumask_test(task_mask(s, task), prev)) {
        int32_t target = find_lowest_rq(s, task, prev);
        return target >= 0 ? target : nearest_in(s, task_mask(s, task), prev);
    }
    int32_t curr = s->rqs[prev].curr;
    if (curr >= 0 && task_is_rt(&s->tasks[curr]) &&
        (s->tasks[curr].nr_cpus_allowed < 2 || s->tasks[curr].prio <= p->prio)) {
        int32_t target = find_lowest_rq(s, task, prev);
        if (target >= 0 && p->prio < rq_rt_level(s, target))
            return target;
    }
    return prev;
}

/* select_task_rq(): the class's choice, then the algorithm's say. */
static int32_t select_task_rq(ks_sim *s, int32_t task, int32_t prev, int32_t wake_flags)
{
    const sim_task *p = &s->tasks[task];
    const cpumask *allowed = task_mask(s, task);
    int32_t cpu;
    if (p->nr_cpus_allowed == 1) {
        cpu = cpumask_first_and(allowed, NULL, s->nwords);
    } else if (task_is_rt(p)) {
        cpu = select_task_rq_rt(s, task, prev);
    } else {
        cpu = select_idle_sibling(s, task, prev);
        if (cpu < 0)
            cpu = (wake_flags & SCHED_WF_FORK) || !cpumask_test(allowed, prev)
                      ? least_loaded_cpu(s, task, prev) : prev;
    }
    if (s->ops->select_cpu) {
        int32_t pick = s->ops->select_cpu(s->algo, s, task, prev, cpu, wake_flags);
        if (pick >= 0 && pick < s->nr_cpus && cpumask_test(allowed, pick))
            cpu = pick;
    }
    return cpu;
}

/* ---- preemption ---------------------------------------------------------- */

/* wakeup_preempt(): whether a task just queued on a CPU should displace its curr. */
static int should_preempt(const sim_task *curr, const sim_task *p)
{
    if (task_is_rt(p))
        return !task_is_rt(curr) || p->prio < curr->prio;
    if (task_is_rt(curr))
        return 0;
    return p->vruntime + (int64_t)SCHED_WAKEUP_GRAN_NS < curr->vruntime;
}

/* resched_curr(): switch now, or after the running driver decision on that CPU. */
static void resched_cpu(ks_sim *s, int32_t cpu)
{
    if (cpu == s->core.deferring_cpu) {
        s->rqs[cpu].need_resched = 1;
        return;
    }
    sched_schedule(s, cpu, PREV_STATE_RUNNING, 1);
}

static void check_preempt_curr(ks_sim *s, int32_t cpu, int32_t task)
{
    sim_rq *rq = &s->rqs[cpu];
    if (rq->curr < 0) {
        resched_cpu(s, cpu);
        return;
    }
    sched_update_curr(s, cpu);
    if (should_preempt(&s->tasks[rq->curr], &s->tasks[task]))
        resched_cpu(s, cpu);
    else
        arm_cpu_timer(s, cpu);      /* a waiting fair task starts the slice clock */
}

/* move_queued_task(): dequeue from its CPU, renormalise vruntime, enqueue on dst. */
static void move_queued_task(ks_sim *s, int32_t task, int32_t dst, int32_t event_cpu)
{
    sim_task *p = &s->tasks[task];
    int32_t src = p->cpu;
    rq_dequeue(s, src, task);
    if (!task_is_rt(p))
        p->vruntime += s->rqs[dst].min_vruntime - s->rqs[src].min_vruntime;
    rq_update_clock(s, dst);            /* attach_tasks(): dst's clock before activate_task */
    emit_migrate(s, event_cpu, task, src, dst);
    if (s->ops->migrate)
        s->ops->migrate(s->algo, s, task, src, dst);
    rq_enqueue(s, dst, task, 0);
}

/* ---- RT push / pull ------------------------------------------------------ */

/* The first queued RT task of cpu that may run elsewhere (pick_next_pushable_task). */
static int32_t pushable_task(const ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    int32_t t = rq->head;
    for (int32_t i = 0; i < rq->nr_queued_rt; i++, t = s->tasks[t].rq_next)
        if (s->tasks[t].nr_cpus_allowed > 1)
            return t;
    return -1;
}

/* push_rt_tasks(): moves waiting RT tasks to CPUs running lower-priority work. */
static void push_rt_tasks(ks_sim *s, int32_t cpu)
{
    for (int32_t guard = 0; guard < s->nr_cpus; guard++) {
        const sim_rq *rq = &s->rqs[cpu];
        int32_t t = pushable_task(s, cpu);
        if (t < 0 || rq->curr < 0 || !task_is_rt(&s->tasks[rq->curr]) ||
            s->tasks[rq->curr].prio > s->tasks[t].prio)
            return;
        int32_t target = find_lowest_rq(s, t, cpu);
        if (target < 0 || target == cpu)
            return;
        move_queued_task(s, t, target, cpu);
        check_preempt_curr(s, target, t);
    }
}

/* pull_rt_task(): before cpu picks something below RT priority p, takes the best
 * waiting RT task elsewhere that outranks it and may run here. */
static void pull_rt_task(ks_sim *s, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[cpu];
    int32_t my_level = rq->nr_queued_rt ? s->tasks[rq->head].prio : 140;
    int32_t best = -1;
    cpumask srcs = s->core.rt_overload;
    cpumask_clear_cpu(&srcs, cpu);
    for (int32_t src = cpumask_next_and_wrap(&srcs, NULL, cpu, s->nwords); src >= 0;
         src = cpumask_next_and_wrap(&srcs, NULL, src, s->nwords)) {
        cpumask_clear_cpu(&srcs, src);
        const sim_rq *srq = &s->rqs[src];
        int32_t t = srq->head;
        for (int32_t i = 0; i < srq->nr_queued_rt; i++, t = s->tasks[t].rq_next) {
            const sim_task *p = &s->tasks[t];
            if (p->prio >= my_level || (best >= 0 && p->prio >= s->tasks[best].prio))
                break;
            if (cpumask_test(task_mask(s, t), cpu)) {
                best = t;
                break;
            }
        }
    }
    if (best >= 0)
        move_queued_task(s, best, cpu, cpu);
}

/* ---- fair pulls ------------------------------------------------------------ */

/* The waiting fair task of src that cpu may take: the last in pick order (the kernel
 * detaches from the tail of cfs_tasks, the least recently run). */
static int32_t movable_fair_task(const ks_sim *s, int32_t src, int32_t cpu)
{
    const sim_rq *rq = &s->rqs[src];
    int32_t t = rq->tail;
    for (int32_t i = 0; i < rq->nr_queued_fair; i++, t = s->tasks[t].rq_prev)
        if (cpumask_test(task_mask(s, t), cpu))
            return t;
    return -1;
}

/* Pulls one waiting fair task to cpu from the busiest CPU with at least min_src tasks,
 * looking in cpu's LLC, then (levels > 0) its node, then (levels > 1) the machine. */
static int32_t pull_fair_task(ks_sim *s, int32_t cpu, int32_t levels, int32_t min_src)
{
    const ks_cpu *ci = &s->cpu_info[cpu];
    const cpumask *domains[] = { &s->llc_mask[ci->llc], &s->node_mask[ci->node], NULL };
    for (int32_t level = 0; level <= levels && level < 3; level++) {
        cpumask srcs;
        if (domains[level])
            cpumask_and(&srcs, &s->core.fair_overload, domains[level], s->nwords);
        else
            srcs = s->core.fair_overload;
        cpumask_clear_cpu(&srcs, cpu);
        int32_t best = -1, best_nr = min_src - 1;
        for (int32_t src = cpumask_next_and_wrap(&srcs, NULL, cpu, s->nwords); src >= 0;
             src = cpumask_next_and_wrap(&srcs, NULL, src, s->nwords)) {
            cpumask_clear_cpu(&srcs, src);
            int32_t nr = rq_nr_running(s, src);
            if (nr > best_nr) {
                int32_t t = movable_fair_task(s, src, cpu);
                if (t >= 0) {
                    best = t;
                    best_nr = nr;
                }
            }
        }
        if (best >= 0) {
            move_queued_task(s, best, cpu, cpu);
            return best;
        }
    }
    return -1;
}

/* ---- __schedule() --------------------------------------------------------- */

/* Switches cpu to its next task. preempt: curr stays runnable (re-queued, prev_state "R+");
 * otherwise the caller has set curr's state (sleeping, dead) and passes prev_state. */
void sched_schedule(ks_sim *s, int32_t cpu, int64_t prev_state, int preempt)
{
    sim_rq *rq = &s->rqs[cpu];
    int32_t prev = rq->curr;
    rq->need_resched = 0;
    rq_update_clock(s, cpu);                            /* __schedule(): update_rq_clock() */
    if (s->core.deferring_cpu == cpu)
        s->core.deferring_cpu = -1;
    if (prev >= 0) {
        sched_update_curr(s, cpu);
        if (preempt)
            rq_enqueue(s, cpu, prev, task_is_rt(&s->tasks[prev]));
    }
    if (!cpumask_empty(&s->core.rt_overload, s->nwords))
        pull_rt_task(s, cpu);
    if (rq->head < 0 && !cpumask_empty(&s->core.fair_overload, s->nwords))
        pull_fair_task(s, cpu, 2, 2);                   /* newidle_balance() */
    int32_t next = rq->head;
    if (next >= 0)
        rq_dequeue(s, cpu, next);
    if (next == prev) {
        if (prev >= 0) {                                /* picked again: a new slice */
            s->tasks[prev].state = KS_TASK_RUNNING;
            s->tasks[prev].slice_start = s->core.now;
            arm_cpu_timer(s, cpu);
        }
        return;
    }
    /* The idle task leaves through schedule_idle(), not a preemption: "R", as the kernel prints. */
    emit_switch(s, cpu, prev, next, prev < 0 ? 0 : preempt ? PREV_STATE_RUNNING : prev_state);
    if (s->ops->switch_to)
        s->ops->switch_to(s->algo, s, prev, next, cpu);
    rq_set_curr(s, cpu, next);
    if (next < 0 && prev >= 0)
        rq_newidle_blocked_update(s, cpu);              /* nohz_newidle_balance() */
    if (next >= 0) {
        sim_task *n = &s->tasks[next];
        n->state = KS_TASK_RUNNING;
        n->exec_start = n->slice_start = s->core.now;
        if (n->flags & TF_NOTIFY_RESUME)                /* work a tick queued before it left */
            run_task_work(s, cpu, next);
        if (n->flags & TF_RSEQ)
            emit_rseq(s, cpu, next);
        driver_switch_in(s, next);
    }
    rq_update_min_vruntime(s, cpu);
    arm_cpu_timer(s, cpu);
    if (rq->nr_queued_rt)
        push_rt_tasks(s, cpu);
}

/* ---- wakeups, fork, exit ---------------------------------------------------- */

/* try_to_wake_up(): a sleeping task becomes runnable on the CPU select_task_rq picks. */
void sched_wake(ks_sim *s, int32_t task, int32_t waker_cpu)
{
    sim_task *p = &s->tasks[task];
    if (p->state != KS_TASK_SLEEPING)
        return;
    int32_t prev = p->cpu;
    emit_wakeup(s, KS_EV_SCHED_WAKING, waker_cpu, task, prev);
    int32_t cpu = select_task_rq(s, task, prev, SCHED_WF_TTWU);
    sched_update_curr(s, cpu);
    rq_update_clock(s, cpu);                            /* ttwu_queue(): before activate_task */
    if (cpu != prev) {                                  /* set_task_cpu() */
        emit_migrate(s, waker_cpu, task, prev, cpu);
        if (!task_is_rt(p))
            p->vruntime += s->rqs[cpu].min_vruntime - s->rqs[prev].min_vruntime;
        p->cpu = cpu;
        if (s->ops->migrate)
            s->ops->migrate(s->algo, s, task, prev, cpu);
    }
    if (!task_is_rt(p)) {                               /* place_entity(): sleeper credit */
        int64_t floor = s->rqs[cpu].min_vruntime - (int64_t)SCHED_SLEEPER_CREDIT_NS;
        if (p->vruntime < floor)
            p->vruntime = floor;
    }
    rq_enqueue(s, cpu, task, 0);
    emit_wakeup(s, KS_EV_SCHED_WAKEUP, waker_cpu, task, cpu);
    check_preempt_curr(s, cpu, task);
    if (task_is_rt(p) && p->state == KS_TASK_RUNNABLE)
        push_rt_tasks(s, cpu);
}

/* wake_up_new_task(): places a just-forked task (no migrate event, as __set_task_cpu). */
void sched_wake_new(ks_sim *s, int32_t task, int32_t parent_cpu)
{
    sim_task *p = &s->tasks[task];
    int32_t cpu = select_task_rq(s, task, parent_cpu, SCHED_WF_FORK);
    sched_update_curr(s, cpu);
    p->cpu = cpu;
    if (!task_is_rt(p))
        p->vruntime = s->rqs[cpu].min_vruntime + (int64_t)SCHED_SLICE_NS;
    rq_enqueue(s, cpu, task, 0);
    emit_wakeup(s, KS_EV_SCHED_WAKEUP_NEW, parent_cpu, task, cpu);
    check_preempt_curr(s, cpu, task);
    if (task_is_rt(p) && p->state == KS_TASK_RUNNABLE)
        push_rt_tasks(s, cpu);
}

/* copy_process(): a child of the running parent, in a new mm (new_mm >= 0) or sharing
 * the parent's. Returns the child's task index, -1 if the task table is full. */
int32_t sched_fork(ks_sim *s, int32_t parent, int32_t new_mm)
{
    if (s->core.nr_tasks >= s->max_tasks)
        return -1;
    int32_t child = s->core.nr_tasks++;
    const sim_task *pp = &s->tasks[parent];
    sim_task *c = &s->tasks[child];
    *c = *pp;
    c->tid = SCHED_TID_BASE + child;
    c->tgid = new_mm >= 0 ? c->tid : pp->tgid;
    c->mm = new_mm >= 0 ? new_mm : pp->mm;
    c->state = KS_TASK_SLEEPING;        /* not runnable until sched_wake_new */
    c->rq_next = c->rq_prev = -1;
    c->flags = pp->flags & TF_RSEQ;
    c->counter = 0;
    c->parent = parent;
    c->sum_exec = c->work_left = 0;
    c->exec_start = c->slice_start = s->core.now;
    ks_ev_sched_process_fork *e =
        &sched_emit(s, KS_EV_SCHED_PROCESS_FORK, pp->cpu)->u.sched_process_fork;
    memcpy(e->parent_comm, pp->comm, KS_COMM_LEN);
    e->parent_pid = pp->tid;
    memcpy(e->child_comm, c->comm, KS_COMM_LEN);
    e->child_pid = c->tid;
    if (s->ops->task_fork)
        s->ops->task_fork(s->algo, s, parent, child);
    return child;
}

/* The running task blocks (TASK_INTERRUPTIBLE). */
void sched_block(ks_sim *s, int32_t task)
{
    sim_task *p = &s->tasks[task];
    sched_update_curr(s, p->cpu);
    p->state = KS_TASK_SLEEPING;
    sched_schedule(s, p->cpu, PREV_STATE_SLEEPING, 0);
}

/* do_exit(): sched_process_exit, the parent notified (notify >= 0: woken), the last
 * switch (prev_state Z) and sched_process_free (the kernel frees later, after an RCU
 * grace period: not modelled). */
void sched_exit(ks_sim *s, int32_t task, int32_t notify)
{
    sim_task *p = &s->tasks[task];
    int32_t cpu = p->cpu;
    sched_update_curr(s, cpu);
    emit_exit(s, KS_EV_SCHED_PROCESS_EXIT, cpu, task);
    if (s->ops->task_exit)
        s->ops->task_exit(s->algo, s, task);
    if (notify >= 0)
        sched_wake(s, notify, cpu);
    p->state = KS_TASK_DEAD;
    timer_cancel(s, s->slot_task0 + task);
    sched_schedule(s, cpu, PREV_STATE_ZOMBIE, 0);
    emit_exit(s, KS_EV_SCHED_PROCESS_FREE, cpu, task);
}

/* Gives a task its next piece of CPU work (re-arming its CPU if it is running). */
void sched_set_work(ks_sim *s, int32_t task, uint64_t ns)
{
    sim_task *p = &s->tasks[task];
    p->work_left = ns ? ns : 1;
    if (p->state == KS_TASK_RUNNING) {
        sched_update_curr(s, p->cpu);
        p->work_left = ns ? ns : 1;
        arm_cpu_timer(s, p->cpu);
    }
}

/* The CPU timer: the running task's work piece or its slice is over. */
void sched_cpu_timer(ks_sim *s, int32_t cpu)
{
    sim_rq *rq = &s->rqs[cpu];
    int32_t t = rq->curr;
    if (t < 0)
        return;
    sim_task *p = &s->tasks[t];
    sched_update_curr(s, cpu);
    if (p->work_left == 0) {
        s->core.deferring_cpu = cpu;
        driver_work_done(s, t);
        s->core.deferring_cpu = -1;
        if (rq->curr == t) {
            if (rq->need_resched)
                sched_schedule(s, cpu, PREV_STATE_RUNNING, 1);
            else
                arm_cpu_timer(s, cpu);
        }
        return;
    }
    if (!task_is_rt(p) && rq->nr_queued_fair) {
        sched_schedule(s, cpu, PREV_STATE_RUNNING, 1);   /* slice over: back in the queue */
        return;
    }
    p->slice_start = s->core.now;
    arm_cpu_timer(s, cpu);
}

/* sched_tick() on every busy CPU, then the periodic balance (sched_balance_domains).
 * An idle CPU's tick is stopped (NO_HZ_IDLE): its rq clock moves only through the nohz
 * blocked-load update (a busy CPU's kick, the machine's housekeeping: rq.c) or a pull
 * onto it (enqueue). */
void sched_tick(ks_sim *s)
{
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++)
        if (s->rqs[cpu].curr >= 0) {
            rq_update_clock(s, cpu);
            if (s->ops->tick)
                s->ops->tick(s->algo, s, cpu, s->rqs[cpu].curr);
            rq_tick_blocked_kick(s, cpu);               /* nohz_balancer_kick() */
        }
    rq_housekeeping_tick(s);                            /* the rest of the machine (rq.c) */
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++) {
        if (s->ops->balance && s->ops->balance(s->algo, s, cpu))
            continue;
        if (cpumask_empty(&s->core.fair_overload, s->nwords)) {
            if (!s->ops->balance)
                break;
            continue;
        }
        const sim_rq *rq = &s->rqs[cpu];
        int32_t pulled = -1;
        if (rq->curr < 0)
            pulled = pull_fair_task(s, cpu, 2, 2);
        else if (rq_nr_running(s, cpu) == 1 && !task_is_rt(&s->tasks[rq->curr]))
            pulled = pull_fair_task(s, cpu, 0, 3);
        if (pulled >= 0)
            check_preempt_curr(s, cpu, pulled);
    }
    for (int32_t cpu = 0; cpu < s->nr_cpus; cpu++)
        tick_return_to_user(s, cpu);                    /* after the tick's softirq (balance) */
    if (s->timers.size > 0)             /* else nothing can ever happen again: let the run end */
        timer_arm(s, s->slot_tick, s->core.now + SCHED_TICK_NS);
}

/* ---- the view algorithms get (sched_ops.h) ---------------------------------- */

int32_t sched_nr_cpus(const ks_sim *sim) { return sim->nr_cpus; }
int32_t sched_max_tasks(const ks_sim *sim) { return sim->max_tasks; }
int32_t sched_nr_tasks(const ks_sim *sim) { return sim->core.nr_tasks; }
int32_t sched_max_mms(const ks_sim *sim) { return sim->max_mms; }
uint64_t sched_now(const ks_sim *sim) { return sim->core.now; }
uint64_t sched_rq_clock(const ks_sim *sim, int32_t cpu) { return sim->rqs[cpu].clock; }
const ks_topology *sched_topology(const ks_sim *sim) { return sim->topo; }
const ks_cpu *sched_cpu_info(const ks_sim *sim, int32_t cpu) { return &sim->cpu_info[cpu]; }
ks_cache *sched_cache(ks_sim *sim) { return sim->cache; }
int32_t sched_cpu_curr(const ks_sim *sim, int32_t cpu) { return sim->rqs[cpu].curr; }
int32_t sched_task_tid(const ks_sim *sim, int32_t task) { return sim->tasks[task].tid; }
int32_t sched_task_tgid(const ks_sim *sim, int32_t task) { return sim->tasks[task].tgid; }
int32_t sched_task_mm(const ks_sim *sim, int32_t task) { return sim->tasks[task].mm; }
int32_t sched_task_cpu(const ks_sim *sim, int32_t task) { return sim->tasks[task].cpu; }
int32_t sched_task_state(const ks_sim *sim, int32_t task) { return sim->tasks[task].state; }
int32_t sched_task_policy(const ks_sim *sim, int32_t task) { return sim->tasks[task].policy; }
int32_t sched_task_prio(const ks_sim *sim, int32_t task) { return sim->tasks[task].prio; }

int32_t sched_task_nr_cpus_allowed(const ks_sim *sim, int32_t task)
{
    return sim->tasks[task].nr_cpus_allowed;
}

const cpumask *sched_task_cpus_allowed(const ks_sim *sim, int32_t task)
{
    return task_mask(sim, task);
}

void *sched_algo_state(const ks_sim *sim, const ks_sched_ops *ops)
{
    return sim && sim->ops == ops ? sim->algo : NULL;
}

void sched_task_work_add(ks_sim *sim, int32_t task)
{
    sim->tasks[task].flags |= TF_NOTIFY_RESUME;
}

void sched_note_access(ks_sim *sim, const ks_access_cost *cost)
{
    ks_sim_stats *st = &sim->core.stats;
    st->access_ns += cost->ns;
    for (int i = 0; i < KS_SRC_COUNT; i++)
        st->lines_from[i] += cost->lines_from[i];
    st->local_hitm += cost->local_hitm;
    st->remote_hitm += cost->remote_hitm;
}

int32_t sched_move_queued_task(ks_sim *sim, int32_t task, int32_t dst_cpu)
{
    if (task < 0 || task >= sim->core.nr_tasks || dst_cpu < 0 || dst_cpu >= sim->nr_cpus)
        return KS_ERR_INVALID_ARG;
    const sim_task *p = &sim->tasks[task];
    if (p->state != KS_TASK_RUNNABLE || !cpumask_test(task_mask(sim, task), dst_cpu))
        return KS_ERR_INVALID_ARG;
    if (p->cpu == dst_cpu)
        return KS_OK;
    move_queued_task(sim, task, dst_cpu, dst_cpu);
    check_preempt_curr(sim, dst_cpu, task);
    return KS_OK;
}

/* ---- the allocator family (SLUB) ------------------------------------------ */

int32_t sched_kmem_cache_alloc(ks_sim *s, int32_t cpu, int32_t task, int32_t cache, uint32_t size)
{
    if (cpu < 0 || cpu >= s->nr_cpus || task < -1 || task >= s->core.nr_tasks || cache < 0)
        return -1;
    return s->ops->kmem_cache_alloc ? s->ops->kmem_cache_alloc(s->algo, s, cpu, task, cache, size)
                                    : -1;
}

void sched_kmem_cache_free(ks_sim *s, int32_t cpu, int32_t task, int32_t cache, int32_t object)
{
    if (cpu < 0 || cpu >= s->nr_cpus || task < -1 || task >= s->core.nr_tasks || cache < 0 ||
        object < 0)
        return;
    if (s->ops->kmem_cache_free)
        s->ops->kmem_cache_free(s->algo, s, cpu, task, cache, object);
}
