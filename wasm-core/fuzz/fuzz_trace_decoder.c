/*
 * fuzz/fuzz_trace_decoder.c: the one interface over every decoder (trace_decoder.h).
 * Any input: detect + new through the registry; the want/feed loop with input-driven read
 * sizes (text: any piece; trace.dat: 1..want bytes); finish. The common stats must agree
 * with the records, and the same file read in one piece per want must give the same
 * records and counters. Formats without a decoder must come back with none.
 */
#include <stdbool.h>

#include "fuzz_input.h"
#include "kscope/trace_decoder.h"

#define MAX_FEEDS (1 << 22)  /* a decoder that never stops asking is a finding */

/* The loop of trace_decoder.h; chunked: read sizes from the input's seed, else whole wants. */
static int32_t drive(ks_trace_decoder *dec, fuzz_input *in, bool chunked, ks_event_log *log)
{
    int64_t off;
    int32_t want, rc = KS_OK, feeds = 0;
    if (!chunked)
        FUZZ_CHECK(ks_trace_decoder_set_piece(dec, in->len > 0 ? in->len : 1) == KS_OK);
    while (ks_trace_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        FUZZ_CHECK(off >= 0);
        FUZZ_CHECK(++feeds < MAX_FEEDS);
        int32_t left = off >= in->len ? 0 : in->len - (int32_t)off;
        int32_t n = left < want ? left : want;
        if (chunked && n > 0)
            n = fuzz_chunk(in, n);
        rc = ks_trace_decoder_feed(dec, off, n ? in->data + off : NULL, n, log);
        /* NO_MEMORY: trace.dat's bound on what it holds at once (tracedat.h) */
        FUZZ_CHECK(rc == KS_OK || rc == KS_ERR_PARSE || rc == KS_ERR_NO_MEMORY);
        if (rc != KS_OK)
            break;
    }
    if (rc == KS_ERR_NO_MEMORY)
        return rc;
    int32_t fin = ks_trace_decoder_finish(dec, log);
    FUZZ_CHECK(fin == KS_OK || fin == KS_ERR_PARSE);
    return rc != KS_OK ? rc : fin;
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    fuzz_input in = fuzz_split(bytes, size);
    int32_t detected = fuzz_detect(&in);
    int32_t format = -1;
    ks_trace_decoder *dec = NULL, *whole = NULL;
    int32_t rc = ks_trace_decoder_open(in.data, in.len < 65536 ? in.len : 65536, &format, &dec);
    FUZZ_CHECK(format == detected);
    if (ks_trace_format_decoder(format) == NULL) {
        FUZZ_CHECK(rc == KS_ERR_NOT_FOUND && dec == NULL);
        return 0;
    }
    FUZZ_CHECK(rc == KS_OK && dec != NULL);
    FUZZ_CHECK(ks_trace_decoder_new(format, &whole) == KS_OK);

    ks_event_log *log = NULL, *log_whole = NULL;
    FUZZ_CHECK(ks_event_log_new(&log) == KS_OK && ks_event_log_new(&log_whole) == KS_OK);
    int32_t status = drive(dec, &in, true, log);
    int32_t status_whole = drive(whole, &in, false, log_whole);

    ks_trace_stats st, st_whole;
    FUZZ_CHECK(ks_trace_decoder_stats(dec, &st) == KS_OK);
    FUZZ_CHECK(ks_trace_decoder_stats(whole, &st_whole) == KS_OK);
    FUZZ_CHECK(st.format == format);
    FUZZ_CHECK(st.events == ks_event_log_count(log));
    FUZZ_CHECK(st.generic_events <= st.events);
    FUZZ_CHECK(st.first_error.message[sizeof st.first_error.message - 1] == '\0');
    /* Whatever the read sizes: the same records and counters (not the first error's place:
     * trace.dat's may depend on them, an open finding in fuzz/findings/). */
    if (status != KS_ERR_NO_MEMORY && status_whole != KS_ERR_NO_MEMORY) {
        FUZZ_CHECK((st.status == KS_OK) == (status == KS_OK));
        FUZZ_CHECK(status == status_whole);
        FUZZ_CHECK(st.events == st_whole.events && st.malformed == st_whole.malformed);
        FUZZ_CHECK(fuzz_same_logs(log, log_whole));
    }
    fuzz_columns(log);

    ks_trace_decoder_free(dec);
    ks_trace_decoder_free(whole);
    ks_event_log_free(log);
    ks_event_log_free(log_whole);
    return 0;
}
