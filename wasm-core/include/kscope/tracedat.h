/*
 * kscope/tracedat.h: trace-cmd's binary trace.dat (file versions 6 and 7) in.
 *
 * A trace.dat holds the kernel's ring-buffer pages as recorded, plus what it
 * takes to read them: the page and event header layouts, every event's
 * `format` file (field name, offset, size, signedness), the pid -> comm table,
 * and one block of pages per CPU:
 *
 *     "\x17\x08Dtracing" "6\0" endian long_size page_size        (v7: + compression, options offset)
 *     header_page / header_event                                  page and event header layouts
 *     ftrace formats, event formats (system, count, format text)  how to read each record
 *     kallsyms, printk formats                                    skipped by their size
 *     cmdlines ("pid comm\n")                                     comm of the records' tasks
 *     cpus, options {u16 id, u32 size, data} ..., "flyrecord"     unknown options skipped by size
 *     per CPU: offset, size -> pages of [timestamp, commit, events...]
 *
 * The decoder reads those records with the file's own formats (it does not
 * run trace-cmd), merges the CPUs by timestamp, and appends ks_event records:
 * typed for the tracepoints of event.h (fields found by name, whatever their
 * size or order on that kernel), generic for every other event, with
 * "key=value ..." text rendered from the format's fields.
 *
 * Reading by offset (bounded memory, browser and native alike). The per-CPU
 * blocks lie one after another in the file, but a time-ordered stream needs
 * them side by side, so the decoder cannot take the file front to back. It
 * asks instead: ks_tracedat_decoder_want() says which file offset it needs
 * next and how many bytes would help, and the caller hands those bytes over
 * with ks_tracedat_decoder_feed() - in one piece or in many, of any size.
 * Natively that is a pread() loop; in the browser, `await file.slice(off,
 * off + len).arrayBuffer()`. Memory stays bounded whatever the file size:
 * the header items being parsed (formats, cmdlines: KS_TRACEDAT_MAX_ITEM at
 * most; kallsyms and printk formats are skipped, not read) and one batch of
 * pages per CPU (KS_TRACEDAT_CPU_BATCH bytes, less with many CPUs).
 *
 * Timestamps: the ring buffer's own clock, in ns for the usual trace clocks
 * (local, global, mono, boot); kept absolute, as the text decoder does.
 * comm: from the file's cmdlines ("<idle>" for pid 0, "<...>" if unknown).
 * tgid: -1, except 0 for pid 0 and the tgids of a saved-TGID option when the
 * file has one. cpu: the CPU whose block the record came from.
 *
 * Compressed v7 files (zstd, zlib: what trace-cmd 3.x writes by default) are
 * decompressed on the way, one section or one per-CPU chunk at a time; memory
 * stays bounded by one chunk (trace-cmd: 10 pages) per CPU, and whatever the chunks
 * declare, by 128 MiB for all CPUs together and 1024x each chunk's compressed size
 * (a file that asks for more is refused at the chunk that does).
 *
 * Formats, variants and limits: src/trace/README.md.
 */
#ifndef KSCOPE_TRACEDAT_H
#define KSCOPE_TRACEDAT_H

#include <stdint.h>
#include "kscope/status.h"
#include "kscope/parse.h"
#include "kscope/event.h"

/* Largest header item read into memory (one format file, the cmdlines, one option). */
#define KS_TRACEDAT_MAX_ITEM (16 << 20)
/* Ring-buffer bytes read at once per CPU (fewer when nr_cpus x this passes 8 MiB). */
#define KS_TRACEDAT_CPU_BATCH (64 << 10)

/*
 * Decoder counters and what the file said about itself (fixed-width: shared
 * with JS and Python).
 *
 *      0  events          u32   records appended to the sink (typed + generic)
 *      4  generic_events  u32   of which generic
 *      8  malformed       u32   records, pages or items that did not read (each counted, skipped)
 *     12  lost_events     u32   events the ring buffer dropped, as its pages report them
 *     16  pages           u32   ring-buffer pages read
 *     20  event_formats   u32   event formats read from the header
 *     24  nr_cpus         i32   CPUs the file has data for
 *     28  version         i32   file version (6 or 7); 0 until read
 *     32  long_size       i32   4 or 8 (the recording user space's long)
 *     36  page_size       i32   ring-buffer page size
 *     40  big_endian      i32   1 if the file is big-endian
 *     44  status          i32   KS_OK, or why decoding stopped (KS_ERR_PARSE: not a trace.dat,
 *                               truncated, a compressed block that does not decompress,
 *                               unsupported ...) - see first_error
 *     48  error_offset    i64   file offset of first_error (-1: none)
 *     56  bytes_fed       i64   bytes handed to feed (for MB/s)
 *     64  skipped_buffers u32   trace buffers not decoded (past 64, or of another page size)
 *     68  lost_pages      u32   pages that say events were lost without saying how many
 *     72  uname           char[96]  the UNAME option ("" if none)
 *    168  trace_clock     char[32]  the TRACECLOCK option / v7 buffer's clock ("" if none)
 *    200  first_error     ks_parse_error: line 0; field = the section; message
 */
typedef struct ks_tracedat_stats {
    uint32_t events;
    uint32_t generic_events;
    uint32_t malformed;
    uint32_t lost_events;
    uint32_t pages;
    uint32_t event_formats;
    int32_t nr_cpus;
    int32_t version;
    int32_t long_size;
    int32_t page_size;
    int32_t big_endian;
    int32_t status;
    int64_t error_offset;
    int64_t bytes_fed;
    uint32_t skipped_buffers;
    uint32_t lost_pages;
    char uname[96];
    char trace_clock[32];
    ks_parse_error first_error;
} ks_tracedat_stats;
_Static_assert(sizeof(ks_tracedat_stats) == 368, "ks_tracedat_stats is shared with JS and Python");

/*
 * The decoder. Loop:
 *
 *     while (want(dec, &off, &len) == KS_OK && len > 0)
 *         feed(dec, off, <bytes of the file from off: 1..len of them, or 0 at end of file>, sink);
 *     finish(dec, sink);
 *
 * feed must start at the wanted offset (KS_ERR_RANGE otherwise); bytes past
 * the wanted length are ignored. A feed of 0 bytes says "the file ends here":
 * in the header that is a truncated file (status KS_ERR_PARSE), in a CPU's
 * pages it ends that CPU (counted malformed) and the others go on.
 * feed returns KS_OK while decoding goes on, KS_ERR_PARSE once the file cannot
 * be read further (stats.status, first_error and error_offset say why), or
 * KS_ERR_NO_MEMORY. Malformed records and pages are counted and skipped; an
 * event whose id has no format is kept as a generic record.
 */
typedef struct ks_tracedat_decoder ks_tracedat_decoder;

KS_API int32_t ks_tracedat_decoder_new(ks_tracedat_decoder **out);
KS_API void ks_tracedat_decoder_free(ks_tracedat_decoder *dec);
/* The next file bytes needed: *offset and a useful length; *len == 0 when done. */
KS_API int32_t ks_tracedat_decoder_want(const ks_tracedat_decoder *dec, int64_t *offset,
                                        int32_t *len);
KS_API int32_t ks_tracedat_decoder_feed(ks_tracedat_decoder *dec, int64_t offset,
                                        const char *chunk, int32_t len, ks_event_log *sink);
/* Ends decoding: if bytes were still wanted, the file is reported truncated. */
KS_API int32_t ks_tracedat_decoder_finish(ks_tracedat_decoder *dec, ks_event_log *sink);
KS_API int32_t ks_tracedat_decoder_stats(const ks_tracedat_decoder *dec, ks_tracedat_stats *out);

/*
 * Trace buffers. trace-cmd keeps the top buffer and each instance (`record -B NAME`,
 * `extract -B NAME`) apart in the file; the decoder merges all of them by time, and each
 * record's `buffer` (event.h) is an index into these names, in the order the file lists
 * them ("" is the top buffer; a buffer without data is not listed). Known once the
 * header is read (before the first record); valid until the decoder is freed.
 */
KS_API int32_t ks_tracedat_decoder_buffer_count(const ks_tracedat_decoder *dec);
KS_API const char *ks_tracedat_decoder_buffer_name(const ks_tracedat_decoder *dec, int32_t index);
/* Most bytes the per-CPU page batches and decompressed chunks held at once (the bound
 * the decoder keeps: see TD_HELD_MAX in tracedat_parser.c). */
KS_API int64_t ks_tracedat_decoder_held_peak(const ks_tracedat_decoder *dec);

/* One call for a file already in memory: the loop above (stats may be NULL). */
KS_API int32_t ks_tracedat_decode(const char *data, int32_t len, ks_event_log *sink,
                                  ks_tracedat_stats *stats);

#endif
