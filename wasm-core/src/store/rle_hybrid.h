/*
 * Internal: Parquet's RLE / bit-packed hybrid encoding (parquet-format Encodings.md,
 * "Run Length Encoding / Bit-Packing Hybrid (RLE = 3)"), for the two things the
 * writer stores with it: definition levels (bit width 1: 1 = value present, 0 = null)
 * and dictionary indices (bit width = bits of the largest local id).
 *
 * The encoded data is a sequence of runs, each starting with a ULEB128 header:
 *
 *   RLE run         header = count << 1          then the value in ceil(width/8) bytes
 *   bit-packed run  header = (groups << 1) | 1   then groups x 8 values, `width` bits
 *                                               each, packed LSB first (group = width bytes)
 *
 *   levels 1,1,1,1,1,1,1,1,1,1 (10 present)     ->  14 01            (RLE: 10 x "1")
 *   levels 1,0,1                                ->  03 05            (1 packed group:
 *                                                   0b00000101, padding bits 0)
 *   ids 0..7, width 3                           ->  03 88 C6 FA      (the spec's example)
 *
 * Runs of 8 or more equal values become RLE runs; anything else is bit-packed in
 * groups of 8 (a last, partial group is padded with zeros: readers stop at the
 * page's value count). A bit-packed run holds at most 63 groups so its header is
 * one byte, reserved before the groups are known (as parquet-cpp's encoder does).
 * Neither function writes the 4-byte length prefix data page v1 puts before its
 * levels: the caller does.
 */
#ifndef KSCOPE_STORE_RLE_HYBRID_H
#define KSCOPE_STORE_RLE_HYBRID_H

#include <stdint.h>

#include "byte_buf.h"

/* Definition levels of n rows from an Arrow validity bitmap starting at bit 0 (1 =
 * present). `bits` must be readable, and zero, up to the next multiple of 8 bytes
 * past n bits (the writer keeps such a copy). All-present or all-null rows come
 * out as one RLE run, whatever n. */
void rle_encode_levels(byte_buf *out, const uint8_t *bits, uint32_t n);

/* n dictionary ids (each < 2^width), width 1..32. */
void rle_encode_ids(byte_buf *out, const uint32_t *ids, uint32_t n, int width);

/* Bits needed for ids 0..count-1: at least 1 (parquet-cpp writes 1 for one entry). */
int rle_id_width(uint32_t count);

#endif
