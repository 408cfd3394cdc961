/* src/sched/workload.c: the workload JSON schema and its error messages. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sim_test_util.h"

/* Builds a simulation on classroom-8 expecting a parse error at line:column in field. */
static void expect_error(const char *json, int32_t line, int32_t column, const char *field,
                         const char *words)
{
    test_sim t = test_sim_new("classroom-8", json, 1, NULL);
    CHECK_EQ_INT(t.status, KS_ERR_PARSE);
    CHECK(t.sim == NULL);
    CHECK_EQ_INT(t.err.line, line);
    CHECK_EQ_INT(t.err.column_or_field, column);
    CHECK_EQ_STR(t.err.field, field);
    if (!strstr(t.err.message, words))
        printf("    message was: %s\n", t.err.message);
    CHECK(strstr(t.err.message, words) != NULL);
    test_sim_free(&t);
}

static void unknown_kind_and_fields_are_named(void)
{
    expect_error("{\"name\": \"x\", \"duration_ms\": 10,\n"
                 " \"processes\": [{\"kind\": \"batch\", \"comm\": \"a\"}]}",
                 2, 25, "processes[0].kind", "unknown kind \"batch\"");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"thread\": 4}]}",
                 2, 41, "processes[0].thread", "unknown field \"thread\"");
    expect_error("{\"name\": \"x\", \"duraton_ms\": 10, \"processes\": []}", 1, 15, "duraton_ms",
                 "unknown field");
}

static void missing_and_invalid_fields_are_named(void)
{
    const char *missing =
        "{\n"
        "  \"name\": \"x\",\n"
        "  \"duration_ms\": 10,\n"
        "  \"processes\": [\n"
        "    { \"kind\": \"fork_churn\", \"comm\": \"f\", \"children\": 4, \"concurrency\": 2 },\n"
        "    { \"kind\": \"periodic_rt\", \"comm\": \"rt\",\n"
        "      \"prio\": 50, \"period_us\": 1000, \"runtime_us\": 100 }\n"
        "  ]\n"
        "}\n";
    expect_error(missing, 5, 5, "processes[0].child_runtime_us", "missing required field");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"periodic_rt\", \"comm\": \"rt\", \"threads\": \"8\"}]}",
                 2, 52, "processes[0].threads", "expected a number, got a string");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"pipe_pairs\", \"comm\": \"h\", \"groups\": 1.5}]}",
                 2, 49, "processes[0].groups", "expected an integer");
    expect_error("{\"name\": \"x\", \"processes\": []}", 1, 1, "duration_ms", "missing required");
    expect_error("[1, 2]", 1, 1, "", "expected an object, got an array");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": []}", 1, 47, "processes",
                 "1 to 64 processes");
}

static void out_of_range_values_and_cpus_are_named(void)
{
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"periodic_rt\", \"comm\": \"rt\", \"threads\": 2, \"prio\": 120,\n"
                 "   \"period_us\": 1000, \"runtime_us\": 10}]}",
                 2, 63, "processes[0].prio", "between 1 and 99, got 120");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"periodic_rt\", \"comm\": \"rt\", \"threads\": 2, \"prio\": 10,\n"
                 "   \"period_us\": 1000, \"runtime_us\": 2000}]}",
                 3, 37, "processes[0].runtime_us", "between");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"placement\": \"free\",\n"
                 "   \"threads\": 2, \"cpus\": [0, 1, 99]}]}",
                 3, 33, "processes[0].cpus[2]", "cpu 99 is not in the topology (CPUs 0-7)");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 9}]}",
                 2, 52, "processes[0].threads", "a CPU per thread");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 3, \"cpus\": [1, 2]}]}",
                 2, 63, "processes[0].cpus", "2 CPUs for 3 threads");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1, \"index_by\": \"cid\"}]}",
                 2, 67, "processes[0].index_by", "expected \"cpu\", \"mm_cid\"");
}

static void intermittent_pacing_fields_are_checked(void)
{
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1, \"order\": \"random\"}]}",
                 2, 64, "processes[0].order", "unknown order \"random\" (expected \"reshuffle\", \"fixed\")");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1,\n"
                 "   \"warmup_sweeps\": 2000000}]}",
                 3, 21, "processes[0].warmup_sweeps", "between 0 and 1000000, got 2000000");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1,\n"
                 "   \"warmup_sweeps\": 2.5}]}",
                 3, 21, "processes[0].warmup_sweeps", "expected an integer, got 2.5");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1, \"loops\": 0}]}",
                 2, 64, "processes[0].loops", "between 1 and 1000000, got 0");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1, \"order\": 1}]}",
                 2, 64, "processes[0].order", "expected a string, got a number");
}

static void syntax_errors_name_line_and_path(void)
{
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1},\n"
                 "  {\"kind\": \"intermittent\" \"comm\": \"b\"}\n"
                 "]}",
                 3, 27, "processes[1]", "expected ','");
}

static void unknown_algorithm_is_refused(void)
{
    test_sim t = test_sim_new("classroom-8",
                              "{\"name\": \"x\", \"duration_ms\": 1, \"processes\": "
                              "[{\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 1}]}",
                              1, "no_such_algo:v1");
    CHECK_EQ_INT(t.status, KS_ERR_NOT_FOUND);
    CHECK_EQ_STR(t.err.field, "algo");
    test_sim_free(&t);
}

static void defaults_apply_and_comm_is_cut(void)
{
    test_sim t = test_sim_new("classroom-8",
                              "{\"name\": \"x\", \"duration_ms\": 1, \"processes\": "
                              "[{\"kind\": \"intermittent\", \"comm\": \"a-very-long-command-name\", "
                              "\"cpus\": [5, 6]}]}",
                              1, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    const ks_sim_frame *f = ks_sim_frame_get(t.sim);
    CHECK_EQ_INT(f->nr_tasks, 2);          /* threads defaults to len(cpus) */
    const ks_sim_task *tasks = (const ks_sim_task *)((const char *)f + f->tasks_off);
    CHECK_EQ_STR(tasks[0].comm, "a-very-long-com");
    CHECK_EQ_INT(tasks[0].cpu, 5);
    CHECK_EQ_INT(tasks[1].cpu, 6);
    CHECK_EQ_INT(tasks[0].nr_cpus_allowed, 1);
    test_sim_free(&t);
}

static void shipped_examples_parse(void)
{
    static const char *const files[] = { "seed000-8core-200ms.json",
                                         "seed000-librseq-8core-200ms.json", "rt-periodic.json",
                                         "hackbench-2g.json", "fork-churn.json",
                                         "rt-instances-classroom-2s-16.json",
                                         "seed001-ffmpeg-60x8.json",
                                         "seed001-stressng-cyclic-480.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *json = read_workload_file(files[i]);
        CHECK(json != NULL);
        if (!json) {
            printf("    cannot read workloads/%s\n", files[i]);
            continue;
        }
        /* seed 001's files use all of hcc-2s-480's 480 CPUs */
        test_sim t = test_sim_new(strncmp(files[i], "seed001", 7) == 0 ? "hcc-2s-480" : "epyc-9654-2s",
                                  json, 1, NULL);
        if (t.status != KS_OK)
            printf("    %s: line %d: %s: %s\n", files[i], t.err.line, t.err.field, t.err.message);
        CHECK_EQ_INT(t.status, KS_OK);
        test_sim_free(&t);
        free(json);
    }
}

/* "repin": each entry's thread, at_ms and cpus are checked, at the entry's line and column. */
static void repin_entries_are_checked(void)
{
    const char *head = "{\"name\": \"x\", \"duration_ms\": 100, \"processes\": [\n"
                       "  {\"kind\": \"intermittent\", \"comm\": \"a\", \"threads\": 2,\n"
                       "   \"repin\": [";
    char json[512];
    snprintf(json, sizeof json, "%s{\"thread\": 2, \"at_ms\": 1, \"cpus\": [0]}]}]}", head);
    expect_error(json, 3, 25, "processes[0].repin[0].thread", "between 0 and 1");
    snprintf(json, sizeof json, "%s{\"thread\": 0, \"at_ms\": 1, \"cpus\": [0]},\n"
             "     {\"thread\": 1, \"at_ms\": 1, \"cpus\": [0, 8]}]}]}", head);
    expect_error(json, 4, 44, "processes[0].repin[1].cpus[1]", "cpu 8 is not in the topology");
    snprintf(json, sizeof json, "%s{\"thread\": 0, \"at_ms\": 101, \"cpus\": [0]}]}]}", head);
    expect_error(json, 3, 37, "processes[0].repin[0].at_ms", "between");
    snprintf(json, sizeof json, "%s{\"thread\": 0, \"at_ms\": 1}]}]}", head);
    expect_error(json, 3, 14, "processes[0].repin[0].cpus", "missing required field");
    snprintf(json, sizeof json, "%s{\"thread\": 0, \"at_ms\": 1, \"cpus\": [], \"cpu\": 1}]}]}", head);
    expect_error(json, 3, 52, "processes[0].repin[0].cpu", "unknown field");
    snprintf(json, sizeof json, "%s{\"thread\": 0, \"at_ms\": 1, \"cpus\": []}]}]}", head);
    expect_error(json, 3, 48, "processes[0].repin[0].cpus", "at least one CPU");
    snprintf(json, sizeof json, "%s]}]}", head);
    expect_error(json, 3, 13, "processes[0].repin", "must list 1 to 64");
    expect_error("{\"name\": \"x\", \"duration_ms\": 10, \"processes\": [\n"
                 "  {\"kind\": \"periodic_rt\", \"comm\": \"r\", \"threads\": 1, \"prio\": 5,"
                 " \"period_us\": 100, \"runtime_us\": 10, \"repin\": []}]}",
                 2, 101, "processes[0].repin", "unknown field");
}

/* Wakeup times of the first period: in phase without phase_spread_us, spread over it with. */
static int32_t distinct_first_wakeups(const char *json)
{
    test_sim t = test_sim_new("classroom-8", json, 1, NULL);
    CHECK_EQ_INT(t.status, KS_OK);
    if (t.status != KS_OK)
        return -1;
    uint64_t seen[64];
    int32_t n = 0, wakeups = 0;
    ks_event ev;
    int32_t produced;
    while (ks_sim_step(t.sim, &ev, &produced) == KS_OK && produced && ev.ts_ns < 1000000) {
        if (ev.type != KS_EV_SCHED_WAKING)
            continue;
        wakeups++;
        int found = 0;
        for (int32_t i = 0; i < n; i++)
            found |= seen[i] == ev.ts_ns;
        if (!found && n < 64)
            seen[n++] = ev.ts_ns;
    }
    CHECK_EQ_INT(wakeups, 6);
    test_sim_free(&t);
    return n;
}

static void periodic_phase_spread_desynchronises_threads(void)
{
    const char *in_phase = "{\"name\": \"x\", \"duration_ms\": 1, \"processes\": [{\"kind\": "
                           "\"periodic_rt\", \"comm\": \"a\", \"threads\": 6, \"prio\": 50, "
                           "\"period_us\": 1000, \"runtime_us\": 10}]}";
    const char *spread = "{\"name\": \"x\", \"duration_ms\": 1, \"processes\": [{\"kind\": "
                         "\"periodic_rt\", \"comm\": \"a\", \"threads\": 6, \"prio\": 50, "
                         "\"period_us\": 1000, \"runtime_us\": 10, \"phase_spread_us\": 1000}]}";
    CHECK_EQ_INT(distinct_first_wakeups(in_phase), 1);
    CHECK_EQ_INT(distinct_first_wakeups(spread), 6);
    expect_error("{\"name\": \"x\", \"duration_ms\": 1, \"processes\": [{\"kind\": "
                 "\"periodic_rt\", \"comm\": \"a\", \"threads\": 1, \"prio\": 50, "
                 "\"period_us\": 100, \"runtime_us\": 10, \"phase_spread_us\": 200}]}",
                 1, 165, "processes[0].phase_spread_us", "between");
}

const test_case workload_tests[] = {
    { "workload: periodic_rt phase_spread_us desynchronises the threads",
      periodic_phase_spread_desynchronises_threads },
    { "workload: repin entries are checked by line, column and field", repin_entries_are_checked },
    { "workload: unknown kind and fields are named", unknown_kind_and_fields_are_named },
    { "workload: missing and invalid fields are named", missing_and_invalid_fields_are_named },
    { "workload: out-of-range values and cpus are named", out_of_range_values_and_cpus_are_named },
    { "workload: syntax errors name line and path", syntax_errors_name_line_and_path },
    { "workload: intermittent pacing fields are checked", intermittent_pacing_fields_are_checked },
    { "workload: unknown algorithm is refused", unknown_algorithm_is_refused },
    { "workload: defaults apply and comm is cut", defaults_apply_and_comm_is_cut },
    { "workload: shipped examples parse", shipped_examples_parse },
    { 0 },
};
