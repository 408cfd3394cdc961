/* The seed machines as presets: counts, SMT siblings, node cpulists as the seeds print them. */
#include <stdlib.h>

#include "check.h"
#include "kscope/topology.h"

static ks_topology *load_preset(const char *name, ks_topology_summary *s)
{
    ks_topology *topo = NULL;
    CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
    if (topo)
        CHECK_EQ_INT(ks_topology_summarize(topo, s), KS_OK);
    return topo;
}

typedef struct seed_counts {
    const char *name;
    int32_t cpus, cores, llcs, nodes, sockets;
} seed_counts;

static const seed_counts seed_machines[] = {
    { "epyc-9654-2s", 384, 192, 24, 2, 2 },     /* seed 000: lscpu */
    { "genoa-4n", 128, 64, 8, 4, 1 },           /* seed 004: 4 nodes x 32 CPUs, 2 CCXs/node */
    { "spr-2s", 120, 60, 2, 1, 2 },             /* seed 004: 2 x 30 cores, 1 node, 2 LLCs */
    { "gnr-2s-snc", 344, 172, 2, 4, 2 },        /* seed 002: 4 nodes, 0-343 */
    { "hcc-2s-480", 480, 240, 2, 2, 2 },        /* seed 001: 240 cores, 480 CPUs */
};

static void counts_match_the_seeds(void)
{
    for (size_t i = 0; i < sizeof seed_machines / sizeof seed_machines[0]; i++) {
        const seed_counts *want = &seed_machines[i];
        ks_topology_summary s;
        ks_topology *topo = load_preset(want->name, &s);
        if (!topo)
            continue;
        CHECK_EQ_STR(ks_topology_name(topo), want->name);
        CHECK_EQ_INT(s.cpus, want->cpus);
        CHECK_EQ_INT(s.cores, want->cores);
        CHECK_EQ_INT(s.llcs, want->llcs);
        CHECK_EQ_INT(s.nodes, want->nodes);
        CHECK_EQ_INT(s.sockets, want->sockets);
        CHECK_EQ_INT(s.threads_per_core, 2);
        CHECK(s.l1d_kib > 0 && s.l2_kib > 0 && s.l3_kib > 0);
        ks_topology_free(topo);
    }
}

/* How many CPUs sit somewhere other than their core's first CPU, or repeat its smt_index. */
static int32_t count_misplaced_siblings(const ks_cpu *cpus, int32_t n, int32_t cores)
{
    int32_t *first = malloc((size_t)cores * sizeof *first), bad = 0;
    for (int32_t k = 0; k < cores; k++)
        first[k] = -1;
    for (int32_t c = 0; c < n; c++) {
        int32_t f = first[cpus[c].core];
        if (f < 0) {
            first[cpus[c].core] = c;
            bad += cpus[c].smt_index != 0;
            continue;
        }
        bad += cpus[c].llc != cpus[f].llc || cpus[c].node != cpus[f].node ||
               cpus[c].socket != cpus[f].socket || cpus[c].smt_index == 0;
    }
    free(first);
    return bad;
}

static void smt_siblings_share_core_llc_node_socket(void)
{
    for (int32_t p = 0; p < ks_topology_preset_count(); p++) {
        ks_topology_summary s;
        ks_topology *topo = load_preset(ks_topology_preset_name(p), &s);
        if (!topo)
            continue;
        CHECK_EQ_INT(count_misplaced_siblings(ks_topology_cpus(topo), s.cpus, s.cores), 0);
        ks_topology_free(topo);
    }
}

static void check_node_cpulist(const ks_topology *topo, int32_t node, const char *want)
{
    char buf[64];
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, node, buf, (int32_t)sizeof buf), KS_OK);
    CHECK_EQ_STR(buf, want);
}

static void gnr_node_lists_match_seed_002(void)
{
    ks_topology_summary s;
    ks_topology *topo = load_preset("gnr-2s-snc", &s);
    if (!topo)
        return;
    check_node_cpulist(topo, 0, "0-42,172-214");
    check_node_cpulist(topo, 1, "43-85,215-257");
    check_node_cpulist(topo, 2, "86-128,258-300");
    check_node_cpulist(topo, 3, "129-171,301-343");
    const ks_cpu *cpus = ks_topology_cpus(topo);
    CHECK_EQ_INT(cpus[85].llc, 0);          /* SNC: two nodes, one L3 per package */
    CHECK_EQ_INT(cpus[86].llc, 1);
    ks_topology_free(topo);
}

static void genoa_nodes_hold_two_ccxs_of_16_cpus(void)
{
    ks_topology_summary s;
    ks_topology *topo = load_preset("genoa-4n", &s);
    if (!topo)
        return;
    char want[32];
    for (int32_t n = 0; n < 4; n++) {
        snprintf(want, sizeof want, "%d-%d,%d-%d", 16 * n, 16 * n + 15, 64 + 16 * n, 79 + 16 * n);
        check_node_cpulist(topo, n, want);
    }
    int32_t per_llc[8] = { 0 }, wrong_node = 0;
    const ks_cpu *cpus = ks_topology_cpus(topo);
    for (int32_t c = 0; c < s.cpus; c++) {
        per_llc[cpus[c].llc]++;
        wrong_node += cpus[c].node != cpus[c].llc / 2;
    }
    for (int32_t l = 0; l < 8; l++)
        CHECK_EQ_INT(per_llc[l], 16);
    CHECK_EQ_INT(wrong_node, 0);
    ks_topology_free(topo);
}

static void spr_is_one_node_with_an_llc_per_socket(void)
{
    ks_topology_summary s;
    ks_topology *topo = load_preset("spr-2s", &s);
    if (!topo)
        return;
    check_node_cpulist(topo, 0, "0-119");
    int32_t per_llc[2] = { 0 }, llc_is_not_socket = 0;
    const ks_cpu *cpus = ks_topology_cpus(topo);
    for (int32_t c = 0; c < s.cpus; c++) {
        per_llc[cpus[c].llc]++;
        llc_is_not_socket += cpus[c].llc != cpus[c].socket;
    }
    CHECK_EQ_INT(per_llc[0], 60);
    CHECK_EQ_INT(per_llc[1], 60);
    CHECK_EQ_INT(llc_is_not_socket, 0);
    ks_topology_free(topo);
}

static void two_node_machines_split_at_the_socket(void)
{
    ks_topology_summary s;
    ks_topology *hcc = load_preset("hcc-2s-480", &s);
    if (hcc) {
        check_node_cpulist(hcc, 0, "0-119,240-359");
        check_node_cpulist(hcc, 1, "120-239,360-479");
        ks_topology_free(hcc);
    }
    ks_topology *epyc = load_preset("epyc-9654-2s", &s);
    if (epyc) {
        check_node_cpulist(epyc, 0, "0-95,192-287");
        check_node_cpulist(epyc, 1, "96-191,288-383");
        ks_topology_free(epyc);
    }
}

static void node_cpulist_refuses_small_buffers_and_bad_nodes(void)
{
    ks_topology_summary s;
    ks_topology *topo = load_preset("epyc-9654-2s", &s);
    if (!topo)
        return;
    char buf[13] = "stale";
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, 0, buf, 12), KS_ERR_RANGE);  /* needs 13 */
    CHECK_EQ_STR(buf, "");
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, 0, buf, 13), KS_OK);
    CHECK_EQ_STR(buf, "0-95,192-287");
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, 0, buf, 0), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, 2, buf, 13), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_topology_node_cpulist(topo, -1, buf, 13), KS_ERR_RANGE);
    CHECK_EQ_INT(ks_topology_node_cpulist(NULL, 0, buf, 13), KS_ERR_INVALID_ARG);
    ks_topology_free(topo);
}

const test_case topology_preset_tests[] = {
    { "presets: counts match the seeds", counts_match_the_seeds },
    { "presets: SMT siblings share core, LLC, node, socket",
      smt_siblings_share_core_llc_node_socket },
    { "presets: gnr-2s-snc node lists match seed 002", gnr_node_lists_match_seed_002 },
    { "presets: genoa-4n nodes hold 2 CCXs of 16 CPUs", genoa_nodes_hold_two_ccxs_of_16_cpus },
    { "presets: spr-2s is 1 node, 2 LLCs of 60", spr_is_one_node_with_an_llc_per_socket },
    { "presets: 2-node machines split at the socket", two_node_machines_split_at_the_socket },
    { "presets: node cpulist refuses small buffers, bad nodes",
      node_cpulist_refuses_small_buffers_and_bad_nodes },
    { 0 },
};
