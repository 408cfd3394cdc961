/*
 * Importing a machine from `lscpu -p`.
 *
 * lscpu's parsable output is the cheapest way for a student to describe their
 * machine: one comma-separated row per online CPU, ids only, no sizes. The
 * column set is what we ask for, `-p=CPU,CORE,SOCKET,NODE,CACHE`; the cache
 * column holds the L1d:L1i:L2:L3 ids of the CPU's caches. Plain `lscpu -p`
 * prints the same columns in its old ("compat") layout, where the cache ids
 * follow an empty column, comma-separated; we read both:
 *
 *     CPU  CORE  SOCKET  NODE  CACHE
 *     2,   1,    0,      0,    4:4:1:0        -p=CPU,CORE,SOCKET,NODE,CACHE
 *     2,   1,    0,      0,    ,4,4,1,0       -p   (L3 id = the 4th id either way)
 *
 * CORE is lscpu's machine-wide logical core id; the L3 id names the LLC. A
 * machine with no 4th cache id (no L3) gets one LLC per socket, and an empty
 * NODE (a kernel without NUMA) means node 0. lscpu gives no cache sizes, so the
 * summary's are 0.
 */
#include <stdlib.h>

#include "../base/text_tokenizer.h"
#include "topology_import.h"

enum { COL_CPU, COL_CORE, COL_SOCKET, COL_NODE, COL_CACHE, MAX_FIELDS = 16 };
enum { L3_INDEX = 3 };          /* L1d:L1i:L2:L3 */

static const char *const column_names[] = { "CPU", "CORE", "SOCKET", "NODE", "CACHE" };

typedef struct raw_table {
    raw_cpu *cpus;
    int32_t count;              /* one past the highest CPU number read */
    int32_t capacity;
} raw_table;

/* Column col of a row as a number; an empty NODE is node 0. */
static int32_t read_number(const text_span *fields, int32_t col, int32_t line, int32_t *out,
                           ks_parse_error *err)
{
    text_span f = span_trim(fields[col]);
    if (col == COL_NODE && f.len == 0) {
        *out = 0;
        return KS_OK;
    }
    if (parse_int(f, out))
        return KS_OK;
    return parse_fail(err, line, col + 1, span_of(column_names[col]),
                      "expected a number, got '%.*s'", SPAN_QUOTE(f));
}

/* The row's LLC key: its L3 id, ':'-joined in column 5 or (plain -p) comma-separated
 * after an empty column 5; its socket when the 4th id is absent or empty. */
static int32_t read_llc(const text_span *fields, int32_t count, int32_t line, int32_t socket,
                        int64_t *llc, ks_parse_error *err)
{
    text_span joined[MAX_FIELDS];
    const text_span *ids = joined;
    int32_t n = 0, column = COL_CACHE + 1;
    if (count > COL_CACHE + 1 && span_trim(fields[COL_CACHE]).len == 0) {
        ids = fields + COL_CACHE + 1;
        n = (count < MAX_FIELDS ? count : MAX_FIELDS) - (COL_CACHE + 1);
        column = COL_CACHE + 2 + L3_INDEX;
    } else if (count > COL_CACHE) {
        n = split_fields(fields[COL_CACHE], ':', joined, MAX_FIELDS);
    }
    text_span id_text = n > L3_INDEX ? span_trim(ids[L3_INDEX]) : (text_span){ 0 };
    int32_t id;
    *llc = llc_key_by_socket(socket);
    if (id_text.len == 0)
        return KS_OK;
    if (!parse_int(id_text, &id))
        return parse_fail(err, line, column, span_of("CACHE"),
                          "expected a number as the L3 id, got '%.*s'", SPAN_QUOTE(id_text));
    *llc = llc_key_by_id(id);
    return KS_OK;
}

/* The table's record for CPU cpu, refusing a number seen before. */
static int32_t claim_cpu(raw_table *t, int32_t cpu, int32_t line, raw_cpu **out,
                         ks_parse_error *err)
{
    if (cpu < 0 || cpu >= IMPORT_MAX_CPUS)
        return parse_fail(err, line, COL_CPU + 1, span_of("CPU"),
                          "CPU number %d is outside 0..%d", cpu, IMPORT_MAX_CPUS - 1);
    raw_cpu *grown = grow_zeroed(t->cpus, &t->capacity, cpu + 1, sizeof *t->cpus);
    if (!grown)
        return KS_ERR_NO_MEMORY;
    t->cpus = grown;
    if (t->cpus[cpu].line)
        return parse_fail(err, line, COL_CPU + 1, span_of("CPU"),
                          "CPU %d is already listed on line %d", cpu, t->cpus[cpu].line);
    t->count = cpu + 1 > t->count ? cpu + 1 : t->count;
    *out = &t->cpus[cpu];
    return KS_OK;
}

/*
 * One row, e.g. from a published `lscpu -p` of a 12-CPU hybrid Intel laptop:
 *     2,1,0,0,,4,4,1,0
 * CPU 2 is the first thread of core 1 (this laptop numbers siblings adjacently:
 * CPU 3 is the other), socket 0, node 0; cache ids L1d 4, L1i 4, L2 1, L3 0.
 */
static int32_t parse_row(text_span text, int32_t line, raw_table *t, ks_parse_error *err)
{
    text_span fields[MAX_FIELDS];
    int32_t count = split_fields(text, ',', fields, MAX_FIELDS), v[COL_CACHE], status = KS_OK;
    if (count < COL_CACHE)
        return parse_fail(err, line, count + 1, span_of(column_names[count]),
                          "expected at least 4 columns (CPU,CORE,SOCKET,NODE), got %d", count);
    for (int32_t col = 0; col < COL_CACHE && status == KS_OK; col++)
        status = read_number(fields, col, line, &v[col], err);
    int64_t llc = 0;
    raw_cpu *r = NULL;
    if (status == KS_OK)
        status = read_llc(fields, count, line, v[COL_SOCKET], &llc, err);
    if (status == KS_OK)
        status = claim_cpu(t, v[COL_CPU], line, &r, err);
    if (status != KS_OK)
        return status;
    *r = (raw_cpu){ .line = line, .key = {
        [RAW_CORE] = core_key(v[COL_SOCKET], v[COL_CORE]), [RAW_LLC] = llc,
        [RAW_NODE] = v[COL_NODE], [RAW_SOCKET] = v[COL_SOCKET] } };
    return KS_OK;
}

/* Every row that is not blank and not a '#' comment. */
static int32_t parse_rows(const char *text, int32_t len, raw_table *t, ks_parse_error *err)
{
    line_reader r = line_reader_of(text, len);
    text_span line;
    while (read_line(&r, &line)) {
        line = span_trim(line);
        if (line.len == 0 || line.at[0] == '#')
            continue;
        int32_t status = parse_row(line, r.line, t, err);
        if (status != KS_OK)
            return status;
    }
    return KS_OK;
}

int32_t ks_topology_from_lscpu(const char *text, int32_t len, ks_topology **out,
                               ks_parse_error *err)
{
    int32_t status = begin_import(text, len, out, err);
    if (status != KS_OK)
        return status;
    raw_table t = { 0 };
    status = parse_rows(text, len, &t, err);
    if (status == KS_OK)
        status = topology_from_raw("lscpu", t.cpus, t.count, (cache_sizes){ 0 }, out, err);
    free(t.cpus);
    return status;
}
