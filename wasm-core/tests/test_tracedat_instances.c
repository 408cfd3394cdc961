/*
 * trace.dat with tracefs instance buffers (`trace-cmd record -B NAME`, `extract -B NAME`),
 * and the memory a crafted compressed file can make the decoder hold.
 *
 * ../traces/sleep-instance-linux6.18.{v6,v7,v7-zstd}.dat and
 * ../traces/sleep-top-instance-linux6.18.{...}.dat (traces/workloads/instance_traces.sh;
 * traces/README.md). trace-cmd report 3.1.6 on them, per buffer:
 *   instance:      ksgold  26 sched_switch 13 sched_wakeup 4 sched_process_exit
 *                          4 sched_process_fork 4 sched_wakeup_new               (51)
 *                  first 268.684259389 (CPU 1), last 268.776720902
 *   top+instance:  top     27 sched_switch 4 sched_process_exit                  (31)
 *                  ksgold  27 sched_switch 14 sched_wakeup 4 sched_process_exit
 *                          4 sched_process_fork 4 sched_wakeup_new               (53)
 *                  first 270.148263234, last 270.220383080
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "trace_test_util.h"
#include "tracedat_support.h"
#include "kscope/tracedat.h"

typedef struct instance_case {
    const char *path;
    int32_t version;
    uint32_t events;
    int32_t buffers;                /* names: "" (if top) then "ksgold" */
    uint32_t per_buffer[2];
    uint32_t switches[2];
    uint64_t first_ns, last_ns;
} instance_case;

static void decode_instance_file(const instance_case *ic)
{
    int32_t len = 0;
    char *data = fixture_read(ic->path, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    ks_event_log *log = NULL;
    ks_event_log_new(&log);
    ks_tracedat_decoder *dec = NULL;
    CHECK_EQ_INT(ks_tracedat_decoder_new(&dec), KS_OK);
    int64_t off;
    int32_t want, status = KS_OK;
    while (status == KS_OK && ks_tracedat_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        int64_t n = off >= len ? 0 : len - off < want ? len - off : want;
        status = ks_tracedat_decoder_feed(dec, off, n ? data + off : NULL, (int32_t)n, log);
    }
    CHECK_EQ_INT(status, KS_OK);
    CHECK_EQ_INT(ks_tracedat_decoder_finish(dec, log), KS_OK);
    ks_tracedat_stats st;
    ks_tracedat_decoder_stats(dec, &st);
    CHECK_EQ_INT(st.version, ic->version);
    CHECK_EQ_INT(st.malformed, 0);
    CHECK_EQ_INT(st.skipped_buffers, 0);
    CHECK_EQ_INT(st.events, ic->events);
    CHECK_EQ_INT(ks_tracedat_decoder_buffer_count(dec), ic->buffers);
    if (ic->buffers == 2)
        CHECK_EQ_STR(ks_tracedat_decoder_buffer_name(dec, 0), "");
    CHECK_EQ_STR(ks_tracedat_decoder_buffer_name(dec, ic->buffers - 1), "ksgold");
    CHECK(ks_tracedat_decoder_buffer_name(dec, ic->buffers) == NULL);
    uint32_t n = ks_event_log_count(log), per[3] = { 0 }, sw[3] = { 0 };
    const ks_event *ev = ks_event_log_data(log);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = ev[i].buffer < 2 ? ev[i].buffer : 2;
        per[b]++;
        sw[b] += ev[i].type == KS_EV_SCHED_SWITCH;
    }
    for (int32_t b = 0; b < ic->buffers; b++) {
        CHECK_EQ_INT(per[b], ic->per_buffer[b]);
        CHECK_EQ_INT(sw[b], ic->switches[b]);
    }
    CHECK_EQ_INT(per[2], 0);
    CHECK_EQ_INT(st.generic_events, 0);
    CHECK(tt_time_ordered(log));
    if (n == ic->events) {
        CHECK_EQ_INT(ev[0].ts_ns, ic->first_ns);
        CHECK_EQ_INT(ev[n - 1].ts_ns, ic->last_ns);
    }
    ks_tracedat_decoder_free(dec);
    /* 7-byte and 5000-byte feeds give the same records (buffer indexes included) */
    static const int32_t feeds[] = { 7, 5000 };
    tds_check_feeds(data, len, log, &st, feeds, sizeof feeds / sizeof feeds[0]);
    ks_event_log_free(log);
    free(data);
}

static void instance_buffers_match_trace_cmd(void)
{
    static const char *const kinds[] = { "v6", "v7", "v7-zstd" };
    for (int32_t k = 0; k < 3; k++) {
        char inst[128], both[128];
        snprintf(inst, sizeof inst, "../traces/sleep-instance-linux6.18.%s.dat", kinds[k]);
        snprintf(both, sizeof both, "../traces/sleep-top-instance-linux6.18.%s.dat", kinds[k]);
        int32_t version = k == 0 ? 6 : 7;
        instance_case alone = { inst, version, 51, 1, { 51 }, { 26 }, 268684259389ull, 268776720902ull };
        instance_case top = { both, version, 84, 2, { 31, 53 }, { 27, 27 }, 270148263234ull, 270220383080ull };
        decode_instance_file(&alone);
        decode_instance_file(&top);
    }
}

/* ---- a crafted v7 file: N CPUs, each one zstd chunk declaring 16 MiB ---------------------- */

typedef struct bytes { char *at; int64_t len, cap; } bytes;

static void put(bytes *b, const void *p, int64_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->at = realloc(b->at, (size_t)b->cap);
    }
    memcpy(b->at + b->len, p, (size_t)n);
    b->len += n;
}

static void put_n(bytes *b, uint64_t v, int32_t n)
{
    char le[8];
    for (int32_t i = 0; i < n; i++, v >>= 8)
        le[i] = (char)(v & 0xff);
    put(b, le, n);
}

static uint64_t get_n(const char *p, int32_t n)
{
    uint64_t v = 0;
    for (int32_t i = n - 1; i >= 0; i--)
        v = v << 8 | (uint8_t)p[i];
    return v;
}

/* A zstd frame of `usize` bytes: one raw block of `raw` bytes (a ring-buffer page with
 * one event, then zeros), then RLE blocks of zeros. Its size sets the ratio. */
static void zstd_frame(bytes *b, uint32_t usize, uint32_t raw, uint64_t ts)
{
    put_n(b, 0xFD2FB528u, 4);
    put_n(b, 0xA0, 1);                          /* single segment, 4-byte content size */
    put_n(b, usize, 4);
    put_n(b, (uint64_t)raw << 3, 3);            /* raw block */
    char *page = calloc(1, raw);
    memcpy(page, &ts, 8);                       /* page header: timestamp, commit 12 */
    page[8] = 12;
    page[16] = 2;                               /* event: type_len 2 (8 bytes), delta 0 */
    page[20] = (char)0xfe;                      /* common_type 0xfffe: no format (generic) */
    page[21] = (char)0xff;
    put(b, page, raw);
    free(page);
    for (uint32_t left = usize - raw; left > 0;) {
        uint32_t n = left > (128u << 10) ? 128u << 10 : left;
        left -= n;
        put_n(b, (uint64_t)n << 3 | 1u << 1 | (left == 0), 3);  /* RLE block */
        put_n(b, 0, 1);
    }
}

/* The real v7 zstd file, with a second options section chained to its last one: a BUFFER
 * "amp" of `cpus` CPUs, each one chunk of `usize` bytes (`raw` of them stored). */
static char *amplified_file(int32_t cpus, uint32_t usize, uint32_t raw, int32_t *len_out)
{
    int32_t len = 0;
    char *real = fixture_read("../traces/sleep-instance-linux6.18.v7-zstd.dat", &len);
    if (!real)
        return NULL;
    bytes b = { 0 };
    put(&b, real, len);
    free(real);
    /* the last options section's DONE option: walk from the first */
    int32_t pos = 18;
    for (int32_t i = 0; i < 2; i++) {
        while (b.at[pos])
            pos++;
        pos++;
    }
    int64_t off = (int64_t)get_n(b.at + pos, 8), done_at = -1;
    while (off) {
        int64_t p = off + 16, end = p + (int64_t)get_n(b.at + off + 8, 8);
        off = 0;
        for (; p + 6 <= end; p += 6 + get_n(b.at + p + 2, 4))
            if (get_n(b.at + p, 2) == 0) {
                done_at = p + 6;
                off = (int64_t)get_n(b.at + p + 6, 8);
                break;
            }
    }
    if (done_at < 0) {
        free(b.at);
        return NULL;
    }
    /* the data section: header, then per CPU: count 1, { csize usize frame } */
    int64_t data_at = b.len;
    bytes cpu = { 0 };
    put_n(&b, 3, 2);
    put_n(&b, 1, 2);
    put_n(&b, 0, 4);
    int64_t size_at = b.len;
    put_n(&b, 0, 8);
    int64_t *offs = calloc((size_t)cpus, sizeof *offs), *sizes = calloc((size_t)cpus, sizeof *sizes);
    for (int32_t c = 0; c < cpus; c++) {
        cpu.len = 0;
        zstd_frame(&cpu, usize, raw, 1000 + (uint64_t)c);
        offs[c] = b.len;
        put_n(&b, 1, 4);
        put_n(&b, (uint64_t)cpu.len, 4);
        put_n(&b, usize, 4);
        put(&b, cpu.at, cpu.len);
        sizes[c] = b.len - offs[c] - 4;         /* the size excludes the count */
    }
    for (int32_t i = 0; i < 8; i++)
        b.at[size_at + i] = (char)((uint64_t)(b.len - size_at - 8) >> (8 * i));
    /* the options section: BUFFER "amp", DONE 0 */
    int64_t opts_at = b.len;
    for (int32_t i = 0; i < 8; i++)
        b.at[done_at + i] = (char)((uint64_t)opts_at >> (8 * i));
    bytes opt = { 0 };
    put_n(&opt, (uint64_t)data_at, 8);
    put(&opt, "amp\0local\0", 10);
    put_n(&opt, 4096, 4);
    put_n(&opt, (uint64_t)cpus, 4);
    for (int32_t c = 0; c < cpus; c++) {
        put_n(&opt, (uint64_t)c, 4);
        put_n(&opt, (uint64_t)offs[c], 8);
        put_n(&opt, (uint64_t)sizes[c], 8);
    }
    put_n(&b, 0, 2);
    put_n(&b, 0, 2);
    put_n(&b, 0, 4);
    put_n(&b, (uint64_t)(6 + opt.len + 6 + 8), 8);
    put_n(&b, 3, 2);
    put_n(&b, (uint64_t)opt.len, 4);
    put(&b, opt.at, opt.len);
    put_n(&b, 0, 2);
    put_n(&b, 8, 4);
    put_n(&b, 0, 8);
    free(opt.at);
    free(cpu.at);
    free(offs);
    free(sizes);
    *len_out = (int32_t)b.len;
    return b.at;
}

static void declared_sizes_are_bounded(void)
{
    /* a 1,036-byte frame declaring 16 MiB (ratio ~16,000): refused at the chunk header */
    int32_t len = 0;
    char *data = amplified_file(4, 16u << 20, 512, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    ks_tracedat_stats st;
    CHECK_EQ_INT(tds_decode_copy(data, len, &st, NULL), KS_ERR_PARSE);
    CHECK_EQ_STR(st.first_error.field, "flyrecord data");
    CHECK(strstr(st.first_error.message, "usize 16777216 > 1024x csize") != NULL);
    CHECK(strstr(st.first_error.message, "'s zstd-compressed data, chunk 0 (at byte ") != NULL);
    CHECK(st.error_offset > 0 && st.error_offset < len);
    free(data);

    /* 16 KiB stored per 16 MiB chunk (ratio ~990, under the limit), 64 CPUs (a 1 MB
     * file): the decoder would hold 1 GiB; it stops at the chunk that passes 128 MiB */
    data = amplified_file(64, 16u << 20, 16u << 10, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    ks_event_log *log = NULL;
    ks_event_log_new(&log);
    ks_tracedat_decoder *dec = NULL;
    ks_tracedat_decoder_new(&dec);
    int64_t off;
    int32_t want, status = KS_OK;
    while (status == KS_OK && ks_tracedat_decoder_want(dec, &off, &want) == KS_OK && want > 0) {
        int64_t n = off >= len ? 0 : len - off < want ? len - off : want;
        status = ks_tracedat_decoder_feed(dec, off, n ? data + off : NULL, (int32_t)n, log);
    }
    CHECK_EQ_INT(status, KS_ERR_PARSE);
    ks_tracedat_decoder_stats(dec, &st);
    CHECK(strstr(st.first_error.message, "usize 16777216: past the 128 MiB held at once") != NULL);
    CHECK(st.error_offset > 0 && st.error_offset < len);
    CHECK(ks_tracedat_decoder_held_peak(dec) <= (128 << 20));
    CHECK(ks_tracedat_decoder_held_peak(dec) >= (96 << 20));
    ks_tracedat_decoder_free(dec);
    ks_event_log_free(log);
    free(data);

    /* the same shape with chunks of 10 pages (what trace-cmd writes) decodes: one record
     * per CPU, each from its own buffer's cursor */
    data = amplified_file(64, 40960, 4096, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    uint32_t events = 0;
    CHECK_EQ_INT(tds_decode_copy(data, len, &st, &events), KS_OK);
    CHECK_EQ_INT(st.events, 51 + 64);
    CHECK_EQ_INT(st.generic_events, 64);
    free(data);

    /* CPU blocks are counted over all buffers: 2 + 4,095 passes 4,096, so "amp" is skipped
     * (named, counted) and the instance's records still come out */
    data = amplified_file(4095, 4096, 1024, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    CHECK_EQ_INT(tds_decode_copy(data, len, &st, &events), KS_OK);
    CHECK_EQ_INT(st.events, 51);
    CHECK_EQ_INT(st.skipped_buffers, 1);
    CHECK_EQ_INT(st.malformed, 1);
    CHECK_EQ_STR(st.first_error.message, "buffer 'amp' not decoded: more than 64 buffers or 4096 CPU blocks in all");
    free(data);
}

/* A 10-digit pid in the cmdlines ("4294967297 ...", past INT32_MAX) is a line that does not
 * read (counted, named), not a pid wrapped round to 1 (signed overflow, issue 20). */
static void cmdlines_pid_past_int32_is_malformed(void)
{
    int32_t len = 0;
    char *data = fixture_read("../traces/sleep-instance-linux6.18.v6.dat", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    static const char line[] = "6721 memfd:sealed-91\n", wide[] = "4294967297 sealed-91\n";
    _Static_assert(sizeof line == sizeof wide, "same length: the section size stays");
    char *at = NULL;
    for (int32_t i = 0; i + (int32_t)sizeof line - 1 <= len && !at; i++)
        if (memcmp(data + i, line, sizeof line - 1) == 0)
            at = data + i;
    CHECK(at != NULL);
    if (at) {
        memcpy(at, wide, sizeof wide - 1);
        ks_tracedat_stats st;
        uint32_t events = 0;
        CHECK_EQ_INT(tds_decode_copy(data, len, &st, &events), KS_OK);
        CHECK_EQ_INT(st.events, 51);
        CHECK_EQ_INT(st.malformed, 1);
        CHECK_EQ_STR(st.first_error.field, "cmdlines");
        CHECK_EQ_STR(st.first_error.message, "1 cmdlines lines are not 'pid comm'");
    }
    free(data);
}

const test_case tracedat_instances_tests[] = {
    { "trace.dat: a cmdlines pid past INT32_MAX is a malformed line, not a wrapped pid",
      cmdlines_pid_past_int32_is_malformed },
    { "trace.dat: instance buffers (alone, beside the top one; v6, v7, v7 zstd) match trace-cmd report",
      instance_buffers_match_trace_cmd },
    { "trace.dat: declared chunk sizes are bounded by ratio and by the bytes held at once",
      declared_sizes_are_bounded },
    { 0 },
};
