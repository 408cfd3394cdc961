/* Runs every test list; prints one line per test and the closing summary. */
#include "check.h"

int check_failures_in_test;

static const test_case *const all_lists[] = {
    status_tests, topology_tests, topology_preset_tests, topology_import_tests, event_tests,
    cache_model_tests, cost_model_v2_tests, sim_cost_tests, cost_line_server_tests, base_tests, workload_tests, sim_core_tests, sched_hooks_tests, sim_snapshot_tests,
    ftrace_decode_tests, ftrace_export_tests, kmem_event_tests, rq_clock_tests,
    tracedat_tests, tracedat_compressed_tests, tracedat_instances_tests, perf_script_tests, systrace_tests, parquet_tests,
    trace_decoder_tests,
    mm_cid_tests, mm_cid_lesson_tests, mm_cid_conform_tests, mm_cid_tracepoint_tests, mm_cid_rq_clock_tests, mm_cid_v619_tests, /* registry: tests/mm_cid/ */
    cpupri_tests, /* registry: tests/cpupri/ */
    sheaves_tests, sheaves_lock_tests, sheaves_mmap2_tests, sheaves_plugin_tests, /* registry: tests/sheaves/ */
};

int main(void)
{
    int passed = 0, failed = 0;
    for (unsigned l = 0; l < sizeof all_lists / sizeof all_lists[0]; l++)
        for (const test_case *t = all_lists[l]; t->name; t++) {
            check_failures_in_test = 0;
            t->fn();
            int ok = check_failures_in_test == 0;
            printf("%s %s\n", ok ? "ok  " : "FAIL", t->name);
            ok ? passed++ : failed++;
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
