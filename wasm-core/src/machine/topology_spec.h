/*
 * Internal: how topologies are built. A preset is a compact topology_spec;
 * an importer (topology_import.h) makes the per-CPU records itself. Both end in
 * topology_build(), which derives the summary counts from the records.
 *
 * Linux numbers CPUs on the machines we model thread-major: first hardware
 * thread 0 of every core (cpu = core), then thread 1 of every core
 * (cpu = core + nr_cores), and so on. So on a 2 x 96-core EPYC, CPU 5's SMT
 * sibling is CPU 197. Cores are numbered socket by socket; NUMA nodes and LLCs
 * are contiguous runs of cores.
 */
#ifndef KSCOPE_MACHINE_TOPOLOGY_SPEC_H
#define KSCOPE_MACHINE_TOPOLOGY_SPEC_H

#include <stdint.h>

#include "kscope/topology.h"

typedef struct topology_spec {
    const char *name;
    const char *description;
    int32_t sockets;
    int32_t cores_per_socket;
    int32_t threads_per_core;
    int32_t cores_per_llc;
    int32_t nodes;              /* machine-wide; cores split evenly, in order */
    int32_t l1d_kib;            /* per core */
    int32_t l2_kib;             /* per core */
    int32_t l3_kib;             /* per LLC instance */
} topology_spec;

typedef struct cache_sizes {
    int32_t l1d_kib;            /* per core; 0 = unknown */
    int32_t l2_kib;             /* per core; 0 = unknown */
    int32_t l3_kib;             /* per LLC instance; 0 = unknown */
} cache_sizes;

/* Wraps count records (dense ids, cpus[i].cpu == i) into *out, taking ownership
 * of cpus (freed on failure too). name must outlive the topology. */
int32_t topology_build(const char *name, ks_cpu *cpus, int32_t count, cache_sizes sizes,
                       ks_topology **out);

/* The built-in presets (topology_presets.c). */
extern const topology_spec topology_presets[];
extern const int32_t topology_preset_count;

#endif
