/*
 * A queued (MCS) spinlock: hand-off and spin time.
 *
 * The hardware and the algorithm. In an MCS lock (Mellor-Crummey & Scott,
 * "Algorithms for Scalable Synchronization on Shared-Memory Multiprocessors", ACM
 * TOCS 9(1), 1991) each waiter spins on a flag in its own queue node, in its own
 * cache, so waiting costs no traffic; the holder releases by writing its successor's
 * flag: O(1) remote references per hand-off. On a cache-coherent machine that write
 * takes the flag's line from the successor (an ownership transfer, the successor had
 * it Shared while spinning), and the successor's next spin load takes it back (a
 * second transfer, now a HITM): two transfers at the distance between the two CPUs
 * per hand-off. Linux's qspinlock is MCS-based (the queue head spins on the lock
 * word instead of its node: the same two transfers of the lock word's line).
 * Waiters are served in FIFO order, so one that finds W waiters ahead spins through
 * W turns, each the length of a hand-off plus the holder's critical section; and
 * the critical section's data, last written by the previous holder, moves too (one
 * transfer per line: the lines are taken to be read one after another, as a list
 * or a counter under a lock usually is).
 *
 *     turn    = hand-off + hold_ns + cs_lines x D,   hand-off = 2 x D
 *     acquire = W x turn (LOCK_SPIN) + hand-off (LOCK_HANDOFF) + own critical section
 *
 * With no waiter the lock word is still where its last holder left it: one transfer
 * (its ownership) and no spin. Spin time is linear in W; the hand-off grows with the
 * distance (D: the latency table's core-to-core figures).
 *
 * Parts: LOCK_SPIN, LOCK_HANDOFF, REMOTE (own critical section's lines), CORE
 * (own hold_ns).
 *
 * Simplified: the waiters ahead are taken to be as far as this one (one D); no
 * queue-node allocation or pending-bit fast paths of qspinlock; arrivals during the
 * wait join behind and cost this waiter nothing; no preemption of a holder.
 */
#include "cost_internal.h"

int32_t ks_cost_mcs_acquire(const ks_cost_params *p, int32_t waiters, int32_t distance,
                            double hold_ns, int32_t cs_lines, ks_cost_result *out)
{
    if (!p || !out || !cost_params_ok(p) || waiters < 0 || cs_lines < 0 || hold_ns < 0
        || hold_ns != hold_ns || distance < KS_SRC_L1 || distance >= KS_SRC_COUNT)
        return KS_ERR_INVALID_ARG;
    *out = (ks_cost_result){ .cstate = -1 };
    double d = cost_trip_ns(p, distance);
    double handoff = waiters > 0 ? 2.0 * d : d;
    double cs_data = (double)cs_lines * d;
    double turn = 2.0 * d + hold_ns + cs_data;
    out->part_ns[KS_COST_LOCK_SPIN] = (double)waiters * turn;
    out->part_ns[KS_COST_LOCK_HANDOFF] = handoff;
    out->part_ns[KS_COST_REMOTE] = cs_data;
    out->part_ns[KS_COST_CORE] = hold_ns;
    out->lines = (uint32_t)cs_lines + 1;
    out->lines_from[distance] = out->lines;
    out->hitm = waiters > 0 ? 1u + (uint32_t)cs_lines : (uint32_t)cs_lines;
    for (int i = 0; i < KS_COST_PARTS; i++)
        out->total_ns += out->part_ns[i];
    out->serial_ns = out->total_ns;
    out->bound = 1;
    return KS_OK;
}
