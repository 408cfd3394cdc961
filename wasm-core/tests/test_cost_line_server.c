/*
 * ks_cost_line_request (src/machine/cost_line_server.c): a contended line served one
 * transfer at a time, in simulated time.
 */
#include "check.h"
#include "kscope/native/cost.h"

static ks_cost_params gnr_params(void)
{
    ks_cost_params p = { 0 };
    ks_topology *topo = NULL;
    if (ks_topology_from_preset("hcc-2s-480", &topo) == KS_OK)
        ks_topology_cost_params(topo, &p);
    ks_topology_free(topo);
    return p;
}

static void requests_queue_one_transfer_at_a_time(void)
{
    ks_cost_params p = gnr_params();
    CHECK(p.latency.core_mhz > 0);
    double trip = (double)p.latency.cycles[KS_SRC_OTHER_SOCKET] * 1000.0 / p.latency.core_mhz;
    ks_cost_line_server line = { 0 };
    ks_cost_result r;
    CHECK_EQ_INT(ks_cost_line_request(&p, &line, 1000, KS_SRC_OTHER_SOCKET, 1, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == 0);
    CHECK(r.part_ns[KS_COST_REMOTE] == trip && r.total_ns == trip);
    /* a second request at the same instant waits for the first transfer */
    CHECK_EQ_INT(ks_cost_line_request(&p, &line, 1000, KS_SRC_OTHER_SOCKET, 1, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == trip);
    CHECK(r.total_ns == 2 * trip);
    /* a clean read does not queue */
    CHECK_EQ_INT(ks_cost_line_request(&p, &line, 1000, KS_SRC_LLC, 0, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == 0 && r.part_ns[KS_COST_LLC] > 0);
    CHECK_EQ_INT((int64_t)line.served, 2);
    CHECK(line.busy_ns == 2 * trip && line.wait_ns == trip);
    /* a request issued later for an earlier time that fits before the reservation */
    ks_cost_line_server l2 = { 0 };
    ks_cost_line_request(&p, &l2, 10000, KS_SRC_OTHER_SOCKET, 1, &r);
    CHECK_EQ_INT(ks_cost_line_request(&p, &l2, 100, KS_SRC_OTHER_SOCKET, 1, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == 0);
    /* ... a second one at the same instant now waits behind it: the gap is taken */
    CHECK_EQ_INT(ks_cost_line_request(&p, &l2, 100, KS_SRC_OTHER_SOCKET, 1, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == trip);
    /* ... and one that does not fit before 10000 waits for that transfer's end */
    CHECK_EQ_INT(ks_cost_line_request(&p, &l2, 9990, KS_SRC_OTHER_SOCKET, 1, &r), KS_OK);
    CHECK(r.part_ns[KS_COST_CONTENTION] == 10000 + trip - 9990);
    CHECK_EQ_INT(ks_cost_line_request(NULL, &l2, 0, 0, 1, &r), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cost_line_request(&p, &l2, 0, KS_SRC_COUNT, 1, &r), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_cost_line_request(&p, &l2, -1, 0, 1, &r), KS_ERR_INVALID_ARG);
}

/* Overload: more requests than the line can serve queue up; never two transfers at once. */
static void an_overloaded_line_queues_without_double_booking(void)
{
    ks_cost_params p = gnr_params();
    double trip = (double)p.latency.cycles[KS_SRC_OTHER_SOCKET] * 1000.0 / p.latency.core_mhz;
    ks_cost_line_server line = { 0 };
    ks_cost_result r;
    /* 100 requests per transfer time, in time order, far beyond the slots */
    double last_end = 0;
    for (int i = 0; i < 1000; i++) {
        double now = i * trip / 100;
        ks_cost_line_request(&p, &line, now, KS_SRC_OTHER_SOCKET, 1, &r);
        double end = now + r.total_ns;
        CHECK(end >= last_end + trip - 1e-6);            /* each ends a transfer after the last */
        last_end = end;
    }
    CHECK(last_end >= 1000 * trip - 1e-6);
    CHECK(line.evicted > 0);
}

const test_case cost_line_server_tests[] = {
    { "cost v2: an overloaded line queues, never double-booked",
      an_overloaded_line_queues_without_double_booking },
    { "cost v2: a line serves one transfer at a time", requests_queue_one_transfer_at_a_time },
    { 0 },
};
