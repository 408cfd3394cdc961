#!/usr/bin/env python3
"""Variants of tests/fixtures/tracecmd_6.18_v7_zlib.dat for the compressed-section tests
(tests/test_tracedat_compressed.c), made at build time with Python's zlib:

  packed_options.dat  its (last) options section compressed too: { csize usize zlib }
                      with the section's flag 1 - trace-cmd leaves options uncompressed,
                      but the format allows any section to be; same 130 records
  short_formats.dat   its event formats section recompressed from the first 3000 bytes of
                      its content (usize 3000): the decompressed section ends inside a
                      format file; the block is zero-padded in place, so no offset moves

usage: make_tracedat_variants.py FIXTURE OUT_DIR
"""

import struct
import sys
import zlib
from pathlib import Path


def options_offset(data: bytes) -> tuple[int, int]:
    pos = 18
    for _ in range(2):
        pos = data.index(b"\0", pos) + 1
    return pos, struct.unpack_from("<Q", data, pos)[0]


def main(fixture: str, out_dir: str) -> None:
    data = Path(fixture).read_bytes()
    out = Path(out_dir)
    opts = options_offset(data)[1]
    sid, flags, string, size = struct.unpack_from("<HHIQ", data, opts)
    assert sid == 0 and flags == 0 and opts + 16 + size == len(data), "options last, uncompressed"
    body = data[opts + 16:]
    packed = zlib.compress(body, 9)
    (out / "packed_options.dat").write_bytes(
        data[:opts] + struct.pack("<HHIQII", 0, 1, string, 8 + len(packed), len(packed), len(body)) + packed)

    formats = None
    p = opts + 16
    while p < len(data):
        oid, osize = struct.unpack_from("<HI", data, p)
        if oid == 18:
            (formats,) = struct.unpack_from("<Q", data, p + 6)
        if oid == 0:
            break
        p += 6 + osize
    assert formats is not None
    sid, flags, string, size = struct.unpack_from("<HHIQ", data, formats)
    csize, usize = struct.unpack_from("<II", data, formats + 16)
    content = zlib.decompress(data[formats + 24: formats + 24 + csize])
    assert sid == 18 and flags == 1 and len(content) == usize
    short = zlib.compress(content[:3000], 9)
    assert len(short) <= csize
    block = struct.pack("<II", len(short), 3000) + short + bytes(csize - len(short))
    (out / "short_formats.dat").write_bytes(data[:formats + 16] + block + data[formats + 24 + csize:])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
