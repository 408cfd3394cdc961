/* The trace.dat decoder tests' shared helpers (tracedat_support.h). */
#include "tracedat_support.h"

#include "check.h"
#include "trace_test_util.h"

/* The want/feed loop: the file seems to end at `end` for reads of [end, resume)
 * (end = resume = len: the whole file), at most `chunk` bytes a feed (0: as wanted). */
static int32_t decode_window(const char *data, int32_t len, int32_t chunk, int64_t end,
                             int64_t resume, ks_event_log *log, ks_tracedat_stats *st)
{
    ks_tracedat_decoder *dec = NULL;
    int32_t status = ks_tracedat_decoder_new(&dec);
    int64_t off;
    int32_t want;
    while (status == KS_OK && ks_tracedat_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        int64_t stop = off < end ? end : off >= resume ? len : off;
        int64_t n = off >= stop ? 0 : stop - off < want ? stop - off : want;
        if (chunk > 0 && n > chunk)
            n = chunk;
        status = ks_tracedat_decoder_feed(dec, off, n ? data + off : NULL, (int32_t)n, log);
    }
    if (status == KS_OK)
        status = ks_tracedat_decoder_finish(dec, log);
    ks_tracedat_decoder_stats(dec, st);
    ks_tracedat_decoder_free(dec);
    return status;
}

int32_t tds_decode_fed(const char *data, int32_t len, int32_t chunk, ks_event_log *log,
                       ks_tracedat_stats *st)
{
    return decode_window(data, len, chunk, len, len, log, st);
}

int32_t tds_decode_cut(const char *data, int32_t len, int64_t end, int64_t resume,
                       ks_tracedat_stats *st)
{
    ks_event_log *log = NULL;
    ks_event_log_new(&log);
    int32_t status = decode_window(data, len, 0, end, resume, log, st);
    ks_event_log_free(log);
    return status;
}

int32_t tds_decode_copy(const char *data, int32_t len, ks_tracedat_stats *st, uint32_t *events)
{
    ks_event_log *log = NULL;
    ks_event_log_new(&log);
    int32_t status = tds_decode_fed(data, len, 0, log, st);
    if (events)
        *events = ks_event_log_count(log);
    ks_event_log_free(log);
    return status;
}

void tds_check_feeds(const char *data, int32_t len, const ks_event_log *whole,
                     const ks_tracedat_stats *st, const int32_t *feeds, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        ks_event_log *log = NULL;
        ks_tracedat_stats s;
        ks_event_log_new(&log);
        CHECK_EQ_INT(tds_decode_fed(data, len, feeds[i], log, &s), KS_OK);
        CHECK_EQ_INT(ks_event_log_count(log), ks_event_log_count(whole));
        CHECK_EQ_INT(tt_same_records(log, whole), ks_event_log_count(whole));
        CHECK_EQ_INT(s.events, st->events);
        ks_event_log_free(log);
    }
}

void tds_scribble(char *copy, int64_t from, int64_t to, int32_t n, uint32_t *seed)
{
    for (int32_t k = 0; k < n; k++) {
        *seed = *seed * 1103515245u + 12345u;
        copy[from + (*seed >> 4) % (uint32_t)(to - from)] = (char)(*seed >> 24);
    }
}

int32_t tds_decode_ends_with_status(const char *data, int32_t len)
{
    ks_tracedat_stats st;
    uint32_t events = 0;
    int32_t status = tds_decode_copy(data, len, &st, &events);
    CHECK(status == KS_OK || status == KS_ERR_PARSE);
    CHECK(st.events == events);
    return status;
}
