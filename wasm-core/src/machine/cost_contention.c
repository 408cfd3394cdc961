/*
 * Contention: a line with N concurrent accessors.
 *
 * The hardware. Only one core at a time can own a line to write it. When N cores
 * keep writing one line (a counter, a lock word, the RT priority map's mask of a level), or
 * reading it right after another wrote it, each touch needs the line moved from
 * the last writer: one transfer at the distance between them (the latency table's
 * core-to-core figure). The transfers of one line are serialised by the coherence
 * protocol (the home agent / directory handles one ownership request for a line at
 * a time), so the requests queue: the more accessors, the longer each waits. This
 * is what `perf c2c` shows as the load latency (cycles per load) of a HITM line
 * growing with the number of CPUs sharing it, and what Schweizer, Besta & Hoefler,
 * "Evaluating the Cost of Atomic Operations on Modern Architectures" (PACT 2015)
 * measured: contended atomics' latency grows with the number of threads and with
 * their distance (other core < other die < other socket). McKenney's perfbook
 * ("Is Parallel Programming Hard...", ch. 3 and 5) makes the same point for counters.
 *
 * The model. The line is a single server; each of N accessors alternates between
 * think_ns of other work and one touch of the line, whose service is one transfer
 * D at the given distance. That is the closed "machine repairman" queue, solved
 * exactly (for exponential times) by Mean Value Analysis (Reiser & Lavenberg, JACM
 * 1980; Lazowska et al., "Quantitative System Performance", 1984, ch. 6):
 *
 *     R(n) = D x (1 + Q(n-1)),   X(n) = n / (R(n) + Z),   Q(n) = X(n) x R(n)
 *
 * with Q(0) = 0 and Z = think_ns. R(N) is the time of one touch, queueing included:
 * about D for one remote accessor, growing to N x D - Z when the line is saturated.
 * One accessor alone keeps the line in its L1: a touch costs an L1 hit.
 *
 * Parts: REMOTE = D (the transfer itself), CONTENTION = R(N) - D (waiting behind the
 * others), or CORE = an L1 hit for a single accessor.
 *
 * Simplified: all accessors at one distance (the caller picks the typical hop, or
 * costs groups separately); service time deterministic in reality but the MVA form
 * assumes exponential (it overstates the queue a little); no NACK/retry storms that
 * some fabrics show under heavy contention; readers that do not follow a write
 * (Shared copies) are not accessors here: they hit their own copy.
 */
#include "cost_internal.h"

int32_t ks_cost_contended_line(const ks_cost_params *p, int32_t accessors, int32_t distance,
                               double think_ns, ks_cost_result *out)
{
    if (!p || !out || !cost_params_ok(p) || accessors < 1 || think_ns < 0
        || distance < KS_SRC_L1 || distance >= KS_SRC_COUNT || think_ns != think_ns)
        return KS_ERR_INVALID_ARG;
    *out = (ks_cost_result){ .cstate = -1 };
    out->lines = 1;
    if (accessors == 1) {
        out->part_ns[KS_COST_CORE] = cost_trip_ns(p, KS_SRC_L1);
        out->lines_from[KS_SRC_L1] = 1;
    } else {
        double d = cost_trip_ns(p, distance), q = 0, r = d;
        for (int32_t n = 1; n <= accessors; n++) {
            r = d * (1.0 + q);
            double x = (double)n / (r + think_ns);
            q = x * r;
        }
        out->part_ns[KS_COST_REMOTE] = d;
        out->part_ns[KS_COST_CONTENTION] = r - d;
        out->lines_from[distance] = 1;
        out->hitm = 1;
        out->bound = 1;
    }
    for (int i = 0; i < KS_COST_PARTS; i++)
        out->total_ns += out->part_ns[i];
    out->serial_ns = out->total_ns;
    return KS_OK;
}
