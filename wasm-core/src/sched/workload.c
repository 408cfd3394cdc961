/*
 * Workloads as JSON: the schema, and its validation into a wl_process list.
 *
 * A workload names what the simulated machine runs. Example (seed 000's
 * benchmark on 8 cores of one L3, 200 ms between bursts):
 *
 *     {
 *       "name": "seed000-8core-200ms",
 *       "duration_ms": 2000,
 *       "processes": [
 *         { "kind": "intermittent", "comm": "rseq-bench", "threads": 8,
 *           "placement": "one-per-core", "index_by": "mm_cid", "delay_ms": 200 }  (rseq field)
 *       ]
 *     }
 *
 * Top level (unknown fields are errors, so typos do not pass silently):
 *
 *     name          string, required
 *     description   string, optional (ignored)
 *     duration_ms   number > 0 and <= 3600000, required: simulated time
 *     processes     array of 1..64 process objects, required
 *
 * Every process object:
 *
 *     kind          "intermittent" | "periodic_rt" | "pipe_pairs" | "fork_churn", required
 *     comm          string, required (cut to 15 bytes like the kernel's TASK_COMM_LEN)
 *     rseq          boolean, default true: threads register rseq (glibc >= 2.35 does),
 *                   so each switch-in records rseq_update
 *     start_ms      number >= 0, default 0: when the process starts
 *
 * "intermittent" (seed 000's benchmark: threads take turns, one burst each, in a
 * random order, never two at once; see driver.c for the two pacings):
 *
 *     threads       integer 1..1024; required unless "cpus" is given with one-per-core
 *     placement     "one-per-core" (default): thread i pinned to CPU i, or to cpus[i];
 *                   "free": every thread may run on all CPUs, or on the "cpus" set
 *     cpus          array of CPU numbers of the topology, optional (see placement)
 *     area_bytes    integer 64..1048576, default 16384: each index's data area
 *     index_by      "cpu" (default) | "mm_cid": which rseq field (rseq->cpu_id,
 *                   rseq->mm_cid) picks the area
 *     delay_ms      number >= 0, default 10: the spacing of consecutive bursts
 *     order         "reshuffle" (default): one driver wakes the threads in turn, a new
 *                   random order every round, delay_ms from one burst's end to the next
 *                   wakeup; "fixed": librseq's basic_percpu_benchmark: one random order
 *                   drawn at the start, thread k of it first sleeps k x delay_ms, then
 *                   each thread sleeps threads x delay_ms after each of its bursts
 *     warmup_sweeps integer 0..1000000, default 0: sweeps a thread makes, unmeasured,
 *                   right before its first measured burst (librseq: 20000)
 *     loops         integer 1..1000000, optional: measured bursts per thread, then the
 *                   threads exit (librseq: 5; "fixed" threads that are done spin until
 *                   all are); absent: bursts go on until duration_ms
 *     repin         array of 1..64 affinity changes, optional: each
 *                   { "thread": i, "at_ms": t, "cpus": [...] } has thread i (0-based, in
 *                   creation order, as placement numbers them) call sched_setaffinity()
 *                   at t ms (0..duration_ms) to run only on the listed CPUs of the
 *                   topology (driver.c: the kernel's set_cpus_allowed path, which from
 *                   7e019dc on also widens the mm's cpus_allowed, mm_set_cpus_allowed)
 *
 * "periodic_rt" (cyclictest-like SCHED_FIFO threads):
 *
 *     threads       integer 1..1024, required
 *     prio          integer 1..99 (sched_priority; kernel prio 99 - prio), required
 *     period_us     number 10..10000000, required
 *     runtime_us    number > 0, <= period_us, required
 *     phase_spread_us  number 0..period_us, default 0: thread i's timer runs phase_i later
 *                   every period, phase_i in [0, phase_spread_us) from a fixed hash of the
 *                   thread's index (the same for every seed); 0: all threads in phase
 *     cpus          array, optional: the threads' allowed CPUs (default all)
 *
 * "pipe_pairs" (hackbench-like, threads mode: one process per group):
 *
 *     groups           integer 1..64, required
 *     pairs_per_group  integer 1..256, required
 *     messages         integer 1..100000000, required: round trips per pair
 *     work_us          number 0..1000000, default 5: CPU work per message
 *     cpus             array, optional: allowed CPUs (default all)
 *
 * "fork_churn" (a parent forking short-lived child processes):
 *
 *     children          integer 1..100000, required
 *     child_runtime_us  number > 0 and <= 10000000, required
 *     concurrency       integer 1..1024, required: children alive at once at most
 *     fork_us           number 0..1000000, default 50: parent's work per fork
 *     cpus              array, optional: allowed CPUs (default all)
 *
 * Errors are KS_ERR_PARSE with ks_parse_error: the line and column of the
 * offending value (of the enclosing object for a missing field), the field
 * path ("processes[0].threads"), and a message ("must be between 1 and 1024,
 * got 0"). At most 65536 tasks may exist over a run.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/json.h"
#include "sim_internal.h"

#define WL_MAX_PROCESSES 64
#define WL_MAX_REPINS 64                /* per process */
#define WL_MAX_TASKS 65536

typedef struct reader {
    const json_doc *doc;
    ks_parse_error *err;
    int32_t nr_cpus;
    char prefix[48];            /* path of the object being read: "" or "processes[2]" */
} reader;

/* strncpy that always terminates (a long field path is cut at the end). */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int32_t fail(reader *r, int32_t value, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fills the error for `field` (relative to r->prefix) at the value's position. */
static int32_t fail(reader *r, int32_t value, const char *field, const char *fmt, ...)
{
    ks_parse_error *err = r->err;
    if (!err)
        return KS_ERR_PARSE;
    memset(err, 0, sizeof *err);
    const json_value *v = &r->doc->values[value];
    err->line = v->line;
    err->column_or_field = v->column;
    char path[128];
    if (r->prefix[0] && field[0])
        snprintf(path, sizeof path, "%s%s%s", r->prefix, field[0] == '[' ? "" : ".", field);
    else
        snprintf(path, sizeof path, "%s", r->prefix[0] ? r->prefix : field);
    copy_text(err->field, sizeof err->field, path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return KS_ERR_PARSE;
}

/* Like fail(), at a member's key rather than its value. */
static int32_t fail_key(reader *r, int32_t member, const char *what)
{
    const char *key = json_key(r->doc, member);
    int32_t status = fail(r, member, key, "%s \"%.40s\"", what, key);
    if (r->err) {
        r->err->line = r->doc->values[member].key_line;
        r->err->column_or_field = r->doc->values[member].key_column;
    }
    return status;
}

/* The member `key` of obj: its index; -1 if absent (an error if required). */
static int32_t member(reader *r, int32_t obj, const char *key, int required, int32_t *status)
{
    int32_t v = json_member(r->doc, obj, key);
    *status = KS_OK;
    if (v < 0 && required)
        *status = fail(r, obj, key, "missing required field \"%s\"", key);
    return v;
}

static int32_t expect_type(reader *r, int32_t v, const char *key, int32_t type)
{
    int32_t got = r->doc->values[v].type;
    if (got == type)
        return KS_OK;
    return fail(r, v, key, "expected %s, got %s", json_type_name(type), json_type_name(got));
}

static int32_t get_number(reader *r, int32_t obj, const char *key, int required, double lo,
                          double hi, double dflt, double *out)
{
    int32_t status;
    int32_t v = member(r, obj, key, required, &status);
    *out = dflt;
    if (v < 0)
        return status;
    if ((status = expect_type(r, v, key, JSON_NUMBER)) != KS_OK)
        return status;
    double x = r->doc->values[v].number;
    if (!(x >= lo && x <= hi))
        return fail(r, v, key, "must be between %g and %g, got %g", lo, hi, x);
    *out = x;
    return KS_OK;
}

static int is_integral(double x)
{
    return x >= -9e15 && x <= 9e15 && (double)(int64_t)x == x;
}

static int32_t get_int(reader *r, int32_t obj, const char *key, int required, int32_t lo,
                       int32_t hi, int32_t dflt, int32_t *out)
{
    double x;
    *out = dflt;
    int32_t status = get_number(r, obj, key, required, -1e300, 1e300, dflt, &x);
    int32_t v = json_member(r->doc, obj, key);
    if (status != KS_OK || v < 0)
        return status;
    if (!is_integral(x))
        return fail(r, v, key, "expected an integer, got %g", x);
    if (x < lo || x > hi)
        return fail(r, v, key, "must be between %d and %d, got %.0f", (int)lo, (int)hi, x);
    *out = (int32_t)x;
    return KS_OK;
}

static uint64_t ns_of(double x, double unit_ns)
{
    return (uint64_t)(x * unit_ns + 0.5);
}

static int32_t get_string(reader *r, int32_t obj, const char *key, int required, const char **out)
{
    int32_t status;
    int32_t v = member(r, obj, key, required, &status);
    *out = NULL;
    if (v < 0)
        return status;
    if ((status = expect_type(r, v, key, JSON_STRING)) != KS_OK)
        return status;
    *out = json_string(r->doc, v);
    return KS_OK;
}

/* A string that must be one of names[]; *out = its index (dflt if absent). */
static int32_t get_choice(reader *r, int32_t obj, const char *key, const char *const *names,
                          int32_t n, int32_t dflt, int32_t *out)
{
    const char *s;
    int32_t status = get_string(r, obj, key, dflt < 0, &s);
    *out = dflt;
    if (status != KS_OK || !s)
        return status;
    for (int32_t i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return KS_OK;
        }
    char options[96] = "";
    for (int32_t i = 0; i < n; i++) {
        size_t len = strlen(options);
        snprintf(options + len, sizeof options - len, "%s\"%s\"", i ? ", " : "", names[i]);
    }
    return fail(r, json_member(r->doc, obj, key), key, "unknown %s \"%.24s\" (expected %s)", key, s,
                options);
}

static int32_t get_bool(reader *r, int32_t obj, const char *key, int dflt, int32_t *out)
{
    int32_t status;
    int32_t v = member(r, obj, key, 0, &status);
    *out = dflt;
    if (v < 0)
        return KS_OK;
    if ((status = expect_type(r, v, key, JSON_BOOL)) != KS_OK)
        return status;
    *out = r->doc->values[v].str;
    return KS_OK;
}

/* Appends the "cpus" array at value v (CPU numbers) to wl->cpus: *off, *count. */
static int32_t read_cpu_list(reader *r, int32_t v, workload *wl, int32_t *off, int32_t *count)
{
    int32_t status;
    if ((status = expect_type(r, v, "cpus", JSON_ARRAY)) != KS_OK)
        return status;
    const json_value *arr = &r->doc->values[v];
    if (arr->count == 0)
        return fail(r, v, "cpus", "must list at least one CPU");
    int32_t *grown = realloc(wl->cpus, (size_t)(wl->nr_cpu_entries + arr->count) * sizeof *grown);
    if (!grown)
        return fail(r, v, "cpus", "out of memory");
    wl->cpus = grown;
    *off = wl->nr_cpu_entries;
    int32_t i = 0;
    for (int32_t e = arr->first; e >= 0; e = r->doc->values[e].next, i++) {
        char field[24];
        snprintf(field, sizeof field, "cpus[%d]", (int)i);
        const json_value *ev = &r->doc->values[e];
        if (ev->type != JSON_NUMBER)
            return fail(r, e, field, "expected a CPU number, got %s", json_type_name(ev->type));
        if (!is_integral(ev->number))
            return fail(r, e, field, "expected a CPU number, got %g", ev->number);
        if (ev->number < 0 || ev->number >= r->nr_cpus)
            return fail(r, e, field, "cpu %.0f is not in the topology (CPUs 0-%d)", ev->number,
                        (int)r->nr_cpus - 1);
        wl->cpus[wl->nr_cpu_entries++] = (int32_t)ev->number;
    }
    *count = arr->count;
    return KS_OK;
}

/* Appends an optional "cpus" array of CPU numbers to wl->cpus. */
static int32_t get_cpus(reader *r, int32_t obj, workload *wl, wl_process *p)
{
    int32_t status;
    int32_t v = member(r, obj, "cpus", 0, &status);
    if (v < 0)
        return KS_OK;
    return read_cpu_list(r, v, wl, &p->cpus_off, &p->nr_cpus);
}

/* Refuses members not in allowed[] (NULL-terminated) and duplicate members. */
static int32_t check_fields(reader *r, int32_t obj, const char *const *allowed)
{
    for (int32_t c = r->doc->values[obj].first; c >= 0; c = r->doc->values[c].next) {
        const char *key = json_key(r->doc, c);
        int known = 0;
        for (const char *const *a = allowed; *a; a++)
            known |= strcmp(*a, key) == 0;
        if (!known)
            return fail_key(r, c, "unknown field");
        if (json_member(r->doc, obj, key) != c)
            return fail_key(r, c, "duplicate field");
    }
    return KS_OK;
}

#define TRY(expr)                     \
    do {                              \
        int32_t try_status_ = (expr); \
        if (try_status_ != KS_OK)     \
            return try_status_;       \
    } while (0)

static const char *const kind_names[] = { "intermittent", "periodic_rt", "pipe_pairs",
                                          "fork_churn" };

/* One "repin" entry of process `proc` (r->prefix is already "processes[p].repin[k]"). */
static int32_t read_repin(reader *r, int32_t obj, workload *wl, const wl_process *p, int32_t proc,
                          double duration_ms, wl_repin *out)
{
    static const char *const fields[] = { "thread", "at_ms", "cpus", NULL };
    TRY(expect_type(r, obj, "", JSON_OBJECT));
    TRY(check_fields(r, obj, fields));
    out->proc = proc;
    TRY(get_int(r, obj, "thread", 1, 0, p->threads - 1, 0, &out->thread));
    double at;
    TRY(get_number(r, obj, "at_ms", 1, 0, duration_ms, 0, &at));
    out->at_ns = ns_of(at, 1e6);
    int32_t status;
    int32_t v = member(r, obj, "cpus", 1, &status);
    TRY(status);
    return read_cpu_list(r, v, wl, &out->cpus_off, &out->nr_cpus);
}

/* The optional "repin" list of an intermittent process (after its threads are known). */
static int32_t read_repins(reader *r, int32_t obj, workload *wl, const wl_process *p,
                          double duration_ms)
{
    int32_t status;
    int32_t v = member(r, obj, "repin", 0, &status);
    if (v < 0)
        return KS_OK;
    TRY(expect_type(r, v, "repin", JSON_ARRAY));
    int32_t n = r->doc->values[v].count;
    if (n < 1 || n > WL_MAX_REPINS)
        return fail(r, v, "repin", "must list 1 to %d affinity changes, got %d", WL_MAX_REPINS,
                    (int)n);
    wl_repin *grown = realloc(wl->repins, (size_t)(wl->nr_repins + n) * sizeof *grown);
    if (!grown)
        return fail(r, v, "repin", "out of memory");
    wl->repins = grown;
    char saved[sizeof r->prefix];
    memcpy(saved, r->prefix, sizeof saved);
    int32_t k = 0;
    for (int32_t e = r->doc->values[v].first; e >= 0; e = r->doc->values[e].next, k++) {
        snprintf(r->prefix, sizeof r->prefix, "%s.repin[%d]", saved, (int)k);
        wl_repin *rp = &wl->repins[wl->nr_repins];
        memset(rp, 0, sizeof *rp);
        status = read_repin(r, e, wl, p, wl->nr_procs - 1, duration_ms, rp);
        if (status != KS_OK)
            return status;
        wl->nr_repins++;
    }
    memcpy(r->prefix, saved, sizeof saved);
    return KS_OK;
}

static int32_t read_intermittent(reader *r, int32_t obj, workload *wl, wl_process *p,
                                 double duration_ms)
{
    static const char *const fields[] = { "kind", "comm", "rseq", "start_ms", "threads",
                                          "placement", "cpus", "area_bytes", "index_by",
                                          "delay_ms", "order", "warmup_sweeps", "loops",
                                          "repin", NULL };
    static const char *const placements[] = { "one-per-core", "free" };
    static const char *const indexes[] = { "cpu", "mm_cid" };   /* rseq fields (kernel ABI) */
    static const char *const orders[] = { "reshuffle", "fixed" };
    TRY(check_fields(r, obj, fields));
    int32_t placement, index_by;
    TRY(get_choice(r, obj, "placement", placements, 2, 0, &placement));
    TRY(get_cpus(r, obj, wl, p));
    p->pinned = placement == 0;
    int threads_required = !(p->pinned && p->nr_cpus);
    TRY(get_int(r, obj, "threads", threads_required, 1, 1024, p->nr_cpus, &p->threads));
    if (p->pinned && p->nr_cpus && p->nr_cpus != p->threads)
        return fail(r, json_member(r->doc, obj, "cpus"), "cpus",
                    "one-per-core pins one thread per CPU: %d CPUs for %d threads",
                    (int)p->nr_cpus, (int)p->threads);
    if (p->pinned && !p->nr_cpus && p->threads > r->nr_cpus)
        return fail(r, json_member(r->doc, obj, "threads"), "threads",
                    "one-per-core needs a CPU per thread: %d threads, %d CPUs",
                    (int)p->threads, (int)r->nr_cpus);
    TRY(get_int(r, obj, "area_bytes", 0, 64, 1 << 20, 16384, &p->area_bytes));
    TRY(get_choice(r, obj, "index_by", indexes, 2, 0, &index_by));
    p->index_by_cid = index_by == 1;
    double delay;
    TRY(get_number(r, obj, "delay_ms", 0, 0, 3600000, 10, &delay));
    p->delay_ns = ns_of(delay, 1e6);
    TRY(get_choice(r, obj, "order", orders, 2, 0, &p->order_fixed));
    TRY(get_int(r, obj, "warmup_sweeps", 0, 0, 1000000, 0, &p->warmup_sweeps));
    TRY(get_int(r, obj, "loops", 0, 1, 1000000, 0, &p->loops));
    return read_repins(r, obj, wl, p, duration_ms);
}

static int32_t read_periodic_rt(reader *r, int32_t obj, workload *wl, wl_process *p)
{
    static const char *const fields[] = { "kind", "comm", "rseq", "start_ms", "threads", "prio",
                                          "period_us", "runtime_us", "phase_spread_us", "cpus",
                                          NULL };
    TRY(check_fields(r, obj, fields));
    TRY(get_int(r, obj, "threads", 1, 1, 1024, 0, &p->threads));
    TRY(get_int(r, obj, "prio", 1, 1, 99, 0, &p->rt_priority));
    double period, runtime;
    TRY(get_number(r, obj, "period_us", 1, 10, 1e7, 0, &period));
    TRY(get_number(r, obj, "runtime_us", 1, 1e-3, period, 0, &runtime));
    double spread;
    TRY(get_number(r, obj, "phase_spread_us", 0, 0, period, 0, &spread));
    p->period_ns = ns_of(period, 1e3);
    p->runtime_ns = ns_of(runtime, 1e3);
    p->phase_spread_ns = ns_of(spread, 1e3);
    return get_cpus(r, obj, wl, p);
}

static int32_t read_pipe_pairs(reader *r, int32_t obj, workload *wl, wl_process *p)
{
    static const char *const fields[] = { "kind", "comm", "rseq", "start_ms", "groups",
                                          "pairs_per_group", "messages", "work_us", "cpus", NULL };
    TRY(check_fields(r, obj, fields));
    TRY(get_int(r, obj, "groups", 1, 1, 64, 0, &p->groups));
    TRY(get_int(r, obj, "pairs_per_group", 1, 1, 256, 0, &p->pairs));
    TRY(get_int(r, obj, "messages", 1, 1, 100000000, 0, &p->messages));
    double work;
    TRY(get_number(r, obj, "work_us", 0, 0, 1e6, 5, &work));
    p->work_ns = ns_of(work, 1e3);
    return get_cpus(r, obj, wl, p);
}

static int32_t read_fork_churn(reader *r, int32_t obj, workload *wl, wl_process *p)
{
    static const char *const fields[] = { "kind", "comm", "rseq", "start_ms", "children",
                                          "child_runtime_us", "concurrency", "fork_us", "cpus",
                                          NULL };
    TRY(check_fields(r, obj, fields));
    TRY(get_int(r, obj, "children", 1, 1, 100000, 0, &p->children));
    TRY(get_int(r, obj, "concurrency", 1, 1, 1024, 0, &p->concurrency));
    double runtime, fork_us;
    TRY(get_number(r, obj, "child_runtime_us", 1, 1e-3, 1e7, 0, &runtime));
    TRY(get_number(r, obj, "fork_us", 0, 0, 1e6, 50, &fork_us));
    p->child_runtime_ns = ns_of(runtime, 1e3);
    p->fork_ns = ns_of(fork_us, 1e3);
    return get_cpus(r, obj, wl, p);
}

static int32_t read_process(reader *r, int32_t obj, workload *wl, wl_process *p, double duration_ms)
{
    TRY(expect_type(r, obj, "", JSON_OBJECT));
    TRY(get_choice(r, obj, "kind", kind_names, 4, -1, &p->kind));
    const char *comm;
    TRY(get_string(r, obj, "comm", 1, &comm));
    if (!comm[0])
        return fail(r, json_member(r->doc, obj, "comm"), "comm", "must not be empty");
    strncpy(p->comm, comm, KS_COMM_LEN - 1);
    TRY(get_bool(r, obj, "rseq", 1, &p->rseq));
    double start;
    TRY(get_number(r, obj, "start_ms", 0, 0, duration_ms, 0, &start));
    p->start_ns = ns_of(start, 1e6);
    switch (p->kind) {
    case WL_INTERMITTENT:
        return read_intermittent(r, obj, wl, p, duration_ms);
    case WL_PERIODIC_RT:
        return read_periodic_rt(r, obj, wl, p);
    case WL_PIPE_PAIRS:
        return read_pipe_pairs(r, obj, wl, p);
    default:
        return read_fork_churn(r, obj, wl, p);
    }
}

static int32_t read_workload(reader *r, workload *wl)
{
    static const char *const fields[] = { "name", "description", "duration_ms", "processes", NULL };
    TRY(expect_type(r, 0, "", JSON_OBJECT));
    TRY(check_fields(r, 0, fields));
    const char *name, *description;
    TRY(get_string(r, 0, "name", 1, &name));
    snprintf(wl->name, sizeof wl->name, "%s", name);
    TRY(get_string(r, 0, "description", 0, &description));
    double duration;
    TRY(get_number(r, 0, "duration_ms", 1, 1e-3, 3600000, 0, &duration));
    wl->duration_ns = ns_of(duration, 1e6);
    int32_t status;
    int32_t procs = member(r, 0, "processes", 1, &status);
    TRY(status);
    TRY(expect_type(r, procs, "processes", JSON_ARRAY));
    int32_t n = r->doc->values[procs].count;
    if (n < 1 || n > WL_MAX_PROCESSES)
        return fail(r, procs, "processes", "must list 1 to %d processes, got %d",
                    WL_MAX_PROCESSES, (int)n);
    wl->procs = calloc((size_t)n, sizeof *wl->procs);
    if (!wl->procs)
        return fail(r, procs, "processes", "out of memory");
    int32_t i = 0;
    for (int32_t e = r->doc->values[procs].first; e >= 0; e = r->doc->values[e].next, i++) {
        snprintf(r->prefix, sizeof r->prefix, "processes[%d]", (int)i);
        wl->nr_procs = i + 1;
        TRY(read_process(r, e, wl, &wl->procs[i], duration));
    }
    r->prefix[0] = '\0';
    if (workload_max_tasks(wl) > WL_MAX_TASKS)
        return fail(r, procs, "processes", "%d tasks over the run: at most %d",
                    (int)workload_max_tasks(wl), WL_MAX_TASKS);
    return KS_OK;
}

int32_t workload_parse(const char *json, int32_t len, const ks_topology *topo, workload *out,
                       ks_parse_error *err)
{
    memset(out, 0, sizeof *out);
    json_doc doc;
    json_error jerr;
    if (json_parse(json, len, &doc, &jerr) != 0) {
        json_free(&doc);
        if (err) {
            memset(err, 0, sizeof *err);
            err->line = jerr.line;
            err->column_or_field = jerr.column;
            copy_text(err->field, sizeof err->field, jerr.path);
            snprintf(err->message, sizeof err->message, "%s", jerr.message);
        }
        return KS_ERR_PARSE;
    }
    ks_topology_summary summary;
    ks_topology_summarize(topo, &summary);
    reader r = { .doc = &doc, .err = err, .nr_cpus = summary.cpus };
    int32_t status = read_workload(&r, out);
    json_free(&doc);
    if (status != KS_OK)
        workload_free(out);
    return status;
}

void workload_free(workload *wl)
{
    free(wl->procs);
    free(wl->cpus);
    free(wl->repins);
    memset(wl, 0, sizeof *wl);
}

int32_t workload_max_tasks(const workload *wl)
{
    int64_t n = 0;
    for (int32_t i = 0; i < wl->nr_procs; i++) {
        const wl_process *p = &wl->procs[i];
        switch (p->kind) {
        case WL_PIPE_PAIRS:
            n += 2 * (int64_t)p->groups * p->pairs;
            break;
        case WL_FORK_CHURN:
            n += 1 + (int64_t)p->children;
            break;
        default:
            n += p->threads;
        }
    }
    return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

int32_t workload_max_mms(const workload *wl)
{
    int32_t n = 0;
    for (int32_t i = 0; i < wl->nr_procs; i++) {
        const wl_process *p = &wl->procs[i];
        n += p->kind == WL_PIPE_PAIRS ? p->groups : p->kind == WL_FORK_CHURN ? 1 + p->children : 1;
    }
    return n;
}
