/*
 * A trace written by hand, record by record, as a kernel would have recorded it: shared by
 * the tests that replay one (the generic rq clock, the models' conform clients). Every
 * record's tgid is given; a record of pid 0 (the idle task) gets tgid 0.
 */
#ifndef KSCOPE_TESTS_HAND_TRACE_H
#define KSCOPE_TESTS_HAND_TRACE_H

#include <stdlib.h>
#include <string.h>

#include "kscope/event.h"

#define HAND_TRACE_MAX 64

typedef struct hand {
    ks_event ev[HAND_TRACE_MAX];
    int n;
} hand;

static inline ks_event *hand_add(hand *h, uint64_t ts, uint32_t type, int cpu, int pid, int tgid)
{
    if (h->n >= HAND_TRACE_MAX)
        abort();                                /* a test wrote more than the trace holds */
    ks_event *e = &h->ev[h->n++];
    memset(e, 0, sizeof *e);
    e->ts_ns = ts;
    e->type = type;
    e->cpu = cpu;
    e->pid = pid;
    e->tgid = tgid;
    strcpy(e->comm, pid ? "bench" : "swapper");
    return e;
}

/* sched_switch on cpu from prev to next (0: idle), recorded by prev (of tgid). */
static inline void hand_switch(hand *h, uint64_t ts, int cpu, int prev, int next, int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_SCHED_SWITCH, cpu, prev, prev ? tgid : 0);
    e->u.sched_switch.prev_pid = prev;
    e->u.sched_switch.next_pid = next;
}

/* sched_wakeup of pid onto target, recorded on cpu by the task current there (cur, of tgid). */
static inline void hand_wakeup(hand *h, uint64_t ts, int cpu, int cur, int pid, int target, int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_SCHED_WAKEUP, cpu, cur, cur ? tgid : 0);
    e->u.sched_wakeup.pid = pid;
    e->u.sched_wakeup.target_cpu = target;
}

/* sched_migrate_task of pid from one CPU to another, recorded on cpu by cur (of tgid). */
static inline void hand_migrate(hand *h, uint64_t ts, int cpu, int cur, int pid, int from, int to,
                                int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_SCHED_MIGRATE_TASK, cpu, cur, cur ? tgid : 0);
    e->u.sched_migrate_task.pid = pid;
    e->u.sched_migrate_task.orig_cpu = from;
    e->u.sched_migrate_task.dest_cpu = to;
}

/* rseq_update of pid (of tgid) on cpu: the cid the kernel wrote into its rseq area. */
static inline void hand_rseq(hand *h, uint64_t ts, int cpu, int pid, int cid, int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_RSEQ_UPDATE, cpu, pid, tgid);
    e->u.rseq_update.cpu_id = cpu;
    e->u.rseq_update.mm_cid = cid;
}

/* sched_process_fork of child by parent (of tgid). */
static inline void hand_fork(hand *h, uint64_t ts, int cpu, int parent, int child, int tgid)
{
    ks_event *e = hand_add(h, ts, KS_EV_SCHED_PROCESS_FORK, cpu, parent, tgid);
    e->u.sched_process_fork.parent_pid = parent;
    e->u.sched_process_fork.child_pid = child;
}

#endif
