/*
 * fuzz/fuzz_systrace.c: the systrace HTML decoder (trace-data blocks -> ftrace text).
 * Detect, feed in input-driven chunks (a tag may be cut anywhere), finish, the column
 * build; the same page decoded in one piece must give the same records and counters.
 */
#include "fuzz_input.h"
#include "kscope/systrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_input in = fuzz_split(bytes, size);
    fuzz_detect(&in);

    ks_event_log *log = NULL, *whole = NULL;
    ks_systrace_decoder *dec = NULL;
    FUZZ_CHECK(ks_event_log_new(&log) == KS_OK && ks_event_log_new(&whole) == KS_OK);
    FUZZ_CHECK(ks_systrace_decoder_new(&dec) == KS_OK);
    for (int32_t at = 0; at < in.len;) {
        int32_t n = fuzz_chunk(&in, in.len - at);
        FUZZ_CHECK(ks_systrace_decoder_feed(dec, in.data + at, n, log) == KS_OK);
        at += n;
    }
    FUZZ_CHECK(ks_systrace_decoder_finish(dec, log) == KS_OK);
    ks_systrace_stats st, st_whole;
    FUZZ_CHECK(ks_systrace_decoder_stats(dec, &st) == KS_OK);
    FUZZ_CHECK(st.ftrace.events == ks_event_log_count(log));

    FUZZ_CHECK(ks_systrace_decode(in.data, in.len, whole, &st_whole) == KS_OK);
    FUZZ_CHECK(memcmp(&st, &st_whole, sizeof st) == 0);
    FUZZ_CHECK(fuzz_same_logs(log, whole));
    fuzz_columns(log);

    ks_systrace_decoder_free(dec);
    ks_event_log_free(log);
    ks_event_log_free(whole);
    return 0;
}
