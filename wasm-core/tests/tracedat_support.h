/*
 * Shared by the trace.dat decoder tests (test_tracedat.c, test_tracedat_compressed.c):
 * driving the incremental decoder (ks_tracedat_decoder_want/feed/finish) the way a
 * caller that reads a file piece by piece does, in feeds of any size or with a read
 * cut short, and overwriting bytes of a copy at pseudo-random places.
 */
#ifndef KSCOPE_TESTS_TRACEDAT_SUPPORT_H
#define KSCOPE_TESTS_TRACEDAT_SUPPORT_H

#include <stdint.h>

#include "kscope/tracedat.h"

/* The want/feed loop over data[0, len), handing over at most `chunk` bytes a feed
 * (0: all wanted); the stats into *st. Returns the decoder's status. */
int32_t tds_decode_fed(const char *data, int32_t len, int32_t chunk, ks_event_log *log,
                       ks_tracedat_stats *st);

/* As tds_decode_fed (into a scratch log, feeds as wanted), but the "file" ends at `end`
 * for reads of [end, resume): a read cut short in the middle. */
int32_t tds_decode_cut(const char *data, int32_t len, int64_t end, int64_t resume,
                       ks_tracedat_stats *st);

/* Decodes data (feeds as wanted) into a scratch log; the record count into *events
 * (if not NULL). Returns the status. */
int32_t tds_decode_copy(const char *data, int32_t len, ks_tracedat_stats *st, uint32_t *events);

/* Decodes data in feeds of each of the n sizes; every decode must succeed and give
 * the records of `whole` and its event count st->events. */
void tds_check_feeds(const char *data, int32_t len, const ks_event_log *whole,
                     const ks_tracedat_stats *st, const int32_t *feeds, uint32_t n);

/* Overwrites n bytes of copy, at offsets in [from, to), with pseudo-random values
 * (a linear congruential generator stepped through *seed). */
void tds_scribble(char *copy, int64_t from, int64_t to, int32_t n, uint32_t *seed);

/* Decodes a (corrupted) copy: it must end with KS_OK or KS_ERR_PARSE and count in its
 * stats the records it gave. Returns the status. */
int32_t tds_decode_ends_with_status(const char *data, int32_t len);

#endif
