/*
 * A tiny test harness shared by every test_<module>.c. The same test binary is
 * built natively (gcc) and as wasm (run under Node), so the two builds are
 * checked by one suite. It ends with the plain line "N passed, N failed".
 */
#ifndef KSCOPE_TESTS_CHECK_H
#define KSCOPE_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

extern int check_failures_in_test;

/* Records a failed expectation with its location; the test goes on. */
#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            check_failures_in_test++;                                           \
            printf("    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
        }                                                                       \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                          \
    do {                                                                            \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);             \
        if (check_a_ != check_b_) {                                                 \
            check_failures_in_test++;                                               \
            printf("    %s:%d: %s == %s failed (%lld != %lld)\n", __FILE__, __LINE__, \
                   #a, #b, check_a_, check_b_);                                     \
        }                                                                           \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                             \
    do {                                                                               \
        const char *check_a_ = (a), *check_b_ = (b);                                   \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {              \
            check_failures_in_test++;                                                  \
            printf("    %s:%d: %s == %s failed (\"%s\" != \"%s\")\n", __FILE__, __LINE__, \
                   #a, #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)"); \
        }                                                                              \
    } while (0)

typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case;

/* Each test_<module>.c defines one of these lists, ending with {0}; a model's tests sit in
 * its folder, tests/<name>/, with their lists on one registry line each here and in
 * test_main.c (scripts/check-c-layering.mjs: no other line of tests/ names a model). */
extern const test_case status_tests[];
extern const test_case topology_tests[];
extern const test_case topology_preset_tests[];
extern const test_case topology_import_tests[];
extern const test_case event_tests[];
extern const test_case cache_model_tests[];
extern const test_case cost_model_v2_tests[];
extern const test_case sim_cost_tests[];
extern const test_case base_tests[];
extern const test_case workload_tests[];
extern const test_case sim_core_tests[];
extern const test_case sched_hooks_tests[];
extern const test_case sim_snapshot_tests[];
extern const test_case ftrace_decode_tests[];
extern const test_case ftrace_export_tests[];
extern const test_case kmem_event_tests[];
extern const test_case rq_clock_tests[];
extern const test_case tracedat_tests[];
extern const test_case tracedat_compressed_tests[];
extern const test_case tracedat_instances_tests[];
extern const test_case perf_script_tests[];
extern const test_case systrace_tests[];
extern const test_case parquet_tests[];
extern const test_case trace_decoder_tests[];
extern const test_case cost_line_server_tests[];
extern const test_case cpupri_tests[]; /* registry */
extern const test_case mm_cid_tests[], mm_cid_lesson_tests[], mm_cid_conform_tests[], mm_cid_tracepoint_tests[], mm_cid_rq_clock_tests[], mm_cid_v619_tests[]; /* registry */
extern const test_case sheaves_tests[], sheaves_lock_tests[], sheaves_mmap2_tests[], sheaves_plugin_tests[]; /* registry */

#endif
