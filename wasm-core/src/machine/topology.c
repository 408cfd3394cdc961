/*
 * Topologies: building the flat per-CPU array from a preset spec, wrapping an
 * importer's array, and the queries the bindings use. See
 * include/kscope/topology.h for the data model and topology_spec.h for the CPU
 * numbering rule.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/topology.h"
#include "topology_spec.h"

struct ks_topology {
    const char *name;
    ks_topology_summary summary;
    ks_cpu *cpus;               /* summary.cpus records, indexed by CPU number */
};

int32_t ks_topology_preset_count(void)
{
    return topology_preset_count;
}

static const topology_spec *preset_at(int32_t index)
{
    if (index < 0 || index >= topology_preset_count)
        return NULL;
    return &topology_presets[index];
}

const char *ks_topology_preset_name(int32_t index)
{
    const topology_spec *spec = preset_at(index);
    return spec ? spec->name : NULL;
}

const char *ks_topology_preset_description(int32_t index)
{
    const topology_spec *spec = preset_at(index);
    return spec ? spec->description : NULL;
}

static const topology_spec *find_preset(const char *name)
{
    for (int32_t i = 0; i < topology_preset_count; i++)
        if (strcmp(topology_presets[i].name, name) == 0)
            return &topology_presets[i];
    return NULL;
}

/* Fills one CPU record from its (core, thread) position, per the numbering rule. */
static ks_cpu cpu_at(const topology_spec *spec, int32_t core, int32_t thread)
{
    int32_t nr_cores = spec->sockets * spec->cores_per_socket;
    ks_cpu c = {
        .cpu = core + thread * nr_cores,
        .core = core,
        .llc = core / spec->cores_per_llc,
        .node = core / (nr_cores / spec->nodes),
        .socket = core / spec->cores_per_socket,
        .smt_index = thread,
    };
    return c;
}

/* A count that covers dense id: one past it, if that is more than count. */
static int32_t count_covering(int32_t count, int32_t id)
{
    return id >= count ? id + 1 : count;
}

/* Counts are one past the largest dense id of each kind. */
static ks_topology_summary summary_of(const ks_cpu *cpus, int32_t count, cache_sizes sizes)
{
    ks_topology_summary s = {
        .cpus = count, .l1d_kib = sizes.l1d_kib, .l2_kib = sizes.l2_kib, .l3_kib = sizes.l3_kib,
    };
    for (int32_t i = 0; i < count; i++) {
        s.cores = count_covering(s.cores, cpus[i].core);
        s.llcs = count_covering(s.llcs, cpus[i].llc);
        s.nodes = count_covering(s.nodes, cpus[i].node);
        s.sockets = count_covering(s.sockets, cpus[i].socket);
        s.threads_per_core = count_covering(s.threads_per_core, cpus[i].smt_index);
    }
    return s;
}

int32_t topology_build(const char *name, ks_cpu *cpus, int32_t count, cache_sizes sizes,
                       ks_topology **out)
{
    ks_topology *topo = calloc(1, sizeof *topo);
    if (!topo) {
        free(cpus);
        return KS_ERR_NO_MEMORY;
    }
    topo->name = name;
    topo->summary = summary_of(cpus, count, sizes);
    topo->cpus = cpus;
    *out = topo;
    return KS_OK;
}

int32_t ks_topology_from_preset(const char *name, ks_topology **out)
{
    if (!name || !out)
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    const topology_spec *spec = find_preset(name);
    if (!spec)
        return KS_ERR_NOT_FOUND;

    int32_t nr_cores = spec->sockets * spec->cores_per_socket;
    int32_t count = nr_cores * spec->threads_per_core;
    ks_cpu *cpus = calloc((size_t)count, sizeof *cpus);
    if (!cpus)
        return KS_ERR_NO_MEMORY;
    for (int32_t thread = 0; thread < spec->threads_per_core; thread++)
        for (int32_t core = 0; core < nr_cores; core++) {
            ks_cpu c = cpu_at(spec, core, thread);
            cpus[c.cpu] = c;
        }
    cache_sizes sizes = { spec->l1d_kib, spec->l2_kib, spec->l3_kib };
    return topology_build(spec->name, cpus, count, sizes, out);
}

void ks_topology_free(ks_topology *topo)
{
    if (!topo)
        return;
    free(topo->cpus);
    free(topo);
}

const char *ks_topology_name(const ks_topology *topo)
{
    return topo ? topo->name : NULL;
}

int32_t ks_topology_summarize(const ks_topology *topo, ks_topology_summary *out)
{
    if (!topo || !out)
        return KS_ERR_INVALID_ARG;
    *out = topo->summary;
    return KS_OK;
}

const ks_cpu *ks_topology_cpus(const ks_topology *topo)
{
    return topo ? topo->cpus : NULL;
}

/* Appends "lo" or "lo-hi" (after a comma unless first); false if it does not fit. */
static bool append_range(char *buf, int32_t buf_len, int32_t *pos, int32_t lo, int32_t hi)
{
    size_t room = (size_t)(buf_len - *pos);
    const char *sep = *pos ? "," : "";
    int n = lo == hi ? snprintf(buf + *pos, room, "%s%d", sep, lo)
                     : snprintf(buf + *pos, room, "%s%d-%d", sep, lo, hi);
    if (n < 0 || (size_t)n >= room)
        return false;
    *pos += n;
    return true;
}

int32_t ks_topology_node_cpulist(const ks_topology *topo, int32_t node, char *buf,
                                 int32_t buf_len)
{
    if (!topo || !buf)
        return KS_ERR_INVALID_ARG;
    if (node < 0 || node >= topo->summary.nodes || buf_len < 1)
        return KS_ERR_RANGE;
    const ks_cpu *cpus = topo->cpus;
    int32_t count = topo->summary.cpus, pos = 0;
    buf[0] = '\0';
    for (int32_t c = 0; c < count; c++) {
        if (cpus[c].node != node)
            continue;
        int32_t lo = c;
        while (c + 1 < count && cpus[c + 1].node == node)
            c++;
        if (!append_range(buf, buf_len, &pos, lo, c)) {
            buf[0] = '\0';
            return KS_ERR_RANGE;
        }
    }
    return KS_OK;
}
