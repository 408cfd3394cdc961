/*
 * lock.c: the spinlocks of the model (each cache's per-node barn->lock and list_lock) as
 * queued spinlocks in simulated time.
 *
 * The kernel's spinlock is a qspinlock (kernel/locking/qspinlock.c): the first contender
 * spins on the lock word, later ones queue in an MCS list and each spins on its own node
 * until its predecessor hands the lock on: FIFO, one hand-off per turn. The seed's
 * profiles show it as native_queued_spin_lock_slowpath (65.72% of cycles without the fix).
 *
 * Here a lock is a timeline of turns [start, end), one per acquisition, in the order the
 * CPUs arrive (the simulation hands arrivals to this file in the order of their CPU's
 * clock, so a CPU arriving while the lock is held takes the first gap after the turns
 * ahead of it: FIFO). A turn costs what ks_cost_mcs_acquire (cost model v2) says one
 * acquisition costs once it is this CPU's turn: the hand-off of the lock line from the
 * previous holder (one trip when the lock was free, two when a waiter takes it over, as
 * MCS does), the critical section's own lines fetched from the previous holder, and the
 * core work. The wait before the turn is the LOCK_SPIN part: the queue itself, simulated,
 * not a formula (tests/sheaves/test_sheaves_lock.c checks that N saturating CPUs wait
 * what ks_cost_mcs_acquire(N - 1 waiters) predicts).
 *
 * Simplification: a CPU that arrives earlier in simulated time than a turn already booked
 * (because the other CPU's operation was simulated first) does not push that turn back; it
 * takes the earliest gap that fits. The error is bounded by how far apart in time two CPUs'
 * operations are simulated (the simulation keeps them within one operation).
 */
#include <stdlib.h>
#include <string.h>

#include "sheaves.h"

int32_t shv_lock_new(shv_model *m, const char *name, int32_t is_barn)
{
    if (m->n_locks == m->cap_locks) {
        int32_t cap = m->cap_locks ? m->cap_locks * 2 : 16;
        shv_lock *p = realloc(m->locks, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        m->locks = p;
        m->cap_locks = cap;
    }
    shv_lock *l = &m->locks[m->n_locks];
    memset(l, 0, sizeof *l);
    strncpy(l->name, name, sizeof l->name - 1);
    l->last_cpu = -1;
    l->is_barn = is_barn;
    return m->n_locks++;
}

/* The timeline's turns that ended before every CPU's clock can never matter again. */
void shv_locks_prune(shv_model *m, uint64_t before)
{
    for (int32_t i = 0; i < m->n_locks; i++) {
        shv_lock *l = &m->locks[i];
        int32_t k = 0;
        while (k < l->n && l->turns[k].end <= before)
            k++;
        if (k > 0) {
            l->last_cpu = l->turns[k - 1].cpu;
            memmove(l->turns, l->turns + k, (size_t)(l->n - k) * sizeof *l->turns);
            l->n -= k;
        }
    }
}

static int32_t insert_turn(shv_lock *l, int32_t at, uint64_t start, uint64_t end, int32_t cpu)
{
    if (l->n == l->cap) {
        int32_t cap = l->cap ? l->cap * 2 : 16;
        shv_hold *p = realloc(l->turns, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        l->turns = p;
        l->cap = cap;
    }
    memmove(l->turns + at + 1, l->turns + at, (size_t)(l->n - at) * sizeof *l->turns);
    l->turns[at] = (shv_hold){ .start = start, .end = end, .cpu = cpu };
    l->n++;
    return 0;
}

/* spin_lock(lock); hold_ns of work touching cs_lines lines; spin_unlock(lock) on cpu. */
void shv_lock_run(shv_model *m, int32_t lock, int32_t cpu, double hold_ns, int32_t cs_lines)
{
    shv_lock *l = &m->locks[lock];
    uint64_t arrival = m->clock[cpu], t = arrival;
    int32_t prev = l->last_cpu, i = 0, waited = 0;
    ks_cost_result r;
    for (;;) {
        while (i < l->n && l->turns[i].end <= t) {
            prev = l->turns[i].cpu;
            i++;
        }
        if (i < l->n && l->turns[i].start <= t) {   /* held when this CPU gets there */
            waited = 1;
            t = l->turns[i].end;
            prev = l->turns[i].cpu;
            i++;
            continue;
        }
        int32_t d = shv_distance(m, prev, cpu);
        if (ks_cost_mcs_acquire(&m->cost, waited, d, hold_ns, cs_lines, &r) != KS_OK)
            memset(&r, 0, sizeof r);
        double turn = r.part_ns[KS_COST_LOCK_HANDOFF] + r.part_ns[KS_COST_REMOTE]
                      + r.part_ns[KS_COST_CORE];
        uint64_t len = (uint64_t)(turn + 0.5);
        if (len == 0)
            len = 1;
        if (i < l->n && l->turns[i].start < t + len) {  /* the gap is too short */
            waited = 1;
            t = l->turns[i].end;
            prev = l->turns[i].cpu;
            i++;
            continue;
        }
        insert_turn(l, i, t, t + len, cpu);
        double wait = (double)(t - arrival);
        m->clock[cpu] = t;
        if (m->measuring) {
            m->part_ns[KS_COST_LOCK_SPIN] += wait;
            l->acquisitions++;
            l->wait_ns += wait;
            if (l->is_barn) {
                m->barn_acq++;
                m->barn_wait_ns += wait;
            } else {
                m->list_acq++;
                m->list_wait_ns += wait;
            }
        }
        shv_charge(m, cpu, KS_COST_LOCK_HANDOFF, r.part_ns[KS_COST_LOCK_HANDOFF]);
        shv_charge(m, cpu, KS_COST_REMOTE, r.part_ns[KS_COST_REMOTE]);
        shv_charge(m, cpu, KS_COST_CORE, r.part_ns[KS_COST_CORE]);
        m->clock[cpu] = t + len;    /* the charges above round separately: the turn is exact */
        return;
    }
}
