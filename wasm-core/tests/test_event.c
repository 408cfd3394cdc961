#include <string.h>

#include "check.h"
#include <stdlib.h>

#include "kscope/native/columns.h"
#include "kscope/event.h"

static void type_names_round_trip(void)
{
    for (int32_t t = 1; t < KS_EV_TYPE_COUNT; t++)
        CHECK_EQ_INT(ks_event_type_from_name(ks_event_type_name(t)), t);
    CHECK(strcmp(ks_event_type_name(KS_EV_RSEQ_UPDATE), "rseq_update") == 0);
    CHECK_EQ_INT(ks_event_type_from_name("irq_handler_entry"), KS_EV_GENERIC);
    CHECK(ks_event_type_name(KS_EV_TYPE_COUNT) == NULL);
}

static void log_keeps_typed_records_in_order(void)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    for (uint32_t i = 0; i < 3000; i++) {                 /* crosses a growth step */
        ks_event ev = { .ts_ns = i * 10u, .type = KS_EV_RSEQ_UPDATE, .cpu = (int32_t)(i % 8) };
        ev.u.rseq_update.mm_cid = (int32_t)(i % 4);
        CHECK_EQ_INT(ks_event_log_append(log, &ev), KS_OK);
    }
    CHECK_EQ_INT(ks_event_log_count(log), 3000);
    const ks_event *evs = ks_event_log_data(log);
    CHECK_EQ_INT(evs[2999].ts_ns, 29990);
    CHECK_EQ_INT(evs[2999].u.rseq_update.mm_cid, 3);
    ks_event_log_free(log);
}

static void unknown_events_are_kept_as_generic(void)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_event_log_append_generic(log, 42, 3, 100, 100, "irqbalance",
                                             "irq_handler_entry", "irq=24 name=virtio0"), KS_OK);
    const ks_event *ev = ks_event_log_data(log);
    CHECK_EQ_INT(ev->type, KS_EV_GENERIC);
    CHECK(strcmp(ev->comm, "irqbalance") == 0);
    CHECK(strcmp(ks_event_log_text(log, ev->u.generic.name_off), "irq_handler_entry") == 0);
    CHECK(strcmp(ks_event_log_text(log, ev->u.generic.fields_off), "irq=24 name=virtio0") == 0);
    CHECK(ks_event_log_text(log, 1u << 30) == NULL);
    ks_event_log_free(log);
}

static void bad_records_are_refused(void)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    ks_event ev = { .type = KS_EV_TYPE_COUNT };
    CHECK_EQ_INT(ks_event_log_append(log, &ev), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_event_log_count(log), 0);
    ks_event_log_free(log);
}

static void append_many_copies_typed_records_all_or_nothing(void)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    ks_event evs[3000];
    memset(evs, 0, sizeof evs);
    for (int i = 0; i < 3000; i++)
        evs[i] = (ks_event){ .ts_ns = (uint64_t)i, .type = KS_EV_SCHED_WAKEUP, .cpu = i % 7 };
    CHECK_EQ_INT(ks_event_log_append_many(log, evs, 2), KS_OK);
    CHECK_EQ_INT(ks_event_log_append_many(log, evs + 2, 2998), KS_OK);  /* grows past 1024 */
    CHECK_EQ_INT(ks_event_log_count(log), 3000);
    CHECK_EQ_INT(ks_event_log_data(log)[2999].ts_ns, 2999);
    CHECK_EQ_INT(ks_event_log_data(log)[2999].cpu, 2999 % 7);
    evs[1].type = KS_EV_GENERIC;
    CHECK_EQ_INT(ks_event_log_append_many(log, evs, 3), KS_ERR_INVALID_ARG);
    evs[1].type = KS_EV_TYPE_COUNT;
    CHECK_EQ_INT(ks_event_log_append_many(log, evs, 3), KS_ERR_INVALID_ARG);
    CHECK_EQ_INT(ks_event_log_count(log), 3000);
    CHECK_EQ_INT(ks_event_log_append_many(log, NULL, 0), KS_OK);
    ks_event_log_free(log);
}

static void log_clear_keeps_nothing(void)
{
    ks_event_log *log = NULL;
    CHECK_EQ_INT(ks_event_log_new(&log), KS_OK);
    CHECK_EQ_INT(ks_event_log_append_generic(log, 1, 0, 1, 1, "a", "x", "y=1"), KS_OK);
    ks_event_log_clear(log);
    CHECK_EQ_INT(ks_event_log_count(log), 0);
    CHECK(ks_event_log_text(log, 0) == NULL);
    CHECK_EQ_INT(ks_event_log_append_generic(log, 2, 0, 1, 1, "a", "irq", "z=2"), KS_OK);
    CHECK_EQ_STR(ks_event_log_text(log, ks_event_log_data(log)->u.generic.name_off), "irq");
    ks_event_log_free(log);
}

#define COL(buf, off, c, type) ((const type *)((buf) + (off)[c]))
#define BIT(buf, off, c, row) (((buf)[(off)[c] + (row) / 8] >> ((row) & 7)) & 1)

/* Records of three CPUs, interleaved: columns come out grouped by CPU, each CPU's rows
 * in input order; each type fills its own columns and validity bits; comms share ids. */
static void columns_group_by_cpu_and_fill_each_type(void)
{
    ks_event ev[5] = {
        { .ts_ns = 10, .type = KS_EV_SCHED_SWITCH, .cpu = 2, .pid = 0, .comm = "swapper/2" },
        { .ts_ns = 11, .type = KS_EV_SCHED_WAKING, .cpu = 0, .pid = 7, .comm = "bash" },
        { .ts_ns = 12, .type = KS_EV_RSEQ_UPDATE, .cpu = 2, .pid = 9, .comm = "bash" },
        { .ts_ns = 9, .type = KS_EV_GENERIC, .cpu = 1, .pid = 3, .comm = "irq/5" },
        { .ts_ns = 13, .type = KS_EV_SCHED_PROCESS_EXIT, .cpu = 0, .pid = 9, .comm = "bash" },
    };
    memcpy(ev[0].u.sched_switch.prev_comm, "swapper/2", 10);
    ev[0].u.sched_switch.next_pid = 9;
    ev[0].u.sched_switch.prev_state = 0x100;
    memcpy(ev[0].u.sched_switch.next_comm, "bash\0garbage", 13);   /* bytes after the NUL ignored */
    memcpy(ev[1].u.sched_wakeup.comm, "bash", 5);
    ev[1].u.sched_wakeup.pid = 9;
    ev[1].u.sched_wakeup.target_cpu = 2;
    ev[2].u.rseq_update = (ks_ev_rseq_update){ .cpu_id = 2, .node_id = -1, .mm_cid = 1 };
    ev[3].u.generic = (ks_ev_generic){ .name_off = 4, .fields_off = 8 };
    memcpy(ev[4].u.sched_process_exit.comm, "bash", 5);
    ev[4].u.sched_process_exit.group_dead = -1;
    uint64_t off[KS_COLUMN_COUNT + 1];
    CHECK_EQ_INT(ks_columns_layout(5, off), KS_OK);
    uint8_t *buf = malloc(off[KS_COLUMN_COUNT]);
    ks_comm_dict *dict = NULL;
    ks_columns_stats st;
    CHECK_EQ_INT(ks_comm_dict_new(&dict), KS_OK);
    CHECK_EQ_INT(ks_columns_build(ev, 5, dict, KS_COLUMNS_BY_CPU, buf, &st), KS_OK);
    const int32_t *order = COL(buf, off, KS_COL_ORDER, int32_t);
    int32_t want_order[5] = { 1, 4, 3, 0, 2 };
    for (int i = 0; i < 5; i++)
        CHECK_EQ_INT(order[i], want_order[i]);
    CHECK_EQ_INT(COL(buf, off, KS_COL_CPU, int32_t)[4], 2);
    CHECK_EQ_INT(COL(buf, off, KS_COL_TS_NS, int64_t)[3], 10);
    CHECK_EQ_INT(st.ts_min, 9);
    CHECK_EQ_INT(st.ts_max, 13);
    CHECK_EQ_INT(st.last_fields_off, 8);
    CHECK_EQ_INT(st.type_counts[KS_EV_SCHED_SWITCH], 1);
    /* Names: swapper/2, bash, irq/5 -> 3 ids; next_comm "bash" reads up to its NUL. */
    CHECK_EQ_INT(ks_comm_dict_count(dict), 3);
    const int32_t *comm = COL(buf, off, KS_COL_COMM, int32_t);
    CHECK_EQ_INT(COL(buf, off, KS_COL_NEXT_COMM, int32_t)[3], comm[0]);
    CHECK_EQ_STR(ks_comm_dict_names(dict) + KS_COMM_LEN * comm[3], "swapper/2");
    /* Validity: wakeup row 0, exit row 1 (no group_dead), generic row 2, switch row 3, rseq row 4. */
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_WAKEUP, 0), 1);
    CHECK_EQ_INT(COL(buf, off, KS_COL_TARGET_CPU, int32_t)[0], 2);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_ABOUT, 1), 1);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_GROUP_DEAD, 1), 0);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_GENERIC, 2), 1);
    CHECK_EQ_INT(COL(buf, off, KS_COL_G_FIELDS_OFF, int32_t)[2], 8);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_SWITCH, 3), 1);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_SWITCH, 4), 0);
    CHECK_EQ_INT(COL(buf, off, KS_COL_PREV_STATE, int64_t)[3], 0x100);
    CHECK_EQ_INT(COL(buf, off, KS_COL_NEXT_PID, int32_t)[3], 9);
    CHECK_EQ_INT(COL(buf, off, KS_COL_NEXT_PID, int32_t)[4], 0);   /* null slots hold 0 */
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_RSEQ, 4), 1);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_NODE_ID, 4), 0);
    CHECK_EQ_INT(BIT(buf, off, KS_VALID_MM_CID, 4), 1);
    CHECK_EQ_INT(st.nulls[KS_VALID_SWITCH - KS_VALID_ABOUT], 4);
    CHECK_EQ_INT(st.nulls[KS_VALID_NODE_ID - KS_VALID_ABOUT], 5);
    /* Without KS_COLUMNS_BY_CPU the input order stays; a bad type is refused. */
    CHECK_EQ_INT(ks_columns_build(ev, 5, dict, 0, buf, &st), KS_OK);
    CHECK_EQ_INT(COL(buf, off, KS_COL_ORDER, int32_t)[3], 3);
    ev[2].type = KS_EV_TYPE_COUNT;
    CHECK_EQ_INT(ks_columns_build(ev, 5, dict, 0, buf, &st), KS_ERR_INVALID_ARG);
    CHECK_EQ_STR(ks_column_name(KS_COL_MM_CID), "mm_cid");
    CHECK(ks_column_name(KS_COLUMN_COUNT) == NULL);
    ks_comm_dict_free(dict);
    free(buf);
}

/* CPU ids spread over more than 1 << 16 (garbage that still parsed): a stable merge sort. */
static void columns_sort_wide_cpu_ids_stably(void)
{
    enum { N = 7 };
    int32_t cpus[N] = { 900000, 3, 900000, -5, 3, 70000, -5 };
    ks_event ev[N];
    memset(ev, 0, sizeof ev);
    for (int i = 0; i < N; i++) {
        ev[i].cpu = cpus[i];
        ev[i].ts_ns = (uint64_t)i;
        ev[i].type = KS_EV_RSEQ_UPDATE;
    }
    uint64_t off[KS_COLUMN_COUNT + 1];
    ks_columns_layout(N, off);
    uint8_t *buf = malloc(off[KS_COLUMN_COUNT]);
    ks_comm_dict *dict = NULL;
    ks_columns_stats st;
    CHECK_EQ_INT(ks_comm_dict_new(&dict), KS_OK);
    CHECK_EQ_INT(ks_columns_build(ev, N, dict, KS_COLUMNS_BY_CPU, buf, &st), KS_OK);
    int32_t want[N] = { 3, 6, 1, 4, 5, 0, 2 };
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(COL(buf, off, KS_COL_ORDER, int32_t)[i], want[i]);
    ks_comm_dict_free(dict);
    free(buf);
}

const test_case event_tests[] = {
    { "event: log clear keeps nothing", log_clear_keeps_nothing },
    { "event: columns group by cpu and fill each type", columns_group_by_cpu_and_fill_each_type },
    { "event: columns sort wide cpu ids stably", columns_sort_wide_cpu_ids_stably },
    { "event: type names round trip", type_names_round_trip },
    { "event: log keeps typed records in order", log_keeps_typed_records_in_order },
    { "event: unknown events are kept as generic", unknown_events_are_kept_as_generic },
    { "event: bad records are refused", bad_records_are_refused },
    { "event: append_many copies typed records, all or nothing", append_many_copies_typed_records_all_or_nothing },
    { 0 },
};
