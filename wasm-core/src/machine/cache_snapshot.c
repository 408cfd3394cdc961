/*
 * Whole-state snapshots of a ks_cache, for stepping back in time.
 *
 * A snapshot is a flat byte image of everything an access can read or change:
 * params, objects (name, size, home node), every line's holders and times, and
 * all counters. Restoring it into a cache built on the same topology gives back
 * exactly that state, so replaying the same accesses gives the same costs. The
 * image is for the build that wrote it (native and wasm agree on the layout,
 * which has only fixed-width fields, but nothing promises that across versions:
 * the version field changes when the layout does).
 *
 *     offset  field
 *     0       magic "KSC1" (u32), version (u32)
 *     8       cpus, cores, llcs, nodes, sockets (i32 x 5): must match the cache
 *     28      ks_cache_params (16 bytes)
 *     44      n_objects (u32), n_lines (u32)
 *     52      per object: size_bytes (u32), home_node (i32), name_len (u32), name bytes
 *     ...     line_state x n_lines, ks_line_stats x n_lines,
 *             ks_line_stats x 8 n_lines if params.track_words
 *
 * Restore validates the whole image before touching the cache: a bad buffer
 * returns an error and leaves the cache as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "cache_model.h"

#define SNAPSHOT_MAGIC 0x3143534bu     /* "KSC1" little-endian */
#define SNAPSHOT_VERSION 1u
#define HEADER_BYTES 52u
#define OBJECT_HEADER_BYTES 12u

typedef struct cursor {
    uint8_t *w;                 /* writing: destination, else NULL */
    const uint8_t *r;           /* reading: source */
    uint64_t off, len;
} cursor;

static int take(cursor *c, void *dst, uint64_t n)
{
    if (c->off + n > c->len)
        return 0;
    memcpy(dst, c->r + c->off, n);
    c->off += n;
    return 1;
}

static void put(cursor *c, const void *src, uint64_t n)
{
    memcpy(c->w + c->off, src, n);
    c->off += n;
}

static void put_u32(cursor *c, uint32_t v)
{
    put(c, &v, sizeof v);
}

static uint64_t snapshot_bytes(const ks_cache *cache)
{
    uint64_t n = HEADER_BYTES;
    for (int32_t i = 0; i < cache->n_objects; i++)
        n += OBJECT_HEADER_BYTES + strlen(cache->objects[i].name);
    uint64_t per_line = sizeof(line_state) + sizeof(ks_line_stats);
    if (cache->params.track_words)
        per_line += WORDS_PER_LINE * sizeof(ks_line_stats);
    return n + (uint64_t)cache->n_lines * per_line;
}

/* 0 if the cache is NULL or its image would not fit in 32 bits. */
uint32_t ks_cache_snapshot_size(const ks_cache *cache)
{
    if (!cache)
        return 0;
    uint64_t n = snapshot_bytes(cache);
    return n > UINT32_MAX ? 0 : (uint32_t)n;
}

int32_t ks_cache_snapshot_save(const ks_cache *cache, void *buf, uint32_t len)
{
    if (!cache || !buf)
        return KS_ERR_INVALID_ARG;
    uint64_t need = snapshot_bytes(cache);
    if (need > UINT32_MAX || len < need)
        return KS_ERR_RANGE;
    cursor c = { .w = buf, .len = len };
    put_u32(&c, SNAPSHOT_MAGIC);
    put_u32(&c, SNAPSHOT_VERSION);
    int32_t dims[5] = { cache->cpus, cache->cores, cache->llcs, cache->nodes, cache->sockets };
    put(&c, dims, sizeof dims);
    put(&c, &cache->params, sizeof cache->params);
    put_u32(&c, (uint32_t)cache->n_objects);
    put_u32(&c, cache->n_lines);
    for (int32_t i = 0; i < cache->n_objects; i++) {
        const cache_object *o = &cache->objects[i];
        uint32_t name_len = (uint32_t)strlen(o->name);
        put_u32(&c, o->size_bytes);
        put(&c, &o->home_node, sizeof o->home_node);
        put_u32(&c, name_len);
        put(&c, o->name, name_len);
    }
    if (cache->n_lines) {
        put(&c, cache->lines, (uint64_t)cache->n_lines * sizeof *cache->lines);
        put(&c, cache->line_stats, (uint64_t)cache->n_lines * sizeof *cache->line_stats);
        if (cache->params.track_words)
            put(&c, cache->word_stats,
                (uint64_t)cache->n_lines * WORDS_PER_LINE * sizeof *cache->word_stats);
    }
    return KS_OK;
}

/* A stored line must name real cores and LLCs, once each, and keep the invariants. */
static int line_is_valid(const ks_cache *cache, const line_state *ls)
{
    if (ls->n_priv > LINE_PRIV_SLOTS || ls->n_llc > LINE_LLC_SLOTS)
        return 0;
    for (uint8_t i = 0; i < ls->n_priv; i++) {
        if (ls->priv_core[i] >= cache->cores || ls->priv_state[i] < PRIV_S
            || ls->priv_state[i] > PRIV_M)
            return 0;
        if (ls->priv_state[i] != PRIV_S && ls->n_priv != 1)
            return 0;
        if (ls->priv_state[i] == PRIV_M && ls->n_llc != 0)
            return 0;
        for (uint8_t j = 0; j < i; j++)
            if (ls->priv_core[j] == ls->priv_core[i])
                return 0;
    }
    for (uint8_t i = 0; i < ls->n_llc; i++) {
        if (ls->llc_id[i] >= cache->llcs)
            return 0;
        for (uint8_t j = 0; j < i; j++)
            if (ls->llc_id[j] == ls->llc_id[i])
                return 0;
    }
    return 1;
}

/* The restored state, built aside and swapped in only when complete. */
typedef struct restored {
    ks_cache_params params;
    int32_t n_objects;
    uint32_t n_lines, max_lines;
    cache_object *objects;
    line_state *lines;
    ks_line_stats *line_stats, *word_stats;
    ks_line_place *places;
} restored;

static void restored_free(restored *s)
{
    for (int32_t i = 0; s->objects && i < s->n_objects; i++)
        free(s->objects[i].name);
    free(s->objects);
    free(s->lines);
    free(s->line_stats);
    free(s->word_stats);
    free(s->places);
}

static int32_t read_objects(const ks_cache *cache, cursor *c, restored *s)
{
    s->objects = calloc((size_t)(s->n_objects ? s->n_objects : 1), sizeof *s->objects);
    if (!s->objects)
        return KS_ERR_NO_MEMORY;
    uint64_t lines = 0;
    for (int32_t i = 0; i < s->n_objects; i++) {
        cache_object *o = &s->objects[i];
        uint32_t name_len;
        if (!take(c, &o->size_bytes, 4) || !take(c, &o->home_node, 4) || !take(c, &name_len, 4)
            || c->off + name_len > c->len)
            return KS_ERR_INVALID_ARG;
        if (o->size_bytes == 0 || o->home_node < 0 || o->home_node >= cache->nodes)
            return KS_ERR_INVALID_ARG;
        o->name = malloc((size_t)name_len + 1);
        if (!o->name)
            return KS_ERR_NO_MEMORY;
        take(c, o->name, name_len);
        o->name[name_len] = '\0';
        if (strlen(o->name) != name_len)
            return KS_ERR_INVALID_ARG;
        o->lines = (uint32_t)(((uint64_t)o->size_bytes + KS_CACHE_LINE - 1) / KS_CACHE_LINE);
        o->first_line = (uint32_t)lines;
        lines += o->lines;
        if (o->lines > s->max_lines)
            s->max_lines = o->lines;
    }
    return lines == s->n_lines ? KS_OK : KS_ERR_INVALID_ARG;
}

static int32_t read_lines(const ks_cache *cache, cursor *c, restored *s)
{
    size_t n = s->n_lines ? s->n_lines : 1;
    uint64_t words = s->params.track_words ? WORDS_PER_LINE : 0;
    uint64_t need = (uint64_t)s->n_lines * (sizeof(line_state) + (1 + words) * sizeof(ks_line_stats));
    if (c->off + need != c->len)
        return KS_ERR_INVALID_ARG;
    s->lines = malloc(n * sizeof *s->lines);
    s->line_stats = malloc(n * sizeof *s->line_stats);
    s->word_stats = words ? malloc(n * WORDS_PER_LINE * sizeof *s->word_stats) : NULL;
    s->places = malloc((size_t)(s->max_lines ? s->max_lines : 1) * sizeof *s->places);
    if (!s->lines || !s->line_stats || (words && !s->word_stats) || !s->places)
        return KS_ERR_NO_MEMORY;
    take(c, s->lines, (uint64_t)s->n_lines * sizeof *s->lines);
    take(c, s->line_stats, (uint64_t)s->n_lines * sizeof *s->line_stats);
    if (words)
        take(c, s->word_stats, (uint64_t)s->n_lines * words * sizeof *s->word_stats);
    for (uint32_t i = 0; i < s->n_lines; i++)
        if (!line_is_valid(cache, &s->lines[i]))
            return KS_ERR_INVALID_ARG;
    return KS_OK;
}

static int32_t read_snapshot(const ks_cache *cache, cursor *c, restored *s)
{
    uint32_t magic, version, n_objects;
    int32_t dims[5];
    if (!take(c, &magic, 4) || !take(c, &version, 4) || !take(c, dims, sizeof dims)
        || !take(c, &s->params, sizeof s->params) || !take(c, &n_objects, 4)
        || !take(c, &s->n_lines, 4))
        return KS_ERR_INVALID_ARG;
    if (magic != SNAPSHOT_MAGIC || version != SNAPSHOT_VERSION)
        return KS_ERR_INVALID_ARG;
    if (dims[0] != cache->cpus || dims[1] != cache->cores || dims[2] != cache->llcs
        || dims[3] != cache->nodes || dims[4] != cache->sockets)
        return KS_ERR_INVALID_ARG;     /* taken on another topology */
    if (cache_check_params(&s->params) != KS_OK || n_objects > INT32_MAX)
        return KS_ERR_INVALID_ARG;
    /* Each object takes at least its header: bounds the allocation by len. */
    if ((uint64_t)n_objects * OBJECT_HEADER_BYTES > c->len - c->off)
        return KS_ERR_INVALID_ARG;
    s->n_objects = (int32_t)n_objects;
    int32_t rc = read_objects(cache, c, s);
    return rc == KS_OK ? read_lines(cache, c, s) : rc;
}

int32_t ks_cache_snapshot_restore(ks_cache *cache, const void *buf, uint32_t len)
{
    if (!cache || !buf)
        return KS_ERR_INVALID_ARG;
    cursor c = { .r = buf, .len = len };
    restored s = { 0 };
    int32_t rc = read_snapshot(cache, &c, &s);
    if (rc != KS_OK) {
        restored_free(&s);
        return rc;
    }
    cache_free_objects(cache);
    cache_apply_params(cache, &s.params);
    cache->objects = s.objects;
    cache->n_objects = cache->cap_objects = s.n_objects;
    cache->lines = s.lines;
    cache->line_stats = s.line_stats;
    cache->word_stats = s.word_stats;
    cache->n_lines = cache->cap_lines = s.n_lines;
    cache->places = s.places;
    cache->cap_places = s.max_lines;
    return KS_OK;
}
