/*
 * Helpers shared by the simulator tests (test_sim_*.c): build a simulation from
 * a preset and inline JSON, hash event streams, copy frames.
 */
#ifndef KSCOPE_TESTS_SIM_TEST_UTIL_H
#define KSCOPE_TESTS_SIM_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/sim.h"

/* A simulation and the topology it runs on. */
typedef struct test_sim {
    ks_topology *topo;
    ks_sim *sim;
    ks_parse_error err;
    int32_t status;
} test_sim;

static inline test_sim test_sim_new(const char *preset, const char *json, uint64_t seed,
                                    const char *algo)
{
    test_sim t = { 0 };
    ks_sim_config config = { .seed = seed, .algo = algo };
    ks_cache_default_params(&config.cache);
    if (ks_topology_from_preset(preset, &t.topo) != KS_OK) {
        t.status = KS_ERR_NOT_FOUND;
        return t;
    }
    t.status = ks_sim_new(t.topo, json, (int32_t)strlen(json), &config, &t.sim, &t.err);
    return t;
}

static inline void test_sim_free(test_sim *t)
{
    ks_sim_free(t->sim);
    ks_topology_free(t->topo);
    t->sim = NULL;
    t->topo = NULL;
}

/* FNV-1a over whole 96-byte records. */
static inline uint64_t hash_events(uint64_t h, const ks_event *ev)
{
    const uint8_t *p = (const uint8_t *)ev;
    for (size_t i = 0; i < sizeof *ev; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#define HASH_SEED 0xcbf29ce484222325ull

/* Steps up to n events (0 = to the end), hashing them; *count = events produced. */
static inline uint64_t run_and_hash(ks_sim *sim, uint64_t n, uint64_t *count)
{
    uint64_t h = HASH_SEED, c = 0;
    ks_event ev;
    int32_t produced;
    while ((!n || c < n) && ks_sim_step(sim, &ev, &produced) == KS_OK && produced) {
        h = hash_events(h, &ev);
        c++;
    }
    if (count)
        *count = c;
    return h;
}

/* A malloc'd copy of the current frame (free it); *size its length. */
static inline void *copy_frame(ks_sim *sim, uint32_t *size)
{
    const ks_sim_frame *f = ks_sim_frame_get(sim);
    void *copy = malloc(f->size);
    memcpy(copy, f, f->size);
    *size = f->size;
    return copy;
}

/* A workload file of wasm-core/workloads (tests run from wasm-core/; the wasm test
 * build embeds the folder). NULL if unreadable. */
static inline char *read_workload_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "workloads/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    fclose(f);
    return text;
}

#endif
