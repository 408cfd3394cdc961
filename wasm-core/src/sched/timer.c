/*
 * The simulator's clock queue: an indexed binary min-heap of timer slots.
 *
 * Every future happening has a fixed slot, allocated once: one per CPU (the end
 * of the current run segment: work done or slice over), one per task (its own
 * sleep timer), one per workload process (its driver's timer) and the global
 * scheduler tick. A slot is armed at most once, so re-arming is a decrease- or
 * increase-key in place and the heap never holds stale entries: the storage is
 * preallocated and the hot path never allocates. Ties on the expiry time are
 * broken by arming order (a sequence number in the state), which keeps runs
 * deterministic and first-armed-first-fired, like the kernel's hrtimer queue
 * for equal expiries.
 */
#include <stdlib.h>

#include "sim_internal.h"

int32_t timers_init(sim_timers *t, int32_t nr_slots)
{
    t->nr_slots = nr_slots;
    t->size = 0;
    t->heap = calloc((size_t)nr_slots, sizeof *t->heap);
    t->pos = malloc((size_t)nr_slots * sizeof *t->pos);
    t->expires = calloc((size_t)nr_slots, sizeof *t->expires);
    t->seq = calloc((size_t)nr_slots, sizeof *t->seq);
    if (!t->heap || !t->pos || !t->expires || !t->seq)
        return KS_ERR_NO_MEMORY;
    for (int32_t i = 0; i < nr_slots; i++)
        t->pos[i] = -1;
    return KS_OK;
}

void timers_free(sim_timers *t)
{
    free(t->heap);
    free(t->pos);
    free(t->expires);
    free(t->seq);
}

static int earlier(const sim_timers *t, int32_t a, int32_t b)
{
    if (t->expires[a] != t->expires[b])
        return t->expires[a] < t->expires[b];
    return t->seq[a] < t->seq[b];
}

static void place(sim_timers *t, int32_t i, int32_t slot)
{
    t->heap[i] = slot;
    t->pos[slot] = i;
}

static void sift_up(sim_timers *t, int32_t i)
{
    int32_t slot = t->heap[i];
    while (i > 0) {
        int32_t parent = (i - 1) / 2;
        if (!earlier(t, slot, t->heap[parent]))
            break;
        place(t, i, t->heap[parent]);
        i = parent;
    }
    place(t, i, slot);
}

static void sift_down(sim_timers *t, int32_t i)
{
    int32_t slot = t->heap[i];
    for (;;) {
        int32_t child = 2 * i + 1;
        if (child >= t->size)
            break;
        if (child + 1 < t->size && earlier(t, t->heap[child + 1], t->heap[child]))
            child++;
        if (!earlier(t, t->heap[child], slot))
            break;
        place(t, i, t->heap[child]);
        i = child;
    }
    place(t, i, slot);
}

void timer_arm(ks_sim *s, int32_t slot, uint64_t expires)
{
    sim_timers *t = &s->timers;
    t->expires[slot] = expires;
    t->seq[slot] = s->core.timer_seq++;
    int32_t i = t->pos[slot];
    if (i < 0) {
        i = t->size++;
        place(t, i, slot);
        sift_up(t, i);
        return;
    }
    sift_up(t, i);
    sift_down(t, t->pos[slot]);
}

void timer_cancel(ks_sim *s, int32_t slot)
{
    sim_timers *t = &s->timers;
    int32_t i = t->pos[slot];
    if (i < 0)
        return;
    t->pos[slot] = -1;
    int32_t last = t->heap[--t->size];
    if (i == t->size)
        return;
    place(t, i, last);
    sift_up(t, i);
    sift_down(t, t->pos[last]);
}

int32_t timer_first(const sim_timers *t)
{
    return t->size ? t->heap[0] : -1;
}

uint64_t timer_expires(const sim_timers *t, int32_t slot)
{
    return t->expires[slot];
}
