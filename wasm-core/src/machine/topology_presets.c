/*
 * The machines of the seed patches, as topology specs.
 *
 * Counts come from the seed write-ups in shared/seeds/ (file named per entry);
 * cache sizes from the seed's lscpu where it has one, else from the vendors'
 * published figures, and each entry says which (and which are assumptions, where
 * the seed does not name the part). Where a seed gives only some counts, the
 * rest is our reading and is marked so. Importers for a user's own machine
 * (lscpu_parser.c, sysfs_parser.c) build topologies without a spec.
 */
#include "topology_spec.h"

const topology_spec topology_presets[] = {
    {
        /* Small enough to read on a projector: 2 LLCs x 2 cores x SMT2. */
        .name = "classroom-8",
        .description = "Teaching machine: 1 socket, 2 LLCs of 2 cores, SMT2 (8 CPUs)",
        .sockets = 1, .cores_per_socket = 4, .threads_per_core = 2, .cores_per_llc = 2,
        .nodes = 1, .l1d_kib = 32, .l2_kib = 1024, .l3_kib = 32 * 1024,
    },
    {
        /* Seeds 000/003 (lscpu: 384 CPUs, 96 cores/socket, 2 sockets, L3 768 MiB in 24
         * instances, L2 1 MiB x 192) and seed 002 (Hao's EPYC, 2 NUMA nodes).
         * L1d 32 KiB per core: seed 000's lscpu, 6 MiB / 192 instances. */
        .name = "epyc-9654-2s",
        .description = "AMD EPYC 9654 x2 (seeds 000/002/003): 384 CPUs, 24 L3 of 8 cores, 2 nodes",
        .sockets = 2, .cores_per_socket = 96, .threads_per_core = 2, .cores_per_llc = 8,
        .nodes = 2, .l1d_kib = 32, .l2_kib = 1024, .l3_kib = 32 * 1024,
    },
    {
        /* Seed 004 (cache-aware scheduling v2): "AMD Genoa. There are 4 Nodes and 32 CPUs
         * per node. Each node has 2 CCXs and each CCX has 16 CPUs." The seed gives only
         * those counts; 1 socket of 64 cores with SMT2 in NPS4 mode is our reading (a
         * 64-core EPYC 9004 part), so node n is CPUs 16n..16n+15 and their siblings +64.
         * Sizes: AMD's EPYC 9004 specs, per Zen 4 core 32 KiB L1d and 1 MiB L2, 32 MiB
         * L3 per CCX. */
        .name = "genoa-4n",
        .description = "AMD Genoa, NPS4 (seed 004): 128 CPUs, 4 nodes x 2 CCXs of 16 CPUs",
        .sockets = 1, .cores_per_socket = 64, .threads_per_core = 2, .cores_per_llc = 8,
        .nodes = 4, .l1d_kib = 32, .l2_kib = 1024, .l3_kib = 32 * 1024,
    },
    {
        /* Seed 004: "2 socket Intel Sapphire Rapids with 30 cores per socket. The DRAM
         * interleaving is enabled in the BIOS so it essential has one NUMA node with two
         * last level caches. There are 60 CPUs associated with each last level cache."
         * So SMT2, one LLC per socket. Sizes: Intel's Sapphire Rapids figures, 48 KiB L1d
         * and 2 MiB L2 per core; the seed names no SKU, so the L3 assumes the usual
         * 1.875 MiB per core: 30 x 1.875 = 56.25 MiB per socket (an assumption). */
        .name = "spr-2s",
        .description = "Intel Sapphire Rapids x2 (seed 004): 120 CPUs, 1 node, 2 LLCs of 60 CPUs",
        .sockets = 2, .cores_per_socket = 30, .threads_per_core = 2, .cores_per_llc = 30,
        .nodes = 1, .l1d_kib = 48, .l2_kib = 2048, .l3_kib = 30 * 1920,
    },
    {
        /* Seed 002 (Zhao Liu's GNR, lscpu): "NUMA node(s): 4 / node0 CPU(s): 0-42,172-214
         * / node1 43-85,215-257 / node2 86-128,258-300 / node3 129-171,301-343", 2 sockets:
         * 86 cores x SMT2 per socket, SNC2 (two nodes per socket, 43 cores each).
         * Simplification: one LLC per socket. With SNC sysfs still reports the L3 per
         * package, but the kernel builds its sched domains per SNC node, so the MC
         * domain (what the scheduler treats as the LLC) is 43 cores, not 86.
         * Sizes: Intel's Granite Rapids (Redwood Cove) figures, 48 KiB L1d and 2 MiB L2
         * per core. The seed names no SKU: the L3 of 336 MiB per socket is an assumption,
         * our reading of Intel's listing for the 86-core Xeon 6787P/6788P. */
        .name = "gnr-2s-snc",
        .description = "Intel Granite Rapids x2, SNC2 (seed 002): 344 CPUs, 4 nodes, 2 LLCs",
        .sockets = 2, .cores_per_socket = 86, .threads_per_core = 2, .cores_per_llc = 86,
        .nodes = 4, .l1d_kib = 48, .l2_kib = 2048, .l3_kib = 336 * 1024,
    },
    {
        /* Seed 001 (RT priority map per node): "a 2-socket machine with 240 physical cores and 480
         * logical CPUs", an Intel "HCC system": 120 cores x SMT2 per socket, one LLC per
         * socket. One NUMA node per socket is our reading (the seed prints no node count).
         * Sizes: the seed names no SKU, so we assume the 120-core Xeon 6979P (Granite
         * Rapids): 48 KiB L1d and 2 MiB L2 per core, 504 MiB L3 per socket as Intel lists
         * it. */
        .name = "hcc-2s-480",
        .description = "Intel HCC Xeon x2 (seed 001): 480 CPUs, 240 cores, 2 nodes, 2 LLCs",
        .sockets = 2, .cores_per_socket = 120, .threads_per_core = 2, .cores_per_llc = 120,
        .nodes = 2, .l1d_kib = 48, .l2_kib = 2048, .l3_kib = 504 * 1024,
    },
    {
        /* Small enough to read on a projector, with two sockets: hcc-2s-480 shrunk to 2
         * sockets x 4 cores x SMT2, one LLC and one NUMA node per socket (node 0 = CPUs
         * 0-3 and their siblings 8-11). For lessons about lines that cross sockets; sizes
         * and latencies are hcc-2s-480's (Granite Rapids), so costs read the same. */
        .name = "classroom-2s-16",
        .description = "Teaching machine: 2 sockets of 4 cores, SMT2 (16 CPUs), 2 nodes",
        .sockets = 2, .cores_per_socket = 4, .threads_per_core = 2, .cores_per_llc = 4,
        .nodes = 2, .l1d_kib = 48, .l2_kib = 2048, .l3_kib = 504 * 1024,
    },
};

const int32_t topology_preset_count = (int32_t)(sizeof topology_presets / sizeof topology_presets[0]);
