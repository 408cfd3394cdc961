/*
 * Internal: the trace-replay host. Drives any model (a ks_sched_ops) with the
 * scheduling events of a trace (ks_event records: a decoded real trace, or a
 * simulated run) instead of the simulator, so a model can be compared with a
 * real kernel. The host knows nothing of the model: it calls the model's hooks
 * as the scheduler core would, in the order the trace's events say, and tells a
 * client (the model's own classifier, src/algo/<name>/<name>_conform.c)
 * what it did through callbacks, so the client can compare the model's answers
 * with the kernel's and name the cause of each disagreement.
 *
 * replay.c's essay says what the trace does not show and what the host assumes.
 */
#ifndef KSCOPE_SCHED_REPLAY_H
#define KSCOPE_SCHED_REPLAY_H

#include <stdint.h>

#include "kscope/event.h"
#include "sched_ops.h"

typedef struct sched_replay sched_replay;

/* What the host knows of a task besides the host's task table (sched_* accessors). */
typedef struct replay_task {
    int32_t ran;            /* switched in at least once (migrations may move its state) */
    int32_t forked;         /* created by a fork event in the trace */
    uint64_t gap_ts;        /* its last gap (0 none) */
    int32_t waking;         /* a sched_waking named it, its sched_wakeup has not come yet */
    int32_t migrate_from;   /* a wakeup's migration (set_task_cpu) whose enqueue on the new
                               CPU has not come yet: the CPU it left (-1 none) */
} replay_task;

/* ... and of a CPU. */
typedef struct replay_cpu {
    int32_t known;          /* an event named its current task */
    int32_t gap_out;        /* the last gap: pid believed current (missing switch-out) */
    int32_t gap_in;         /* ... pid the trace named (missing switch-in) */
    int32_t ctx_prev;       /* prev_pid of the last sched_switch here while no other event
                               has followed it (inside context_switch()); -1 none */
    uint64_t gap_ts;
    uint64_t busy_since;    /* when it last switched from idle to a task (its ticks run) */
    uint64_t kick_at;       /* a recorded tick's nohz kick not yet applied (0 none) */
    uint64_t tick_return;   /* tick grid: the tick that queued task_work on the current task
                               whose return to user space is not placed yet (0 none) */
} replay_cpu;

/* Counts the host keeps (the fields of ks_conform_summary that are not a model's). */
typedef struct replay_stats {
    uint64_t events;            /* records fed */
    uint64_t gaps;              /* events naming another current task than the replay's */
    uint64_t cold_starts;       /* a CPU's first event: its current task taken as switched in */
    uint64_t missing_migrations;/* a task switched in on another CPU than it was last on */
    uint64_t ticks;             /* tick hook runs (replay_tick) */
    uint64_t bad_events;        /* events on a CPU >= nr_cpus, or with time going back */
    uint64_t stopper_migrations;/* tasks moved by migration/N, inferred pinned there */
    int32_t nr_tasks;           /* tasks (pids) seen */
    int32_t nr_mms;             /* mms (tgids) seen */
} replay_stats;

/* The client: every callback optional; ctx is the client's own. */
typedef struct replay_client {
    void *ctx;
    /* The host's capacity is now max_tasks / max_mms (was old_*; 0, 0 at the start):
     * grow the client's per-task / per-mm tables. 0, or -1 out of memory. */
    int32_t (*grow)(void *ctx, int32_t max_tasks, int32_t max_mms, int32_t old_tasks,
                    int32_t old_mms);
    /* A new task (after the host's entry is set, before the model's task_fork). */
    void (*task_new)(void *ctx, sched_replay *r, int32_t task);
    /* A context switch on cpu: begin (before anything moves), before the model's
     * switch_to(prev, next, cpu) (missing switch-outs and migrations applied), end. */
    void (*switch_begin)(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu);
    void (*switch_before)(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu);
    void (*switch_end)(void *ctx, sched_replay *r, int32_t prev, int32_t next, int32_t cpu);
    /* A sched_migrate_task of the trace moved task (before the model's migrate hook). */
    void (*migrated)(void *ctx, sched_replay *r, int32_t task, int32_t from, int32_t to);
    /* Around the model's tick hook (replay_tick). */
    void (*tick_before)(void *ctx, sched_replay *r, int32_t cpu, int32_t curr);
    void (*tick_after)(void *ctx, sched_replay *r, int32_t cpu, int32_t curr);
    /* A gap on cpu: believed was thought current, the trace named `named`. */
    void (*gap)(void *ctx, sched_replay *r, int32_t believed, int32_t named, int32_t cpu);
    /* Every event, after the host applied it (the client's own comparisons). */
    void (*event)(void *ctx, sched_replay *r, const ks_event *ev);
} replay_client;

/* A replay of ops (init with variant) on nr_cpus CPUs (1..CPUMASK_MAX_CPUS), ticking at hz
 * (0 = 250). KS_ERR_INVALID_ARG for bad numbers, the model's init status, or
 * KS_ERR_NO_MEMORY. The client is copied. */
int32_t replay_new(const ks_sched_ops *ops, const char *variant, int32_t nr_cpus, int32_t hz,
                   const replay_client *client, sched_replay **out);
void replay_free(sched_replay *r);

/* Replays n events in time order (later calls continue the replay). */
int32_t replay_feed(sched_replay *r, const ks_event *evs, uint32_t n);

/* on = 1 (the default): the model's tick hook runs on a 1/hz grid from time 0 on every
 * CPU whose current task has an mm, before the events stamped at that time, as the
 * simulator runs it. 0: no grid (a real kernel's tick phase is unknown); the client
 * runs ticks where the trace shows them (replay_tick). */
void replay_set_tick_grid(sched_replay *r, int32_t on);
/* A kernel trace that recorded its ticks (timer:hrtimer_expire_entry of the tick handler):
 * the tick hook runs at those times, on those CPUs, for the task the replay has current
 * there (before the events stamped at the same time). ts in time order. Copies the arrays.
 * 0, or -1 out of memory. */
int32_t replay_set_ticks(sched_replay *r, const uint64_t *ts, const int32_t *cpu, uint32_t n);
/* The model's tick hook for curr on cpu now, between the client's tick callbacks; counted. */
void replay_tick(sched_replay *r, int32_t cpu, int32_t curr);
/* replay_tick for a tick that found curr in user space: the work it queued runs on the
 * return from the interrupt, before the tick's nohz kick moves the idle CPUs' clocks. */
void replay_tick_return(sched_replay *r, int32_t cpu, int32_t curr);
/* Task t, current on cpu, returns to user space (the replay takes its rseq_update events
 * as the returns: rseq_handle_notify_resume records them there): task_work a tick queued
 * (sched_task_work_add) runs now, through the model's task_work_run hook. 1 if it ran. */
int32_t replay_return_to_user(sched_replay *r, int32_t cpu, int32_t t);

void *replay_model(const sched_replay *r);          /* the model's state */
ks_sim *replay_host(sched_replay *r);                /* for the sched_* accessors */
uint64_t replay_tick_ns(const sched_replay *r);
int32_t replay_hz(const sched_replay *r);
const replay_stats *replay_stats_get(const sched_replay *r);
const replay_task *replay_task_info(const sched_replay *r, int32_t task);
const replay_cpu *replay_cpu_info(const sched_replay *r, int32_t cpu);
int32_t replay_task_of_pid(const sched_replay *r, int32_t pid);    /* -1 if unknown */
/* 1: the mm was created by a fork in the trace; 0: it existed before the trace. */
int32_t replay_mm_born(const sched_replay *r, int32_t mm);

#endif
