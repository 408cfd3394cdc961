/*
 * kscope-cost-table [--json] [PRESET...]
 *
 * Seed 000's burst (increment every byte of a 16 KiB per-cid area: 256 lines read and
 * written in address order, one 4 KiB-aligned area) costed by the cost model v2
 * (kscope/cost.h) on each preset, in the situations the concurrency-id lesson is about:
 * hot; after this core idled 10 ms and 200 ms; after another core of the same LLC,
 * of another LLC, of the other socket wrote it; and after such a core wrote it and
 * then idled 200 ms; and never written (librseq's copy-on-write range of a cid no thread
 * used yet: 4 first-touch faults; v1 takes its lines from DRAM). Beside each, the v1 cache model's figure (kscope/cache.h: the same
 * sequence of ks_cache_access calls the simulator's driver makes: load the area, then
 * store it). Two blocks: no background traffic, and v1's default background (1000
 * B/us per core, 8000 B/us per LLC) given to both models.
 *
 * Public API only (libkscope.so). The issue-15 report's table is this program's output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/cache.h"
#include "kscope/native/cost.h"
#include "kscope/topology.h"

#define AREA 16384u
#define MS 1000000ull

typedef enum { HOT, IDLE_10, IDLE_200, SAME_LLC, OTHER_LLC, OTHER_SOCKET, OTHER_LLC_IDLE,
               NEVER_WRITTEN, N_SCEN } scenario;

static const char *const scen_names[N_SCEN] = {
    "hot (swept just before)", "this core idled 10 ms", "this core idled 200 ms",
    "another core, same LLC, wrote it", "a core of another LLC wrote it",
    "a core of the other socket wrote it", "another LLC wrote it, then idled 200 ms",
    "never written (first touch: 4 faults)",
};

/* ---- v1: the cache model, driven as src/sched/driver.c's sweep() does --------- */

static uint64_t v1_sweep(ks_cache *c, int32_t cpu, int32_t obj, uint64_t at)
{
    ks_access_cost load, store;
    if (ks_cache_access(c, cpu, obj, 0, AREA, 0, at, &load) != KS_OK
        || ks_cache_access(c, cpu, obj, 0, AREA, 1, at + load.ns, &store) != KS_OK)
        return UINT64_MAX;
    return load.ns + store.ns;
}

/* A CPU on another core that shares (or not) cpu 0's LLC and socket; -1 if none. */
static int32_t find_cpu(const ks_topology *t, int same_llc, int same_socket)
{
    ks_topology_summary s;
    if (ks_topology_summarize(t, &s) != KS_OK)
        return -1;
    const ks_cpu *cpus = ks_topology_cpus(t);
    for (int32_t i = 1; i < s.cpus; i++) {
        if (cpus[i].core == cpus[0].core)
            continue;
        if ((cpus[i].llc == cpus[0].llc) == same_llc && (cpus[i].socket == cpus[0].socket) == same_socket)
            return i;
    }
    return -1;
}

static int64_t v1_cost(const ks_topology *t, scenario sc, int32_t bg_private, int32_t bg_llc)
{
    int32_t other = sc == SAME_LLC ? find_cpu(t, 1, 1)
                  : sc == OTHER_LLC || sc == OTHER_LLC_IDLE ? find_cpu(t, 0, 1)
                  : sc == OTHER_SOCKET ? find_cpu(t, 0, 0) : 0;
    if (other < 0)
        return -1;
    ks_cache_params p;
    ks_cache_default_params(&p);
    p.private_background_bytes_per_us = bg_private;
    p.llc_background_bytes_per_us = bg_llc;
    ks_cache *c = NULL;
    int32_t obj = -1;
    if (ks_cache_new(t, &p, &c) != KS_OK || ks_cache_add_object(c, "area", AREA, 0, &obj) != KS_OK) {
        ks_cache_free(c);
        return -1;
    }
    if (sc == NEVER_WRITTEN) {
        uint64_t fresh = v1_sweep(c, 0, obj, 1000);
        ks_cache_free(c);
        return (int64_t)fresh;
    }
    uint64_t first = v1_sweep(c, other, obj, 0), cost;
    switch (sc) {
    case HOT: cost = v1_sweep(c, 0, obj, first + 1000); break;
    case IDLE_10: cost = v1_sweep(c, 0, obj, first + 10 * MS); break;
    case IDLE_200: cost = v1_sweep(c, 0, obj, first + 200 * MS); break;
    case OTHER_LLC_IDLE: cost = v1_sweep(c, 0, obj, first + 200 * MS); break;
    default: cost = v1_sweep(c, 0, obj, first + 1000); break;
    }
    ks_cache_free(c);
    return (int64_t)cost;
}

/* ---- v2 ------------------------------------------------------------------------ */

static int v2_cost(const ks_topology *t, const ks_cost_params *p, scenario sc, int32_t bg_private,
                   int32_t bg_llc, ks_cost_result *r)
{
    ks_cost_sweep sw = { .order = KS_ORDER_SEQUENTIAL, .is_store = 1,
                         .background_private_bytes_per_us = bg_private,
                         .background_llc_bytes_per_us = bg_llc, .n_groups = 1 };
    ks_cost_lines *g = &sw.groups[0];
    *g = (ks_cost_lines){ .lines = AREA / KS_CACHE_LINE, .where = KS_WHERE_OWN_PRIVATE,
                          .state = KS_LINE_DIRTY, .age_ns = 1000 };
    sw.since_own_touch_ns = 1000;   /* this core's TLB: warm unless it idled */
    switch (sc) {
    case HOT: break;
    case IDLE_10: g->age_ns = sw.idle_ns = sw.since_own_touch_ns = 10 * MS; break;
    case IDLE_200: g->age_ns = sw.idle_ns = sw.since_own_touch_ns = 200 * MS; break;
    case SAME_LLC: g->where = KS_WHERE_SAME_LLC_CORE; break;
    case OTHER_LLC: g->where = KS_WHERE_OTHER_LLC; break;
    case OTHER_SOCKET: g->where = KS_WHERE_OTHER_SOCKET; break;
    case OTHER_LLC_IDLE:
        g->where = KS_WHERE_OTHER_LLC;
        g->age_ns = g->holder_idle_ns = 200 * MS;
        break;
    case NEVER_WRITTEN:             /* the faults' fills leave the lines in this core's caches */
        g->age_ns = 0;
        sw.since_own_touch_ns = 0;
        sw.first_touch_pages = (int32_t)(AREA / 4096);
        break;
    default: break;
    }
    if ((sc == SAME_LLC && find_cpu(t, 1, 1) < 0)
        || ((sc == OTHER_LLC || sc == OTHER_LLC_IDLE) && find_cpu(t, 0, 1) < 0)
        || (sc == OTHER_SOCKET && find_cpu(t, 0, 0) < 0))
        return 0;
    return ks_cost_sweep_run(p, &sw, r) == KS_OK;
}

static void print_parts(const ks_cost_result *r, int json)
{
    int first = 1;
    for (int i = 0; i < KS_COST_PARTS; i++) {
        if (r->part_ns[i] < 0.05)
            continue;
        if (json)
            printf("%s\"%s\":%.1f", first ? "" : ",", ks_cost_part_name(i), r->part_ns[i]);
        else
            printf("%s%s %.0f", first ? "" : ", ", ks_cost_part_name(i), r->part_ns[i]);
        first = 0;
    }
}

static void one_preset(const char *name, int json, int *first_json)
{
    ks_topology *t = NULL;
    ks_cost_params p;
    if (ks_topology_from_preset(name, &t) != KS_OK || ks_topology_cost_params(t, &p) != KS_OK) {
        fprintf(stderr, "kscope-cost-table: unknown preset '%s'\n", name);
        ks_topology_free(t);
        return;
    }
    static const int32_t bgs[2][2] = { { 0, 0 }, { 1000, 8000 } };
    for (int b = 0; b < 2; b++) {
        if (!json)
            printf("\n%s, background %s (private %d B/us, LLC %d B/us)\n"
                   "  %-42s %9s %9s  %s\n", name, b ? "v1 default" : "none", bgs[b][0], bgs[b][1],
                   "16 KiB sweep (256 lines, load+store)", "v1 ns", "v2 ns", "v2 by mechanism (ns)");
        for (int sc = 0; sc < N_SCEN; sc++) {
            ks_cost_result r;
            int ok = v2_cost(t, &p, (scenario)sc, bgs[b][0], bgs[b][1], &r);
            int64_t old = v1_cost(t, (scenario)sc, bgs[b][0], bgs[b][1]);
            if (json) {
                printf("%s{\"preset\":\"%s\",\"background\":[%d,%d],\"scenario\":\"%s\",\"v1_ns\":%lld",
                       *first_json ? "" : ",\n", name, bgs[b][0], bgs[b][1], scen_names[sc], (long long)old);
                *first_json = 0;
                if (ok) {
                    printf(",\"v2_ns\":%.1f,\"serial_ns\":%.1f,\"parts\":{", r.total_ns, r.serial_ns);
                    print_parts(&r, 1);
                    printf("}");
                }
                printf("}");
                continue;
            }
            if (!ok) {
                printf("  %-42s %9s %9s  (no such CPU on this preset)\n", scen_names[sc], "-", "-");
                continue;
            }
            printf("  %-42s %9lld %9.0f  ", scen_names[sc], (long long)old, r.total_ns);
            print_parts(&r, 0);
            printf("\n");
        }
    }
    ks_topology_free(t);
}

int main(int argc, char **argv)
{
    int json = 0, named = 0, first_json = 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
    if (json)
        printf("[\n");
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") != 0) {
            one_preset(argv[i], json, &first_json);
            named = 1;
        }
    if (!named)
        for (int32_t i = 0; i < ks_topology_preset_count(); i++)
            one_preset(ks_topology_preset_name(i), json, &first_json);
    if (json)
        printf("\n]\n");
    else
        printf("\nv2: sequential, page-aligned, x++ on every byte; rows 1 and 4-7 keep this core's TLB"
               " warm.\nv1: src/machine/cache_model.c, every trip one after another.\n");
    return 0;
}
