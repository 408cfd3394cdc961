/*
 * A contended line in simulated time: the per-line first-come-first-served server.
 *
 * cost_contention.c solves a line with N accessors analytically (a closed queue, MVA):
 * the mean time of one touch when N cores keep touching it. A simulation knows more: it
 * knows when each request arrives and from where. Here the same hardware rule (the
 * coherence protocol moves one line to one requester at a time: the home agent or
 * directory serialises ownership and dirty-copy requests for a line) is applied request
 * by request: a request that needs the line moved waits until the line's previous
 * transfer ends, then takes one transfer at its own distance (the latency table's figure
 * for the source the v1 cache model found). Requests that do not need the line moved (a
 * hit in the own cache, a read of a clean shared copy) pass without queueing, as in v2's
 * contended-line rule ("readers that do not follow a write are not accessors").
 *
 * So the queue length, and the wait, are whatever the simulated workload makes them:
 * neither N nor the distance is a parameter. ks_cost_contended_line stays the analytic
 * check (a model prints both).
 *
 * The simulation issues a CPU's chain of dependent accesses (count, barrier, mask) for
 * later instants before another CPU's request for an earlier one, so the server keeps the
 * line's last few reserved transfers and places each request at the first instant, from
 * its own, where one transfer fits between them (first come first served in time, not in
 * the order of issue). Simplified: only KS_COST_LINE_SLOTS reservations are kept; one
 * forgotten while still ahead (`evicted`) leaves its end as a floor no later transfer
 * starts before, so the line is never booked twice (under overload the queue grows, as
 * it must); service is the load-to-use latency of one transfer (the line is
 * busy for that long); no NACK/retry behaviour.
 */
#include <string.h>

#include "cost_internal.h"

static int32_t part_of_source(int32_t source)
{
    switch (source) {
    case KS_SRC_L1:
        return KS_COST_CORE;
    case KS_SRC_L2:
        return KS_COST_L2;
    case KS_SRC_LLC:
        return KS_COST_LLC;
    case KS_SRC_DRAM_LOCAL:
    case KS_SRC_DRAM_REMOTE:
        return KS_COST_DRAM;
    default:
        return KS_COST_REMOTE;
    }
}

int32_t ks_cost_line_request(const ks_cost_params *params, ks_cost_line_server *line,
                             double now_ns, int32_t source, int32_t needs_transfer,
                             ks_cost_result *out)
{
    if (!params || !line || !out || source < 0 || source >= KS_SRC_COUNT || !(now_ns >= 0) ||
        params->latency.core_mhz <= 0)
        return KS_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    double trip = cost_trip_ns(params, source);
    double wait = 0;
    if (needs_transfer) {
        double at = now_ns > line->floor_ns ? now_ns : line->floor_ns;
        for (int moved = 1; moved;) {       /* first fit between the reservations */
            moved = 0;
            for (int i = 0; i < KS_COST_LINE_SLOTS; i++)
                if (line->end_ns[i] > at && line->start_ns[i] < at + trip) {
                    at = line->end_ns[i];
                    moved = 1;
                }
        }
        wait = at - now_ns;
        int slot = 0;                       /* the reservation that ended first */
        for (int i = 1; i < KS_COST_LINE_SLOTS; i++)
            if (line->end_ns[i] < line->end_ns[slot])
                slot = i;
        if (line->end_ns[slot] > now_ns) {  /* still ahead: its time stays taken */
            line->evicted++;
            if (line->end_ns[slot] > line->floor_ns)
                line->floor_ns = line->end_ns[slot];
        }
        line->start_ns[slot] = at;
        line->end_ns[slot] = at + trip;
        line->busy_ns += trip;
        line->wait_ns += wait;
        line->served++;
    }
    out->part_ns[KS_COST_CONTENTION] = wait;
    out->part_ns[part_of_source(source)] += trip;
    out->total_ns = wait + trip;
    out->serial_ns = trip;
    out->lines = 1;
    out->lines_from[source] = 1;
    out->cstate = -1;
    return KS_OK;
}
