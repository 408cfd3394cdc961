/*
 * fuzz/fuzz_tracedat.c: the trace.dat (v6/v7, zlib/zstd) decoder, through its
 * want/feed loop. Detect; answer each want() with 1..len bytes, cut by the input
 * (a short feed must be taken as such and asked again); finish; the column build.
 * The same file fed whole-wants must give the same records and counters.
 */
#include "fuzz_input.h"
#include "kscope/tracedat.h"

/* Feeds are capped per file, so a decoder that asks for the same bytes forever is a
 * finding (libFuzzer's timeout would catch it too, but later and without saying why). */
#define MAX_FEEDS (1 << 22)

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_input in = fuzz_split(bytes, size);
    fuzz_detect(&in);

    ks_event_log *log = NULL, *whole = NULL;
    ks_tracedat_decoder *dec = NULL;
    FUZZ_CHECK(ks_event_log_new(&log) == KS_OK && ks_event_log_new(&whole) == KS_OK);
    FUZZ_CHECK(ks_tracedat_decoder_new(&dec) == KS_OK);
    int32_t status = KS_OK, feeds = 0;
    int64_t off;
    int32_t want;
    while (status == KS_OK && ks_tracedat_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        FUZZ_CHECK(off >= 0);
        FUZZ_CHECK(++feeds < MAX_FEEDS);
        int32_t n = off >= in.len ? 0 : fuzz_chunk(&in, in.len - off < want ? (int32_t)(in.len - off) : want);
        status = ks_tracedat_decoder_feed(dec, off, n ? in.data + off : NULL, n, log);
        FUZZ_CHECK(status == KS_OK || status == KS_ERR_PARSE || status == KS_ERR_NO_MEMORY);
    }
    if (status == KS_OK)
        status = ks_tracedat_decoder_finish(dec, log);
    ks_tracedat_stats st, st_whole;
    FUZZ_CHECK(ks_tracedat_decoder_stats(dec, &st) == KS_OK);
    FUZZ_CHECK(st.events == ks_event_log_count(log));
    FUZZ_CHECK(st.generic_events <= st.events);
    FUZZ_CHECK(st.bytes_fed >= 0);
    FUZZ_CHECK(st.uname[sizeof st.uname - 1] == '\0');
    FUZZ_CHECK(st.trace_clock[sizeof st.trace_clock - 1] == '\0');
    FUZZ_CHECK(st.first_error.message[sizeof st.first_error.message - 1] == '\0');

    int32_t status_whole = ks_tracedat_decode(in.data, in.len, whole, &st_whole);
    if (status != KS_ERR_NO_MEMORY && status_whole != KS_ERR_NO_MEMORY) {
        FUZZ_CHECK(status == status_whole);
        FUZZ_CHECK(st.events == st_whole.events && st.malformed == st_whole.malformed);
        FUZZ_CHECK(st.status == st_whole.status && st.error_offset == st_whole.error_offset);
        FUZZ_CHECK(fuzz_same_logs(log, whole));
    }
    fuzz_columns(log);

    ks_tracedat_decoder_free(dec);
    ks_event_log_free(log);
    ks_event_log_free(whole);
    return 0;
}
