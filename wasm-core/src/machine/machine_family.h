/*
 * Internal: which core/fabric family a topology's latency table belongs to, so the
 * cost model v2's per-machine figures (cost_tables.c) follow the same preset list
 * as the latency tables (latency_tables.c) instead of keeping a second one.
 */
#ifndef KSCOPE_MACHINE_FAMILY_H
#define KSCOPE_MACHINE_FAMILY_H

#include "kscope/topology.h"

typedef enum machine_family {
    FAMILY_GENERIC = 0,     /* an imported topology: vendor unknown */
    FAMILY_ZEN4,            /* AMD Zen 4 (Genoa): CCX = LLC, Infinity Fabric */
    FAMILY_GOLDEN_COVE,     /* Intel Sapphire / Emerald Rapids: mesh, one LLC per socket */
    FAMILY_REDWOOD_COVE,    /* Intel Granite Rapids (Xeon 6 P-core) */
} machine_family;

/* latency_tables.c: the family of the preset, FAMILY_GENERIC for anything else. */
machine_family topology_machine_family(const ks_topology *topo);

#endif
