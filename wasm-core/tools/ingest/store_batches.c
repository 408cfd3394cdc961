/*
 * store_batches.c: batch building and the Parquet writer thread (see store_batches.h).
 */
#include "store_batches.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_schema.inc"
#include "kscope/native/ftrace_export.h"
#include "json_out.h"

/* records.py SCHEMA, in order: name, Parquet kind, statistics, builder column, validity. */
typedef struct store_column {
    const char *name;
    int32_t kind;
    int32_t statistics;
    int32_t values;   /* ks_column, or -1: the batch's own (fields) */
    int32_t valid;    /* ks_column bitmap, or -1: every row */
} store_column;

static const store_column STORE_COLUMNS[] = {
    {"ts_ns", KS_PQ_I64, 1, KS_COL_TS_NS, -1},
    {"cpu", KS_PQ_I32, 1, KS_COL_CPU, -1},
    {"type", KS_PQ_DICT8, 0, KS_COL_TYPE, -1},
    {"buffer", KS_PQ_DICT8, 0, KS_COL_BUFFER, -1},  /* names: store_writer_set_buffers */
    {"pid", KS_PQ_I32, 0, KS_COL_PID, -1},
    {"tgid", KS_PQ_I32, 0, KS_COL_TGID, -1},
    {"comm", KS_PQ_DICT32, 0, KS_COL_COMM, -1},
    {"task_pid", KS_PQ_I32, 0, KS_COL_TASK_PID, KS_VALID_ABOUT},
    {"task_comm", KS_PQ_DICT32, 0, KS_COL_TASK_COMM, KS_VALID_ABOUT},
    {"prio", KS_PQ_I32, 0, KS_COL_PRIO, KS_VALID_PRIO},
    {"prev_comm", KS_PQ_DICT32, 0, KS_COL_PREV_COMM, KS_VALID_SWITCH},
    {"prev_pid", KS_PQ_I32, 0, KS_COL_PREV_PID, KS_VALID_SWITCH},
    {"prev_prio", KS_PQ_I32, 0, KS_COL_PREV_PRIO, KS_VALID_SWITCH},
    {"prev_state", KS_PQ_I64, 0, KS_COL_PREV_STATE, KS_VALID_SWITCH},
    {"next_comm", KS_PQ_DICT32, 0, KS_COL_NEXT_COMM, KS_VALID_SWITCH},
    {"next_pid", KS_PQ_I32, 0, KS_COL_NEXT_PID, KS_VALID_SWITCH},
    {"next_prio", KS_PQ_I32, 0, KS_COL_NEXT_PRIO, KS_VALID_SWITCH},
    {"target_cpu", KS_PQ_I32, 0, KS_COL_TARGET_CPU, KS_VALID_WAKEUP},
    {"orig_cpu", KS_PQ_I32, 0, KS_COL_ORIG_CPU, KS_VALID_MIGRATE},
    {"dest_cpu", KS_PQ_I32, 0, KS_COL_DEST_CPU, KS_VALID_MIGRATE},
    {"child_pid", KS_PQ_I32, 0, KS_COL_CHILD_PID, KS_VALID_FORK},
    {"child_comm", KS_PQ_DICT32, 0, KS_COL_CHILD_COMM, KS_VALID_FORK},
    {"group_dead", KS_PQ_I8, 0, KS_COL_GROUP_DEAD, KS_VALID_GROUP_DEAD},
    {"cpu_id", KS_PQ_I32, 0, KS_COL_CPU_ID, KS_VALID_RSEQ},
    {"node_id", KS_PQ_I32, 0, KS_COL_NODE_ID, KS_VALID_NODE_ID},
    {"mm_cid", KS_PQ_I32, 0, KS_COL_MM_CID, KS_VALID_MM_CID},
    {"name", KS_PQ_DICT32, 0, KS_COL_G_NAME_OFF, KS_VALID_GENERIC},  /* offsets replaced by name ids */
    {"fields", KS_PQ_STRING, 0, -1, KS_VALID_GENERIC},
};
#define N_STORE_COLUMNS ((int)(sizeof STORE_COLUMNS / sizeof STORE_COLUMNS[0]))

/* ---- string tables ------------------------------------------------------------------ */

static void table_reset(string_table *t)
{
    t->count = 0;
    if (t->offsets)
        t->offsets[0] = 0;
}

static int table_reserve(string_table *t, uint32_t count, uint32_t bytes)
{
    if (count + 1 > t->cap_count || !t->offsets) {
        uint32_t cap = t->cap_count ? t->cap_count : 256;
        while (cap < count + 1)
            cap *= 2;
        int32_t *grown = realloc(t->offsets, cap * sizeof *grown);
        if (!grown)
            return -1;
        if (!t->offsets)
            grown[0] = 0;
        t->offsets = grown;
        t->cap_count = cap;
    }
    if (bytes > t->cap_bytes || !t->bytes) {
        uint32_t cap = t->cap_bytes ? t->cap_bytes : 4096;
        while (cap < bytes)
            cap *= 2;
        char *grown = realloc(t->bytes, cap);
        if (!grown)
            return -1;
        t->bytes = grown;
        t->cap_bytes = cap;
    }
    return 0;
}

/* Appends s[0..len) repaired to UTF-8 (at most 3 * len bytes). */
static int table_append(string_table *t, const char *s, uint32_t len)
{
    uint32_t used = t->offsets ? (uint32_t)t->offsets[t->count] : 0;
    if (table_reserve(t, t->count + 1, used + 3 * len) != 0)
        return -1;
    uint32_t wrote;
    if (utf8_valid(s, len)) {
        memcpy(t->bytes + used, s, len);
        wrote = len;
    } else {
        wrote = utf8_sanitize(s, len, t->bytes + used);
    }
    t->offsets[++t->count] = (int32_t)(used + wrote);
    return 0;
}

static void table_free(string_table *t)
{
    free(t->offsets);
    free(t->bytes);
    memset(t, 0, sizeof *t);
}

static ks_pq_strings as_strings(const string_table *t)
{
    return (ks_pq_strings){t->count, t->offsets, t->bytes};
}

/* ---- generic event names ------------------------------------------------------------- */

int name_dict_init(name_dict *d)
{
    memset(d, 0, sizeof *d);
    d->n_slots = 1024;
    d->slots = calloc(d->n_slots, sizeof *d->slots);
    d->counts = calloc(256, sizeof *d->counts);
    return d->slots && d->counts && table_reserve(&d->names, 1, 4096) == 0 ? 0 : -1;
}

void name_dict_free(name_dict *d)
{
    table_free(&d->names);
    free(d->counts);
    free(d->slots);
    memset(d, 0, sizeof *d);
}

static uint32_t hash_text(const char *s, uint32_t len)
{
    return (uint32_t)ks_fnv1a64(s, len, 0xcbf29ce484222325ull);
}

static int name_dict_grow(name_dict *d)
{
    uint32_t n = d->n_slots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (uint32_t id = 0; id < d->names.count; id++) {
        const char *s = d->names.bytes + d->names.offsets[id];
        uint32_t len = (uint32_t)(d->names.offsets[id + 1] - d->names.offsets[id]);
        uint32_t h = hash_text(s, len) & (n - 1);
        while (slots[h])
            h = (h + 1) & (n - 1);
        slots[h] = id + 1;
    }
    free(d->slots);
    d->slots = slots;
    d->n_slots = n;
    return 0;
}

/* The id of a name (added if new); -1 when memory runs out. Names are stored repaired
 * to UTF-8, looked up as given (a bad name repairs the same way each time). */
static int64_t name_dict_id(name_dict *d, const char *s, uint32_t len)
{
    uint32_t h = hash_text(s, len) & (d->n_slots - 1);
    for (;;) {
        uint32_t slot = d->slots[h];
        if (!slot)
            break;
        uint32_t id = slot - 1;
        uint32_t at = (uint32_t)d->names.offsets[id];
        if ((uint32_t)(d->names.offsets[id + 1] - (int32_t)at) == len &&
            memcmp(d->names.bytes + at, s, len) == 0)
            return id;
        h = (h + 1) & (d->n_slots - 1);
    }
    /* New name. A name that needed repair is stored repaired and never matches its raw
     * bytes above, so such names are looked up slowly (linear) but stay correct. */
    if (!utf8_valid(s, len)) {
        char *fixed = malloc(3 * (size_t)len + 1);
        if (!fixed)
            return -1;
        uint32_t flen = utf8_sanitize(s, len, fixed);
        for (uint32_t id = 0; id < d->names.count; id++)
            if ((uint32_t)(d->names.offsets[id + 1] - d->names.offsets[id]) == flen &&
                memcmp(d->names.bytes + d->names.offsets[id], fixed, flen) == 0) {
                free(fixed);
                return id;
            }
        free(fixed);
    }
    uint32_t id = d->names.count;
    if ((id & (id - 1)) == 0 && id >= 256) {  /* counts grow by doubling past 256 */
        uint64_t *grown = realloc(d->counts, 2 * (size_t)id * sizeof *grown);
        if (!grown)
            return -1;
        memset(grown + id, 0, (size_t)id * sizeof *grown);
        d->counts = grown;
    }
    if (table_append(&d->names, s, len) != 0)
        return -1;
    if (utf8_valid(s, len))
        d->slots[h] = id + 1;
    if (2 * d->names.count > d->n_slots && name_dict_grow(d) != 0)
        return -1;
    return id;
}

/* ---- batches ------------------------------------------------------------------------- */

/* The store has no allocator columns yet (records.py SCHEMA): a kmem_cache_* or sheaf
 * record is stored as a generic row, its tracepoint name and its fields as the kernel
 * prints them (the ftrace exporter's text), so nothing the record holds is lost. */
static bool stored_as_text(int32_t type)
{
    return type >= KS_EV_KMEM_CACHE_ALLOC && type < KS_EV_TYPE_COUNT;
}

/* The exporter's fields text of a typed record ("call_site=0x0 ptr=... name=filp ..."). */
static const char *typed_fields_text(const ks_event *ev, char *buf, int32_t cap)
{
    int32_t written = 0;
    if (ks_ftrace_format_event(ev, NULL, 0, buf, cap, &written) != KS_OK || written >= cap)
        return "";
    char key[48];
    snprintf(key, sizeof key, ": %s: ", ks_event_type_name((int32_t)ev->type));
    const char *at = strstr(buf, key);
    if (!at)
        return "";
    at += strlen(key);
    buf[strcspn(buf, "\n")] = '\0';
    return at;
}

int32_t batch_build(batch *b, const ks_event_log *log, ks_comm_dict *comms, name_dict *names)
{
    uint32_t n = ks_event_log_count(log);
    ks_columns_layout(n, b->offsets);
    uint64_t need = b->offsets[KS_COLUMN_COUNT];
    if (need > b->buf_cap) {
        free(b->buf);
        b->buf = aligned_alloc(64, (need + 63) / 64 * 64);
        b->buf_cap = b->buf ? need : 0;
        if (!b->buf)
            return KS_ERR_NO_MEMORY;
    }
    b->n = n;
    int32_t rc = ks_columns_build(ks_event_log_data(log), n, comms, KS_COLUMNS_BY_CPU, b->buf, &b->stats);
    if (rc != KS_OK)
        return rc;

    /* The comm dictionary as of now (the writer thread reads this copy). */
    table_reset(&b->comms);
    uint32_t n_comms = ks_comm_dict_count(comms);
    const char *all = ks_comm_dict_names(comms);
    if (table_reserve(&b->comms, n_comms, 1) != 0)
        return KS_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n_comms; i++) {
        const char *s = all + (size_t)i * KS_COMM_LEN;
        if (table_append(&b->comms, s, (uint32_t)strnlen(s, KS_COMM_LEN)) != 0)
            return KS_ERR_NO_MEMORY;
    }

    /* Generic rows: the name offset becomes the name's id; the fields text is copied. */
    table_reset(&b->fields);
    if (table_reserve(&b->fields, n, 1) != 0)
        return KS_ERR_NO_MEMORY;
    int32_t *name_col = (int32_t *)(b->buf + b->offsets[KS_COL_G_NAME_OFF]);
    const int32_t *fields_col = (const int32_t *)(b->buf + b->offsets[KS_COL_G_FIELDS_OFF]);
    int8_t *type = (int8_t *)(b->buf + b->offsets[KS_COL_TYPE]);
    const int32_t *order = (const int32_t *)(b->buf + b->offsets[KS_COL_ORDER]);
    uint8_t *valid_generic = b->buf + b->offsets[KS_VALID_GENERIC];
    uint32_t as_text = 0;
    for (int32_t t = KS_EV_KMEM_CACHE_ALLOC; t < KS_EV_TYPE_COUNT; t++)
        as_text += b->stats.type_counts[t];
    uint32_t generic = b->stats.type_counts[KS_EV_GENERIC] + as_text;
    char line[512];
    for (uint32_t i = 0; i < n; i++) {
        bool typed_as_text = as_text && stored_as_text(type[i]);
        if (!generic || (type[i] != KS_EV_GENERIC && !typed_as_text)) {
            b->fields.offsets[i + 1] = b->fields.offsets[i];
            continue;
        }
        const char *name, *text;
        if (typed_as_text) {
            const ks_event *ev = &ks_event_log_data(log)[order[i]];
            name = ks_event_type_name(type[i]);
            text = typed_fields_text(ev, line, (int32_t)sizeof line);
            type[i] = KS_EV_GENERIC;
            valid_generic[i / 8] |= (uint8_t)(1u << (i & 7));
            b->stats.nulls[KS_VALID_GENERIC - KS_VALID_ABOUT]--;
        } else {
            name = ks_event_log_text(log, (uint32_t)name_col[i]);
            text = ks_event_log_text(log, (uint32_t)fields_col[i]);
        }
        name = name ? name : "";
        text = text ? text : "";
        int64_t id = name_dict_id(names, name, (uint32_t)strlen(name));
        if (id < 0)
            return KS_ERR_NO_MEMORY;
        names->counts[id]++;
        name_col[i] = (int32_t)id;
        b->fields.count = i;
        if (table_append(&b->fields, text, (uint32_t)strlen(text)) != 0)
            return KS_ERR_NO_MEMORY;
    }
    b->fields.count = n;
    for (int32_t t = KS_EV_KMEM_CACHE_ALLOC; as_text && t < KS_EV_TYPE_COUNT; t++) {
        b->stats.type_counts[KS_EV_GENERIC] += b->stats.type_counts[t];   /* as the rows now say */
        b->stats.type_counts[t] = 0;
    }
    table_reset(&b->names);
    if (table_reserve(&b->names, names->names.count, (uint32_t)names->names.offsets[names->names.count] + 1) != 0)
        return KS_ERR_NO_MEMORY;
    memcpy(b->names.offsets, names->names.offsets, ((size_t)names->names.count + 1) * sizeof(int32_t));
    memcpy(b->names.bytes, names->names.bytes, (size_t)names->names.offsets[names->names.count]);
    b->names.count = names->names.count;
    return KS_OK;
}

static void batch_free(batch *b)
{
    free(b->buf);
    table_free(&b->comms);
    table_free(&b->names);
    table_free(&b->fields);
    memset(b, 0, sizeof *b);
}

/* ---- the writer thread ----------------------------------------------------------------- */

static ks_pq_strings type_names;
static int32_t type_offsets[KS_EV_TYPE_COUNT + 1];
static char type_bytes[KS_EV_TYPE_COUNT * 32];

static void init_type_names(void)
{
    uint32_t at = 0;
    for (int i = 0; i < KS_EV_TYPE_COUNT; i++) {
        const char *s = ks_event_type_name(i);
        uint32_t len = (uint32_t)strlen(s);
        memcpy(type_bytes + at, s, len);
        type_offsets[i] = (int32_t)at;
        at += len;
    }
    type_offsets[KS_EV_TYPE_COUNT] = (int32_t)at;
    type_names = (ks_pq_strings){KS_EV_TYPE_COUNT, type_offsets, type_bytes};
}

void store_writer_set_buffers(store_writer *w, const char *const *names, int32_t n)
{
    if (n < 1)
        n = 0;
    if (n > 64)
        n = 64;
    int32_t at = 0;
    for (int32_t i = 0; i < (n ? n : 1); i++) {
        const char *s = n ? names[i] : "";
        int32_t len = (int32_t)strnlen(s, 63);
        memcpy(w->buffer_bytes + at, s, (size_t)len);
        w->buffer_offsets[i] = at;
        at += len;
    }
    w->buffer_offsets[n ? n : 1] = at;
    w->buffer_names = (ks_pq_strings){ n ? n : 1, w->buffer_offsets, w->buffer_bytes };
}

static int32_t write_batch(store_writer *w, batch *b)
{
    ks_pq_column_data cols[N_STORE_COLUMNS];
    ks_pq_strings comms = as_strings(&b->comms), names = as_strings(&b->names);
    for (int c = 0; c < N_STORE_COLUMNS; c++) {
        const store_column *sc = &STORE_COLUMNS[c];
        ks_pq_column_data *d = &cols[c];
        memset(d, 0, sizeof *d);
        d->valid = sc->valid >= 0 ? b->buf + b->offsets[sc->valid] : NULL;
        if (sc->values >= 0)
            d->values = b->buf + b->offsets[sc->values];
        if (sc->kind == KS_PQ_STRING) {
            d->values = b->fields.bytes;
            d->offsets = b->fields.offsets;
        } else if (sc->kind == KS_PQ_DICT8) {
            d->dict = sc->values == KS_COL_BUFFER ? &w->buffer_names : &type_names;
        } else if (sc->kind == KS_PQ_DICT32) {
            d->dict = sc->values == KS_COL_G_NAME_OFF ? &names : &comms;
        }
    }
    const int32_t *cpu = (const int32_t *)(b->buf + b->offsets[KS_COL_CPU]);
    for (uint32_t a = 0; a < b->n;) {  /* one row group per CPU's run of rows */
        uint32_t e = a + 1;
        while (e < b->n && cpu[e] == cpu[a])
            e++;
        int32_t rc = ks_pq_write_row_group(w->pq, cols, a, e - a);
        if (rc != KS_OK)
            return rc;
        a = e;
    }
    return KS_OK;
}

static void *writer_main(void *arg)
{
    store_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->n_todo == 0 && !w->closing)
            pthread_cond_wait(&w->changed, &w->lock);
        if (w->n_todo == 0)
            break;
        int slot = w->todo[0];
        pthread_mutex_unlock(&w->lock);
        int32_t rc = w->status ? w->status : write_batch(w, &w->pool[slot]);
        pthread_mutex_lock(&w->lock);
        if (rc != KS_OK && !w->status) {
            w->status = rc;
            snprintf(w->error, sizeof w->error, "%s", ks_pq_writer_error(w->pq));
        }
        memmove(w->todo, w->todo + 1, (size_t)(--w->n_todo) * sizeof *w->todo);
        w->free_list[w->n_free++] = slot;
        pthread_cond_broadcast(&w->changed);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int store_writer_open(store_writer *w, const char *path, int buffers, int zstd_level)
{
    memset(w, 0, sizeof *w);
    init_type_names();
    store_writer_set_buffers(w, NULL, 0);           /* one buffer, "" (the top one) */
    ks_pq_column_spec specs[N_STORE_COLUMNS];
    for (int c = 0; c < N_STORE_COLUMNS; c++)
        specs[c] = (ks_pq_column_spec){STORE_COLUMNS[c].name, STORE_COLUMNS[c].kind, STORE_COLUMNS[c].statistics};
    ks_pq_key_value kv = {"ARROW:schema", ARROW_SCHEMA_B64};
    int32_t rc = ks_pq_writer_open(path, specs, N_STORE_COLUMNS, &kv, 1, zstd_level, &w->pq);
    if (rc != KS_OK) {
        snprintf(w->error, sizeof w->error, "%s", w->pq ? ks_pq_writer_error(w->pq) : ks_status_message(rc));
        return rc;
    }
    w->n_pool = buffers < 2 ? 2 : buffers;
    w->pool = calloc((size_t)w->n_pool, sizeof *w->pool);
    w->free_list = calloc((size_t)w->n_pool, sizeof *w->free_list);
    w->todo = calloc((size_t)w->n_pool, sizeof *w->todo);
    if (!w->pool || !w->free_list || !w->todo)
        return KS_ERR_NO_MEMORY;
    for (int i = 0; i < w->n_pool; i++)
        w->free_list[w->n_free++] = i;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->changed, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0)
        return KS_ERR_NO_MEMORY;
    w->started = 1;
    return KS_OK;
}

batch *store_writer_acquire(store_writer *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->n_free == 0 && !w->status)
        pthread_cond_wait(&w->changed, &w->lock);
    batch *b = NULL;
    if (!w->status)
        b = &w->pool[w->free_list[--w->n_free]];
    pthread_mutex_unlock(&w->lock);
    return b;
}

void store_writer_submit(store_writer *w, batch *b)
{
    pthread_mutex_lock(&w->lock);
    w->todo[w->n_todo++] = (int)(b - w->pool);
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

int32_t store_writer_close(store_writer *w)
{
    pthread_mutex_lock(&w->lock);
    w->closing = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    w->started = 0;
    if (w->status)
        return w->status;
    int32_t rc = ks_pq_writer_close(w->pq);
    if (rc != KS_OK) {
        w->status = rc;
        snprintf(w->error, sizeof w->error, "%s", ks_pq_writer_error(w->pq));
    }
    return rc;
}

void store_writer_free(store_writer *w)
{
    if (w->started)
        store_writer_close(w);
    for (int i = 0; i < w->n_pool; i++)
        batch_free(&w->pool[i]);
    free(w->pool);
    free(w->free_list);
    free(w->todo);
    if (w->pq)
        ks_pq_writer_free(w->pq);
    memset(w, 0, sizeof *w);
}
