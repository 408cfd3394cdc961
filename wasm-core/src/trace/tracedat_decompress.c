/*
 * The trace.dat block decompressors: the algorithm a v7 file names -> one call per
 * block (see tracedat_decompress.h for where the blocks are).
 *
 * zstd goes through libzstd's one-shot API (ZSTD_decompressDCtx): the whole frame in,
 * exactly the declared number of bytes out, one decompression context reused for
 * every block of a file. The native build links Debian's libzstd (libzstd-dev); the
 * wasm build compiles the same library from the sources in a pinned PyPI `zstandard`
 * sdist (scripts/fetch-zstd-src.sh, checked by sha256). Both are zstd 1.5.x and read
 * every frame trace-cmd writes (it calls ZSTD_compress / ZSTD_decompress the same way).
 * zlib goes through tracedat_inflate.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "tracedat_decompress.h"

struct td_decompressor {
    td_codec codec;
    ZSTD_DCtx *zstd;
};

td_codec td_codec_from_name(const char *name)
{
    if (strcmp(name, "none") == 0 || name[0] == '\0')
        return TD_CODEC_NONE;
    if (strcmp(name, "zstd") == 0)
        return TD_CODEC_ZSTD;
    if (strcmp(name, "zlib") == 0)
        return TD_CODEC_ZLIB;
    return TD_CODEC_UNKNOWN;
}

td_decompressor *td_decompressor_new(td_codec codec)
{
    td_decompressor *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->codec = codec;
    if (codec == TD_CODEC_ZSTD && !(d->zstd = ZSTD_createDCtx())) {
        free(d);
        return NULL;
    }
    return d;
}

void td_decompressor_free(td_decompressor *d)
{
    if (!d)
        return;
    ZSTD_freeDCtx(d->zstd);
    free(d);
}

bool td_decompress(td_decompressor *d, const uint8_t *in, uint32_t in_len, uint8_t *out,
                   uint32_t out_len, char *msg, int32_t msg_cap)
{
    switch (d->codec) {
    case TD_CODEC_ZSTD: {
        size_t n = ZSTD_decompressDCtx(d->zstd, out, out_len, in, in_len);
        if (ZSTD_isError(n)) {
            snprintf(msg, (size_t)msg_cap, "zstd: %s", ZSTD_getErrorName(n));
            return false;
        }
        if (n != out_len) {
            snprintf(msg, (size_t)msg_cap, "zstd: %zu bytes decompressed, the block's header says %u",
                     n, out_len);
            return false;
        }
        return true;
    }
    case TD_CODEC_ZLIB:
        return td_zlib_inflate(in, in_len, out, out_len, msg, msg_cap);
    default:
        snprintf(msg, (size_t)msg_cap, "no decompressor for this file's algorithm");
        return false;
    }
}
