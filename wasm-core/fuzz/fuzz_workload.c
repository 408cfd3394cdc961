/*
 * fuzz/fuzz_workload.c: the workload parser (src/sched/workload.c) on the topology
 * presets, and a workload that parses run for a bounded number of simulated events.
 * A refusal must say where (line, field) and what, NUL-terminated.
 */
#include "fuzz_input.h"
#include "kscope/sim.h"
#include "kscope/topology.h"
#include "../src/sched/sim_internal.h"

#define MAX_STEPS 2000

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    if (size > (256 << 10))
        return 0;
    static ks_topology *topos[16];
    static int32_t nr_topos;
    if (!nr_topos) {
        nr_topos = ks_topology_preset_count();
        FUZZ_CHECK(nr_topos > 0 && nr_topos <= 16);
        for (int32_t i = 0; i < nr_topos; i++)
            FUZZ_CHECK(ks_topology_from_preset(ks_topology_preset_name(i), &topos[i]) == KS_OK);
    }
    /* The machine: the smallest (the classroom preset) most of the time, so runs are
     * fast; a big one when the input's length says so (CPU lists past 8 CPUs). */
    const ks_topology *topo = topos[size % 4 == 3 ? size / 4 % (size_t)nr_topos : 0];
    const char *json = (const char *)bytes;

    workload wl;
    ks_parse_error err;
    memset(&err, 0x55, sizeof err);
    int32_t rc = workload_parse(json, (int32_t)size, topo, &wl, &err);
    FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_PARSE);
    if (rc != KS_OK) {
        FUZZ_CHECK(memchr(err.field, '\0', sizeof err.field) != NULL);
        FUZZ_CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
        FUZZ_CHECK(err.message[0] != '\0');
        FUZZ_CHECK(err.line >= 0);
        return 0;
    }
    FUZZ_CHECK(wl.nr_procs >= 1);
    FUZZ_CHECK(workload_max_tasks(&wl) >= 1);
    workload_free(&wl);

    ks_sim_config config = { .seed = size, .algo = NULL };
    ks_cache_default_params(&config.cache);
    ks_sim *sim = NULL;
    FUZZ_CHECK(ks_sim_new(topo, json, (int32_t)size, &config, &sim, &err) == KS_OK);
    ks_event ev;
    uint64_t last_ts = 0;
    for (int i = 0; i < MAX_STEPS; i++) {
        int32_t produced = 0;
        FUZZ_CHECK(ks_sim_step(sim, &ev, &produced) == KS_OK);
        if (!produced)
            break;
        FUZZ_CHECK(ev.ts_ns >= last_ts);    /* simulated time never goes back */
        last_ts = ev.ts_ns;
    }
    ks_sim_free(sim);
    return 0;
}
