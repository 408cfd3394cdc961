/*
 * Importing a machine from a flattened sysfs dump.
 *
 * /sys/devices/system/cpu is the kernel's own account of the topology, with
 * cache sizes that lscpu -p leaves out. A browser cannot read a directory tree,
 * so the backend and the frontend flatten it into one record per file (the
 * format is specified in include/kscope/topology.h):
 *
 *     cpu3/topology/physical_package_id<TAB>0
 *     cpu3/cache/index3/shared_cpu_list<TAB>0-7,192-199
 *     ../node/node0/cpulist<TAB>0-95,192-287
 *
 * Records come in directory-walk order, so a CPU's facts are gathered into a
 * sysfs_cpu as they arrive and judged only at the end:
 *
 *     sysfs_cpu[3]: package 0, core_id 1, node 0
 *         cache[0] L1 Data 32K  cache[1] L1 Instruction  cache[2] L2 1024K
 *         cache[3] L3 32768K, shared with 0-7,192-199   <- the LLC (highest data level)
 *
 * Paths we have no use for (cpufreq/, cpuidle/, online, node/node0/meminfo)
 * are skipped; a record we do use with content we cannot read is an error
 * naming its line and file.
 */
#include <stdlib.h>

#include "../base/text_tokenizer.h"
#include "topology_import.h"

enum { MAX_CACHE_INDEX = 8 };   /* cache/index0..index7; x86 has 4, big ARM parts 5 */

typedef struct sysfs_cache {
    int32_t level;              /* 0 = not given */
    int32_t size_kib;           /* 0 = not given */
    bool instruction;           /* type Instruction: never the LLC, not the L1d */
    bool has_id, has_first_cpu;
    int32_t id;
    int32_t first_cpu;          /* lowest CPU of shared_cpu_list */
} sysfs_cache;

typedef struct sysfs_cpu {
    int32_t line;               /* first line of a cpuN/ record we use; 0 = none */
    bool has_package, has_core_id;
    int32_t package, core_id;
    int32_t node, node_line;    /* node_line 0: in no node cpulist (node 0) */
    sysfs_cache cache[MAX_CACHE_INDEX];
} sysfs_cpu;

typedef struct sysfs_table {
    sysfs_cpu *cpus;
    int32_t count;              /* one past the highest CPU with a cpuN/ record */
    int32_t capacity;
} sysfs_table;

/* The record being applied, kept whole for error messages. */
typedef struct sysfs_record {
    int32_t line;
    text_span path;
    text_span file;             /* the path's last component: the error's field */
    text_span content;
    ks_parse_error *err;
} sysfs_record;

static int32_t fail_content(const sysfs_record *rec, const char *expected)
{
    return parse_fail(rec->err, rec->line, 2, rec->file, "%.*s: expected %s, got '%.*s'",
                      SPAN_QUOTE(rec->path), expected, SPAN_QUOTE(rec->content));
}

static int32_t read_int(const sysfs_record *rec, int32_t *out)
{
    return parse_int(rec->content, out) ? KS_OK : fail_content(rec, "a number");
}

/* "32768K" (what the kernel prints) or "32M". */
static int32_t read_size_kib(const sysfs_record *rec, int32_t *kib)
{
    text_span digits = rec->content;
    char unit = digits.len > 0 ? digits.at[digits.len - 1] : 0;
    int32_t scale = unit == 'K' ? 1 : unit == 'M' ? 1024 : 0;     /* KiB per unit */
    digits.len -= scale ? 1 : 0;
    if (!scale || !parse_int(digits, kib) || *kib < 0 || *kib > INT32_MAX / scale)
        return fail_content(rec, "a size like 32768K");
    *kib *= scale;
    return KS_OK;
}

/* CPU cpu's record, growing the table; NULL if out of memory. */
static sysfs_cpu *cpu_slot(sysfs_table *t, int32_t cpu)
{
    sysfs_cpu *grown = grow_zeroed(t->cpus, &t->capacity, cpu + 1, sizeof *t->cpus);
    if (grown)
        t->cpus = grown;
    return grown ? &grown[cpu] : NULL;
}

static int32_t check_cpu_number(const sysfs_record *rec, int32_t cpu)
{
    if (cpu >= 0 && cpu < IMPORT_MAX_CPUS)
        return KS_OK;
    return parse_fail(rec->err, rec->line, 1, rec->file, "%.*s: CPU number %d is outside 0..%d",
                      SPAN_QUOTE(rec->path), cpu, IMPORT_MAX_CPUS - 1);
}

/* "topology/<file>": the package and the per-package core id. */
static int32_t apply_topology(sysfs_cpu *c, text_span file, const sysfs_record *rec)
{
    if (span_equals(file, "physical_package_id")) {
        c->has_package = true;
        return read_int(rec, &c->package);
    }
    if (span_equals(file, "core_id")) {
        c->has_core_id = true;
        return read_int(rec, &c->core_id);
    }
    return KS_OK;
}

/* One file of a cache/indexN directory. */
static int32_t apply_cache_file(sysfs_cache *ca, text_span file, const sysfs_record *rec)
{
    int32_t hi;
    text_span list = rec->content;
    if (span_equals(file, "level"))
        return read_int(rec, &ca->level);
    if (span_equals(file, "size"))
        return read_size_kib(rec, &ca->size_kib);
    if (span_equals(file, "type")) {
        ca->instruction = span_equals(rec->content, "Instruction");
        return KS_OK;
    }
    if (span_equals(file, "id")) {
        ca->has_id = true;
        return read_int(rec, &ca->id);
    }
    if (span_equals(file, "shared_cpu_list")) {
        ca->has_first_cpu = true;
        if (next_cpu_range(&list, &ca->first_cpu, &hi) != 1)
            return fail_content(rec, "a cpulist like 0-7,192-199");
    }
    return KS_OK;
}

/* "cache/index<N>/<file>". */
static int32_t apply_cache(sysfs_cpu *c, text_span rest, const sysfs_record *rec)
{
    text_span number, file;
    int32_t index;
    if (!span_split(rest, '/', &number, &file) || !parse_int(number, &index))
        return KS_OK;
    if (index < 0 || index >= MAX_CACHE_INDEX)
        return parse_fail(rec->err, rec->line, 1, rec->file,
                          "%.*s: cache index %d is outside 0..%d", SPAN_QUOTE(rec->path), index,
                          MAX_CACHE_INDEX - 1);
    return apply_cache_file(&c->cache[index], file, rec);
}

/* "cpu<N>/topology/..." or "cpu<N>/cache/...": the records that describe CPU N. */
static int32_t apply_cpu(sysfs_table *t, text_span rest, const sysfs_record *rec)
{
    text_span number;
    int32_t cpu, status;
    if (!span_split(rest, '/', &number, &rest) || !parse_int(number, &cpu))
        return KS_OK;           /* cpufreq/, cpuidle/, ... */
    bool topology = span_cut_prefix(&rest, "topology/");
    if (!topology && !span_cut_prefix(&rest, "cache/index"))
        return KS_OK;           /* cpuN/online, cpuN/cpufreq/, ... */
    if ((status = check_cpu_number(rec, cpu)) != KS_OK)
        return status;
    sysfs_cpu *c = cpu_slot(t, cpu);
    if (!c)
        return KS_ERR_NO_MEMORY;
    c->line = c->line ? c->line : rec->line;
    t->count = cpu + 1 > t->count ? cpu + 1 : t->count;
    return topology ? apply_topology(c, rest, rec) : apply_cache(c, rest, rec);
}

/* Puts every CPU of one range of "node/node<N>/cpulist" on node. */
static int32_t place_on_node(sysfs_table *t, int32_t node, int32_t lo, int32_t hi,
                             const sysfs_record *rec)
{
    int32_t status = check_cpu_number(rec, hi);
    for (int32_t cpu = lo; cpu <= hi && status == KS_OK; cpu++) {
        sysfs_cpu *c = cpu_slot(t, cpu);
        if (!c)
            return KS_ERR_NO_MEMORY;
        if (c->node_line)
            return parse_fail(rec->err, rec->line, 2, rec->file,
                              "CPU %d is already in node %d (line %d)", cpu, c->node, c->node_line);
        c->node = node;
        c->node_line = rec->line;
    }
    return status;
}

/* "node/node<N>/cpulist", after "../" or "node/node" was cut off. */
static int32_t apply_node(sysfs_table *t, text_span rest, const sysfs_record *rec)
{
    text_span number, file, list = rec->content;
    int32_t node, lo, hi, more, status = KS_OK;
    if (!span_split(rest, '/', &number, &file) || !parse_int(number, &node) ||
        !span_equals(file, "cpulist"))
        return KS_OK;           /* node/node0/meminfo, ... */
    while (status == KS_OK && (more = next_cpu_range(&list, &lo, &hi)) == 1)
        status = place_on_node(t, node, lo, hi, rec);
    return status == KS_OK && more < 0 ? fail_content(rec, "a cpulist like 0-95,192-287") : status;
}

static int32_t apply_record(sysfs_table *t, const sysfs_record *rec)
{
    text_span rest = rec->path;
    span_cut_prefix(&rest, "../");
    if (span_cut_prefix(&rest, "node/node"))
        return apply_node(t, rest, rec);
    if (span_cut_prefix(&rest, "cpu"))
        return apply_cpu(t, rest, rec);
    return KS_OK;
}

static text_span last_component(text_span path)
{
    int32_t start = path.len;
    while (start > 0 && path.at[start - 1] != '/')
        start--;
    return (text_span){ path.at + start, path.len - start };
}

/* e.g. "cpu3/cache/index3/shared_cpu_list\t0-7,192-199"; blank and '#' lines skipped. */
static int32_t parse_records(const char *text, int32_t len, sysfs_table *t, ks_parse_error *err)
{
    line_reader r = line_reader_of(text, len);
    text_span line;
    while (read_line(&r, &line)) {
        text_span trimmed = span_trim(line);
        sysfs_record rec = { .line = r.line, .err = err };
        if (trimmed.len == 0 || trimmed.at[0] == '#')
            continue;
        if (!span_split(line, '\t', &rec.path, &rec.content))
            return parse_fail(err, r.line, 1, span_of("path"),
                              "expected <path><TAB><content>, got '%.*s'", SPAN_QUOTE(trimmed));
        rec.path = span_trim(rec.path);
        rec.content = span_trim(rec.content);
        rec.file = last_component(rec.path);
        int32_t status = apply_record(t, &rec);
        if (status != KS_OK)
            return status;
    }
    return KS_OK;
}

/* The LLC is the highest-level data or unified cache, keyed as well as sysfs allows. */
static int64_t llc_key_of(const sysfs_cpu *c)
{
    const sysfs_cache *llc = NULL;
    for (int32_t i = 0; i < MAX_CACHE_INDEX; i++) {
        const sysfs_cache *ca = &c->cache[i];
        if (ca->level > 0 && !ca->instruction && (!llc || ca->level > llc->level))
            llc = ca;
    }
    if (llc && llc->has_id)
        return llc_key_by_id(llc->id);
    if (llc && llc->has_first_cpu)
        return llc_key_by_first_cpu(llc->first_cpu);
    return llc_key_by_socket(c->package);
}

static int32_t fail_missing(ks_parse_error *err, const sysfs_cpu *c, int32_t cpu, const char *file)
{
    return parse_fail(err, c->line, 1, span_of(file), "cpu%d has no topology/%s", cpu, file);
}

/* Turns the gathered facts into the sink's raw records. */
static int32_t collect_raw(const sysfs_table *t, raw_cpu *raw, ks_parse_error *err)
{
    for (int32_t i = 0; i < t->count; i++) {
        const sysfs_cpu *c = &t->cpus[i];
        if (!c->line)
            continue;           /* a gap: topology_from_raw names it */
        if (!c->has_package)
            return fail_missing(err, c, i, "physical_package_id");
        if (!c->has_core_id)
            return fail_missing(err, c, i, "core_id");
        raw[i] = (raw_cpu){ .line = c->line, .key = {
            [RAW_CORE] = core_key(c->package, c->core_id), [RAW_LLC] = llc_key_of(c),
            [RAW_NODE] = c->node, [RAW_SOCKET] = c->package } };
    }
    return KS_OK;
}

/* Sizes from the lowest-numbered CPU that reports each level. */
static cache_sizes sizes_of(const sysfs_table *t)
{
    cache_sizes s = { 0 };
    for (int32_t i = 0; i < t->count; i++)
        for (int32_t x = 0; x < MAX_CACHE_INDEX; x++) {
            const sysfs_cache *ca = &t->cpus[i].cache[x];
            int32_t *slot = ca->level == 1 ? &s.l1d_kib : ca->level == 2 ? &s.l2_kib
                          : ca->level == 3 ? &s.l3_kib : NULL;
            if (slot && !ca->instruction && *slot == 0)
                *slot = ca->size_kib;
        }
    return s;
}

int32_t ks_topology_from_sysfs(const char *text, int32_t len, ks_topology **out,
                               ks_parse_error *err)
{
    int32_t status = begin_import(text, len, out, err);
    if (status != KS_OK)
        return status;
    sysfs_table t = { 0 };
    raw_cpu *raw = NULL;
    status = parse_records(text, len, &t, err);
    if (status == KS_OK && t.count > 0 && !(raw = calloc((size_t)t.count, sizeof *raw)))
        status = KS_ERR_NO_MEMORY;
    if (status == KS_OK)
        status = collect_raw(&t, raw, err);
    if (status == KS_OK)
        status = topology_from_raw("sysfs", raw, t.count, sizes_of(&t), out, err);
    free(raw);
    free(t.cpus);
    return status;
}
