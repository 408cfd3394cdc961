#!/usr/bin/env python3
"""Rewrites an uncompressed trace.dat v7 as a zlib-compressed one, laid out as
trace-cmd 3.x writes `--compression zlib` files.

Why: Debian's trace-cmd 3.1.6 is built without zlib (`trace-cmd list -c` shows only
zstd), so it cannot make the zlib test files kscope's decoder must read. This script
does what trace-cmd's writer does with its zlib plugin (lib/trace-cmd/trace-compress-zlib.c:
compress2(..., Z_BEST_COMPRESSION), i.e. RFC 1950 zlib streams at level 9):

  * file header: compression "zlib\\0" + zlib's version ("1.2.13\\0");
  * each header section (16 header info, 17 ftrace formats, 18 event formats,
    19 kallsyms, 20 printk formats, 21 cmdlines): section header with flags = 1,
    then { csize:u32 usize:u32 zlib stream };
  * the top instance's flyrecord section (3): flags = 1, padded to a page boundary,
    then per CPU { count:u32, count x { csize:u32 usize:u32 zlib stream } } of 10-page
    chunks (trace-cmd's default chunk); the BUFFER option gives each CPU's offset (its
    count) and size (the chunks, without the count), as trace-cmd writes them;
  * one options section at the end (trace-cmd spreads the same options over several
    sections chained by DONE; a reader follows the chain either way), holding every
    option of the input, the section offsets and BUFFER rewritten.

The events are the input's bytes, unchanged. Usage:
    python3 scripts/tracedat-zlib.py IN.dat OUT.dat
"""

import struct
import sys
import zlib

SECTIONS = (16, 17, 18, 19, 20, 21)  # header info .. cmdlines: offsets given by options
BUFFER, DONE = 3, 0
CHUNK_PAGES = 10


def main(src: str, dst: str) -> None:
    data = open(src, "rb").read()
    if not data.startswith(b"\x17\x08Dtracing7\0"):
        sys.exit(f"{src}: not a trace.dat v7")
    if data[12] != 0:
        sys.exit(f"{src}: big-endian files are not handled")
    page = struct.unpack_from("<I", data, 14)[0]
    pos = 18
    names = []
    for _ in range(2):  # compression name and version
        end = data.index(b"\0", pos)
        names.append(data[pos:end].decode())
        pos = end + 1
    if names[0] != "none":
        sys.exit(f"{src}: already compressed ({names[0]})")
    (first_options,) = struct.unpack_from("<Q", data, pos)

    def section(off: int) -> tuple[int, int, int, bytes]:
        sid, flags, string, size = struct.unpack_from("<HHIQ", data, off)
        return sid, flags, string, data[off + 16: off + 16 + size]

    # Every option of the chained options sections, in order (DONE excluded).
    options: list[tuple[int, bytes]] = []
    options_string = None
    off = first_options
    while off:
        sid, _, string, body = section(off)
        if sid != 0:
            sys.exit(f"{src}: byte {off}: expected an options section, got id {sid}")
        options_string = string if options_string is None else options_string
        p, off = 0, 0
        while p < len(body):
            oid, size = struct.unpack_from("<HI", body, p)
            value = body[p + 6: p + 6 + size]
            p += 6 + size
            if oid == DONE:
                (off,) = struct.unpack_from("<Q", value)
                break
            options.append((oid, value))

    out = bytearray(data[:18]) + b"zlib\0" + zlib.ZLIB_VERSION.encode() + b"\0" + bytes(8)
    new_offsets: dict[int, int] = {}
    for oid, value in options:
        if oid in SECTIONS:
            sid, _, string, body = section(struct.unpack_from("<Q", value)[0])
            packed = zlib.compress(body, 9)
            new_offsets[oid] = len(out)
            out += struct.pack("<HHIQII", sid, 1, string, 8 + len(packed), len(packed), len(body)) + packed

    rewritten: list[tuple[int, bytes]] = []
    for oid, value in options:
        if oid in SECTIONS:
            rewritten.append((oid, struct.pack("<Q", new_offsets[oid])))
        elif oid == BUFFER:
            rewritten.append((oid, rewrite_buffer(data, value, out, page)))
        else:
            rewritten.append((oid, value))

    opts = b"".join(struct.pack("<HI", oid, len(v)) + v for oid, v in rewritten)
    opts += struct.pack("<HIQ", DONE, 8, 0)
    options_off = len(out)
    out += struct.pack("<HHIQ", 0, 0, options_string or 0, len(opts)) + opts
    struct.pack_into("<Q", out, 18 + len("zlib") + 1 + len(zlib.ZLIB_VERSION) + 1, options_off)
    open(dst, "wb").write(out)


def rewrite_buffer(data: bytes, value: bytes, out: bytearray, page: int) -> bytes:
    """Appends one instance's flyrecord section, compressed; returns its new BUFFER option."""
    (sec_off,) = struct.unpack_from("<Q", value)
    k = 8
    name_end = value.index(b"\0", k)
    clock_end = value.index(b"\0", name_end + 1)
    k = clock_end + 1
    page_size, cpus = struct.unpack_from("<II", value, k)
    k += 8
    sid, _, string, _ = struct.unpack_from("<HHIQ", data, sec_off)
    new_sec = len(out)
    out += struct.pack("<HHIQ", sid, 1, string, 0)
    per_cpu = []
    for i in range(cpus):
        cpu, off, size = struct.unpack_from("<IQQ", value, k + 20 * i)
        out += bytes(-len(out) % page)  # CPU data starts on a page boundary
        start = len(out)
        block = data[off: off + size]
        step = CHUNK_PAGES * page
        chunks = [block[j: j + step] for j in range(0, len(block), step)]
        out += struct.pack("<I", len(chunks))
        for chunk in chunks:
            packed = zlib.compress(chunk, 9)
            out += struct.pack("<II", len(packed), len(chunk)) + packed
        per_cpu.append(struct.pack("<IQQ", cpu, start, len(out) - start - 4))
    struct.pack_into("<Q", out, new_sec + 8, len(out) - new_sec - 16)
    return (struct.pack("<Q", new_sec) + value[8:k - 8] + struct.pack("<II", page_size, cpus)
            + b"".join(per_cpu) + value[k + 20 * cpus:])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
