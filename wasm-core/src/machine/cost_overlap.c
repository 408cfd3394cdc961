/*
 * Overlapped misses and bandwidth: how long a burst's memory accesses take, and
 * which part of that time each mechanism caused.
 *
 * The hardware. An out-of-order core does not wait for one miss before issuing the
 * next independent one: up to demand_mlp L1 misses are in flight at once (fill
 * buffers / miss address buffers: 16 on Golden Cove, 24 on Zen 4 [Intel-ORM],
 * [AMD-SOG19h]), and the L2's prefetches up to prefetch_mlp (cost_prefetch.c). By
 * Little's law (L = lambda x W: lines in flight = throughput x latency; Little,
 * Operations Research 1961) n misses of latency t with m in flight take n x t / m,
 * not n x t; and never less than one miss's own chain (a line that needs a second,
 * ownership trip waits for its first). Independently, bytes cannot arrive faster
 * than the narrowest link they cross: a CCD's link to the IO die (Zen 4) shared by
 * the bursts running in that LLC, or the socket's DRAM shared by those on the socket.
 * And the burst's own instructions take their time even when every line hits L1.
 * These overlap, so the burst's memory time is the largest of the three
 * (the roofline view: Williams, Waterman & Patterson, CACM 2009):
 *
 *     T = max( core work,  sum(lines x trip latency / in flight),  bytes / bandwidth )
 *
 * The breakdown. CORE is the core work. If the latency term is larger, the excess is
 * shared among the runs in proportion to each one's latency term, and charged to
 * its reason (cost_residency.c: L2, LLC, REMOTE, DRAM, IDLE_FLUSH, CAPACITY) and its
 * ownership trips to RFO. If the bandwidth term is larger still, its excess is
 * BANDWIDTH. So the parts add up to T. serial_ns is what charging every trip one
 * after another would cost (cache_model.c's v1 does that); overlap_saved_ns the
 * difference.
 *
 * Simplified: one pool of misses in flight for all sources (the L2 queue and the L1
 * fill buffers are not tracked separately for a run mixing both); a latency is the
 * table's load-to-use figure, unloaded (queueing in the fabric under load is not
 * added here; see cost_contention.c for a line's own queue); write-backs of evicted
 * dirty lines take no bandwidth.
 */
#include "cost_internal.h"

double cost_trip_ns(const ks_cost_params *p, int32_t src)
{
    if (src < 0 || src >= KS_SRC_COUNT || p->latency.core_mhz <= 0)
        return 0.0;
    return (double)p->latency.cycles[src] * 1000.0 / (double)p->latency.core_mhz;
}

static int outside_llc(int32_t src)
{
    return src == KS_SRC_OTHER_LLC || src == KS_SRC_OTHER_SOCKET || src == KS_SRC_DRAM_LOCAL
        || src == KS_SRC_DRAM_REMOTE;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* bytes / (gb_per_s / sharers): GB/s is bytes per ns. 0 when there is no limit. */
static double transfer_ns(double bytes, int32_t gb_per_s, int32_t sharers)
{
    if (gb_per_s <= 0 || bytes <= 0)
        return 0.0;
    return bytes * (double)(sharers > 1 ? sharers : 1) / (double)gb_per_s;
}

void cost_overlap(const ks_cost_params *p, const ks_cost_sweep *sw, const cost_run *runs, int n,
                  double demand_fraction, ks_cost_result *out)
{
    double mlp_d = p->demand_mlp > 0 ? (double)p->demand_mlp : 1.0;
    double mlp_p = p->prefetch_mlp > (double)mlp_d ? (double)p->prefetch_mlp : mlp_d;
    double per_first = demand_fraction / mlp_d + (1.0 - demand_fraction) / mlp_p;
    double first[KS_COST_MAX_GROUPS * COST_RUNS_PER_GROUP] = { 0 };
    double rfo[KS_COST_MAX_GROUPS * COST_RUNS_PER_GROUP] = { 0 };
    double lat_sum = 0, chain = 0, serial_lat = 0, bytes_out = 0, bytes_dram = 0;
    uint64_t lines = 0;

    for (int i = 0; i < n; i++) {
        const cost_run *r = &runs[i];
        lines += r->lines;
        out->lines_from[r->src] += r->lines;
        if (r->src == KS_SRC_L1)
            continue;
        double t1 = cost_trip_ns(p, r->src), t2 = r->rfo_src >= 0 ? cost_trip_ns(p, r->rfo_src) : 0;
        first[i] = (double)r->lines * t1 * per_first;
        rfo[i] = (double)r->lines * t2 / mlp_d;
        lat_sum += first[i] + rfo[i];
        chain = max2(chain, t1 + t2);
        serial_lat += (double)r->lines * (t1 + t2);
        if (r->rfo_src >= 0)
            out->lines_rfo += r->lines;
        if (r->hitm)
            out->hitm += r->lines;
        double bytes = (double)r->lines * KS_CACHE_LINE;
        if (outside_llc(r->src))
            bytes_out += bytes;
        if (r->src == KS_SRC_DRAM_LOCAL || r->src == KS_SRC_DRAM_REMOTE)
            bytes_dram += bytes;
    }
    double core = p->latency.core_mhz > 0
        ? (double)lines * p->sweep_cycles_per_line * 1000.0 / p->latency.core_mhz : 0.0;
    double t_lat = max2(lat_sum, chain);
    double t_bw = max2(transfer_ns(bytes_out, p->fabric_gbps_per_llc, sw->streams_per_llc),
                       transfer_ns(bytes_dram, p->dram_gbps_per_socket, sw->streams_per_socket));

    out->part_ns[KS_COST_CORE] += core;
    double lat_excess = t_lat > core ? t_lat - core : 0.0;
    if (lat_excess > 0 && lat_sum > 0)
        for (int i = 0; i < n; i++) {
            out->part_ns[runs[i].reason] += lat_excess * first[i] / lat_sum;
            out->part_ns[KS_COST_RFO] += lat_excess * rfo[i] / lat_sum;
        }
    double t_mem = max2(core, t_lat);
    if (t_bw > t_mem) {
        out->part_ns[KS_COST_BANDWIDTH] += t_bw - t_mem;
        out->bound = 2;
        t_mem = t_bw;
    } else {
        out->bound = t_lat > core ? 1 : 0;
    }
    out->serial_ns += core + serial_lat;
    out->overlap_saved_ns += core + serial_lat - t_mem;
}
