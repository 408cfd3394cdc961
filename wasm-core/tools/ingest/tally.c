/*
 * tally.c: totals and per-CPU switch logs of an ingest (see tally.h).
 */
#include "tally.h"

#include <stdlib.h>
#include <string.h>

#define CPU_INDEX 65536

int tally_init(ingest_tally *t)
{
    memset(t, 0, sizeof *t);
    t->tid_bits = calloc(TALLY_MAX_TID / 64, sizeof(uint64_t));
    t->slot_of_cpu = malloc(CPU_INDEX * sizeof(int32_t));
    if (!t->tid_bits || !t->slot_of_cpu)
        return -1;
    memset(t->slot_of_cpu, 0xff, CPU_INDEX * sizeof(int32_t));
    return 0;
}

void tally_free(ingest_tally *t)
{
    for (uint32_t i = 0; i < t->n_cpus; i++) {
        free(t->cpus[i].ts);
        free(t->cpus[i].flags);
    }
    free(t->cpus);
    free(t->tid_bits);
    free(t->slot_of_cpu);
    memset(t, 0, sizeof *t);
}

switch_log *tally_cpu(const ingest_tally *t, int32_t cpu)
{
    if (cpu >= 0 && cpu < CPU_INDEX) {
        int32_t slot = t->slot_of_cpu[cpu];
        return slot < 0 ? NULL : &t->cpus[slot];
    }
    for (uint32_t i = 0; i < t->n_cpus; i++)  /* ids outside the index: rare, a few */
        if (t->cpus[i].cpu == cpu)
            return &t->cpus[i];
    return NULL;
}

static switch_log *cpu_slot(ingest_tally *t, int32_t cpu)
{
    switch_log *log = tally_cpu(t, cpu);
    if (log)
        return log;
    if (t->n_cpus == t->cap_cpus) {
        uint32_t cap = t->cap_cpus ? 2 * t->cap_cpus : 64;
        switch_log *grown = realloc(t->cpus, cap * sizeof *grown);
        if (!grown)
            return NULL;
        t->cpus = grown;
        t->cap_cpus = cap;
    }
    log = &t->cpus[t->n_cpus];
    memset(log, 0, sizeof *log);
    log->cpu = cpu;
    if (cpu >= 0 && cpu < CPU_INDEX)
        t->slot_of_cpu[cpu] = (int32_t)t->n_cpus;
    t->n_cpus++;
    return log;
}

static int reserve(switch_log *log, uint32_t more)
{
    if (log->n + more <= log->cap)
        return 0;
    uint32_t cap = log->cap ? log->cap : 1024;
    while (cap < log->n + more)
        cap *= 2;
    int64_t *ts = realloc(log->ts, cap * sizeof *ts);
    if (!ts)
        return -1;
    log->ts = ts;
    uint8_t *flags = realloc(log->flags, cap);
    if (!flags)
        return -1;
    log->flags = flags;
    log->cap = cap;
    return 0;
}

static void mark_tids(ingest_tally *t, const int32_t *ids, uint32_t n)
{
    uint64_t *bits = t->tid_bits;
    uint32_t top = t->tid_top;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = (uint32_t)ids[i];  /* negative ids wrap past the limit */
        if (id - 1u < TALLY_MAX_TID - 1u) {
            bits[id >> 6] |= 1ull << (id & 63);
            top = id > top ? id : top;
        }
    }
    t->tid_top = top;
}

int tally_add(ingest_tally *t, const uint8_t *buf, const uint64_t *offsets, uint32_t n,
              const ks_columns_stats *stats)
{
    if (n == 0)
        return 0;
    t->events += n;
    for (int i = 0; i < KS_EV_TYPE_COUNT; i++)
        t->type_counts[i] += stats->type_counts[i];
    if (!t->have_time || stats->ts_min < t->t_first)
        t->t_first = stats->ts_min;
    if (!t->have_time || stats->ts_max > t->t_last)
        t->t_last = stats->ts_max;
    t->have_time = 1;

    static const int tid_columns[] = {KS_COL_PID, KS_COL_TASK_PID, KS_COL_PREV_PID, KS_COL_NEXT_PID,
                                      KS_COL_CHILD_PID};
    for (unsigned c = 0; c < sizeof tid_columns / sizeof tid_columns[0]; c++)
        mark_tids(t, (const int32_t *)(buf + offsets[tid_columns[c]]), n);

    const int64_t *ts = (const int64_t *)(buf + offsets[KS_COL_TS_NS]);
    const int32_t *cpu = (const int32_t *)(buf + offsets[KS_COL_CPU]);
    const int8_t *type = (const int8_t *)(buf + offsets[KS_COL_TYPE]);
    const int32_t *prev = (const int32_t *)(buf + offsets[KS_COL_PREV_PID]);
    const int32_t *next = (const int32_t *)(buf + offsets[KS_COL_NEXT_PID]);
    uint32_t switches = stats->type_counts[KS_EV_SCHED_SWITCH];
    for (uint32_t a = 0; a < n;) {  /* one run of rows per CPU */
        uint32_t b = a + 1;
        while (b < n && cpu[b] == cpu[a])
            b++;
        switch_log *log = cpu_slot(t, cpu[a]);
        if (!log)
            return -1;
        if (switches) {
            if (reserve(log, b - a) != 0)
                return -1;
            for (uint32_t i = a; i < b; i++) {
                if (type[i] != KS_EV_SCHED_SWITCH)
                    continue;
                log->ts[log->n] = ts[i];
                log->flags[log->n] = (uint8_t)((prev[i] != 0) | ((next[i] != 0) << 1));
                log->n++;
            }
        }
        a = b;
    }
    return 0;
}

uint64_t tally_tasks(const ingest_tally *t)
{
    uint64_t count = 0;
    for (uint32_t w = 0; w <= t->tid_top / 64; w++)
        if (t->tid_bits[w])
            count += (uint64_t)__builtin_popcountll(t->tid_bits[w]);
    return count;
}

static int by_value(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void tally_sorted_cpus(const ingest_tally *t, int32_t *out)
{
    for (uint32_t i = 0; i < t->n_cpus; i++)
        out[i] = t->cpus[i].cpu;
    qsort(out, t->n_cpus, sizeof *out, by_value);
}
