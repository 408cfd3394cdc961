#include <string.h>

#include "check.h"
#include "kscope/topology.h"

static ks_topology *load(const char *name, ks_topology_summary *s)
{
    ks_topology *topo = NULL;
    CHECK_EQ_INT(ks_topology_from_preset(name, &topo), KS_OK);
    if (topo)
        CHECK_EQ_INT(ks_topology_summarize(topo, s), KS_OK);
    return topo;
}

static void epyc_counts_match_seed_000(void)
{
    ks_topology_summary s;
    ks_topology *topo = load("epyc-9654-2s", &s);
    if (!topo)
        return;
    CHECK_EQ_INT(s.cpus, 384);
    CHECK_EQ_INT(s.cores, 192);
    CHECK_EQ_INT(s.llcs, 24);
    CHECK_EQ_INT(s.nodes, 2);
    CHECK_EQ_INT(s.sockets, 2);
    CHECK_EQ_INT(s.threads_per_core, 2);
    CHECK_EQ_INT(s.l3_kib * s.llcs, 768 * 1024);    /* "L3: 768 MiB (24 instances)" */
    ks_topology_free(topo);
}

static void epyc_siblings_are_n_and_n_plus_192(void)
{
    ks_topology_summary s;
    ks_topology *topo = load("epyc-9654-2s", &s);
    if (!topo)
        return;
    const ks_cpu *cpus = ks_topology_cpus(topo);
    for (int32_t n = 0; n < 192; n++) {
        CHECK_EQ_INT(cpus[n].core, cpus[n + 192].core);
        CHECK_EQ_INT(cpus[n].smt_index, 0);
        CHECK_EQ_INT(cpus[n + 192].smt_index, 1);
    }
    CHECK_EQ_INT(cpus[95].socket, 0);
    CHECK_EQ_INT(cpus[96].socket, 1);
    CHECK_EQ_INT(cpus[96].node, 1);
    CHECK_EQ_INT(cpus[7].llc, 0);
    CHECK_EQ_INT(cpus[8].llc, 1);
    CHECK_EQ_INT(cpus[383].llc, 23);
    ks_topology_free(topo);
}

static void every_llc_has_its_share_of_cpus(void)
{
    for (int32_t p = 0; p < ks_topology_preset_count(); p++) {
        ks_topology_summary s;
        ks_topology *topo = load(ks_topology_preset_name(p), &s);
        if (!topo)
            continue;
        int32_t per_llc[64] = { 0 };
        const ks_cpu *cpus = ks_topology_cpus(topo);
        for (int32_t c = 0; c < s.cpus; c++) {
            CHECK_EQ_INT(cpus[c].cpu, c);
            CHECK(cpus[c].llc >= 0 && cpus[c].llc < s.llcs && cpus[c].llc < 64);
            per_llc[cpus[c].llc]++;
        }
        for (int32_t l = 0; l < s.llcs; l++)
            CHECK_EQ_INT(per_llc[l], s.cpus / s.llcs);
        ks_topology_free(topo);
    }
}

static void classroom_has_two_llcs_of_four_cpus(void)
{
    ks_topology_summary s;
    ks_topology *topo = load("classroom-8", &s);
    if (!topo)
        return;
    CHECK_EQ_INT(s.cpus, 8);
    CHECK_EQ_INT(s.llcs, 2);
    CHECK_EQ_INT(s.cores, 4);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    CHECK_EQ_INT(cpus[4].core, 0);                  /* CPU 0's sibling is CPU 4 */
    CHECK_EQ_INT(cpus[2].llc, 1);
    ks_topology_free(topo);
}

static void unknown_preset_is_not_found(void)
{
    ks_topology *topo = (ks_topology *)1;
    CHECK_EQ_INT(ks_topology_from_preset("no-such-machine", &topo), KS_ERR_NOT_FOUND);
    CHECK(topo == NULL);
    CHECK_EQ_INT(ks_topology_from_preset(NULL, &topo), KS_ERR_INVALID_ARG);
    CHECK(ks_topology_preset_name(ks_topology_preset_count()) == NULL);
}

const test_case topology_tests[] = {
    { "topology: epyc-9654-2s counts match seed 000", epyc_counts_match_seed_000 },
    { "topology: epyc-9654-2s siblings are N and N+192", epyc_siblings_are_n_and_n_plus_192 },
    { "topology: every LLC has its share of CPUs", every_llc_has_its_share_of_cpus },
    { "topology: classroom-8 is 2 LLCs x 4 CPUs", classroom_has_two_llcs_of_four_cpus },
    { "topology: unknown preset is not found", unknown_preset_is_not_found },
    { 0 },
};
