/*
 * A tiny benchmark of the scheduler core (not part of the test suite): a seeded
 * run of a busy workload on epyc-9654-2s, stepped event by event through the
 * public API as the browser does (checkpoints included). Prints one JSON line:
 *
 *     {"events":N,"seconds":S,"events_per_s":R}
 *
 * Built natively (make bench) and as wasm (build/wasm/bench_core.cjs, run by Node).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "kscope/sim.h"

/* 384 free hackbench threads (8 groups x 24 pairs) and 16 free intermittent threads. */
static const char workload[] =
    "{\"name\": \"bench-busy\", \"duration_ms\": 2000, \"processes\": ["
    " {\"kind\": \"pipe_pairs\", \"comm\": \"hackbench\", \"groups\": 8, \"pairs_per_group\": 24,"
    "  \"messages\": 1000000, \"work_us\": 20},"
    " {\"kind\": \"intermittent\", \"comm\": \"rseq-bench\", \"threads\": 16, \"placement\": \"free\","
    "  \"index_by\": \"cpu\", \"delay_ms\": 0.05}]}";

#define MAX_EVENTS 10000000u

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    ks_topology *topo = NULL;
    ks_sim *sim = NULL;
    ks_parse_error err;
    ks_sim_config config = { .seed = 42, .algo = "none" };
    ks_cache_default_params(&config.cache);
    if (ks_topology_from_preset("epyc-9654-2s", &topo) != KS_OK ||
        ks_sim_new(topo, workload, (int32_t)strlen(workload), &config, &sim, &err) != KS_OK) {
        printf("{\"error\":\"set-up failed\"}\n");
        return 1;
    }
    double start = seconds_now();
    uint32_t events = 0;
    ks_event ev;
    int32_t produced = 1;
    while (events < MAX_EVENTS && ks_sim_step(sim, &ev, &produced) == KS_OK && produced)
        events++;
    double seconds = seconds_now() - start;
    printf("{\"events\":%u,\"seconds\":%.3f,\"events_per_s\":%.0f}\n", events, seconds,
           seconds > 0 ? events / seconds : 0.0);
    ks_sim_free(sim);
    ks_topology_free(topo);
    return 0;
}
