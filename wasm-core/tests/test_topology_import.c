/* Importing a user's machine: lscpu -p text and flattened sysfs dumps, and their errors. */
#include <stdlib.h>

#include "check.h"
#include "kscope/topology.h"

/* 2 sockets x 2 cores x SMT2, thread-major, one node and one L3 per socket.
 * Both importers' small samples describe this machine. */
static const ks_cpu two_socket_machine[8] = {
    /* cpu core llc node socket smt */
    { 0, 0, 0, 0, 0, 0 }, { 1, 1, 0, 0, 0, 0 }, { 2, 2, 1, 1, 1, 0 }, { 3, 3, 1, 1, 1, 0 },
    { 4, 0, 0, 0, 0, 1 }, { 5, 1, 0, 0, 0, 1 }, { 6, 2, 1, 1, 1, 1 }, { 7, 3, 1, 1, 1, 1 },
};

static const char lscpu_two_sockets[] =
    "# The following is the parsable format, which can be fed to other\n"
    "# programs. Each different item in every column has an unique ID\n"
    "# starting usually from zero.\n"
    "# CPU,Core,Socket,Node,L1d:L1i:L2:L3\n"
    "0,0,0,0,0:0:0:0\n"
    "1,1,0,0,1:1:1:0\n"
    "2,2,1,1,2:2:2:1\n"
    "3,3,1,1,3:3:3:1\n"
    "4,0,0,0,0:0:0:0\n"
    "5,1,0,0,1:1:1:0\n"
    "6,2,1,1,2:2:2:1\n"
    "7,3,1,1,3:3:3:1\n";

/* The first CPU whose record differs from want's, or -1. */
static int32_t first_mismatch(const ks_topology *topo, const ks_cpu *want, int32_t n)
{
    const ks_cpu *got = ks_topology_cpus(topo);
    for (int32_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], sizeof want[i]) != 0)
            return i;
    return -1;
}

static ks_topology *import_lscpu(const char *text, ks_topology_summary *s)
{
    ks_topology *topo = NULL;
    ks_parse_error err;
    int32_t status = ks_topology_from_lscpu(text, (int32_t)strlen(text), &topo, &err);
    CHECK_EQ_INT(status, KS_OK);
    if (status != KS_OK)
        printf("    line %d, field \"%s\": %s\n", err.line, err.field, err.message);
    if (topo)
        CHECK_EQ_INT(ks_topology_summarize(topo, s), KS_OK);
    return topo;
}

static void lscpu_sample_gives_the_expected_records(void)
{
    ks_topology_summary s;
    ks_topology *topo = import_lscpu(lscpu_two_sockets, &s);
    if (!topo)
        return;
    CHECK_EQ_STR(ks_topology_name(topo), "lscpu");
    CHECK_EQ_INT(s.cpus, 8);
    CHECK_EQ_INT(s.cores, 4);
    CHECK_EQ_INT(s.llcs, 2);
    CHECK_EQ_INT(s.nodes, 2);
    CHECK_EQ_INT(s.sockets, 2);
    CHECK_EQ_INT(s.threads_per_core, 2);
    CHECK_EQ_INT(s.l3_kib, 0);                      /* lscpu -p gives no sizes */
    CHECK_EQ_INT(first_mismatch(topo, two_socket_machine, 8), -1);
    ks_topology_free(topo);
}

/* Published `lscpu -p` (old layout) of a 12-CPU hybrid Intel laptop: 4 P-cores with
 * adjacent siblings, then 4 E-cores sharing one L2; one L3. */
static void lscpu_plain_layout_and_adjacent_siblings(void)
{
    ks_topology_summary s;
    ks_topology *topo = import_lscpu(
        "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n"
        "0,0,0,0,,0,0,0,0\n1,0,0,0,,0,0,0,0\n2,1,0,0,,4,4,1,0\n3,1,0,0,,4,4,1,0\n"
        "4,2,0,0,,8,8,2,0\n5,2,0,0,,8,8,2,0\n6,3,0,0,,12,12,3,0\n7,3,0,0,,12,12,3,0\n"
        "8,4,0,0,,20,20,5,0\n9,5,0,0,,21,21,5,0\n10,6,0,0,,22,22,5,0\n11,7,0,0,,23,23,5,0\n",
        &s);
    if (!topo)
        return;
    CHECK_EQ_INT(s.cpus, 12);
    CHECK_EQ_INT(s.cores, 8);
    CHECK_EQ_INT(s.llcs, 1);
    CHECK_EQ_INT(s.threads_per_core, 2);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    CHECK_EQ_INT(cpus[1].core, 0);
    CHECK_EQ_INT(cpus[1].smt_index, 1);
    CHECK_EQ_INT(cpus[2].smt_index, 0);
    CHECK_EQ_INT(cpus[11].core, 7);
    CHECK_EQ_INT(cpus[11].smt_index, 0);
    ks_topology_free(topo);
}

static void lscpu_without_node_or_l3_uses_node_0_and_the_socket(void)
{
    ks_topology_summary s;
    ks_topology *topo =
        import_lscpu("0,0,0,,0:0:0\n1,1,1,,1:1:1\n2,0,0,,0:0:0\r\n3,1,1,,1:1:1", &s);
    if (!topo)
        return;
    CHECK_EQ_INT(s.nodes, 1);
    CHECK_EQ_INT(s.llcs, 2);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    CHECK_EQ_INT(cpus[3].llc, 1);
    CHECK_EQ_INT(cpus[3].node, 0);
    CHECK_EQ_INT(cpus[3].smt_index, 1);
    ks_topology_free(topo);
}

/* Writes the preset as `lscpu -p=CPU,CORE,SOCKET,NODE,CACHE` would print it. */
static char *lscpu_text_of(const ks_topology *topo, int32_t count)
{
    size_t cap = (size_t)count * 48 + 64, len = 0;
    char *text = malloc(cap);
    const ks_cpu *cpus = ks_topology_cpus(topo);
    len += (size_t)snprintf(text, cap, "# CPU,Core,Socket,Node,L1d:L1i:L2:L3\n");
    for (int32_t i = 0; i < count; i++) {
        const ks_cpu *c = &cpus[i];
        len += (size_t)snprintf(text + len, cap - len, "%d,%d,%d,%d,%d:%d:%d:%d\n", c->cpu,
                                c->core, c->socket, c->node, c->core, c->core, c->core, c->llc);
    }
    return text;
}

static void lscpu_of_the_epyc_preset_gives_the_preset(void)
{
    ks_topology_summary want, got;
    ks_topology *preset = NULL;
    CHECK_EQ_INT(ks_topology_from_preset("epyc-9654-2s", &preset), KS_OK);
    if (!preset)
        return;
    ks_topology_summarize(preset, &want);
    char *text = lscpu_text_of(preset, want.cpus);
    ks_topology *topo = import_lscpu(text, &got);
    if (topo) {
        CHECK_EQ_INT(got.cpus, 384);
        CHECK_EQ_INT(got.cores, want.cores);
        CHECK_EQ_INT(got.llcs, want.llcs);
        CHECK_EQ_INT(got.nodes, want.nodes);
        CHECK_EQ_INT(got.sockets, want.sockets);
        CHECK_EQ_INT(first_mismatch(topo, ks_topology_cpus(preset), want.cpus), -1);
    }
    free(text);
    ks_topology_free(topo);
    ks_topology_free(preset);
}

static void expect_parse_error(int32_t status, const ks_parse_error *err, int32_t line,
                               const char *field, const char *fragment)
{
    CHECK_EQ_INT(status, KS_ERR_PARSE);
    CHECK_EQ_INT(err->line, line);
    CHECK_EQ_STR(err->field, field);
    CHECK(strstr(err->message, fragment) != NULL);
    if (!strstr(err->message, fragment))
        printf("    message: %s\n", err->message);
}

static int32_t lscpu_status(const char *text, ks_parse_error *err)
{
    ks_topology *topo = (ks_topology *)1;
    int32_t status = ks_topology_from_lscpu(text, (int32_t)strlen(text), &topo, err);
    CHECK(status == KS_OK || topo == NULL);
    ks_topology_free(status == KS_OK ? topo : NULL);
    return status;
}

static void lscpu_errors_name_the_line_and_field(void)
{
    ks_parse_error err;
    expect_parse_error(lscpu_status("# CPU,Core,Socket,Node\n0,0,0,0\n1,1,0,x,0:0:0:0\n", &err),
                       &err, 3, "NODE", "expected a number, got 'x'");
    CHECK_EQ_INT(err.column_or_field, 4);
    expect_parse_error(lscpu_status("0,0,0,0\n1,1,0\n", &err), &err, 2, "NODE",
                       "at least 4 columns");
    expect_parse_error(lscpu_status("0,0,0,0\n1,1,0,0\n0,0,0,0\n", &err), &err, 3, "CPU",
                       "CPU 0 is already listed on line 1");
    expect_parse_error(lscpu_status("0,0,0,0,0:0:0:L3\n", &err), &err, 1, "CACHE",
                       "got 'L3'");
    expect_parse_error(lscpu_status("0,0,0,0\n2,1,0,0\n", &err), &err, 0, "CPU",
                       "CPU 1 is missing");
    expect_parse_error(lscpu_status("", &err), &err, 0, "CPU", "no CPU records");
    expect_parse_error(lscpu_status("# CPU,Core,Socket,Node\n\n", &err), &err, 0, "CPU",
                       "no CPU records");
    CHECK_EQ_INT(lscpu_status("0,0,0,0\n", NULL), KS_OK);       /* err is optional */
    CHECK_EQ_INT(ks_topology_from_lscpu("0,0,0,0", 7, NULL, NULL), KS_ERR_INVALID_ARG);
}

/* Appends one CPU of two_socket_machine as a sysfs dump would hold it: core ids per
 * package and sparse (0, 4), L1d/L1i/L2 per core, L3 shared per package, no cache ids. */
static size_t append_sysfs_cpu(char *text, size_t cap, size_t len, int32_t cpu)
{
    int32_t core = cpu % 4, package = core / 2;
    const char *l3_list = package ? "2-3,6-7" : "0-1,4-5";
    return len + (size_t)snprintf(text + len, cap - len,
        "cpu%d/topology/physical_package_id\t%d\ncpu%d/topology/core_id\t%d\n"
        "cpu%d/topology/thread_siblings_list\t%d,%d\ncpu%d/cpufreq/scaling_governor\tschedutil\n"
        "cpu%d/cache/index0/level\t1\ncpu%d/cache/index0/type\tData\ncpu%d/cache/index0/size\t48K\n"
        "cpu%d/cache/index1/level\t1\ncpu%d/cache/index1/type\tInstruction\n"
        "cpu%d/cache/index1/size\t32K\ncpu%d/cache/index2/size\t2048K\n"
        "cpu%d/cache/index2/level\t2\ncpu%d/cache/index2/shared_cpu_list\t%d,%d\n"
        "cpu%d/cache/index3/level\t3\n"
        "cpu%d/cache/index3/shared_cpu_list\t%s\ncpu%d/cache/index3/size\t32768K\n",
        cpu, package, cpu, (core % 2) * 4, cpu, core, core + 4, cpu, cpu, cpu, cpu, cpu, cpu,
        cpu, cpu, cpu, cpu, core, core + 4, cpu, cpu, l3_list, cpu);
}

static void sysfs_dump_gives_records_and_cache_sizes(void)
{
    size_t cap = 8192, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text, cap, "# flattened /sys/devices/system/cpu\nonline\t0-7\n"
                            "../node/node0/cpulist\t0-1,4-5\nnode/node1/cpulist\t2-3,6-7\n");
    for (int32_t cpu = 7; cpu >= 0; cpu--)                 /* any order will do */
        len = append_sysfs_cpu(text, cap, len, cpu);
    ks_topology *topo = NULL;
    ks_parse_error err;
    CHECK_EQ_INT(ks_topology_from_sysfs(text, (int32_t)len, &topo, &err), KS_OK);
    ks_topology_summary s;
    if (topo && ks_topology_summarize(topo, &s) == KS_OK) {
        CHECK_EQ_STR(ks_topology_name(topo), "sysfs");
        CHECK_EQ_INT(first_mismatch(topo, two_socket_machine, 8), -1);
        CHECK_EQ_INT(s.cores, 4);
        CHECK_EQ_INT(s.llcs, 2);
        CHECK_EQ_INT(s.nodes, 2);
        CHECK_EQ_INT(s.l1d_kib, 48);
        CHECK_EQ_INT(s.l2_kib, 2048);
        CHECK_EQ_INT(s.l3_kib, 32768);
    }
    free(text);
    ks_topology_free(topo);
}

static int32_t sysfs_status(const char *text, ks_parse_error *err, ks_topology **out)
{
    return ks_topology_from_sysfs(text, (int32_t)strlen(text), out, err);
}

static void sysfs_cache_ids_rank_in_order(void)
{
    ks_topology *topo = NULL;
    ks_parse_error err;
    CHECK_EQ_INT(sysfs_status(
        "cpu0/topology/physical_package_id\t0\ncpu0/topology/core_id\t0\n"
        "cpu0/cache/index3/level\t3\ncpu0/cache/index3/id\t7\ncpu0/cache/index3/size\t96M\n"
        "cpu1/topology/physical_package_id\t0\ncpu1/topology/core_id\t1\n"
        "cpu1/cache/index3/level\t3\ncpu1/cache/index3/id\t3\n", &err, &topo), KS_OK);
    ks_topology_summary s;
    if (topo && ks_topology_summarize(topo, &s) == KS_OK) {
        CHECK_EQ_INT(ks_topology_cpus(topo)[0].llc, 1);     /* id 7 ranks after id 3 */
        CHECK_EQ_INT(ks_topology_cpus(topo)[1].llc, 0);
        CHECK_EQ_INT(s.nodes, 1);                           /* no node records: node 0 */
        CHECK_EQ_INT(s.threads_per_core, 1);
        CHECK_EQ_INT(s.l3_kib, 96 * 1024);
        CHECK_EQ_INT(s.l2_kib, 0);                          /* not in the dump */
    }
    ks_topology_free(topo);
}

static void sysfs_errors_name_the_line_and_field(void)
{
    ks_parse_error err;
    ks_topology *topo = NULL;
    expect_parse_error(sysfs_status("cpu0/topology/physical_package_id\t0\n"
                                    "cpu0/topology/core_id\tx\n", &err, &topo),
                       &err, 2, "core_id", "cpu0/topology/core_id: expected a number, got 'x'");
    CHECK_EQ_INT(err.column_or_field, 2);
    expect_parse_error(sysfs_status("cpu0/topology/core_id 0\n", &err, &topo), &err, 1, "path",
                       "expected <path><TAB><content>");
    expect_parse_error(sysfs_status("cpu0/cache/index3/size\tbig\n", &err, &topo), &err, 1,
                       "size", "expected a size like 32768K");
    expect_parse_error(sysfs_status("\ncpu0/topology/physical_package_id\t0\n", &err, &topo),
                       &err, 2, "core_id", "cpu0 has no topology/core_id");
    expect_parse_error(sysfs_status("node/node0/cpulist\t0-3\nnode/node1/cpulist\t3\n", &err,
                                    &topo), &err, 2, "cpulist", "CPU 3 is already in node 0");
    expect_parse_error(sysfs_status("online\t0\n", &err, &topo), &err, 0, "CPU", "no CPU records");
    CHECK(topo == NULL);
}

const test_case topology_import_tests[] = {
    { "import: lscpu sample gives the expected records", lscpu_sample_gives_the_expected_records },
    { "import: lscpu plain -p layout, adjacent siblings",
      lscpu_plain_layout_and_adjacent_siblings },
    { "import: lscpu without node or L3 uses node 0, socket",
      lscpu_without_node_or_l3_uses_node_0_and_the_socket },
    { "import: lscpu of epyc-9654-2s gives the preset", lscpu_of_the_epyc_preset_gives_the_preset },
    { "import: lscpu errors name the line and field", lscpu_errors_name_the_line_and_field },
    { "import: sysfs dump gives records and cache sizes",
      sysfs_dump_gives_records_and_cache_sizes },
    { "import: sysfs cache ids rank in order", sysfs_cache_ids_rank_in_order },
    { "import: sysfs errors name the line and field", sysfs_errors_name_the_line_and_field },
    { 0 },
};
