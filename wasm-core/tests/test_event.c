#include <string.h>

#include "check.h"
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

const test_case event_tests[] = {
    { "event: type names round trip", type_names_round_trip },
    { "event: log keeps typed records in order", log_keeps_typed_records_in_order },
    { "event: unknown events are kept as generic", unknown_events_are_kept_as_generic },
    { "event: bad records are refused", bad_records_are_refused },
    { 0 },
};
