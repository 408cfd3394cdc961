/*
 * Snapshots of the whole machine, checkpoints, and exact seeking.
 *
 * A snapshot is the simulation's state written region by region (all of it is
 * flat arrays: see sim_internal.h), then the algorithm's block and the cache
 * model's own snapshot:
 *
 *     header   magic "KSSM", version, flags, struct sizes, config hash, seed, step
 *     core     clock, step, rng, stats, CPU masks, counters
 *     tasks    [nr_tasks]            rqs [nr_cpus]
 *     timers   armed slots in heap order with (expires, seq)
 *     drivers  [nr_procs]  order[]  area_obj[]
 *     pending  events not handed out yet
 *     algo     ops->snapshot_save block
 *     cache    ks_cache_snapshot_save block
 *     bursts   (user snapshots only) the burst log so far, then its cost parts
 *
 * A snapshot restores only into a simulation built from the same workload,
 * topology, algorithm, cache parameters and seed (the header's hash and seed),
 * and of the same build (struct sizes): it is a stepping-back device, not an
 * interchange format.
 *
 * Seeking. ks_sim_seek(step) restores the last checkpoint at or before `step`
 * and replays from there (replay is exact: the run is deterministic). A
 * checkpoint is an internal snapshot without the burst log, taken when the
 * step count is a multiple of K:
 *
 *     K starts at CKPT_MIN_EVERY (4096 steps) and doubles while a snapshot is
 *     bigger than K * CKPT_BYTES_PER_STEP (32 bytes), so copying checkpoints
 *     costs at most ~32 bytes of memcpy per step (a 384-CPU run whose cache
 *     model holds 17 MB of line state checkpoints about every 0.5 M steps).
 *     All checkpoints together stay under CKPT_BUDGET (64 MiB): when a new one
 *     would exceed it, K doubles and the checkpoints off the new grid are
 *     dropped (step 0 is always kept). So a seek replays fewer than K steps
 *     after one restore, K grows with the run's length and snapshot size, and
 *     memory stays bounded.
 *
 * Checkpoints past the current step stay valid after seeking back (the
 * trajectory is fixed), so seeking forward again is cheap too.
 */
#include <stdlib.h>
#include <string.h>

#include "../base/blob.h"
#include "sim_internal.h"

#define SNAP_MAGIC 0x4d53534bu      /* "KSSM" little-endian */
#define SNAP_VERSION 1u
#define SNAP_HISTORY 1u             /* flags: the burst log is included */
#define CKPT_MIN_EVERY 4096u
#define CKPT_BYTES_PER_STEP 32u
#define CKPT_BUDGET (64u << 20)

typedef struct snap_header {
    uint32_t magic, version, flags;
    uint32_t task_size, rq_size, core_size, driver_size, event_size;
    uint64_t config_hash, seed, step;
} snap_header;

static snap_header header_of(const ks_sim *s, uint32_t flags)
{
    return (snap_header){
        .magic = SNAP_MAGIC, .version = SNAP_VERSION, .flags = flags,
        .task_size = sizeof(sim_task), .rq_size = sizeof(sim_rq), .core_size = sizeof(sim_core),
        .driver_size = sizeof(sim_driver), .event_size = sizeof(ks_event),
        .config_hash = s->config_hash, .seed = s->seed, .step = s->core.step,
    };
}

/* ---- writing ------------------------------------------------------------------------- */

/* A sub-block of `size` bytes written by `save` (an algorithm's or the cache's). */
typedef int32_t (*block_save_fn)(const void *obj, void *buf, uint32_t len);

static void put_block(blob_writer *w, uint32_t size, block_save_fn save, const void *obj)
{
    blob_put_u32(w, size);
    if (w->buf && !w->bad) {
        if (w->pos + size > w->cap || save(obj, w->buf + w->pos, size) != KS_OK)
            w->bad = 1;
    }
    w->pos += size;
}

static int32_t save_cache(const void *cache, void *buf, uint32_t len)
{
    return ks_cache_snapshot_save(cache, buf, len);
}

static void write_state(const ks_sim *s, blob_writer *w, uint32_t flags)
{
    snap_header h = header_of(s, flags);
    blob_put(w, &h, sizeof h);
    blob_put(w, &s->core, sizeof s->core);
    blob_put(w, s->tasks, (uint32_t)s->core.nr_tasks * sizeof *s->tasks);
    blob_put(w, s->rqs, (uint32_t)s->nr_cpus * sizeof *s->rqs);
    const sim_timers *t = &s->timers;
    blob_put_u32(w, (uint32_t)t->size);
    for (int32_t i = 0; i < t->size; i++) {
        int32_t slot = t->heap[i];
        blob_put(w, &slot, sizeof slot);
        blob_put_u64(w, t->expires[slot]);
        blob_put_u64(w, t->seq[slot]);
    }
    blob_put(w, s->drivers, (uint32_t)s->wl.nr_procs * sizeof *s->drivers);
    blob_put(w, s->order, (uint32_t)s->nr_order * sizeof *s->order);
    blob_put(w, s->area_obj, (uint32_t)s->nr_area * sizeof *s->area_obj);
    const event_ring *r = &s->pending;
    blob_put_u32(w, r->count);
    for (uint32_t i = 0; i < r->count; i++)
        blob_put(w, &r->ev[(r->head + i) & (r->capacity - 1)], sizeof(ks_event));
    uint32_t algo_size = s->ops->snapshot_size ? s->ops->snapshot_size(s->algo) : 0;
    if (algo_size && s->ops->snapshot_save)
        put_block(w, algo_size, s->ops->snapshot_save, s->algo);
    else
        blob_put_u32(w, 0);
    put_block(w, ks_cache_snapshot_size(s->cache), save_cache, s->cache);
    if (flags & SNAP_HISTORY) {
        blob_put(w, s->bursts, s->core.nr_bursts * (uint32_t)sizeof *s->bursts);
        blob_put(w, s->burst_parts, s->core.nr_bursts * (uint32_t)sizeof *s->burst_parts);
    }
}

static uint32_t state_size(const ks_sim *s, uint32_t flags)
{
    blob_writer w = { 0 };
    write_state(s, &w, flags);
    return w.pos;
}

/* ---- reading --------------------------------------------------------------------------- */

static int header_matches(const ks_sim *s, const snap_header *h)
{
    snap_header want = header_of(s, h->flags);
    want.step = h->step;
    return memcmp(h, &want, sizeof want) == 0;
}

static int32_t grow_ring(event_ring *r, uint32_t need)
{
    if (need <= r->capacity)
        return KS_OK;
    uint32_t capacity = r->capacity;
    while (capacity < need)
        capacity *= 2;
    ks_event *grown = calloc(capacity, sizeof *grown);
    if (!grown)
        return KS_ERR_NO_MEMORY;
    free(r->ev);
    r->ev = grown;
    r->capacity = capacity;
    return KS_OK;
}

static int32_t grow_bursts(ks_sim *s, uint32_t need)
{
    if (need <= s->bursts_capacity)
        return KS_OK;
    ks_burst_cost *grown = realloc(s->bursts, (size_t)need * sizeof *grown);
    if (!grown)
        return KS_ERR_NO_MEMORY;
    s->bursts = grown;
    ks_cost_parts *parts = realloc(s->burst_parts, (size_t)need * sizeof *parts);
    if (!parts)
        return KS_ERR_NO_MEMORY;
    s->burst_parts = parts;
    s->bursts_capacity = need;
    return KS_OK;
}

/* Reads a snapshot; with apply = 0 only checks it (so a bad buffer changes nothing). */
static int32_t read_state(ks_sim *s, blob_reader *r, int apply)
{
    const snap_header *h = blob_take(r, sizeof *h);
    if (!h || !header_matches(s, h))
        return KS_ERR_INVALID_ARG;
    const sim_core *core = blob_take(r, sizeof *core);
    if (!core || core->nr_tasks < 0 || core->nr_tasks > s->max_tasks)
        return KS_ERR_INVALID_ARG;
    const void *tasks = blob_take(r, (uint32_t)core->nr_tasks * sizeof *s->tasks);
    const void *rqs = blob_take(r, (uint32_t)s->nr_cpus * sizeof *s->rqs);
    uint32_t nr_timers = blob_get_u32(r);
    if (r->bad || nr_timers > (uint32_t)s->timers.nr_slots)
        return KS_ERR_INVALID_ARG;
    const uint8_t *timers = blob_take(r, nr_timers * 20u);
    const void *drivers = blob_take(r, (uint32_t)s->wl.nr_procs * sizeof *s->drivers);
    const void *order = blob_take(r, (uint32_t)s->nr_order * sizeof *s->order);
    const void *area = blob_take(r, (uint32_t)s->nr_area * sizeof *s->area_obj);
    uint32_t nr_pending = blob_get_u32(r);
    const void *pending = blob_take(r, nr_pending * (uint32_t)sizeof(ks_event));
    uint32_t algo_size = blob_get_u32(r);
    const void *algo = blob_take(r, algo_size);
    uint32_t cache_size = blob_get_u32(r);
    const void *cache = blob_take(r, cache_size);
    uint32_t nr_bursts = (h->flags & SNAP_HISTORY) ? core->nr_bursts : 0;
    const void *bursts = blob_take(r, nr_bursts * (uint32_t)sizeof *s->bursts);
    const void *parts = blob_take(r, nr_bursts * (uint32_t)sizeof *s->burst_parts);
    if (r->bad || r->pos != r->len || (algo_size && !s->ops->snapshot_restore))
        return KS_ERR_INVALID_ARG;
    if (!apply)
        return grow_ring(&s->pending, nr_pending) != KS_OK || grow_bursts(s, nr_bursts) != KS_OK
                   ? KS_ERR_NO_MEMORY : KS_OK;

    int32_t status = ks_cache_snapshot_restore(s->cache, cache, cache_size);
    if (status == KS_OK && algo_size)
        status = s->ops->snapshot_restore(s->algo, algo, algo_size);
    if (status != KS_OK)
        return status;
    s->core = *core;
    memcpy(s->tasks, tasks, (size_t)core->nr_tasks * sizeof *s->tasks);
    memcpy(s->rqs, rqs, (size_t)s->nr_cpus * sizeof *s->rqs);
    sim_timers *t = &s->timers;
    for (int32_t i = 0; i < t->nr_slots; i++)
        t->pos[i] = -1;
    t->size = (int32_t)nr_timers;
    for (uint32_t i = 0; i < nr_timers; i++) {
        int32_t slot;
        memcpy(&slot, timers + i * 20u, sizeof slot);
        t->heap[i] = slot;
        t->pos[slot] = (int32_t)i;
        memcpy(&t->expires[slot], timers + i * 20u + 4, 8);
        memcpy(&t->seq[slot], timers + i * 20u + 12, 8);
    }
    memcpy(s->drivers, drivers, (size_t)s->wl.nr_procs * sizeof *s->drivers);
    memcpy(s->order, order, (size_t)s->nr_order * sizeof *s->order);
    memcpy(s->area_obj, area, (size_t)s->nr_area * sizeof *s->area_obj);
    s->pending.head = 0;
    s->pending.count = nr_pending;
    memcpy(s->pending.ev, pending, (size_t)nr_pending * sizeof(ks_event));
    if (nr_bursts) {
        memcpy(s->bursts, bursts, (size_t)nr_bursts * sizeof *s->bursts);
        memcpy(s->burst_parts, parts, (size_t)nr_bursts * sizeof *s->burst_parts);
        if (s->bursts_valid < nr_bursts)
            s->bursts_valid = nr_bursts;
    }
    return KS_OK;
}

static int32_t restore(ks_sim *s, const void *buf, uint32_t len)
{
    blob_reader check = { .buf = buf, .len = len };
    int32_t status = read_state(s, &check, 0);
    if (status != KS_OK)
        return status;
    blob_reader r = { .buf = buf, .len = len };
    return read_state(s, &r, 1);
}

/* ---- public snapshots -------------------------------------------------------------------- */

uint32_t ks_sim_snapshot_size(const ks_sim *sim)
{
    return sim ? state_size(sim, SNAP_HISTORY) : 0;
}

int32_t ks_sim_snapshot_save(const ks_sim *sim, void *buf, uint32_t len)
{
    if (!sim || !buf)
        return KS_ERR_INVALID_ARG;
    blob_writer w = { .buf = buf, .cap = len };
    write_state(sim, &w, SNAP_HISTORY);
    return w.bad ? KS_ERR_RANGE : KS_OK;
}

int32_t ks_sim_snapshot_restore(ks_sim *sim, const void *buf, uint32_t len)
{
    if (!sim || !buf)
        return KS_ERR_INVALID_ARG;
    return restore(sim, buf, len);
}

/* ---- checkpoints ------------------------------------------------------------------------- */

/* Index of the last checkpoint at or before step (there is always step 0). */
static int32_t checkpoint_at_or_before(const ks_sim *s, uint64_t step)
{
    int32_t lo = 0, hi = s->nr_ckpts - 1;
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) / 2;
        if (s->ckpts[mid].step <= step)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Drops the checkpoints off a doubled grid until all fit the budget. */
static void thin_checkpoints(ks_sim *s)
{
    while (s->ckpt_bytes > CKPT_BUDGET && s->nr_ckpts > 1) {
        s->ckpt_every *= 2;
        int32_t kept = 0;
        for (int32_t i = 0; i < s->nr_ckpts; i++) {
            checkpoint *c = &s->ckpts[i];
            if (c->step == 0 || c->step % s->ckpt_every == 0) {
                s->ckpts[kept++] = *c;
            } else {
                s->ckpt_bytes -= c->size;
                free(c->data);
            }
        }
        s->nr_ckpts = kept;
    }
}

static int32_t insert_checkpoint(ks_sim *s, int32_t at, checkpoint c)
{
    if (s->nr_ckpts == s->cap_ckpts) {
        int32_t capacity = s->cap_ckpts ? s->cap_ckpts * 2 : 16;
        checkpoint *grown = realloc(s->ckpts, (size_t)capacity * sizeof *grown);
        if (!grown)
            return KS_ERR_NO_MEMORY;
        s->ckpts = grown;
        s->cap_ckpts = capacity;
    }
    memmove(&s->ckpts[at + 1], &s->ckpts[at], (size_t)(s->nr_ckpts - at) * sizeof *s->ckpts);
    s->ckpts[at] = c;
    s->nr_ckpts++;
    return KS_OK;
}

int32_t sim_checkpoint_take(ks_sim *s)
{
    uint64_t step = s->core.step;
    int32_t at = s->nr_ckpts ? checkpoint_at_or_before(s, step) : -1;
    if (at >= 0 && s->ckpts[at].step == step)
        return KS_OK;
    checkpoint c = { .step = step, .size = state_size(s, 0) };
    if (!s->ckpt_every)
        s->ckpt_every = CKPT_MIN_EVERY;
    while (c.size > s->ckpt_every * CKPT_BYTES_PER_STEP)
        s->ckpt_every *= 2;
    c.data = malloc(c.size);
    if (!c.data)
        return KS_ERR_NO_MEMORY;
    blob_writer w = { .buf = c.data, .cap = c.size };
    write_state(s, &w, 0);
    if (w.bad || insert_checkpoint(s, at + 1, c) != KS_OK) {
        free(c.data);
        return KS_ERR_NO_MEMORY;
    }
    s->ckpt_bytes += c.size;
    thin_checkpoints(s);
    return KS_OK;
}

void sim_checkpoints_free(ks_sim *s)
{
    for (int32_t i = 0; i < s->nr_ckpts; i++)
        free(s->ckpts[i].data);
    free(s->ckpts);
    s->ckpts = NULL;
    s->nr_ckpts = s->cap_ckpts = 0;
}

int32_t ks_sim_seek(ks_sim *sim, uint64_t step)
{
    if (!sim || !sim->nr_ckpts)
        return KS_ERR_INVALID_ARG;
    if (step == sim->core.step)
        return KS_OK;
    const checkpoint *c = &sim->ckpts[checkpoint_at_or_before(sim, step)];
    if (step < sim->core.step || c->step > sim->core.step) {
        int32_t status = restore(sim, c->data, c->size);
        if (status != KS_OK)
            return status;
    }
    while (sim->core.step < step) {
        ks_event ev;
        int32_t produced;
        int32_t status = ks_sim_step(sim, &ev, &produced);
        if (status != KS_OK)
            return status;
        if (!produced)
            return KS_ERR_RANGE;
    }
    return KS_OK;
}
