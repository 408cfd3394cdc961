/*
 * kscope/cost.h: the cost model v2 (issue 15, item 2): what one burst of memory
 * accesses costs on a machine, in ns, and which mechanism cost what.
 *
 * The v1 model (kscope/cache.h) tracks where every line of the simulated kernel
 * objects lives and charges each access one latency after another. v2 takes a
 * description of a burst (how many lines, where each group of lines was left, in
 * what state, how long ago, how long the cores idled since, what else ran on the
 * machine) and costs it the way an out-of-order core with a hierarchy of caches
 * does: misses overlap up to the core's misses in flight, a sequential sweep is
 * prefetched within a 4 KiB page, a line that arrives Exclusive takes one trip and
 * a line another core holds takes a second for ownership, an idle core's private
 * caches (and TLB) are flushed by a deep C-state, other work evicts lines by
 * capacity, a contended line queues its accessors, a queued lock hands off one
 * waiter at a time. Each mechanism is one file of src/machine/cost_*.c with its
 * sources; docs/cost_model_v2.md is the overview.
 *
 * The result is a total in ns and a fixed array of named parts (ks_cost_part)
 * that add up to it exactly, so a view can say "of 1.9 µs, 1.2 µs were lines the
 * idle core's C6 flushed to the L3". Savings (what overlap and prefetch saved
 * against charging every trip one after another) are reported beside the parts.
 *
 * Per-machine figures (misses in flight, C-states, TLB, bandwidth) come with the
 * topology preset (ks_topology_cost_params, src/machine/cost_tables.c), each with
 * its source; a user may override any of them (e.g. with `kscope calibrate`'s
 * measured figures) before costing.
 *
 * The simulator's bursts (src/sched/driver.c) are costed by v2 when ks_sim_set_cost_model
 * selects it (the repro does); v1 (cache.h) stays the default and keeps the line state.
 * Models may call ks_cost_line_request (kscope/native/cost.h) for the lines they contend on.
 */
#ifndef KSCOPE_COST_H
#define KSCOPE_COST_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/topology.h"
#include "kscope/cache.h"

/* ---- per-machine figures --------------------------------------------------- */

#define KS_COST_MAX_CSTATES 4

/* One idle state as the kernel's cpuidle driver declares it. */
typedef struct ks_cost_cstate {
    char name[8];                  /* "C6", NUL-terminated */
    int32_t exit_ns;               /* exit latency */
    int32_t residency_ns;          /* target residency: the governor picks it for idles >= this */
    int32_t flushes_private;       /* 1: the core's L1/L2 are written back and emptied */
    int32_t flushes_tlb;           /* 1: the TLBs and paging-structure caches are lost */
} ks_cost_cstate;
_Static_assert(sizeof(ks_cost_cstate) == 24, "ks_cost_cstate: 8 chars + 4 x int32");

typedef struct ks_cost_params {
    ks_latency_table latency;      /* load-to-use cycles per source (latency_tables.c) */
    int32_t demand_mlp;            /* L1D misses in flight (fill buffers / miss address buffers) */
    int32_t prefetch_mlp;          /* L2 misses in flight: what the L2 stream prefetcher can keep going */
    int32_t prefetch_trigger_lines;/* demand misses in a page before the streamer runs ahead */
    int32_t page_bytes;            /* prefetchers stop at this boundary (4 KiB) */
    int32_t sweep_cycles_per_line; /* the burst's own work per 64-byte line at L1 speed */
    int32_t stlb_entries;          /* second-level TLB entries for 4 KiB pages */
    int32_t walk_levels;           /* page-table levels a walk reads with no paging-structure cache */
    int32_t walk_ns_measured;      /* > 0: a page walk's cost as measured (kscope calibrate pagewalk.cost) */
    int32_t fabric_gbps_per_llc;   /* bytes/ns into one LLC from outside it; 0 = not a limit */
    int32_t dram_gbps_per_socket;  /* peak DRAM bandwidth of one socket */
    int32_t l1_bytes, l2_bytes, l3_bytes;   /* per core, per core, per LLC (from the topology) */
    int32_t n_cstates;
    ks_cost_cstate cstates[KS_COST_MAX_CSTATES];   /* shallowest first */
    /* First write to a page that is not yet this process's own (a zero-fill or
     * copy-on-write fault: the kernel allocates a page, fills it, maps it): ns per 4 KiB
     * page, the fault and the fill together (cost_fault.c; calibrate sweep16k.first_touch). */
    int32_t first_touch_ns_per_page;
    int32_t reserved;
} ks_cost_params;
_Static_assert(sizeof(ks_cost_params) == 36 + 14 * 4 + KS_COST_MAX_CSTATES * 24 + 2 * 4,
               "ks_cost_params: no hidden padding");

/* ks_topology_cost_params() (kscope/native/cost.h): the preset's figures. */

/* ---- the breakdown ----------------------------------------------------------- */

typedef enum ks_cost_part {
    KS_COST_CORE = 0,      /* the burst's own work at L1 speed (what a hot burst costs) */
    KS_COST_L2,            /* lines found in the own L2 (L1 lost them to other work) */
    KS_COST_LLC,           /* lines the caller placed in the own LLC */
    KS_COST_REMOTE,        /* first trip to another core, LLC or socket that holds the line */
    KS_COST_DRAM,          /* lines the caller placed in memory (never cached, or long gone) */
    KS_COST_RFO,           /* second trip: ownership of a line another core held */
    KS_COST_IDLE_FLUSH,    /* lines a deep C-state pushed out of the private caches */
    KS_COST_CAPACITY,      /* lines other work evicted (background traffic) */
    KS_COST_BANDWIDTH,     /* time beyond the latency bound: a link or DRAM is saturated */
    KS_COST_TLB,           /* page walks */
    KS_COST_CSTATE_EXIT,   /* waking the core (only when the burst's time includes it) */
    KS_COST_CONTENTION,    /* waiting behind other accessors of the same line */
    KS_COST_LOCK_HANDOFF,  /* a queued lock passed to this waiter */
    KS_COST_LOCK_SPIN,     /* spinning while the waiters ahead take their turns */
    KS_COST_FIRST_TOUCH,   /* page faults: the first write to pages not yet the process's own */
    KS_COST_PARTS
} ks_cost_part;

/* "idle_flush", ... (stable names for views and JSON); NULL out of range. Browser API:
 * the cost breakdown view names its parts with it. */
KS_API const char *ks_cost_part_name(int32_t part);

/* The parts of one costed thing (a simulated burst: ks_sim_burst_parts). */
typedef struct ks_cost_parts {
    double part_ns[KS_COST_PARTS];
} ks_cost_parts;

/* ---- a burst ------------------------------------------------------------------ */

/* Where a group of lines was left, seen from the CPU that runs the burst. */
typedef enum ks_cost_where {
    KS_WHERE_OWN_PRIVATE = 0,  /* this core's L1/L2 (it touched them last) */
    KS_WHERE_OWN_LLC,          /* this core's LLC, in no private cache */
    KS_WHERE_SAME_LLC_CORE,    /* another core's L1/L2, same LLC */
    KS_WHERE_OTHER_LLC,        /* another core's L1/L2, another LLC of this socket */
    KS_WHERE_OTHER_SOCKET,     /* another core's L1/L2 on another socket */
    KS_WHERE_DRAM,             /* in no cache: memory (home_remote picks the socket) */
    KS_WHERE_COUNT
} ks_cost_where;

typedef enum ks_cost_line_state {
    KS_LINE_CLEAN = 0,         /* Exclusive/Shared at its holder (or clean in an LLC / memory) */
    KS_LINE_DIRTY = 1,         /* Modified at its holder: a load is a HITM */
} ks_cost_line_state;

typedef struct ks_cost_lines {
    uint32_t lines;
    int32_t where;             /* ks_cost_where */
    int32_t state;             /* ks_cost_line_state */
    int32_t home_remote;       /* 1: the lines' memory is on another socket */
    uint64_t age_ns;           /* since the holder last touched them */
    uint64_t holder_idle_ns;   /* how long the holding core (another core) has idled; own: ignored */
} ks_cost_lines;
_Static_assert(sizeof(ks_cost_lines) == 32, "ks_cost_lines: 4 x int32 + 2 x u64");

#define KS_COST_MAX_GROUPS 8
#define KS_COST_NEVER UINT64_MAX

typedef enum ks_cost_order {
    KS_ORDER_SEQUENTIAL = 0,   /* address order: the stream prefetcher helps within a page */
    KS_ORDER_RANDOM = 1,       /* independent lines in no order the prefetcher can follow */
} ks_cost_order;

typedef struct ks_cost_sweep {
    int32_t order;             /* ks_cost_order */
    int32_t is_store;          /* 1: every line is read and written (x++ on each byte) */
    int32_t page_offset;       /* bytes from the start of a page to the area's first line */
    int32_t wake_in_burst;     /* 1: the burst's time includes the C-state exit */
    /* Background: other work, an explicit workload parameter (0 = none). Private: what
     * this core (and a remote holder) streams through its own caches while it runs;
     * LLC: what all the cores of an LLC stream through it, idle or not. */
    int32_t background_private_bytes_per_us;
    int32_t background_llc_bytes_per_us;
    int32_t streams_per_llc;   /* bursts running at once in this LLC (sharing its link); 0 = 1 */
    int32_t streams_per_socket;/* ... on this socket (sharing its DRAM); 0 = 1 */
    uint64_t idle_ns;          /* how long this core idled right before the burst */
    uint64_t since_own_touch_ns; /* since this core last touched the area (its TLB); KS_COST_NEVER */
    int32_t n_groups;
    int32_t first_touch_pages; /* pages of the area written for the first time (a fault each) */
    ks_cost_lines groups[KS_COST_MAX_GROUPS];
} ks_cost_sweep;
_Static_assert(sizeof(ks_cost_sweep) == 8 * 4 + 2 * 8 + 8 + KS_COST_MAX_GROUPS * 32,
               "ks_cost_sweep: no hidden padding");

typedef struct ks_cost_result {
    double total_ns;                   /* == the sum of part_ns, in index order */
    double part_ns[KS_COST_PARTS];
    double serial_ns;                  /* every trip one after another (what v1 charges) */
    double overlap_saved_ns;           /* misses in flight and prefetch, against serial */
    uint32_t lines;
    uint32_t lines_from[KS_SRC_COUNT]; /* the first trip's source, per line */
    uint32_t lines_rfo;                /* lines that took a second (ownership) trip */
    uint32_t lines_prefetched;
    uint32_t lines_idle_flushed;
    uint32_t lines_capacity_evicted;
    uint32_t hitm;                     /* loads that found the line Modified elsewhere */
    uint32_t pages;                    /* 4 KiB pages the burst touches */
    uint32_t pages_walked;
    uint32_t pages_faulted;            /* first_touch_pages: each took a page fault */
    uint32_t reserved;
    int32_t cstate;                    /* index into params.cstates this core reached, -1: none */
    int32_t bound;                     /* 0 core, 1 latency, 2 bandwidth: what set the memory time */
} ks_cost_result;
_Static_assert(sizeof(ks_cost_result) == 8 * (3 + KS_COST_PARTS) + 4 * (KS_SRC_COUNT + 12),
               "ks_cost_result: no hidden padding");

/* The functions that cost a burst, a contended line and a queued lock are declared in
 * kscope/native/cost.h: the native build (backend, tests, tools) calls them; the browser
 * reads their results through the simulation (kscope/sim_cost.h: ks_sim_burst_parts). */

/* ---- a line served one request at a time, in simulated time ----------------- */

/* The discrete-time counterpart of ks_cost_contended_line (cost_line_server.c): one per
 * contended line a simulated model touches. Plain data (snapshots copy it). It keeps the
 * last KS_COST_LINE_SLOTS reserved transfers: a simulation issues a chain of accesses for
 * later instants before another CPU's for earlier ones, so requests are placed by time. */
#define KS_COST_LINE_SLOTS 16
typedef struct ks_cost_line_server {
    double start_ns[KS_COST_LINE_SLOTS];   /* reserved transfers [start, end) */
    double end_ns[KS_COST_LINE_SLOTS];     /* 0: an empty slot */
    double floor_ns;               /* no transfer starts before this: the end of the latest
                                      reservation forgotten to make room (conservative) */
    double busy_ns;                /* sum of queued transfers (utilisation = busy / time) */
    double wait_ns;                /* sum of waits */
    uint64_t served;               /* requests that queued */
    uint64_t evicted;              /* reservations forgotten while still ahead (slots full) */
    uint64_t reserved;
} ks_cost_line_server;
_Static_assert(sizeof(ks_cost_line_server) == 16 * KS_COST_LINE_SLOTS + 48,
               "ks_cost_line_server: no hidden padding");


#endif
