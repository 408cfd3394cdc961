/*
 * fuzz/fuzz_perf.c: the perf script / perf sched timehist decoder.
 * Detect, feed in input-driven chunks, finish, the column build; the same text decoded
 * in one piece must give the same records and counters.
 */
#include "fuzz_input.h"
#include "kscope/perf.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_input in = fuzz_split(bytes, size);
    fuzz_detect(&in);

    ks_event_log *log = NULL, *whole = NULL;
    ks_perf_decoder *dec = NULL;
    FUZZ_CHECK(ks_event_log_new(&log) == KS_OK && ks_event_log_new(&whole) == KS_OK);
    FUZZ_CHECK(ks_perf_decoder_new(&dec) == KS_OK);
    int32_t rc = KS_OK;
    for (int32_t at = 0; at < in.len && rc == KS_OK;) {
        int32_t n = fuzz_chunk(&in, in.len - at);
        rc = ks_perf_decoder_feed(dec, in.data + at, n, log);
        FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_PARSE);    /* PARSE: perf report, refused */
        at += n;
    }
    int32_t fin = ks_perf_decoder_finish(dec, log);
    FUZZ_CHECK(fin == KS_OK || fin == KS_ERR_PARSE);
    ks_perf_stats st, st_whole;
    FUZZ_CHECK(ks_perf_decoder_stats(dec, &st) == KS_OK);
    FUZZ_CHECK(st.events == ks_event_log_count(log));
    FUZZ_CHECK(st.generic_events <= st.events);
    FUZZ_CHECK((st.status == KS_OK) == (fin == KS_OK));

    int32_t rc_whole = ks_perf_decode(in.data, in.len, whole, &st_whole);
    FUZZ_CHECK(rc_whole == fin);
    FUZZ_CHECK(memcmp(&st, &st_whole, sizeof st) == 0);
    FUZZ_CHECK(fuzz_same_logs(log, whole));
    fuzz_columns(log);

    ks_perf_decoder_free(dec);
    ks_event_log_free(log);
    ks_event_log_free(whole);
    return 0;
}
