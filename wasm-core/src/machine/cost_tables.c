/*
 * Per-machine figures of the cost model v2 (kscope/cost.h): how many misses a core
 * keeps in flight, what its prefetcher and TLB hold, its idle states, its links'
 * bandwidth. They extend the latency tables (latency_tables.c): the same presets,
 * through the same family (machine_family.h), and the latency cycles are read from
 * there, not repeated. Cache sizes come from the topology.
 *
 * Honesty note, as in latency_tables.c: (read) = re-read while writing this;
 * (recalled) = quoted from our reading of the document, not re-checked while
 * writing: check those first. ASSUMPTION = no source; DERIVED = computed from
 * sourced figures, the computation shown. Nothing here was fitted to the seeds'
 * published results (shared/seeds/published.json is the check, not an input).
 *
 * `kscope calibrate` measures some of these on the machine it runs on; its figure
 * names are given per field ("calibrate: <figure>"). The tables keep the published
 * value; a caller who has measured the machine overwrites the field.
 *
 * Sources (short names used below):
 *   [intel_idle]   (read) Linux drivers/idle/intel_idle.c. spr_cstates (Sapphire
 *                  Rapids, and Emerald Rapids through the same match line): C1 exit
 *                  1 us / target residency 1 us, C1E 2/4, C6 290/800 flagged
 *                  CPUIDLE_FLAG_TLB_FLUSHED. gnr_cstates (Granite Rapids, merged for
 *                  6.12): C1 1/1, C1E 4/4, C6 170/650, C6P 210/1000, both C6 states
 *                  TLB_FLUSHED. The GNR patch says Intel measured them with its wult
 *                  (exit latency) and pbe (residency) tools.
 *   [acpi_idle]    (recalled) Linux drivers/acpi/processor_idle.c: a _CST state's
 *                  target residency is its exit latency x latency_factor (2). AMD
 *                  servers have no intel_idle table; acpi_idle reads the firmware's.
 *   [D47444]       (read) FreeBSD review D47444 (2024): on an AMD EPYC 7502P (Rome)
 *                  the ACPI table's I/O-port C2 state (the core's CC6) declares a
 *                  wake latency of roughly 400 us. Used for Genoa: a stand-in.
 *   [C6-flush]     (recalled) A core in C6 / CC6 is power-gated: its L1 and L2 are
 *                  written back and emptied first (Intel's Xeon datasheets, core C6;
 *                  for AMD, CC6 as described by Schoene et al., "Energy Efficiency
 *                  Aspects of the AMD Zen 2 Architecture", IEEE Cluster 2021). The
 *                  kernel's TLB_FLUSHED flag above says the TLBs go too.
 *   [Intel-ORM]    (recalled) Intel 64 and IA-32 Architectures Optimization Reference
 *                  Manual, Golden Cove: 16 L1D fill buffers (demand misses in flight),
 *                  48 outstanding L2 misses, a 2048-entry second-level TLB; the L2
 *                  streamer prefetches within the 4 KiB page of the access. Two store
 *                  ports (two stores per cycle). The fill buffers are also (read) in
 *                  cpunews.net's write-up of Intel's Architecture Day 2021 on Golden
 *                  Cove: L1D fill buffers grew from 12 (Willow Cove) to 16.
 *   [AMD-SOG19h]   (recalled) Software Optimization Guide for AMD Family 19h (Zen 3/4):
 *                  24 outstanding L1D misses, 64 outstanding L2 misses; hardware
 *                  prefetchers do not cross a 4 KiB page (they see physical addresses).
 *   [CnC-Zen4]     (recalled) Chips and Cheese, "AMD's Zen 4, Part 2: Memory Subsystem
 *                  and Conclusion" (2022): L2 DTLB of 3072 entries; two stores per
 *                  cycle for 128-bit and narrower stores; a CCD reads the IO die at
 *                  32 bytes per fabric clock.
 *   [CnC-Xeon6]    (read) Chips and Cheese, "A Look into Intel Xeon 6's Memory
 *                  Subsystem": Redwood Cove is a tweaked Golden Cove (its core-side
 *                  figures are taken as Golden Cove's: a stand-in).
 *   [DDR5]         Peak DRAM bandwidth = channels x MT/s x 8 bytes: EPYC 9004 12 x
 *                  DDR5-4800 = 460.8 GB/s (AMD's spec, as in cache_model.c); Xeon
 *                  Platinum 8480+ 8 x DDR5-4800 = 307.2 GB/s (Intel ARK, recalled);
 *                  Xeon 6 6900P 12 x DDR5-6400 = 614.4 GB/s (Intel, recalled).
 *   [paging]       Intel SDM Vol. 3A ch. 4 / AMD APM Vol. 2 ch. 5: 4-level paging
 *                  reads 4 paging-structure entries per walk when no paging-structure
 *                  cache helps (5-level paging, LA57, would read 5: not modelled).
 *   [gcc-O2]       DERIVED: gcc -O2 for baseline x86-64 vectorises the seed's byte
 *                  increment with SSE2 (16-byte vectors): per 64-byte line 4 loads,
 *                  4 adds, 4 stores. The store port sets the pace: Golden Cove / Redwood
 *                  Cove sustain 2 stores per cycle to the same line ([Intel-ORM];
 *                  [SO-ldst]), so 2 cycles per line; Zen 3 / Zen 4 take 2 loads and 1
 *                  vector store (any width) per cycle ([SO-ldst]: "Zen 3/4: 2 loads, 1
 *                  store ... vectors of any width"; Chips and Cheese, "AMD's Zen 4 Part 1",
 *                  2022, the same port counts), so 4 cycles per line. calibrate:
 *                  sweep16k.hot / 256 lines (418 ns on the session machine's EMR under KVM
 *                  at an unknown clock: about 5 cycles per line at 3 GHz, so 2 may be low
 *                  for Golden Cove too: to be checked on bare metal).
 *   [SO-ldst]      (read) Peter Cordes et al., Stack Overflow "Load/stores per cycle for
 *                  recent CPU architecture generations" (question 45108395): per-cycle
 *                  loads and stores per microarchitecture, from Intel's and AMD's guides.
 */
#include <string.h>

#include "kscope/native/cost.h"
#include "machine_family.h"

typedef struct cost_table {
    int32_t demand_mlp, prefetch_mlp, prefetch_trigger_lines, page_bytes;
    int32_t sweep_cycles_per_line, stlb_entries, walk_levels;
    int32_t fabric_gbps_per_llc, dram_gbps_per_socket;
    int32_t n_cstates;
    ks_cost_cstate cstates[KS_COST_MAX_CSTATES];
} cost_table;

#define US 1000

/* First-touch page fault, ns per 4 KiB page (cost_fault.c): MEASURED, not published.
 * `kscope calibrate` on a session machine (Intel family 6 model 207, Emerald Rapids,
 * 2 vCPUs under KVM, idle; 2026-11-28 00:55 UTC, docs/calibrate.md): sweep16k.first_touch
 * median 12,307 ns for 16 KiB of freshly mapped memory, sweep16k.hot 418 ns, so
 * (12,307 - 418) / 4 pages = 2,972 ns per page. It is a KVM guest's fault (the guest's
 * page fault, plus an EPT violation when the host has not backed the page yet), used
 * for every machine as a stand-in: we have no bare-metal measurement of a Genoa or
 * Sapphire Rapids anonymous/COW fault at hand. Bare metal is likely cheaper (an upper
 * bound here). A caller with a better figure writes ks_cost_params.first_touch_ns_per_page. */
#define FIRST_TOUCH_NS_PER_PAGE 2972

/* The stream prefetcher starts after this many demand misses in a page: ASSUMPTION
 * (the manuals say "a few"; 2 is the smallest that shows a direction). */
#define TRIGGER_LINES 2

static const cost_table zen4_costs = {
    .demand_mlp = 24,              /* [AMD-SOG19h] calibrate: mlp.misses_in_flight */
    .prefetch_mlp = 64,            /* [AMD-SOG19h] */
    .prefetch_trigger_lines = TRIGGER_LINES,
    .page_bytes = 4096,            /* [AMD-SOG19h] */
    .sweep_cycles_per_line = 4,    /* [gcc-O2]: 1 vector store per cycle */
    .stlb_entries = 3072,          /* [CnC-Zen4] */
    .walk_levels = 4,              /* [paging] */
    /* 32 B per fabric clock [CnC-Zen4] at an FCLK of 1.8 GHz (ASSUMPTION: Genoa's
     * FCLK is not in our sources): 57.6 GB/s into one CCD (= one LLC). */
    .fabric_gbps_per_llc = 57,
    .dram_gbps_per_socket = 460,   /* [DDR5] */
    .n_cstates = 2,
    .cstates = {
        /* C1 = MWAIT (FFH) in AMD's _CST: 1 us (ASSUMPTION: the usual declared value);
         * residency 2 x 1 [acpi_idle]. */
        { "C1", 1 * US, 2 * US, 0, 0 },
        /* C2 = CC6: 400 us declared [D47444] (Rome's table, a stand-in), residency
         * 800 us [acpi_idle]; flushes L1/L2 and TLB [C6-flush]. */
        { "C2", 400 * US, 800 * US, 1, 1 },
    },
};

static const cost_table golden_cove_costs = {
    .demand_mlp = 16,              /* [Intel-ORM] calibrate: mlp.misses_in_flight */
    .prefetch_mlp = 48,            /* [Intel-ORM] */
    .prefetch_trigger_lines = TRIGGER_LINES,
    .page_bytes = 4096,            /* [Intel-ORM] */
    .sweep_cycles_per_line = 2,    /* [gcc-O2] */
    .stlb_entries = 2048,          /* [Intel-ORM] */
    .walk_levels = 4,              /* [paging] */
    .fabric_gbps_per_llc = 0,      /* the mesh is the LLC: no separate link (ASSUMPTION) */
    .dram_gbps_per_socket = 307,   /* [DDR5] Xeon 8480+ */
    .n_cstates = 3,
    .cstates = {                   /* [intel_idle] spr_cstates; C6 flushes [C6-flush] */
        { "C1", 1 * US, 1 * US, 0, 0 },
        { "C1E", 2 * US, 4 * US, 0, 0 },
        { "C6", 290 * US, 800 * US, 1, 1 },
    },
};

static const cost_table redwood_cove_costs = {
    .demand_mlp = 16,              /* Golden Cove's [Intel-ORM], stand-in [CnC-Xeon6] */
    .prefetch_mlp = 48,            /* as above */
    .prefetch_trigger_lines = TRIGGER_LINES,
    .page_bytes = 4096,
    .sweep_cycles_per_line = 2,    /* [gcc-O2] */
    .stlb_entries = 2048,          /* Golden Cove's, stand-in */
    .walk_levels = 4,
    .fabric_gbps_per_llc = 0,      /* as Golden Cove */
    .dram_gbps_per_socket = 614,   /* [DDR5] Xeon 6900P */
    .n_cstates = 4,
    .cstates = {                   /* [intel_idle] gnr_cstates */
        { "C1", 1 * US, 1 * US, 0, 0 },
        { "C1E", 4 * US, 4 * US, 0, 0 },
        { "C6", 170 * US, 650 * US, 1, 1 },
        { "C6P", 210 * US, 1000 * US, 1, 1 },
    },
};

/* An imported topology: vendor unknown. Golden Cove's core figures and a C6 between
 * the Intel tables' (200 us exit, 700 us residency): every entry an ASSUMPTION. */
static const cost_table generic_costs = {
    .demand_mlp = 16,
    .prefetch_mlp = 48,
    .prefetch_trigger_lines = TRIGGER_LINES,
    .page_bytes = 4096,
    .sweep_cycles_per_line = 2,
    .stlb_entries = 2048,
    .walk_levels = 4,
    .fabric_gbps_per_llc = 0,
    .dram_gbps_per_socket = 300,
    .n_cstates = 2,
    .cstates = {
        { "C1", 1 * US, 1 * US, 0, 0 },
        { "C6", 200 * US, 700 * US, 1, 1 },
    },
};

/* Sizes when the topology reports none: Zen 4's (as cache_model.c's fallback). */
#define FALLBACK_L1D_KIB 32
#define FALLBACK_L2_KIB 1024
#define FALLBACK_L3_KIB (32 * 1024)

static const cost_table *table_of(machine_family f)
{
    switch (f) {
    case FAMILY_ZEN4: return &zen4_costs;
    case FAMILY_GOLDEN_COVE: return &golden_cove_costs;
    case FAMILY_REDWOOD_COVE: return &redwood_cove_costs;
    default: return &generic_costs;
    }
}

static int32_t kib_bytes(int32_t kib, int32_t fallback_kib)
{
    int64_t b = (int64_t)(kib > 0 ? kib : fallback_kib) * 1024;
    return b > INT32_MAX ? INT32_MAX : (int32_t)b;
}

int32_t ks_topology_cost_params(const ks_topology *topo, ks_cost_params *out)
{
    if (!topo || !out)
        return KS_ERR_INVALID_ARG;
    ks_topology_summary s;
    int32_t rc = ks_topology_summarize(topo, &s);
    if (rc != KS_OK)
        return rc;
    memset(out, 0, sizeof *out);
    rc = ks_topology_latency(topo, &out->latency);
    if (rc != KS_OK)
        return rc;
    const cost_table *t = table_of(topology_machine_family(topo));
    out->demand_mlp = t->demand_mlp;
    out->prefetch_mlp = t->prefetch_mlp;
    out->prefetch_trigger_lines = t->prefetch_trigger_lines;
    out->page_bytes = t->page_bytes;
    out->sweep_cycles_per_line = t->sweep_cycles_per_line;
    out->stlb_entries = t->stlb_entries;
    out->walk_levels = t->walk_levels;
    out->walk_ns_measured = 0;
    out->fabric_gbps_per_llc = t->fabric_gbps_per_llc;
    out->dram_gbps_per_socket = t->dram_gbps_per_socket;
    out->l1_bytes = kib_bytes(s.l1d_kib, FALLBACK_L1D_KIB);
    out->l2_bytes = kib_bytes(s.l2_kib, FALLBACK_L2_KIB);
    out->l3_bytes = kib_bytes(s.l3_kib, FALLBACK_L3_KIB);
    out->n_cstates = t->n_cstates;
    memcpy(out->cstates, t->cstates, sizeof out->cstates);
    out->first_touch_ns_per_page = FIRST_TOUCH_NS_PER_PAGE;
    return KS_OK;
}
