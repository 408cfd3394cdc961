/*
 * npz_writer.h: numpy's .npz (an uncompressed zip of .npy arrays), written from C.
 *
 * The level-of-detail summaries (lod.h) are read by backend/kscope/store/lod.py with
 * np.load, which maps an uncompressed member straight in. Only what that needs:
 * little-endian arrays of int32, int64 or float32, 1 or 2 dimensions, C order.
 *
 *   [local header | name | .npy: magic, version 1.0, header dict, data] ... per array
 *   [central directory: one entry per array] [end of central directory]
 *
 * Formats: the .npy format (numpy's doc "A simple file format for NumPy arrays",
 * NEP 1) and PKWARE's APPNOTE.TXT (4.3.7 local header, 4.3.12 central directory,
 * 4.3.16 end record); stored members (method 0), CRC-32 of IEEE 802.3.
 */
#ifndef KSCOPE_INGEST_NPZ_WRITER_H
#define KSCOPE_INGEST_NPZ_WRITER_H

#include <stdint.h>
#include <stdio.h>

#define NPZ_MAX_MEMBERS 32

typedef struct npz_member {
    char name[32];
    uint32_t crc, size, offset;
} npz_member;

typedef struct npz_writer {
    FILE *f;
    uint32_t n;
    npz_member members[NPZ_MAX_MEMBERS];
    int failed;
} npz_writer;

/* 0, or -1 (errno set) if the file cannot be created. */
int npz_open(npz_writer *z, const char *path);

/* Adds `name`.npy: descr "<i4", "<i8" or "<f4"; rows x cols values (cols 0: 1-D of rows). */
int npz_add(npz_writer *z, const char *name, const char *descr, uint64_t rows, uint64_t cols,
            const void *data, uint64_t bytes);

/* Writes the directory and closes; 0, or -1 if any write failed. */
int npz_close(npz_writer *z);

/* CRC-32 (IEEE) of data, continuing from crc (0 to start). */
uint32_t npz_crc32(uint32_t crc, const void *data, uint64_t len);

#endif
