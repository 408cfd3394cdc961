/*
 * ks_event records -> columns (kscope/columns.h): one pass, no per-column scans.
 *
 * Three steps per batch:
 *
 *   1. Order. With KS_COLUMNS_BY_CPU, a stable counting sort on cpu: count rows
 *      per CPU, prefix-sum the counts into each CPU's first output row, then
 *      place every record in input order. CPU ids span a small range in any real
 *      trace (0..nr_cpus-1); a batch whose ids span more than 1 << 16 (garbage
 *      input that still parsed) is placed by a stable merge sort instead.
 *   2. Values. Each record, read once in input order, writes its row (its place
 *      from step 1) of every column: the union's fields land in the columns their
 *      type names (records.py lists them), everything else is 0 with its validity
 *      bit clear. Reading in input order streams the records from memory; reading
 *      them in output order instead jumps between CPUs and waits on cache misses
 *      (measured: a third more time per batch).
 *   3. Names. comm fields (16 bytes, NUL-padded) go through an open-addressing
 *      hash table to dense ids; bytes after the first NUL are ignored, so two
 *      spellings of the same name cannot get two ids.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/native/columns.h"

/* ---- columns ---------------------------------------------------------------- */

static const struct { const char *name; int8_t width; } columns[KS_COLUMN_COUNT] = {
    [KS_COL_TS_NS] = { "ts_ns", 8 },           [KS_COL_PREV_STATE] = { "prev_state", 8 },
    [KS_COL_CPU] = { "cpu", 4 },               [KS_COL_PID] = { "pid", 4 },
    [KS_COL_TGID] = { "tgid", 4 },             [KS_COL_COMM] = { "comm", 4 },
    [KS_COL_TASK_PID] = { "task_pid", 4 },     [KS_COL_TASK_COMM] = { "task_comm", 4 },
    [KS_COL_PRIO] = { "prio", 4 },             [KS_COL_PREV_COMM] = { "prev_comm", 4 },
    [KS_COL_PREV_PID] = { "prev_pid", 4 },     [KS_COL_PREV_PRIO] = { "prev_prio", 4 },
    [KS_COL_NEXT_COMM] = { "next_comm", 4 },   [KS_COL_NEXT_PID] = { "next_pid", 4 },
    [KS_COL_NEXT_PRIO] = { "next_prio", 4 },   [KS_COL_TARGET_CPU] = { "target_cpu", 4 },
    [KS_COL_ORIG_CPU] = { "orig_cpu", 4 },     [KS_COL_DEST_CPU] = { "dest_cpu", 4 },
    [KS_COL_CHILD_PID] = { "child_pid", 4 },   [KS_COL_CHILD_COMM] = { "child_comm", 4 },
    [KS_COL_CPU_ID] = { "cpu_id", 4 },         [KS_COL_NODE_ID] = { "node_id", 4 },
    [KS_COL_MM_CID] = { "mm_cid", 4 },         [KS_COL_G_NAME_OFF] = { "g_name_off", 4 },
    [KS_COL_G_FIELDS_OFF] = { "g_fields_off", 4 }, [KS_COL_ORDER] = { "order", 4 },
    [KS_COL_TYPE] = { "type", 1 },             [KS_COL_BUFFER] = { "buffer", 1 },
    [KS_COL_GROUP_DEAD] = { "group_dead", 1 },
    [KS_VALID_ABOUT] = { "valid_about", 0 },   [KS_VALID_PRIO] = { "valid_prio", 0 },
    [KS_VALID_SWITCH] = { "valid_switch", 0 }, [KS_VALID_WAKEUP] = { "valid_wakeup", 0 },
    [KS_VALID_MIGRATE] = { "valid_migrate", 0 }, [KS_VALID_FORK] = { "valid_fork", 0 },
    [KS_VALID_GROUP_DEAD] = { "valid_group_dead", 0 }, [KS_VALID_RSEQ] = { "valid_rseq", 0 },
    [KS_VALID_NODE_ID] = { "valid_node_id", 0 }, [KS_VALID_MM_CID] = { "valid_mm_cid", 0 },
    [KS_VALID_GENERIC] = { "valid_generic", 0 },
};

#define BITMAPS (KS_COLUMN_COUNT - KS_VALID_ABOUT)
_Static_assert(BITMAPS == 11, "the bitmaps the stats count");

const char *ks_column_name(int32_t column)
{
    return column >= 0 && column < KS_COLUMN_COUNT ? columns[column].name : NULL;
}

int32_t ks_column_width(int32_t column)
{
    return column >= 0 && column < KS_COLUMN_COUNT ? columns[column].width : -1;
}

int32_t ks_columns_layout(uint32_t n, uint64_t *offsets)
{
    if (!offsets)
        return KS_ERR_INVALID_ARG;
    uint64_t at = 0;
    for (int32_t c = 0; c < KS_COLUMN_COUNT; c++) {
        offsets[c] = at;
        uint64_t bytes = columns[c].width ? (uint64_t)n * (uint64_t)columns[c].width : ((uint64_t)n + 7) / 8;
        at += (bytes + 63) & ~(uint64_t)63;
    }
    offsets[KS_COLUMN_COUNT] = at;
    return KS_OK;
}

/* ---- the comm dictionary ---------------------------------------------------- */

struct ks_comm_dict {
    char *names;                /* count * KS_COMM_LEN */
    uint32_t count, names_capacity;
    int32_t *slots;             /* id + 1, 0 = empty; capacity a power of two */
    uint32_t slot_mask;
};

int32_t ks_comm_dict_new(ks_comm_dict **out)
{
    if (!out)
        return KS_ERR_INVALID_ARG;
    ks_comm_dict *d = calloc(1, sizeof *d);
    if (d) {
        d->slots = calloc(1024, sizeof *d->slots);
        d->slot_mask = 1023;
    }
    if (!d || !d->slots) {
        ks_comm_dict_free(d);
        *out = NULL;
        return KS_ERR_NO_MEMORY;
    }
    *out = d;
    return KS_OK;
}

void ks_comm_dict_free(ks_comm_dict *d)
{
    if (!d)
        return;
    free(d->names);
    free(d->slots);
    free(d);
}

uint32_t ks_comm_dict_count(const ks_comm_dict *d)
{
    return d ? d->count : 0;
}

const char *ks_comm_dict_names(const ks_comm_dict *d)
{
    return d ? d->names : NULL;
}

/* A comm field as two words, the bytes from its first NUL on zeroed (a record may
 * carry bytes after the NUL; they are not part of the name). Eight bytes at a
 * time: the lowest byte flagged by the has-a-zero-byte trick is exactly the first
 * NUL (the trick's false positives only ever sit above a real zero byte). */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte i of a word is bits 8i..8i+7 (x86-64, wasm32)");

typedef struct comm_key {
    uint64_t w[2];
} comm_key;

static comm_key key_of(const char *field)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    comm_key k;
    memcpy(k.w, field, KS_COMM_LEN);
    for (int i = 0; i < 2; i++) {
        uint64_t zero = (k.w[i] - ones) & ~k.w[i] & highs;
        if (zero) {
            int nul = __builtin_ctzll(zero) / 8;        /* byte index of the first NUL */
            k.w[i] &= nul ? (~0ull >> (64 - 8 * nul)) : 0;
            if (i == 0)
                k.w[1] = 0;
            break;
        }
    }
    return k;
}

static uint32_t comm_hash(comm_key k)
{
    uint64_t h = (k.w[0] * 0x9E3779B97F4A7C15ull) ^ (k.w[1] + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

static bool same_key(const char *stored, comm_key k)
{
    uint64_t w[2];
    memcpy(w, stored, KS_COMM_LEN);
    return w[0] == k.w[0] && w[1] == k.w[1];
}

/* Doubles the table (load factor stays under 1/2). */
static int32_t grow_slots(ks_comm_dict *d)
{
    uint32_t size = (d->slot_mask + 1) * 2;
    int32_t *slots = calloc(size, sizeof *slots);
    if (!slots)
        return KS_ERR_NO_MEMORY;
    for (uint32_t id = 0; id < d->count; id++) {
        uint32_t i = comm_hash(key_of(d->names + (size_t)id * KS_COMM_LEN)) & (size - 1);
        while (slots[i])
            i = (i + 1) & (size - 1);
        slots[i] = (int32_t)id + 1;
    }
    free(d->slots);
    d->slots = slots;
    d->slot_mask = size - 1;
    return KS_OK;
}

/* The id of a record's comm field (read up to its first NUL); -1 if out of memory. */
static int32_t comm_id(ks_comm_dict *d, const char *field)
{
    comm_key key = key_of(field);
    uint32_t i = comm_hash(key) & d->slot_mask;
    for (; d->slots[i]; i = (i + 1) & d->slot_mask)
        if (same_key(d->names + (size_t)(d->slots[i] - 1) * KS_COMM_LEN, key))
            return d->slots[i] - 1;
    if (d->count == d->names_capacity) {
        uint32_t capacity = d->names_capacity ? d->names_capacity * 2 : 256;
        char *grown = realloc(d->names, (size_t)capacity * KS_COMM_LEN);
        if (!grown)
            return -1;
        d->names = grown;
        d->names_capacity = capacity;
    }
    memcpy(d->names + (size_t)d->count * KS_COMM_LEN, key.w, KS_COMM_LEN);
    d->slots[i] = (int32_t)d->count + 1;
    int32_t id = (int32_t)d->count++;
    if (d->count * 2 > d->slot_mask && grow_slots(d) != KS_OK)
        return -1;
    return id;
}

/* ---- order ------------------------------------------------------------------ */

static void merge_by_cpu(const ks_event *ev, uint32_t *idx, uint32_t *tmp, uint32_t n)
{
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = ev[idx[b]].cpu < ev[idx[a]].cpu ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
}

/* order[row] = input index and rank[index] = its row, rows grouped by CPU (stable);
 * identity without by_cpu. */
static int32_t order_rows(const ks_event *ev, uint32_t n, int by_cpu, uint32_t *order, uint32_t *rank)
{
    int32_t lo = 0, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t c = ev[i].cpu;
        lo = i == 0 || c < lo ? c : lo;
        hi = i == 0 || c > hi ? c : hi;
    }
    if (!by_cpu || n == 0 || lo == hi) {
        for (uint32_t i = 0; i < n; i++)
            order[i] = rank[i] = i;
        return KS_OK;
    }
    uint64_t range = (uint64_t)((int64_t)hi - lo) + 1;
    if (range > (1u << 16)) {
        uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
        if (!tmp)
            return KS_ERR_NO_MEMORY;
        for (uint32_t i = 0; i < n; i++)
            order[i] = i;
        merge_by_cpu(ev, order, tmp, n);
        free(tmp);
        for (uint32_t row = 0; row < n; row++)
            rank[order[row]] = row;
        return KS_OK;
    }
    uint32_t *first = calloc((size_t)range, sizeof *first);
    if (!first)
        return KS_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++)
        first[ev[i].cpu - lo]++;
    uint32_t at = 0;
    for (uint64_t c = 0; c < range; c++) {
        uint32_t count = first[c];
        first[c] = at;
        at += count;
    }
    for (uint32_t i = 0; i < n; i++) {
        rank[i] = first[ev[i].cpu - lo]++;
        order[rank[i]] = i;
    }
    free(first);
    return KS_OK;
}

/* ---- values ----------------------------------------------------------------- */

#define I32(col) ((int32_t *)(out + off[col]))

static int32_t fill_columns(const ks_event *events, uint32_t n, ks_comm_dict *dict,
                            const uint32_t *rank, uint8_t *out, const uint64_t *off,
                            ks_columns_stats *stats);

int32_t ks_columns_build(const ks_event *events, uint32_t n, ks_comm_dict *dict,
                         uint32_t flags, uint8_t *out, ks_columns_stats *stats)
{
    if ((!events && n > 0) || !dict || !out || !stats)
        return KS_ERR_INVALID_ARG;
    uint64_t off[KS_COLUMN_COUNT + 1];
    ks_columns_layout(n, off);
    memset(stats, 0, sizeof *stats);
    stats->last_fields_off = -1;
    uint32_t *order = (uint32_t *)(out + off[KS_COL_ORDER]);
    uint32_t *rank = malloc((size_t)(n ? n : 1) * sizeof *rank);
    if (!rank)
        return KS_ERR_NO_MEMORY;
    int32_t status = order_rows(events, n, (flags & KS_COLUMNS_BY_CPU) != 0, order, rank);
    if (status == KS_OK)
        status = fill_columns(events, n, dict, rank, out, off, stats);
    free(rank);
    return status;
}

/* Step 2: each record, read in input order (sequential, so the records stream in from
 * memory), writes its row of every column; a row's place comes from rank. Each CPU's
 * rows are written in ascending order, so the writes form one sequential stream per
 * CPU and column. */
static int32_t fill_columns(const ks_event *events, uint32_t n, ks_comm_dict *dict,
                            const uint32_t *rank, uint8_t *out, const uint64_t *off,
                            ks_columns_stats *stats)
{
    int64_t *ts = (int64_t *)(out + off[KS_COL_TS_NS]);
    int64_t *prev_state = (int64_t *)(out + off[KS_COL_PREV_STATE]);
    int8_t *type = (int8_t *)(out + off[KS_COL_TYPE]);
    int8_t *buffer = (int8_t *)(out + off[KS_COL_BUFFER]);
    int8_t *group_dead = (int8_t *)(out + off[KS_COL_GROUP_DEAD]);
    int32_t *cpu = I32(KS_COL_CPU), *pid = I32(KS_COL_PID), *tgid = I32(KS_COL_TGID);
    int32_t *comm = I32(KS_COL_COMM), *task_pid = I32(KS_COL_TASK_PID), *task_comm = I32(KS_COL_TASK_COMM);
    int32_t *prio = I32(KS_COL_PRIO), *prev_comm = I32(KS_COL_PREV_COMM), *prev_pid = I32(KS_COL_PREV_PID);
    int32_t *prev_prio = I32(KS_COL_PREV_PRIO), *next_comm = I32(KS_COL_NEXT_COMM);
    int32_t *next_pid = I32(KS_COL_NEXT_PID), *next_prio = I32(KS_COL_NEXT_PRIO);
    int32_t *target_cpu = I32(KS_COL_TARGET_CPU), *orig_cpu = I32(KS_COL_ORIG_CPU);
    int32_t *dest_cpu = I32(KS_COL_DEST_CPU), *child_pid = I32(KS_COL_CHILD_PID);
    int32_t *child_comm = I32(KS_COL_CHILD_COMM), *cpu_id = I32(KS_COL_CPU_ID);
    int32_t *node_id = I32(KS_COL_NODE_ID), *mm_cid = I32(KS_COL_MM_CID);
    int32_t *g_name = I32(KS_COL_G_NAME_OFF), *g_fields = I32(KS_COL_G_FIELDS_OFF);
    /* Nullable columns start at 0; each type writes only its own. */
    memset(out + off[KS_COL_PREV_STATE], 0, off[KS_COL_CPU] - off[KS_COL_PREV_STATE]);
    memset(out + off[KS_COL_TASK_PID], 0, off[KS_COL_ORDER] - off[KS_COL_TASK_PID]);
    memset(out + off[KS_COL_GROUP_DEAD], 0, off[KS_COLUMN_COUNT] - off[KS_COL_GROUP_DEAD]);
    uint64_t ts_min = UINT64_MAX, ts_max = 0;
    for (uint32_t i = 0; i < n; i++) {
        const ks_event *e = &events[i];
        uint32_t row = rank[i];
        if (e->type >= KS_EV_TYPE_COUNT)
            return KS_ERR_INVALID_ARG;
        uint32_t valid = 0;     /* bit b: bitmap KS_VALID_ABOUT + b */
#define VALID(col) (valid |= 1u << ((col) - KS_VALID_ABOUT))
        ts[row] = (int64_t)e->ts_ns;
        ts_min = e->ts_ns < ts_min ? e->ts_ns : ts_min;
        ts_max = e->ts_ns > ts_max ? e->ts_ns : ts_max;
        type[row] = (int8_t)e->type;
        buffer[row] = (int8_t)(e->buffer < 127 ? e->buffer : 127);
        cpu[row] = e->cpu;
        pid[row] = e->pid;
        tgid[row] = e->tgid;
        int32_t id = comm_id(dict, e->comm);
        if (id < 0)
            return KS_ERR_NO_MEMORY;
        comm[row] = id;
        stats->type_counts[e->type]++;
        switch (e->type) {
        case KS_EV_SCHED_SWITCH: {
            const ks_ev_sched_switch *s = &e->u.sched_switch;
            int32_t a = comm_id(dict, s->prev_comm), b = comm_id(dict, s->next_comm);
            if (a < 0 || b < 0)
                return KS_ERR_NO_MEMORY;
            prev_comm[row] = a;
            prev_pid[row] = s->prev_pid;
            prev_prio[row] = s->prev_prio;
            prev_state[row] = s->prev_state;
            next_comm[row] = b;
            next_pid[row] = s->next_pid;
            next_prio[row] = s->next_prio;
            VALID(KS_VALID_SWITCH);
            break;
        }
        case KS_EV_SCHED_WAKING:
        case KS_EV_SCHED_WAKEUP:
        case KS_EV_SCHED_WAKEUP_NEW: {
            const ks_ev_sched_wakeup *w = &e->u.sched_wakeup;
            if ((id = comm_id(dict, w->comm)) < 0)
                return KS_ERR_NO_MEMORY;
            task_comm[row] = id;
            task_pid[row] = w->pid;
            prio[row] = w->prio;
            target_cpu[row] = w->target_cpu;
            VALID(KS_VALID_ABOUT);
            VALID(KS_VALID_PRIO);
            VALID(KS_VALID_WAKEUP);
            break;
        }
        case KS_EV_SCHED_MIGRATE_TASK: {
            const ks_ev_sched_migrate_task *m = &e->u.sched_migrate_task;
            if ((id = comm_id(dict, m->comm)) < 0)
                return KS_ERR_NO_MEMORY;
            task_comm[row] = id;
            task_pid[row] = m->pid;
            prio[row] = m->prio;
            orig_cpu[row] = m->orig_cpu;
            dest_cpu[row] = m->dest_cpu;
            VALID(KS_VALID_ABOUT);
            VALID(KS_VALID_PRIO);
            VALID(KS_VALID_MIGRATE);
            break;
        }
        case KS_EV_SCHED_PROCESS_FORK: {
            const ks_ev_sched_process_fork *f = &e->u.sched_process_fork;
            int32_t a = comm_id(dict, f->parent_comm), b = comm_id(dict, f->child_comm);
            if (a < 0 || b < 0)
                return KS_ERR_NO_MEMORY;
            task_comm[row] = a;
            task_pid[row] = f->parent_pid;
            child_comm[row] = b;
            child_pid[row] = f->child_pid;
            VALID(KS_VALID_ABOUT);
            VALID(KS_VALID_FORK);
            break;
        }
        case KS_EV_SCHED_PROCESS_EXIT:
        case KS_EV_SCHED_PROCESS_FREE: {
            const ks_ev_sched_process_exit *x = &e->u.sched_process_exit;
            if ((id = comm_id(dict, x->comm)) < 0)
                return KS_ERR_NO_MEMORY;
            task_comm[row] = id;
            task_pid[row] = x->pid;
            prio[row] = x->prio;
            VALID(KS_VALID_ABOUT);
            VALID(KS_VALID_PRIO);
            if (x->group_dead >= 0) {
                group_dead[row] = (int8_t)x->group_dead;
                VALID(KS_VALID_GROUP_DEAD);
            }
            break;
        }
        case KS_EV_RSEQ_UPDATE: {
            const ks_ev_rseq_update *r = &e->u.rseq_update;
            cpu_id[row] = r->cpu_id;
            VALID(KS_VALID_RSEQ);
            if (r->node_id >= 0) {
                node_id[row] = r->node_id;
                VALID(KS_VALID_NODE_ID);
            }
            if (r->mm_cid >= 0) {
                mm_cid[row] = r->mm_cid;
                VALID(KS_VALID_MM_CID);
            }
            break;
        }
        case KS_EV_KMEM_CACHE_ALLOC:
        case KS_EV_KMEM_CACHE_FREE:
            if (e->u.kmem_cache.node >= 0) {    /* -1: any node (NUMA_NO_NODE) stays null */
                node_id[row] = e->u.kmem_cache.node;
                VALID(KS_VALID_NODE_ID);
            }
            break;
        case KS_EV_SHEAF_REFILL:
        case KS_EV_SHEAF_FLUSH:
        case KS_EV_BARN_GET:
        case KS_EV_BARN_PUT:
            if (e->u.sheaf.node >= 0) {
                node_id[row] = e->u.sheaf.node;
                VALID(KS_VALID_NODE_ID);
            }
            break;
        default: {              /* KS_EV_GENERIC */
            g_name[row] = (int32_t)e->u.generic.name_off;
            g_fields[row] = (int32_t)e->u.generic.fields_off;
            if ((int64_t)e->u.generic.fields_off > stats->last_fields_off)
                stats->last_fields_off = e->u.generic.fields_off;
            VALID(KS_VALID_GENERIC);
            break;
        }
        }
#undef VALID
        for (int32_t b = 0; valid; b++, valid >>= 1)
            if (valid & 1u)
                out[off[KS_VALID_ABOUT + b] + row / 8] |= (uint8_t)(1u << (row & 7));
    }
    for (int32_t b = 0; b < BITMAPS; b++) {
        const uint8_t *map = out + off[KS_VALID_ABOUT + b];
        uint32_t set = 0;
        for (uint32_t i = 0; i < (n + 7) / 8; i++)
            set += (uint32_t)__builtin_popcount(map[i]);
        stats->nulls[b] = n - set;
    }
    stats->ts_min = n ? ts_min : 0;
    stats->ts_max = ts_max;
    return KS_OK;
}
