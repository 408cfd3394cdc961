/*
 * kscope-rseq-bench --index cpu_id|mm_cid|file:PATH [--delay-ms D] [--threads N]
 *                   [--loops L] [--warmup W] [--seed S | --order P0,P1,...] [--cpus C0,C1,...]
 *                   [--populate cow_init|prefault]
 * Runs librseq's intermittent benchmark once (bench.h) and prints one JSON document.
 * Defaults are librseq's: 200 ms, one thread per allowed CPU, 5 loops, 20000 warm-up sweeps,
 * a random order, the COW_INIT pool.
 */
#include "bench.h"
#include "rseq_area.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

static int usage(const char *why)
{
    fprintf(stderr, "kscope-rseq-bench: %s\nusage: kscope-rseq-bench --index cpu_id|mm_cid|file:PATH "
            "[--delay-ms D] [--threads N] [--loops L] [--warmup W] [--seed S | --order P0,P1,...] "
            "[--cpus C0,C1,...] [--populate cow_init|prefault]\n", why);
    return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* "a,b,c" -> values; returns the count, or -1. */
static int parse_list(const char *s, int *out, int max, int hi)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max || parse_int(tok, 0, hi, &out[n]) != 0) {
            free(copy);
            return -1;
        }
        n++;
    }
    free(copy);
    return n;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

static const char *index_name(index_kind k)
{
    return k == INDEX_CPU_ID ? "cpu_id" : k == INDEX_MM_CID ? "mm_cid" : "file";
}

static void print_json(const bench_opts *o, const rseq_info *ri, const cpu_pool *pool, const thread_rec *recs,
                       unsigned seed, int seeded)
{
    struct utsname u;
    uname(&u);
    int64_t total = 0;
    long faults = 0;
    printf("{\"program\":\"kscope-rseq-bench\",\"kernel\":");
    json_string(u.release);
    printf(",\"machine\":");
    json_string(u.machine);
    printf(",\"index\":\"%s\",", index_name(o->index));
    if (o->index == INDEX_FILE) {
        printf("\"index_file\":");
        json_string(o->index_path);
        putchar(',');
    }
    printf("\"delay_ms\":%d,\"threads\":%d,\"loops\":%d,\"warmup\":%d,\"area_bytes\":%d,", o->delay_ms, o->threads,
           o->loops, o->warmup, AREA_LEN);
    printf("\"order_seed\":");
    if (seeded)
        printf("%u,", seed);
    else
        printf("null,");
    printf("\"rseq\":{\"source\":\"%s\",\"offset\":%ld,\"size\":%u,\"feature_size\":%lu,\"active_size\":%u,"
           "\"mm_cid\":%s},", ri->source, ri->offset, ri->size, ri->feature_size, rseq_area_active_size(ri),
           rseq_area_has_mm_cid(ri) ? "true" : "false");
    printf("\"pool\":{\"policy\":\"%s\",\"stride\":%zu,\"item_len\":%zu,\"max_index\":%d},",
           pool->policy == POOL_COW_INIT ? "cow_init" : "prefault", (size_t)CPU_POOL_STRIDE, pool->item_len,
           pool->max_index);
    printf("\"per_thread\":[");
    for (int t = 0; t < o->threads; t++) {
        const thread_rec *r = &recs[t];
        printf("%s{\"thread\":%d,\"cpu\":%d,\"position\":%d,\"sched_getcpu\":%d,\"rseq_cpu_id\":%u,"
               "\"rseq_cpu_id_start\":%u,\"rseq_mm_cid\":%u,\"warmup_index\":%d,\"first_sweep_ns\":%lld,"
               "\"first_sweep_minflt\":%ld,\"warmup_minflt\":%ld,\"bursts\":[",
               t ? "," : "", t, r->cpu, r->position, r->sched_cpu, r->rseq_cpu_id, r->rseq_cpu_id_start,
               r->rseq_mm_cid, r->warmup_index, (long long)r->first_sweep_ns, r->first_sweep_minflt, r->warmup_minflt);
        for (int i = 0; i < o->loops; i++) {
            const burst_rec *b = &r->bursts[i];
            total += b->ns;
            faults += b->minflt;
            printf("%s{\"index\":%d,\"cpu_id\":%u,\"mm_cid\":%u,\"ns\":%lld,\"minflt\":%ld}", i ? "," : "", b->index,
                   b->cpu_id, b->mm_cid, (long long)b->ns, b->minflt);
        }
        printf("]}");
    }
    /* librseq's figure: total time / (threads x loops per thread) */
    printf("],\"total_ns\":%lld,\"ns_per_burst\":%lld,\"measured_minflt\":%ld}\n", (long long)total,
           (long long)(total / ((int64_t)o->threads * o->loops)), faults);
}

int main(int argc, char **argv)
{
    static bench_opts o;
    o.delay_ms = 200;
    o.loops = 5;
    o.warmup = 20000;
    o.populate = POOL_COW_INIT;
    int have_index = 0, ncpus = 0, norder = -1, seeded = 0;
    unsigned seed = (unsigned)time(NULL);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val)
            return usage("every option takes a value");
        i++;
        if (strcmp(arg, "--index") == 0) {
            have_index = 1;
            if (strcmp(val, "cpu_id") == 0) {
                o.index = INDEX_CPU_ID;
            } else if (strcmp(val, "mm_cid") == 0) {
                o.index = INDEX_MM_CID;
            } else if (strncmp(val, "file:", 5) == 0 && val[5]) {
                o.index = INDEX_FILE;
                o.index_path = val + 5;
            } else {
                return usage("--index is cpu_id, mm_cid or file:PATH");
            }
        } else if (strcmp(arg, "--delay-ms") == 0) {
            if (parse_int(val, 0, 60000, &o.delay_ms) != 0)
                return usage("--delay-ms is 0..60000");
        } else if (strcmp(arg, "--threads") == 0) {
            if (parse_int(val, 1, BENCH_MAX_THREADS, &o.threads) != 0)
                return usage("--threads is 1..1024");
        } else if (strcmp(arg, "--loops") == 0) {
            if (parse_int(val, 1, 1000000, &o.loops) != 0)
                return usage("--loops is 1..1000000");
        } else if (strcmp(arg, "--warmup") == 0) {
            if (parse_int(val, 1, 100000000, &o.warmup) != 0)
                return usage("--warmup is 1..100000000");
        } else if (strcmp(arg, "--seed") == 0) {
            int s;
            if (parse_int(val, 0, 2147483647, &s) != 0)
                return usage("--seed is a non-negative integer");
            seed = (unsigned)s;
            seeded = 1;
        } else if (strcmp(arg, "--order") == 0) {
            if ((norder = parse_list(val, o.order, BENCH_MAX_THREADS, BENCH_MAX_THREADS - 1)) <= 0)
                return usage("--order is a comma-separated list of positions");
        } else if (strcmp(arg, "--cpus") == 0) {
            if ((ncpus = parse_list(val, o.cpus, BENCH_MAX_THREADS, CPU_SETSIZE - 1)) <= 0)
                return usage("--cpus is a comma-separated list of CPU numbers");
        } else if (strcmp(arg, "--populate") == 0) {
            if (strcmp(val, "cow_init") == 0)
                o.populate = POOL_COW_INIT;
            else if (strcmp(val, "prefault") == 0)
                o.populate = POOL_PREFAULT;
            else
                return usage("--populate is cow_init or prefault");
        } else {
            return usage("unknown option");
        }
    }
    if (!have_index)
        return usage("--index is required");

    /* Thread t's CPU: the t-th allowed CPU (librseq's init_affinity), unless --cpus. */
    if (ncpus == 0) {
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
            perror("kscope-rseq-bench: sched_getaffinity");
            return 1;
        }
        for (int c = 0; c < CPU_SETSIZE && ncpus < BENCH_MAX_THREADS; c++)
            if (CPU_ISSET(c, &allowed))
                o.cpus[ncpus++] = c;
    }
    if (o.threads == 0)
        o.threads = ncpus;
    if (o.threads > ncpus)
        return usage("more threads than CPUs to pin them to (one CPU each)");

    /* Positions: --order, or librseq's shuffle of 0..n-1 with rand(). */
    if (norder >= 0) {
        if (norder != o.threads)
            return usage("--order needs one position per thread");
        int seen[BENCH_MAX_THREADS] = { 0 };
        for (int t = 0; t < o.threads; t++) {
            if (o.order[t] >= o.threads || seen[o.order[t]]++)
                return usage("--order must be a permutation of 0..threads-1");
        }
    } else {
        seeded = 1;
        srand(seed);
        for (int t = 0; t < o.threads; t++)
            o.order[t] = t;
        for (int t = 0; t < o.threads; t++) {
            int k = rand() % o.threads, tmp = o.order[t];
            o.order[t] = o.order[k];
            o.order[k] = tmp;
        }
    }

    rseq_info ri;
    if (rseq_area_init(&ri) != 0)
        return 1;
    if (o.index == INDEX_MM_CID && !rseq_area_has_mm_cid(&ri)) {
        fprintf(stderr, "kscope-rseq-bench: this rseq area has no mm_cid (active size %u < %d; the kernel "
                "reports feature size %lu: mm_cid needs >= 6.3)\n", rseq_area_active_size(&ri), RSEQ_MM_CID_END,
                ri.feature_size);
        return 1;
    }
    cpu_pool pool;
    if (cpu_pool_create(&pool, AREA_LEN, o.populate) != 0)
        return 1;
    index_line *lines = NULL;
    if (o.index == INDEX_FILE) {
        lines = calloc((size_t)o.threads, sizeof *lines);
        if (!lines || index_file_read(o.index_path, o.threads, pool.max_index, lines) != 0)
            return 2;
    }
    thread_rec *recs = calloc((size_t)o.threads, sizeof *recs);
    for (int t = 0; recs && t < o.threads; t++)
        if (!(recs[t].bursts = calloc((size_t)o.loops, sizeof(burst_rec))))
            recs = NULL;
    if (!recs) {
        fprintf(stderr, "kscope-rseq-bench: out of memory\n");
        return 1;
    }
    int rc = bench_run(&o, &pool, lines, recs);
    if (rc == 0)
        print_json(&o, &ri, &pool, recs, seed, seeded);
    if (lines)
        index_file_free(lines, o.threads);
    cpu_pool_destroy(&pool);
    return rc == 0 ? 0 : 1;
}
