/*
 * fuzz/fuzz_ftrace.c: the ftrace text decoder (tracefs `trace`, trace-cmd report, atrace).
 * Detect, feed in input-driven chunks, finish, the column build; the same text decoded
 * in one piece must give the same records and counters; the records must export.
 */
#include "fuzz_input.h"
#include "kscope/ftrace.h"
#include "kscope/native/ftrace_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_input in = fuzz_split(bytes, size);
    fuzz_detect(&in);

    ks_event_log *log = NULL, *whole = NULL;
    ks_ftrace_decoder *dec = NULL;
    FUZZ_CHECK(ks_event_log_new(&log) == KS_OK && ks_event_log_new(&whole) == KS_OK);
    FUZZ_CHECK(ks_ftrace_decoder_new(&dec) == KS_OK);
    for (int32_t at = 0; at < in.len;) {
        int32_t n = fuzz_chunk(&in, in.len - at);
        FUZZ_CHECK(ks_ftrace_decoder_feed(dec, in.data + at, n, log) == KS_OK);
        at += n;
    }
    FUZZ_CHECK(ks_ftrace_decoder_finish(dec, log) == KS_OK);
    ks_ftrace_stats st, st_whole;
    FUZZ_CHECK(ks_ftrace_decoder_stats(dec, &st) == KS_OK);
    FUZZ_CHECK(st.events == ks_event_log_count(log));
    FUZZ_CHECK(st.generic_events <= st.events);

    FUZZ_CHECK(ks_ftrace_decode(in.data, in.len, whole, &st_whole) == KS_OK);
    FUZZ_CHECK(memcmp(&st, &st_whole, sizeof st) == 0);
    FUZZ_CHECK(fuzz_same_logs(log, whole));
    fuzz_columns(log);

    /* Export what was decoded (the "open in any ftrace tool" path), in small reads. */
    ks_ftrace_exporter *x = NULL;
    FUZZ_CHECK(ks_ftrace_exporter_new(log, 0, KS_FTRACE_DEFAULT, &x) == KS_OK);
    char buf[257];
    int32_t written = 0;
    uint64_t total = 0;
    do {
        FUZZ_CHECK(ks_ftrace_exporter_read(x, buf, (int32_t)sizeof buf, &written) == KS_OK);
        FUZZ_CHECK(written >= 0 && written <= (int32_t)sizeof buf);
        total += (uint64_t)written;
    } while (written > 0);
    FUZZ_CHECK(total > 0);      /* at least the header */
    ks_ftrace_exporter_free(x);

    ks_ftrace_decoder_free(dec);
    ks_event_log_free(log);
    ks_event_log_free(whole);
    return 0;
}
