/*
 * fuzz/fuzz_input.h: what every harness shares - the input split into "data" and
 * "how to cut it", and the checks run on a decoder's output.
 *
 * The last 4 bytes of an input (when it has more than 4) seed the chunk sizes; the
 * rest is the data. A real file used as a seed so loses only its last 4 bytes, and
 * the fuzzer can still steer the cutting: the same data fed in 1-byte pieces, in a
 * mix of short and long pieces, or whole. Every decoder must give the same result
 * whatever the cutting (they promise "chunks of any size"); the harnesses check it
 * against a whole-buffer decode where that is cheap.
 */
#ifndef KSCOPE_FUZZ_INPUT_H
#define KSCOPE_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kscope/native/columns.h"
#include "kscope/event.h"
#include "kscope/trace_detect.h"

typedef struct fuzz_input {
    const char *data;
    int32_t len;
    uint32_t rng;       /* xorshift32 state for the chunk sizes */
} fuzz_input;

/* Inputs longer than this are cut (libFuzzer's -max_len keeps them shorter anyway). */
#define FUZZ_MAX_INPUT (8 << 20)

static inline fuzz_input fuzz_split(const uint8_t *bytes, size_t size)
{
    fuzz_input in = { (const char *)bytes, 0, 0x9e3779b9u };
    if (size > FUZZ_MAX_INPUT)
        size = FUZZ_MAX_INPUT;
    if (size > 4) {
        uint32_t seed;
        memcpy(&seed, bytes + size - 4, 4);
        in.rng ^= seed;
        size -= 4;
    }
    in.len = (int32_t)size;
    if (in.rng == 0)
        in.rng = 1;
    return in;
}

/* The next chunk size, 1..left: mostly short (1..16 bytes: cuts inside fields and
 * line ends), sometimes up to 4 KiB, sometimes everything left; the mode is fixed by
 * the seed's low bits so one input is cut one consistent way. */
static inline int32_t fuzz_chunk(fuzz_input *in, int32_t left)
{
    uint32_t x = in->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    in->rng = x;
    int32_t n;
    switch (x & 3) {
    case 0: n = 1 + (int32_t)((x >> 8) % 16); break;
    case 1: n = 1 + (int32_t)((x >> 8) % 4096); break;
    case 2: n = 1 + (int32_t)((x >> 8) % 65536); break;
    default: n = left; break;
    }
    return n < left ? n : left;
}

/* Aborts the run (libFuzzer saves the input) when a property does not hold. */
#define FUZZ_CHECK(cond)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* The detector on the file's head, as the ingest calls it (first 64 KiB). */
static inline int32_t fuzz_detect(const fuzz_input *in)
{
    int32_t format = ks_trace_detect(in->data, in->len < 65536 ? in->len : 65536);
    FUZZ_CHECK(format >= 0 && format < KS_TRACE_FORMAT_COUNT);
    FUZZ_CHECK(ks_trace_format_name(format) != NULL);
    return format;
}

/* The column build the ingest runs on every batch: both row orders, and every
 * generic record's text must be in the log's arena. */
static inline void fuzz_columns(const ks_event_log *log)
{
    uint32_t n = ks_event_log_count(log);
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 0; i < n; i++) {
        FUZZ_CHECK(ev[i].type < KS_EV_TYPE_COUNT);
        FUZZ_CHECK(ev[i].comm[KS_COMM_LEN - 1] == '\0');
        if (ev[i].type == KS_EV_GENERIC) {
            FUZZ_CHECK(ks_event_log_text(log, ev[i].u.generic.name_off) != NULL);
            FUZZ_CHECK(ks_event_log_text(log, ev[i].u.generic.fields_off) != NULL);
        }
    }
    uint64_t off[KS_COLUMN_COUNT + 1];
    FUZZ_CHECK(ks_columns_layout(n, off) == KS_OK);
    uint8_t *buf = aligned_alloc(64, (size_t)((off[KS_COLUMN_COUNT] + 63) / 64 * 64));
    FUZZ_CHECK(buf != NULL);
    ks_comm_dict *dict = NULL;
    FUZZ_CHECK(ks_comm_dict_new(&dict) == KS_OK);
    ks_columns_stats st;
    for (uint32_t flags = 0; flags <= KS_COLUMNS_BY_CPU; flags++) {
        FUZZ_CHECK(ks_columns_build(ev, n, dict, flags, buf, &st) == KS_OK);
        uint32_t total = 0;
        for (int t = 0; t < KS_EV_TYPE_COUNT; t++)
            total += st.type_counts[t];
        FUZZ_CHECK(total == n);
        /* one dict across both builds (as across an ingest's batches): at most the
         * five comm-like columns' names per record, each counted once */
        FUZZ_CHECK(ks_comm_dict_count(dict) <= 5u * n);
    }
    ks_comm_dict_free(dict);
    free(buf);
}

/* The records of two logs are the same (typed fields and generic texts). */
static inline int fuzz_same_logs(const ks_event_log *a, const ks_event_log *b)
{
    uint32_t n = ks_event_log_count(a);
    if (n != ks_event_log_count(b))
        return 0;
    const ks_event *x = ks_event_log_data(a), *y = ks_event_log_data(b);
    for (uint32_t i = 0; i < n; i++) {
        if (x[i].type != y[i].type || x[i].ts_ns != y[i].ts_ns || x[i].cpu != y[i].cpu
            || x[i].pid != y[i].pid || x[i].tgid != y[i].tgid
            || memcmp(x[i].comm, y[i].comm, KS_COMM_LEN) != 0)
            return 0;
        if (x[i].type == KS_EV_GENERIC) {
            if (strcmp(ks_event_log_text(a, x[i].u.generic.name_off),
                       ks_event_log_text(b, y[i].u.generic.name_off)) != 0
                || strcmp(ks_event_log_text(a, x[i].u.generic.fields_off),
                          ks_event_log_text(b, y[i].u.generic.fields_off)) != 0)
                return 0;
        } else if (memcmp(&x[i].u, &y[i].u, sizeof x[i].u) != 0) {
            return 0;
        }
    }
    return 1;
}

#endif
