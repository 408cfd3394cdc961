/*
 * kscope/topology.h: the modelled machine's CPU topology.
 *
 * A topology is a flat array of ks_cpu records, one per logical CPU, indexed
 * by the CPU number Linux would give it. Each record names the CPU's core,
 * LLC (last-level cache, L3), NUMA node and socket, all as dense 0-based ids,
 * so views and models can group CPUs without walking a tree:
 *
 *     socket 0 ─┬─ node 0 ─┬─ llc 0 ─┬─ core 0 ─┬─ cpu 0
 *               │          │         │          └─ cpu 192   (SMT sibling)
 *               │          │         └─ core 1 ── ...
 *               │          └─ llc 1 ── ...
 *
 * The array is fixed-width (int32 fields only) so the browser reads it through
 * one typed-array view on wasm memory and Python through one ctypes array.
 */
#ifndef KSCOPE_TOPOLOGY_H
#define KSCOPE_TOPOLOGY_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/parse.h"

/* One logical CPU. All ids are dense and 0-based. */
typedef struct ks_cpu {
    int32_t cpu;        /* Linux CPU number */
    int32_t core;       /* physical core id, machine-wide */
    int32_t llc;        /* last-level-cache (L3) instance id, machine-wide */
    int32_t node;       /* NUMA node id */
    int32_t socket;     /* package id */
    int32_t smt_index;  /* 0 for the first hardware thread of a core, 1 for its sibling, ... */
} ks_cpu;
_Static_assert(sizeof(ks_cpu) == 24, "ks_cpu is shared with JS and Python: 6 x int32");

/* Counts and cache sizes of a topology. */
typedef struct ks_topology_summary {
    int32_t cpus;
    int32_t cores;
    int32_t llcs;
    int32_t nodes;
    int32_t sockets;
    int32_t threads_per_core;
    int32_t l1d_kib;    /* per core */
    int32_t l2_kib;     /* per core */
    int32_t l3_kib;     /* per LLC instance */
} ks_topology_summary;
_Static_assert(sizeof(ks_topology_summary) == 36, "ks_topology_summary: 9 x int32");

typedef struct ks_topology ks_topology;

/* Number of built-in presets, and the name and one-line description of preset i. */
KS_API int32_t ks_topology_preset_count(void);
KS_API const char *ks_topology_preset_name(int32_t index);
KS_API const char *ks_topology_preset_description(int32_t index);

/* Builds the named preset into *out (free with ks_topology_free).
 * KS_ERR_NOT_FOUND if no preset has that name. */
KS_API int32_t ks_topology_from_preset(const char *name, ks_topology **out);

KS_API void ks_topology_free(ks_topology *topo);

/* Preset name the topology was built from, or "lscpu" / "sysfs" for an import. */
KS_API const char *ks_topology_name(const ks_topology *topo);

/* Fills *out with the topology's counts and cache sizes. */
KS_API int32_t ks_topology_summarize(const ks_topology *topo, ks_topology_summary *out);

/* The CPU array (ks_topology_summarize gives its length); valid until ks_topology_free. */
KS_API const ks_cpu *ks_topology_cpus(const ks_topology *topo);

/* Writes node's CPUs into buf in Linux cpulist syntax ("0-42,172-214"), NUL-terminated,
 * as lscpu prints "NUMA node0 CPU(s)". KS_ERR_RANGE if node is out of range or buf
 * (buf_len bytes) is too small; 6 bytes per CPU always suffice. */
KS_API int32_t ks_topology_node_cpulist(const ks_topology *topo, int32_t node, char *buf,
                                        int32_t buf_len);

/*
 * Importers for a user's own machine. Both read len bytes of text (no NUL needed),
 * build *out (free with ks_topology_free) and return KS_OK, or KS_ERR_PARSE with
 * *err filled (err may be NULL). Raw ids are renumbered densely in their kernel
 * order; smt_index counts a core's CPUs in CPU-number order. CPU numbers must run
 * 0..N-1 without gaps (offline CPUs are a parse error). Cache sizes not given in
 * the input are 0.
 */

/* The output of `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE`, or of plain `lscpu -p`:
 *
 *     # CPU,Core,Socket,Node,L1d:L1i:L2:L3        (the -p=... form)
 *     0,0,0,0,0:0:0:0
 *     # CPU,Core,Socket,Node,,L1d,L1i,L2,L3       (the plain -p form)
 *     0,0,0,0,,0,0,0,0
 *
 * Lines starting with '#' and blank lines are skipped. An empty NODE means node 0
 * (a non-NUMA machine); without an L3 id the socket is the LLC. Name: "lscpu". */
KS_API int32_t ks_topology_from_lscpu(const char *text, int32_t len, ks_topology **out,
                                      ks_parse_error *err);

/* A flattened sysfs dump: one record per line, "<path>\t<content>", with path
 * relative to /sys/devices/system/cpu and content the file's first line:
 *
 *     cpu3/topology/physical_package_id<TAB>0      required for every CPU
 *     cpu3/topology/core_id<TAB>1                  required (per package, may be sparse)
 *     cpu3/cache/index3/level<TAB>3                cache indexN, N < 8: level,
 *     cpu3/cache/index3/type<TAB>Unified             type (Data|Instruction|Unified),
 *     cpu3/cache/index3/size<TAB>32768K              size (K or M suffix),
 *     cpu3/cache/index3/id<TAB>0                     id, or when id is absent
 *     cpu3/cache/index3/shared_cpu_list<TAB>0-7,192-199   its sharing CPUs
 *     ../node/node1/cpulist<TAB>96-191,288-383     NUMA membership (the shorter
 *                                                  "node/node1/cpulist" is accepted too)
 *
 * The path ends at the first TAB; content is trimmed of surrounding blanks. Lines end
 * in "\n" or "\r\n"; blank lines and lines starting with '#' are skipped. Records may
 * come in any order; other paths (cpufreq/, online, node/node0/meminfo, ...) are
 * skipped. A CPU exists once it has a topology/ or cache/ record, and then needs
 * both topology records; dump online CPUs only (an offline CPU has no topology/).
 * A CPU's LLC is its highest-level data/unified cache, keyed by id, else by the
 * first CPU of shared_cpu_list, else by its socket. Without node records every CPU
 * is on node 0. l1d/l2/l3 sizes are the lowest-numbered CPU's. Name: "sysfs". */
KS_API int32_t ks_topology_from_sysfs(const char *text, int32_t len, ks_topology **out,
                                      ks_parse_error *err);

#endif
