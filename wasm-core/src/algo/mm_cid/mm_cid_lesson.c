/*
 * mm_cid, part four: the lesson view (ks_mm_cid_lesson_get, kscope/mm_cid/mm_cid.h).
 *
 * Why one call. The browser redraws the lesson up to 60 times a second, and every
 * JS -> wasm call costs a crossing; reading the per-mm scalars, two masks, the
 * per-CPU table, the log and burst positions and one ks_cache_line_places per data
 * area with the separate view functions would be a dozen calls plus one per area
 * (24 on the EPYC "one thread per L3" run). This gathers them into the caller's
 * block in one call; JS reads the block through typed arrays.
 *
 *   header   now, step, log window + address, bursts count + address, frame address
 *   masks    cidmask, cpus_allowed                 (as ks_mm_cid_mask_get)
 *   pcpu     one row per CPU                       (as ks_mm_cid_pcpu_get)
 *   areas    one summary per area index: which LLC holds most of its 64-byte lines,
 *            how many are cold (DRAM only), which core owns most of them
 *
 * Nothing here changes the simulation: the frame refresh and the cache's places
 * scratch array are views' scratch, like ks_sim_frame_get and ks_cache_line_places.
 * The areas are the cache objects the intermittent driver names "<comm>.area[k]"
 * (src/sched/driver.c); the process's comm comes from its tasks in the frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_cid.h"

static uint32_t pad8(uint32_t n)
{
    return (n + 7u) & ~7u;
}

/* The block's layout for nr_cpus CPUs (header offsets filled; returns the size). */
static uint32_t lesson_layout(int32_t nr_cpus, ks_mm_cid_lesson *h)
{
    uint32_t mask = (uint32_t)(nr_cpus + 7) / 8;
    h->nr_cpus = nr_cpus;
    h->mask_bytes = (int32_t)mask;
    h->cidmask_off = sizeof *h;
    h->cpus_allowed_off = h->cidmask_off + pad8(mask);
    h->pcpu_off = h->cpus_allowed_off + pad8(mask);
    h->areas_off = h->pcpu_off + (uint32_t)nr_cpus * sizeof(ks_mm_cid_pcpu);
    h->size = h->areas_off + (uint32_t)nr_cpus * sizeof(ks_mm_cid_area);
    return h->size;
}

uint32_t ks_mm_cid_lesson_size(const ks_sim *sim)
{
    const mm_cid_state *st = sim ? sched_algo_state(sim, &mm_cid_ops) : NULL;
    ks_mm_cid_lesson h;
    return st ? lesson_layout(st->nr_cpus, &h) : 0;
}

/* The comm of process tgid, from the frame's tasks (exited ones stay there); NULL if none. */
static const char *comm_of(const ks_sim_frame *f, int32_t tgid)
{
    const ks_sim_task *tasks = (const ks_sim_task *)((const uint8_t *)f + f->tasks_off);
    for (int32_t i = 0; i < f->nr_tasks; i++)
        if (tasks[i].tgid == tgid)
            return tasks[i].comm;
    return NULL;
}

/* k if name is "<comm>.area[k]" with 0 <= k < n, else -1. */
static int32_t area_index(const char *name, const char *comm, int32_t n)
{
    size_t len = strlen(comm);
    if (strncmp(name, comm, len) != 0 || strncmp(name + len, ".area[", 6) != 0)
        return -1;
    char *end;
    long k = strtol(name + len + 6, &end, 10);
    if (end == name + len + 6 || strcmp(end, "]") != 0 || k < 0 || k >= n)
        return -1;
    return (int32_t)k;
}

/* Index of the largest count (the lowest index on ties), -1 if all are zero. */
static int32_t argmax(const int32_t *counts, int32_t n, int32_t *best)
{
    int32_t at = -1;
    *best = 0;
    for (int32_t i = 0; i < n; i++)
        if (counts[i] > *best) {
            *best = counts[i];
            at = i;
        }
    return at;
}

/* Sums up where object's lines are at now. counts has llcs + cores zeroed entries. */
static void summarize_area(ks_cache *cache, int32_t object, uint64_t now, int32_t llcs,
                           int32_t cores, int32_t *counts, ks_mm_cid_area *a)
{
    uint32_t lines = ks_cache_object_lines(cache, object);
    const ks_line_place *places = ks_cache_line_places(cache, object, now);
    a->object = object;
    a->lines = (int32_t)lines;
    for (uint32_t l = 0; places && l < lines; l++) {
        const ks_line_place *p = &places[l];
        if (p->owner_llc < 0 || p->owner_llc >= llcs)
            a->cold_lines++;
        else
            counts[p->owner_llc]++;
        if (p->owner_core >= 0 && p->owner_core < cores)
            counts[llcs + p->owner_core]++;
    }
    a->llc = argmax(counts, llcs, &a->llc_lines);
    a->core = argmax(counts + llcs, cores, &a->core_lines);
}

/* One record per area index: untouched ones (-1 object) too. */
static int32_t fill_areas(ks_sim *sim, const ks_sim_frame *f, int32_t tgid, int32_t nr_cpus,
                          ks_mm_cid_area *areas)
{
    for (int32_t k = 0; k < nr_cpus; k++)
        areas[k] = (ks_mm_cid_area){ .index = k, .object = -1, .llc = -1, .core = -1 };
    const char *comm = comm_of(f, tgid);
    ks_cache *cache = ks_sim_cache(sim);
    if (!comm || !cache)
        return KS_OK;
    ks_topology_summary sum;
    ks_topology_summarize(sched_topology(sim), &sum);
    int32_t *counts = malloc((size_t)(sum.llcs + sum.cores) * sizeof *counts);
    if (!counts)
        return KS_ERR_NO_MEMORY;
    int32_t n = ks_cache_object_count(cache);
    for (int32_t o = 0; o < n; o++) {
        int32_t k = area_index(ks_cache_object_name(cache, o), comm, nr_cpus);
        if (k < 0)
            continue;
        memset(counts, 0, (size_t)(sum.llcs + sum.cores) * sizeof *counts);
        summarize_area(cache, o, f->now_ns, sum.llcs, sum.cores, counts, &areas[k]);
    }
    free(counts);
    return KS_OK;
}

/* The per-mm part: scalars, masks, per-CPU rows (zero / -1 when the mm is not live). */
static void fill_mm(const ks_sim *sim, int32_t tgid, uint8_t *block, ks_mm_cid_lesson *h)
{
    ks_mm_cid_pcpu *rows = (ks_mm_cid_pcpu *)(block + h->pcpu_off);
    h->mm_status = ks_mm_cid_mm_get(sim, tgid, &h->mm);
    if (h->mm_status == KS_OK &&
        ks_mm_cid_mask_get(sim, tgid, KS_MM_CID_MASK_CIDMASK, block + h->cidmask_off,
                           h->mask_bytes) == KS_OK &&
        ks_mm_cid_mask_get(sim, tgid, KS_MM_CID_MASK_CPUS_ALLOWED, block + h->cpus_allowed_off,
                           h->mask_bytes) == KS_OK &&
        ks_mm_cid_pcpu_get(sim, tgid, rows, h->nr_cpus) == KS_OK)
        return;
    memset(&h->mm, 0, sizeof h->mm);
    h->mm.tgid = -1;
    memset(block + h->cidmask_off, 0, h->pcpu_off - h->cidmask_off);
    for (int32_t cpu = 0; cpu < h->nr_cpus; cpu++)
        rows[cpu] = (ks_mm_cid_pcpu){ .cpu = cpu, .cid = -1, .recent_cid = -1, .running_tid = -1 };
}

int32_t ks_mm_cid_lesson_get(ks_sim *sim, int32_t tgid, void *out, uint32_t len)
{
    const mm_cid_state *st = sim ? sched_algo_state(sim, &mm_cid_ops) : NULL;
    if (!st)
        return KS_ERR_NOT_FOUND;
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_mm_cid_lesson h;
    memset(&h, 0, sizeof h);
    if (len < lesson_layout(st->nr_cpus, &h))
        return KS_ERR_RANGE;
    uint8_t *block = out;
    const ks_sim_frame *f = ks_sim_frame_get(sim);
    h.now_ns = f->now_ns;
    h.step = f->step;
    h.frame = (uint64_t)(uintptr_t)f;
    h.log_count = ks_mm_cid_log_count(sim);
    h.log_first_seq = ks_mm_cid_log_first_seq(sim);
    h.log_records = (uint64_t)(uintptr_t)ks_mm_cid_log_records(sim);
    h.burst_count = ks_sim_burst_count(sim);
    h.bursts = (uint64_t)(uintptr_t)ks_sim_burst_costs(sim);
    fill_mm(sim, tgid, block, &h);
    int32_t status = fill_areas(sim, f, tgid, h.nr_cpus, (ks_mm_cid_area *)(block + h.areas_off));
    memcpy(block, &h, sizeof h);
    return status;
}
