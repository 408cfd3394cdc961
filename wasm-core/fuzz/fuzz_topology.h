/*
 * fuzz/fuzz_topology.h: the checks both topology importers' harnesses run on a
 * result: dense ids inside the counts, CPU numbers 0..N-1, every node's cpulist
 * printable in the promised 6 bytes per CPU; a refusal says where and what.
 */
#ifndef KSCOPE_FUZZ_TOPOLOGY_H
#define KSCOPE_FUZZ_TOPOLOGY_H

#include "fuzz_input.h"
#include "kscope/topology.h"

typedef int32_t (*fuzz_importer)(const char *, int32_t, ks_topology **, ks_parse_error *);

static inline void fuzz_topology_import(fuzz_importer import, const uint8_t *bytes, size_t size)
{
    if (size > (1 << 20))
        return;
    ks_topology *topo = NULL;
    ks_parse_error err;
    memset(&err, 0x55, sizeof err);
    int32_t rc = import((const char *)bytes, (int32_t)size, &topo, &err);
    if (rc != KS_OK) {
        FUZZ_CHECK(rc == KS_ERR_PARSE || rc == KS_ERR_NO_MEMORY);
        FUZZ_CHECK(topo == NULL);
        if (rc == KS_ERR_PARSE) {
            FUZZ_CHECK(memchr(err.field, '\0', sizeof err.field) != NULL);
            FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
            FUZZ_CHECK(err.message[0] != '\0');
            FUZZ_CHECK(err.line >= 0);
        }
        return;
    }
    ks_topology_summary s;
    FUZZ_CHECK(ks_topology_summarize(topo, &s) == KS_OK);
    FUZZ_CHECK(s.cpus >= 1 && s.cores >= 1 && s.llcs >= 1 && s.nodes >= 1 && s.sockets >= 1);
    FUZZ_CHECK(s.cores <= s.cpus && s.llcs <= s.cpus && s.nodes <= s.cpus && s.sockets <= s.cpus);
    FUZZ_CHECK(s.threads_per_core >= 1);
    FUZZ_CHECK(ks_topology_name(topo) != NULL);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    for (int32_t i = 0; i < s.cpus; i++) {
        FUZZ_CHECK(cpus[i].cpu == i);
        FUZZ_CHECK(cpus[i].core >= 0 && cpus[i].core < s.cores);
        FUZZ_CHECK(cpus[i].llc >= 0 && cpus[i].llc < s.llcs);
        FUZZ_CHECK(cpus[i].node >= 0 && cpus[i].node < s.nodes);
        FUZZ_CHECK(cpus[i].socket >= 0 && cpus[i].socket < s.sockets);
        FUZZ_CHECK(cpus[i].smt_index >= 0 && cpus[i].smt_index < s.cpus);
    }
    char *buf = malloc((size_t)s.cpus * 6 + 1);
    FUZZ_CHECK(buf != NULL);
    for (int32_t node = 0; node < s.nodes; node++) {
        FUZZ_CHECK(ks_topology_node_cpulist(topo, node, buf, s.cpus * 6 + 1) == KS_OK);
        FUZZ_CHECK(strlen(buf) <= (size_t)s.cpus * 6);
    }
    free(buf);
    ks_topology_free(topo);
}

#endif
