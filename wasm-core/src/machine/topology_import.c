/*
 * Importing a user's own machine: the common sink.
 *
 * The kernel's ids are not the dense 0-based ids ks_cpu promises. Intel core
 * ids are per package and sparse (0,1,2,4,8,...), cache ids and node numbers
 * may skip, and an LLC may be known only by the CPUs that share it. So the
 * parsers keep every id as a raw 64-bit key, and here each kind of key is
 * replaced by its rank among the distinct keys of that kind:
 *
 *     raw core keys  (0,0) (0,4) (1,0) (1,4) (0,0) ...     (package, core_id)
 *     dense cores      0     1     2     3     0   ...
 *
 * Ranking in sorted order keeps the kernel's order (socket 0's cores before
 * socket 1's), so a machine whose ids are already dense imports unchanged.
 * Then smt_index numbers each core's CPUs in CPU-number order, which is what
 * Linux's thread-major numbering gives: CPU n is thread 0, CPU n + nr_cores
 * thread 1.
 *
 * Invariant on success: CPU numbers run 0..count-1 with no gap, every id kind
 * is dense, and the summary counts are the numbers of distinct ids.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/text_tokenizer.h"
#include "topology_import.h"

int32_t begin_import(const char *text, int32_t len, ks_topology **out, ks_parse_error *err)
{
    if (!out || len < 0 || (!text && len > 0))
        return KS_ERR_INVALID_ARG;
    *out = NULL;
    if (err)
        *err = (ks_parse_error){ 0 };
    return KS_OK;
}

void *grow_zeroed(void *items, int32_t *capacity, int32_t need, size_t size)
{
    if (need <= *capacity)
        return items;
    int32_t grown = *capacity ? *capacity : 64;
    while (grown < need)
        grown *= 2;
    char *p = realloc(items, (size_t)grown * size);
    if (!p)
        return NULL;
    memset(p + (size_t)*capacity * size, 0, (size_t)(grown - *capacity) * size);
    *capacity = grown;
    return p;
}

static int compare_keys(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ranks[i] = the rank of keys[i] among the distinct keys; scratch holds count keys. */
static void rank_keys(const int64_t *keys, int32_t count, int64_t *scratch, int32_t *ranks)
{
    memcpy(scratch, keys, (size_t)count * sizeof *scratch);
    qsort(scratch, (size_t)count, sizeof *scratch, compare_keys);
    int32_t distinct = 0;
    for (int32_t i = 0; i < count; i++)
        if (i == 0 || scratch[i] != scratch[distinct - 1])
            scratch[distinct++] = scratch[i];
    for (int32_t i = 0; i < count; i++) {
        const int64_t *at = bsearch(&keys[i], scratch, (size_t)distinct, sizeof *scratch,
                                    compare_keys);
        ranks[i] = (int32_t)(at - scratch);
    }
}

static int32_t *id_of(ks_cpu *c, raw_key k)
{
    switch (k) {
    case RAW_CORE: return &c->core;
    case RAW_LLC: return &c->llc;
    case RAW_NODE: return &c->node;
    default: return &c->socket;
    }
}

/* Fills cpus[i]'s dense ids from raw[i]'s keys; false if out of memory. */
static bool densify_ids(const raw_cpu *raw, int32_t count, ks_cpu *cpus)
{
    int64_t *keys = malloc((size_t)count * sizeof *keys);
    int64_t *scratch = malloc((size_t)count * sizeof *scratch);
    int32_t *ranks = malloc((size_t)count * sizeof *ranks);
    bool ok = keys && scratch && ranks;
    for (raw_key k = 0; ok && k < RAW_KEY_COUNT; k++) {
        for (int32_t i = 0; i < count; i++)
            keys[i] = raw[i].key[k];
        rank_keys(keys, count, scratch, ranks);
        for (int32_t i = 0; i < count; i++)
            *id_of(&cpus[i], k) = ranks[i];
    }
    free(keys);
    free(scratch);
    free(ranks);
    return ok;
}

/* Numbers each core's CPUs 0, 1, ... in CPU-number order; false if out of memory. */
static bool number_smt_threads(ks_cpu *cpus, int32_t count)
{
    int32_t *seen = calloc((size_t)count, sizeof *seen);     /* dense core ids < count */
    if (!seen)
        return false;
    for (int32_t i = 0; i < count; i++) {
        cpus[i].cpu = i;
        cpus[i].smt_index = seen[cpus[i].core]++;
    }
    free(seen);
    return true;
}

static int32_t check_no_gap(const raw_cpu *raw, int32_t count, ks_parse_error *err)
{
    if (count == 0)
        return parse_fail(err, 0, 0, span_of("CPU"), "no CPU records found");
    for (int32_t i = 0; i < count; i++)
        if (!raw[i].line)
            return parse_fail(err, 0, 0, span_of("CPU"),
                              "CPU %d is missing: CPU numbers must run 0..%d without gaps "
                              "(is it offline?)", i, count - 1);
    return KS_OK;
}

int32_t topology_from_raw(const char *name, const raw_cpu *raw, int32_t count, cache_sizes sizes,
                          ks_topology **out, ks_parse_error *err)
{
    int32_t status = check_no_gap(raw, count, err);
    if (status != KS_OK)
        return status;
    ks_cpu *cpus = calloc((size_t)count, sizeof *cpus);
    if (!cpus)
        return KS_ERR_NO_MEMORY;
    if (!densify_ids(raw, count, cpus) || !number_smt_threads(cpus, count)) {
        free(cpus);
        return KS_ERR_NO_MEMORY;
    }
    return topology_build(name, cpus, count, sizes, out);
}
