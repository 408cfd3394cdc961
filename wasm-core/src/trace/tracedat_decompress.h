/*
 * Internal: the block decompressors of compressed trace.dat v7 files, below the
 * parser (tracedat_parser.c).
 *
 * trace-cmd 3.x names its algorithm once, in the file header ("zstd\0" "1.5.4\0",
 * "zlib\0" "1.2.13\0", or "none\0" "\0"), and then compresses blocks with it: each
 * compressed header section as one block, each CPU's ring-buffer pages as a run of
 * chunks (10 pages each by default). Every block is self-contained and its
 * uncompressed size is written beside it, so a block decompresses in one call into
 * a buffer of exactly that size:
 *
 *   zstd: one zstd frame (RFC 8878), decoded by libzstd - Debian's natively, the same
 *         library's sources (PyPI `zstandard` sdist, pinned by sha256) in the wasm build;
 *   zlib: one zlib stream (RFC 1950: 2-byte header, deflate data, Adler-32), decoded by
 *         tracedat_inflate.c, kscope's own inflate (RFC 1951), in both builds.
 */
#ifndef KSCOPE_TRACE_TRACEDAT_DECOMPRESS_H
#define KSCOPE_TRACE_TRACEDAT_DECOMPRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum td_codec {
    TD_CODEC_NONE = 0,
    TD_CODEC_ZSTD,
    TD_CODEC_ZLIB,
    TD_CODEC_UNKNOWN,           /* a name kscope does not know: its blocks cannot be read */
} td_codec;

/* The codec of the file header's algorithm name ("none", "zstd", "zlib", other). */
td_codec td_codec_from_name(const char *name);

/* A decompressor: one per trace.dat decoder (zstd keeps a context between blocks). */
typedef struct td_decompressor td_decompressor;

td_decompressor *td_decompressor_new(td_codec codec);      /* NULL if out of memory */
void td_decompressor_free(td_decompressor *d);

/* Decompresses one block of in_len bytes into out, which must come out exactly out_len
 * bytes long. True on success; false with a message ("zstd: Data corruption detected",
 * "zlib: 812 bytes decompressed, the chunk header says 40960") otherwise. */
bool td_decompress(td_decompressor *d, const uint8_t *in, uint32_t in_len, uint8_t *out,
                   uint32_t out_len, char *msg, int32_t msg_cap);

/* RFC 1950 zlib stream -> exactly out_len bytes (tracedat_inflate.c). True on success;
 * false with a message naming the problem and the input byte where it was found. */
bool td_zlib_inflate(const uint8_t *in, uint32_t in_len, uint8_t *out, uint32_t out_len,
                     char *msg, int32_t msg_cap);

#endif
