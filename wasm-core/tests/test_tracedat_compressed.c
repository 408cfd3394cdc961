/*
 * Compressed trace.dat v7 (zstd, zlib): the inflate against zlib's own output, a real
 * zstd capture against `trace-cmd report`, and corrupt, truncated or unreadable
 * compressed data -> a status and a message naming the offset and section.
 *
 * ../traces/threads4-linux6.18.v7-zstd.dat (traces/README.md: kscope capture --trace-cmd,
 * then trace-cmd convert --compression zstd) - trace-cmd report 3.1.6 on that file:
 *   2016 sched_switch  1509 rseq_update  1442 sched_waking  1442 sched_wakeup
 *      5 sched_process_exit  4 sched_wakeup_new  4 sched_process_free
 *      4 sched_process_fork  3 sched_migrate_task                          (6429)
 *   first: kscope-4174  [000]  9283.010205327: sched_switch: kscope:4174 [120] S ==> python3:4261 [120]
 *   last:  python3-4261 [001]  9283.656029657: sched_switch: python3:4261 [120] X ==> npm ci:2085 [130]
 * Its CPU 0 block is 6 zstd chunks of 10 pages, CPU 1's 2.
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "check.h"
#include "fixture_file.h"
#include "trace_test_util.h"
#include "tracedat_support.h"
#include "kscope/tracedat.h"
#include "../src/trace/tracedat_decompress.h"

#define GEN_DIR "build/fixtures/"
#define THREADS4_ZSTD "../traces/threads4-linux6.18.v7-zstd.dat"

static uint64_t le(const char *p, int32_t n)
{
    uint64_t v = 0;
    for (int32_t i = n - 1; i >= 0; i--)
        v = v << 8 | (uint8_t)p[i];
    return v;
}

static void put_le(char *p, uint64_t v, int32_t n)
{
    for (int32_t i = 0; i < n; i++, v >>= 8)
        p[i] = (char)(v & 0xff);
}

/* Where things are in a little-endian v7 file (walked here independently of the decoder). */
typedef struct v7_map {
    int32_t compression;            /* offset of the algorithm name */
    int64_t section[22];            /* by option id 16..21: the section's offset */
    int32_t cpus;
    int64_t cpu_off[8], cpu_size[8];
} v7_map;

static bool v7_walk(const char *d, int32_t len, v7_map *m)
{
    memset(m, 0, sizeof *m);
    int32_t pos = 18;
    m->compression = pos;
    for (int32_t i = 0; i < 2; i++) {
        while (pos < len && d[pos])
            pos++;
        pos++;
    }
    int64_t off = pos + 8 <= len ? (int64_t)le(d + pos, 8) : 0;
    for (int32_t guard = 0; off && off + 16 <= len && guard < 16; guard++) {
        if (le(d + off, 2) != 0)
            return false;
        int64_t p = off + 16, end = p + (int64_t)le(d + off + 8, 8);
        off = 0;
        while (p + 6 <= end && end <= len) {
            uint32_t id = (uint32_t)le(d + p, 2), size = (uint32_t)le(d + p + 2, 4);
            const char *v = d + p + 6;
            if (id == 0) {
                off = (int64_t)le(v, 8);
                break;
            }
            if (id >= 16 && id <= 21)
                m->section[id] = (int64_t)le(v, 8);
            if (id == 3 && v[8] == '\0') {              /* BUFFER of the top instance */
                uint32_t k = 9;
                while (k < size && v[k])
                    k++;
                k++;                                    /* past the clock */
                m->cpus = (int32_t)le(v + k + 4, 4);
                k += 8;
                for (int32_t c = 0; c < m->cpus && c < 8; c++, k += 20) {
                    m->cpu_off[c] = (int64_t)le(v + k + 4, 8);
                    m->cpu_size[c] = (int64_t)le(v + k + 12, 8);
                }
            }
            p += 6 + size;
        }
    }
    return m->cpus > 0;
}

/* A v7 test file, read and walked (both CHECKed); NULL if it cannot be read. */
static char *read_v7(const char *path, int32_t *len, v7_map *m)
{
    char *data = fixture_read(path, len);
    CHECK(data != NULL);
    if (data)
        CHECK(v7_walk(data, *len, m));
    return data;
}

/* Offset of chunk `index`'s header in the compressed block at `block`. */
static int64_t chunk_at(const char *d, int64_t block, uint32_t index)
{
    int64_t p = block + 4;
    for (uint32_t i = 0; i < index; i++)
        p += 8 + (int64_t)le(d + p, 4);
    return p;
}

/* A copy of a file with `width` bytes at `at` set to `value` (little-endian), and what
 * decoding it must report: KS_ERR_PARSE, and each expectation that is set. */
#define ANY_OFFSET INT64_MIN
typedef struct patch_case {
    const char *what;               /* the change, printed when a check fails */
    int64_t at;
    uint64_t value;
    int32_t width;
    int64_t error_offset;           /* ANY_OFFSET: not checked */
    const char *field;              /* these four: NULL, not checked */
    const char *is;                 /* the whole message */
    const char *starts;             /* how the message starts */
    const char *has;                /* text somewhere in the message */
} patch_case;

static void check_patched(const char *data, int32_t len, char *copy, const patch_case *pc)
{
    int failures = check_failures_in_test;
    ks_tracedat_stats st;
    memcpy(copy, data, (size_t)len);
    put_le(copy + pc->at, pc->value, pc->width);
    CHECK_EQ_INT(tds_decode_copy(copy, len, &st, NULL), KS_ERR_PARSE);
    CHECK_EQ_INT(st.status, KS_ERR_PARSE);
    const char *msg = st.first_error.message;
    if (pc->error_offset != ANY_OFFSET)
        CHECK_EQ_INT(st.error_offset, pc->error_offset);
    if (pc->field)
        CHECK_EQ_STR(st.first_error.field, pc->field);
    if (pc->is)
        CHECK_EQ_STR(msg, pc->is);
    if (pc->starts)
        CHECK(strstr(msg, pc->starts) == msg);
    if (pc->has)
        CHECK(strstr(msg, pc->has) != NULL);
    if (check_failures_in_test != failures)
        printf("    (the copy with %s: \"%s\")\n", pc->what, msg);
}

/* ---- inflate ------------------------------------------------------------------------------ */

/* Streams from zlib itself (tests/make_inflate_vectors.py: levels 0/1/6/9, all five
 * strategies, 512 B and 32 KiB windows; empty, 1-byte, runs, noise over 64 KiB (two
 * stored blocks), real trace text) decode to their bytes; cut or resized copies are
 * refused, and a copy with a damaged byte gets zlib's own verdict (refused, or - in a
 * run of zeros, where any distance copies zeros - the very same bytes). */
static void inflate_matches_zlib(void)
{
    int32_t len = 0;
    char *data = fixture_read(GEN_DIR "inflate_vectors.bin", &len);
    CHECK(data != NULL);
    if (!data)
        return;
    CHECK(len > 8 && memcmp(data, "KSZV", 4) == 0);
    uint32_t n_inputs = (uint32_t)le(data + 4, 4);
    const char *raw[16];
    uint32_t raw_len[16];
    int64_t p = 8;
    for (uint32_t i = 0; i < n_inputs && i < 16; i++) {
        raw_len[i] = (uint32_t)le(data + p, 4);
        raw[i] = data + p + 4;
        p += 4 + raw_len[i];
    }
    uint32_t n = (uint32_t)le(data + p, 4), ok = 0, refused = 0, damaged_same = 0, zlib_same = 0;
    p += 4;
    uint8_t *out = malloc(200000), *copy = malloc(200000);
    char msg[160];
    for (uint32_t v = 0; v < n && p + 8 <= len; v++) {
        uint32_t input = (uint8_t)data[p], csize = (uint32_t)le(data + p + 5, 4);
        uint32_t level = (uint8_t)data[p + 1], strategy = (uint8_t)data[p + 2], wbits = (uint8_t)data[p + 3];
        zlib_same += (uint8_t)data[p + 4];
        const uint8_t *z = (const uint8_t *)data + p + 9;
        uint32_t usize = raw_len[input];
        p += 9 + csize;
        if (td_zlib_inflate(z, csize, out, usize, msg, sizeof msg) && memcmp(out, raw[input], usize) == 0)
            ok++;
        else
            printf("    vector %u (input %u, level %u, strategy %u, wbits %u): %s\n", v, input,
                   level, strategy, wbits, msg);
        /* damaged copies */
        refused += !td_zlib_inflate(z, csize - 1, out, usize, msg, sizeof msg);
        refused += !td_zlib_inflate(z, csize / 2, out, usize, msg, sizeof msg);
        refused += !td_zlib_inflate(z, csize, out, usize + 1, msg, sizeof msg);
        CHECK(strstr(msg, "zlib: ") == msg);
        if (usize > 0)
            refused += !td_zlib_inflate(z, csize, out, usize - 1, msg, sizeof msg);
        else
            refused++;
        memcpy(copy, z, csize);
        copy[csize / 2] ^= 0x5a;
        if (td_zlib_inflate(copy, csize, out, usize, msg, sizeof msg)) {
            bool same = memcmp(out, raw[input], usize) == 0;
            CHECK(same && data[p - 9 - csize + 4] == 1);    /* only where zlib says the same */
            damaged_same += same;
        } else {
            refused++;
        }
    }
    CHECK_EQ_INT(ok, n);
    CHECK(n >= 150);
    CHECK_EQ_INT(refused + damaged_same, 5 * n);
    CHECK_EQ_INT(damaged_same, zlib_same);
    free(out);
    free(copy);
    free(data);
}

/* Hand-made streams for the header and block checks. */
static void inflate_refuses_bad_streams(void)
{
    uint8_t out[16];
    char msg[160];
    static const struct { const char *bytes; uint32_t len; const char *says; } bad[] = {
        { "", 0, "shorter than the 2-byte zlib header" },
        { "\x78\x9d\x03\x00", 4, "not a zlib header" },             /* check bits wrong */
        { "\x79\x9c\x03\x00", 4, "not a zlib header" },             /* method 9 */
        { "\x78\xbb\x03\x00", 4, "preset dictionary" },
        { "\x78\x01", 2, "ends before its last block" },
        { "\x78\x01\x07", 3, "type 3" },                            /* BFINAL, BTYPE 11 */
        { "\x78\x01\x01\x05\x00\x00\x00", 7, "complement disagree" },  /* stored, NLEN != ~LEN */
        { "\x78\x01\x01\x05\x00\xfa\xff" "ab", 9, "longer than the data left" },
        { "\x78\x01\x01\x00\x00\xff\xff", 7, "checksum after the data is cut off" },
        { "\x78\x01\x01\x00\x00\xff\xff\x00\x00\x00\x02", 11, "Adler-32" },  /* empty, adler != 1 */
    };
    for (uint32_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!td_zlib_inflate((const uint8_t *)bad[i].bytes, bad[i].len, out, 0, msg, sizeof msg));
        if (!strstr(msg, bad[i].says))
            printf("    bad stream %u: '%s' lacks '%s'\n", i, msg, bad[i].says);
        CHECK(strstr(msg, bad[i].says) != NULL);
    }
    /* the empty stream (stored, LEN 0) with its Adler-32 (1) reads as 0 bytes */
    CHECK(td_zlib_inflate((const uint8_t *)"\x78\x01\x01\x00\x00\xff\xff\x00\x00\x00\x01", 11, out, 0,
                          msg, sizeof msg));
    /* a stored block of 5 bytes into a 4-byte buffer */
    CHECK(!td_zlib_inflate((const uint8_t *)"\x78\x01\x01\x05\x00\xfa\xff" "abcde", 12, out, 4, msg, sizeof msg));
    CHECK(strstr(msg, "more bytes than its header says") != NULL);
}

/* ---- a real zstd capture ------------------------------------------------------------------ */

static void threads4_zstd_matches_trace_cmd(void)
{
    int32_t len = 0;
    char *data = fixture_read(THREADS4_ZSTD, &len);
    CHECK(data != NULL);
    if (!data)
        return;
    ks_event_log *log = NULL;
    ks_tracedat_stats st;
    ks_event_log_new(&log);
    CHECK_EQ_INT(tds_decode_fed(data, len, 0, log, &st), KS_OK);
    CHECK_EQ_INT(st.status, KS_OK);
    CHECK_EQ_INT(st.version, 7);
    CHECK_EQ_INT(st.nr_cpus, 2);
    CHECK_EQ_INT(st.malformed, 0);
    CHECK_EQ_INT(st.error_offset, -1);
    CHECK_EQ_STR(st.uname, "Linux vm 6.18.44-fc-v669 x86_64");
    CHECK_EQ_INT(st.events, 6429);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_SWITCH, NULL), 2016);
    CHECK_EQ_INT(tt_count(log, KS_EV_RSEQ_UPDATE, NULL), 1509);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKING, NULL), 1442);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP, NULL), 1442);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_EXIT, NULL), 5);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_WAKEUP_NEW, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_FREE, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_PROCESS_FORK, NULL), 4);
    CHECK_EQ_INT(tt_count(log, KS_EV_SCHED_MIGRATE_TASK, NULL), 3);
    CHECK_EQ_INT(st.generic_events, 0);
    CHECK(tt_time_ordered(log));
    uint32_t count = ks_event_log_count(log);
    const ks_event *ev = ks_event_log_data(log);
    if (count == 6429) {
        CHECK_EQ_INT(ev[0].ts_ns, 9283010205327ull);
        CHECK_EQ_INT(ev[0].cpu, 0);
        CHECK_EQ_INT(ev[0].pid, 4174);
        CHECK_EQ_STR(ev[0].u.sched_switch.next_comm, "python3");
        CHECK_EQ_INT(ev[count - 1].ts_ns, 9283656029657ull);
        CHECK_EQ_INT(ev[count - 1].cpu, 1);
        CHECK_EQ_STR(ev[count - 1].u.sched_switch.next_comm, "npm ci");
        CHECK_EQ_INT(ev[count - 1].u.sched_switch.next_prio, 130);
    }
    /* 7-byte and 5000-byte feeds (a chunk split across feeds, never page-aligned) agree */
    static const int32_t feeds[] = { 7, 5000 };
    tds_check_feeds(data, len, log, &st, feeds, sizeof feeds / sizeof feeds[0]);
    ks_event_log_free(log);
    free(data);
}

/* ---- bad compressed data -------------------------------------------------------------------- */

/* A chunk that does not decompress, or not to its stated size: decoding stops with
 * the CPU, the chunk and its offset; the file cut inside a chunk: "truncated". */
static void bad_chunks_are_reported(void)
{
    int32_t len = 0;
    v7_map m;
    char *data = read_v7(THREADS4_ZSTD, &len, &m);
    if (!data)
        return;
    CHECK_EQ_INT(m.cpus, 2);
    CHECK_EQ_INT(le(data + m.cpu_off[0], 4), 6);            /* chunks of CPU 0 */
    char *copy = malloc((size_t)len);
    ks_tracedat_stats st;
    int64_t c2 = chunk_at(data, m.cpu_off[0], 2), c1 = chunk_at(data, m.cpu_off[1], 1);
    char want_c2[96], want_c1[96];
    snprintf(want_c2, sizeof want_c2, "CPU 0's zstd-compressed data, chunk 2 (at byte %lld): zstd: ", (long long)c2);
    snprintf(want_c1, sizeof want_c1, "CPU 1's zstd-compressed data, chunk 1 (at byte %lld): zstd: ", (long long)c1);
    const patch_case cases[] = {
        { .what = "chunk 2 of CPU 0's zstd frame magic broken", .at = c2 + 8,
          .value = (uint8_t)data[c2 + 8] ^ 0x01u, .width = 1,
          .error_offset = c2 + 8, .field = "flyrecord data", .starts = want_c2 },
        { .what = "chunk 1 of CPU 1 saying one page more than it holds", .at = c1 + 4,
          .value = le(data + c1 + 4, 4) + 4096, .width = 4, .error_offset = c1 + 8, .starts = want_c1 },
        { .what = "a chunk size not whole pages", .at = c2 + 4, .value = 1000, .width = 4,
          .error_offset = c2, .has = "not a whole number of 4096-byte pages" },
        { .what = "a chunk's data running past the block", .at = c2, .value = 1u << 20, .width = 4,
          .error_offset = ANY_OFFSET, .has = "run past the CPU's block" },
    };
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_patched(data, len, copy, &cases[i]);

    /* the data ends inside CPU 1's chunk 1; the file itself cut there (its options,
     * at the end, go first) */
    int64_t cut = c1 + 100;
    CHECK(cut < len);
    CHECK_EQ_INT(tds_decode_cut(data, len, cut, m.cpu_off[1] + 4 + m.cpu_size[1], &st), KS_ERR_PARSE);
    CHECK_EQ_INT(st.error_offset, cut);
    CHECK_EQ_STR(st.first_error.field, "flyrecord data");
    CHECK(strstr(st.first_error.message, "truncated: no byte") != NULL);
    CHECK(strstr(st.first_error.message, "CPU 1's zstd-compressed data, chunk 1") != NULL);
    CHECK(strstr(st.first_error.message, "more bytes of its data)") != NULL);
    CHECK_EQ_INT(tds_decode_copy(data, (int32_t)cut, &st, NULL), KS_ERR_PARSE);
    CHECK(strstr(st.first_error.message, "truncated: the file has no byte") != NULL);
    CHECK(st.error_offset >= cut);
    free(copy);
    free(data);
}

/* A header section that does not decompress names the section; an algorithm kscope
 * has no decoder for, or a compressed flag in an uncompressed file, is refused. */
static void bad_sections_are_reported(void)
{
    int32_t len = 0;
    v7_map m;
    char *data = read_v7(THREADS4_ZSTD, &len, &m);
    if (!data)
        return;
    char *copy = malloc((size_t)len);
    ks_tracedat_stats st;
    int64_t ev = m.section[18];                             /* event formats */
    CHECK(ev > 0);
    CHECK_EQ_INT(le(data + ev, 2), 18);
    CHECK_EQ_INT(le(data + ev + 2, 2), 1);                  /* flagged compressed */

    CHECK(memcmp(data + m.compression, "zstd", 5) == 0);
    const patch_case cases[] = {
        { .what = "the event formats' zstd magic broken", .at = ev + 24 + 1,
          .value = (uint8_t)data[ev + 24 + 1] ^ 0x10u, .width = 1, .error_offset = ev + 24,
          .field = "event formats", .starts = "the event formats section (at byte",
          .has = "does not decompress: zstd: " },
        { .what = "the event formats saying fewer bytes than they hold", .at = ev + 20,
          .value = le(data + ev + 20, 4) / 2, .width = 4, .error_offset = ANY_OFFSET,
          .has = "does not decompress: zstd: " },
        { .what = "\"zstd\" -> \"lz4x\"", .at = m.compression, .value = le("lz4x", 4), .width = 4,
          .error_offset = ANY_OFFSET,
          .is = "compressed with 'lz4x' 1.5.4, which kscope does not decompress (it reads zstd and zlib)" },
    };
    for (uint32_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_patched(data, len, copy, &cases[i]);

    /* the data ends inside the section */
    CHECK_EQ_INT(tds_decode_cut(data, len, ev + 5000, ev + 16 + (int64_t)le(data + ev + 8, 8), &st), KS_ERR_PARSE);
    CHECK(strstr(st.first_error.message, "truncated: the file has no byte") != NULL);
    CHECK_EQ_INT(st.error_offset, ev + 5000);

    free(copy);
    free(data);

    /* the uncompressed v7 fixture with one section flagged compressed */
    data = read_v7(GEN_DIR "tracecmd_6.18_v7.dat", &len, &m);
    if (!data)
        return;
    int64_t cmd = m.section[21];
    CHECK(cmd > 0);
    copy = malloc((size_t)len);
    const patch_case flagged = {
        .what = "the cmdlines section flagged compressed", .at = cmd + 2, .value = 1, .width = 2,
        .error_offset = cmd,
        .is = "the cmdlines section is flagged compressed, but the file header names no compression ('none')" };
    check_patched(data, len, copy, &flagged);
    free(copy);
    free(data);
}

/* Variants of the zlib fixture made by tests/make_tracedat_variants.py: any section may
 * be compressed (here the options, which trace-cmd leaves plain); an item that runs past
 * a decompressed section names the section's file offset and the byte inside it. */
static void compressed_options_and_short_sections(void)
{
    ks_tracedat_stats st;
    int32_t len = 0;
    char *data = fixture_read(GEN_DIR "packed_options.dat", &len);
    CHECK(data != NULL);
    uint32_t events = 0;
    if (data) {
        CHECK_EQ_INT(tds_decode_copy(data, len, &st, &events), KS_OK);
        CHECK_EQ_INT(events, 130);
        CHECK_EQ_INT(st.malformed, 0);
        CHECK_EQ_STR(st.uname, "Linux vm 6.18.44-fc-v669 x86_64");
        free(data);
    }
    v7_map m;
    data = read_v7(GEN_DIR "short_formats.dat", &len, &m);
    if (!data)
        return;
    CHECK_EQ_INT(tds_decode_copy(data, len, &st, &events), KS_ERR_PARSE);
    CHECK_EQ_INT(events, 0);
    CHECK_EQ_STR(st.first_error.field, "event formats");
    CHECK_EQ_INT(st.error_offset, m.section[18]);
    char want[96];
    snprintf(want, sizeof want, "of the section at byte %lld, decompressed)",
             (long long)m.section[18]);
    CHECK(strstr(st.first_error.message, want) != NULL);
    CHECK(strstr(st.first_error.message, "an item runs past the section (") == st.first_error.message);
    free(data);
}

/* Bytes of the zstd capture overwritten at pseudo-random places (half of the rounds in
 * the compressed CPU data): decoding ends with a status, never a crash (ASan: make test-asan). */
static void corrupted_compressed_files_do_not_crash(void)
{
    int32_t len = 0;
    v7_map m;
    char *data = read_v7(THREADS4_ZSTD, &len, &m);
    if (!data)
        return;
    char *copy = malloc((size_t)len);
    uint32_t seed = 4242, failed = 0;
    for (int32_t round = 0; round < 24; round++) {
        memcpy(copy, data, (size_t)len);
        tds_scribble(copy, round < 12 ? m.cpu_off[0] : 0, len, 8, &seed);
        failed += tds_decode_ends_with_status(copy, len) == KS_ERR_PARSE;
    }
    CHECK(failed > 0);
    free(copy);
    free(data);
}

const test_case tracedat_compressed_tests[] = {
    { "trace.dat zlib: inflate decodes zlib's own streams, refuses damaged ones", inflate_matches_zlib },
    { "trace.dat zlib: inflate refuses bad headers and blocks by name", inflate_refuses_bad_streams },
    { "trace.dat zstd: a real capture matches trace-cmd report, in any feed size", threads4_zstd_matches_trace_cmd },
    { "trace.dat zstd: bad or cut chunks name the CPU, chunk and offset", bad_chunks_are_reported },
    { "trace.dat zstd: bad sections and unknown algorithms are refused by name", bad_sections_are_reported },
    { "trace.dat zlib: a compressed options section reads; a short section is named", compressed_options_and_short_sections },
    { "trace.dat zstd: corrupted compressed files end with a status", corrupted_compressed_files_do_not_crash },
    { 0 },
};
