/*
 * Internal: the sink both machine importers (lscpu_parser.c, sysfs_parser.c)
 * feed. A parser fills one raw_cpu per CPU number with the ids exactly as the
 * kernel gave them, as 64-bit keys; topology_from_raw() checks the table,
 * renumbers each kind of key densely in sorted order and builds the topology.
 */
#ifndef KSCOPE_MACHINE_TOPOLOGY_IMPORT_H
#define KSCOPE_MACHINE_TOPOLOGY_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kscope/parse.h"
#include "topology_spec.h"

/* CPU numbers at or above this are refused (Linux's NR_CPUS tops out at 8192). */
#define IMPORT_MAX_CPUS 65536

typedef enum raw_key {
    RAW_CORE,                   /* core_key(): a core id is only unique within its package */
    RAW_LLC,                    /* llc_key_*() */
    RAW_NODE,
    RAW_SOCKET,
    RAW_KEY_COUNT
} raw_key;

/* One CPU as read. line == 0: the input never named this CPU. */
typedef struct raw_cpu {
    int32_t line;
    int64_t key[RAW_KEY_COUNT];
} raw_cpu;

static inline int64_t core_key(int32_t socket, int32_t core)
{
    return (int64_t)socket * ((int64_t)1 << 32) + core;
}

/* An LLC is keyed by the kernel's cache id, by the first CPU sharing it, or by
 * its socket when nothing better is known; the tag keeps the three apart. */
static inline int64_t llc_key_by_id(int32_t id)
{
    return ((int64_t)0 << 40) + id;
}

static inline int64_t llc_key_by_first_cpu(int32_t cpu)
{
    return ((int64_t)1 << 40) + cpu;
}

static inline int64_t llc_key_by_socket(int32_t socket)
{
    return ((int64_t)2 << 40) + socket;
}

/* Checks an importer's arguments, clears *out and *err (err may be NULL). */
int32_t begin_import(const char *text, int32_t len, ks_topology **out, ks_parse_error *err);

/* items (of size-byte elements, *capacity of them) regrown to hold at least need,
 * the new part zeroed; NULL if out of memory (items is then left as it was). */
void *grow_zeroed(void *items, int32_t *capacity, int32_t need, size_t size);

/* Builds *out named name from raw[0..count-1]; a CPU the input never named
 * (a gap in the numbering) or an empty table is a parse error. */
int32_t topology_from_raw(const char *name, const raw_cpu *raw, int32_t count, cache_sizes sizes,
                          ks_topology **out, ks_parse_error *err);

#endif
