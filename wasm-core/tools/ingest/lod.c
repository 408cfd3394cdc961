/*
 * lod.c: builds and writes the level-of-detail summaries (see lod.h for the method).
 */
#include "lod.h"

#include <stdlib.h>
#include <string.h>

#include "npz_writer.h"

const uint32_t lod_level_buckets[LOD_LEVELS] = {256, 4096, 65536};

uint32_t lod_buckets(int level, uint64_t events, uint32_t n_cpus)
{
    uint64_t b = lod_level_buckets[level];
    uint64_t by_cells = LOD_MAX_CELLS / (n_cpus ? n_cpus : 1);
    uint64_t by_events = events / 4 > lod_level_buckets[0] ? events / 4 : lod_level_buckets[0];
    if (by_cells < b) b = by_cells;
    if (by_events < b) b = by_events;
    return b ? (uint32_t)b : 1;
}

/* Stable merge sort of a switch log by time (bottom-up, one scratch copy). */
static int sort_log(switch_log *log)
{
    uint32_t n = log->n, i;
    for (i = 1; i < n && log->ts[i - 1] <= log->ts[i]; i++)
        ;
    if (i >= n)
        return 0;  /* already in order: one decoder part, the usual case */
    int64_t *ts2 = malloc((size_t)n * sizeof *ts2);
    uint8_t *fl2 = malloc(n);
    if (!ts2 || !fl2) {
        free(ts2);
        free(fl2);
        return -1;
    }
    int64_t *ts = log->ts;
    uint8_t *fl = log->flags;
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * width) {
            uint32_t mid = lo + width < n ? lo + width : n;
            uint32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint32_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                if (ts[b] < ts[a]) { ts2[o] = ts[b]; fl2[o++] = fl[b++]; }
                else { ts2[o] = ts[a]; fl2[o++] = fl[a++]; }
            }
            while (a < mid) { ts2[o] = ts[a]; fl2[o++] = fl[a++]; }
            while (b < hi) { ts2[o] = ts[b]; fl2[o++] = fl[b++]; }
        }
        int64_t *tt = ts; ts = ts2; ts2 = tt;
        uint8_t *ff = fl; fl = fl2; fl2 = ff;
    }
    log->ts = ts;
    log->flags = fl;
    free(ts2);
    free(fl2);
    return 0;
}

/* occ[j] = (B(edges[j+1]) - B(edges[j])) / width for one CPU: B walks the knots
 * t_first, switch times..., t_last with the busy state after each knot. */
static void occupancy(const switch_log *log, int64_t t_first, int64_t t_last, const double *edges,
                      uint32_t buckets, float *occ)
{
    if (!log || log->n == 0) {
        memset(occ, 0, buckets * sizeof *occ);
        return;
    }
    /* Knot k (0..n+1): x_k, busy state on [x_k, x_k+1), cum_k = B(x_k). */
    uint32_t k = 0, n = log->n;
    double x = (double)t_first, cum = 0.0;
    int state = log->flags[0] & 1;
    double prev_b = 0.0;
    for (uint32_t j = 0; j <= buckets; j++) {
        double e = edges[j];
        /* Advance to the knot segment holding e: knots 1..n are switches, n+1 is t_last. */
        while (k <= n) {
            int64_t next = k < n ? log->ts[k] : t_last;
            if (next < t_first) next = t_first;
            if (next > t_last) next = t_last;
            if ((double)next > e)
                break;
            cum += state * ((double)next - x);
            x = (double)next;
            if (k < n)
                state = (log->flags[k] >> 1) & 1;
            k++;
        }
        double b = cum + (k <= n ? state * (e - x) : 0.0);
        if (j > 0)
            occ[j - 1] = (float)((b - prev_b) / (edges[j] - edges[j - 1]));
        prev_b = b;
    }
}

int lod_write(ingest_tally *t, const char *path)
{
    uint32_t n_cpus = t->n_cpus;
    int32_t *cpus = malloc((n_cpus ? n_cpus : 1) * sizeof *cpus);
    if (!cpus)
        return -1;
    tally_sorted_cpus(t, cpus);
    for (uint32_t i = 0; i < t->n_cpus; i++)
        if (sort_log(&t->cpus[i]) != 0) {
            free(cpus);
            return -1;
        }
    int64_t t_first = t->have_time ? (int64_t)t->t_first : 0;
    int64_t t_last = t->have_time ? (int64_t)t->t_last : 0;
    double span = t_last - t_first > 1 ? (double)(t_last - t_first) : 1.0;

    npz_writer z;
    if (npz_open(&z, path) != 0) {
        free(cpus);
        return -1;
    }
    int rc = npz_add(&z, "cpus", "<i4", n_cpus, 0, cpus, (uint64_t)n_cpus * sizeof *cpus);
    for (int level = 0; level < LOD_LEVELS && rc == 0; level++) {
        uint32_t buckets = lod_buckets(level, t->events, n_cpus);
        double *edges = malloc(((size_t)buckets + 1) * sizeof *edges);
        int64_t *edges_ns = malloc(((size_t)buckets + 1) * sizeof *edges_ns);
        float *occ = malloc((size_t)(n_cpus ? n_cpus : 1) * buckets * sizeof *occ);
        if (!edges || !edges_ns || !occ) {
            rc = -1;
        } else {
            for (uint32_t j = 0; j <= buckets; j++) {
                edges[j] = (double)t_first + (double)j * span / (double)buckets;
                edges_ns[j] = (int64_t)edges[j];
            }
            for (uint32_t s = 0; s < n_cpus; s++)
                occupancy(tally_cpu(t, cpus[s]), t_first, t_last, edges, buckets, occ + (size_t)s * buckets);
            char name[16];
            snprintf(name, sizeof name, "edges%d", level);
            rc = npz_add(&z, name, "<i8", (uint64_t)buckets + 1, 0, edges_ns, ((uint64_t)buckets + 1) * 8);
            snprintf(name, sizeof name, "occ%d", level);
            if (rc == 0)
                rc = npz_add(&z, name, "<f4", n_cpus, buckets, occ, (uint64_t)n_cpus * buckets * 4);
        }
        free(edges);
        free(edges_ns);
        free(occ);
    }
    free(cpus);
    int closed = npz_close(&z);
    return rc == 0 && closed == 0 ? 0 : -1;
}
