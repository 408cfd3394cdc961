#!/usr/bin/env python3
"""Test vectors for src/trace/tracedat_inflate.c, written by zlib itself (Python's zlib
module, i.e. the machine's libz): every level, strategy and window size, over inputs
that make zlib choose each block type (stored, fixed, dynamic) and long matches.

Output (little-endian): "KSZV" inputs:u32 { usize:u32 raw[usize] } vectors:u32
    { input:u8 level:u8 strategy:u8 wbits:u8 damaged_ok:u8 csize:u32 zlib[csize] }
damaged_ok: zlib decodes the stream with its middle byte XOR 0x5a to the same bytes (it
can: in a run of zeros any distance copies zeros); otherwise zlib refuses that copy.

usage: make_inflate_vectors.py OUT [TEXT_FILE]
"""

import random
import struct
import sys
import zlib

STRATEGIES = (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED)


def inputs(text: bytes) -> list[bytes]:
    rng = random.Random(7)
    noise = bytes(rng.getrandbits(8) for _ in range(70000))       # incompressible: stored blocks (> 64 KiB: two)
    skewed = bytes(rng.choice(b"aaaaaaabbbccd\n") for _ in range(20000))
    return [
        b"",
        b"x",
        b"\0" * 40000,                                            # one long run: distance 1 matches
        b"abcabcabcabd" * 1000,
        noise,
        skewed,
        text[:60000],                                             # real trace text
        noise[:10000] + text[:20000] + b"\0" * 10000 + noise[:3000],  # block types mixed
    ]


def damaged_ok(packed: bytes, raw: bytes) -> int:
    damaged = bytearray(packed)
    damaged[len(packed) // 2] ^= 0x5A
    try:
        return int(zlib.decompress(bytes(damaged)) == raw)
    except zlib.error:
        return 0


def main(out: str, text_file: str | None) -> None:
    text = open(text_file, "rb").read() if text_file else b"sched_switch: prev_comm=a " * 4000
    raws = inputs(text)
    vectors = []
    for i, raw in enumerate(raws):
        for level in (0, 1, 6, 9):
            for strategy in STRATEGIES:
                for wbits in (9, 15):
                    if (level == 0 or i == 4) and (strategy or wbits != 15):
                        continue                                   # stored (noise): the rest is moot
                    c = zlib.compressobj(level, zlib.DEFLATED, wbits, 8, strategy)
                    packed = c.compress(raw) + c.flush()
                    assert zlib.decompress(packed) == raw
                    vectors.append(struct.pack("<BBBBBI", i, level, strategy, wbits, damaged_ok(packed, raw),
                                               len(packed)) + packed)
    with open(out, "wb") as f:
        f.write(b"KSZV" + struct.pack("<I", len(raws)))
        for raw in raws:
            f.write(struct.pack("<I", len(raw)) + raw)
        f.write(struct.pack("<I", len(vectors)) + b"".join(vectors))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
