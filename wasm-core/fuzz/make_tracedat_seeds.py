#!/usr/bin/env python3
"""Small trace.dat v6 seeds for fuzz_tracedat, cut out of a real v6 file.

A real capture spends most of its header on thousands of event formats, kallsyms and
printk formats: one decode of such a file takes ~0.3 s under the fuzzer's
instrumentation. A seed keeps the file's header pages, the formats of the systems
named (sched, by default), its cmdlines and options, and the first few ring-buffer
pages of each CPU (offsets rewritten), so one decode takes milliseconds and the
fuzzer mutates the parts that matter.

    python3 fuzz/make_tracedat_seeds.py IN.dat OUT.dat [pages per CPU] [system ...]

Used for wasm-core/fuzz/corpus/tracedat/*.dat (from tests/fixtures/tracecmd_6.18_v6.dat.gz,
our own capture). The 4 zero bytes at the end are the harness's chunk seed.
"""
import struct
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    pages = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    systems = [s.encode() for s in sys.argv[4:]] or [b'sched']
    d = open(src, 'rb').read()
    assert d[:10] == b'\x17\x08Dtracing' and d[10:12] == b'6\0', 'not a trace.dat v6'
    e = '<' if d[12] == 0 else '>'
    page_size = struct.unpack_from(e + 'I', d, 14)[0]
    p = 18
    out = bytearray(d[:18])

    def take(fmt):
        nonlocal p
        v = struct.unpack_from(e + fmt, d, p)[0]
        p += struct.calcsize(fmt)
        return v

    for name in (b'header_page\0', b'header_event\0'):
        assert d[p:p + len(name)] == name
        p += len(name)
        size = take('Q')
        out += name + struct.pack(e + 'Q', size) + d[p:p + size]
        p += size
    for _ in range(take('I')):          # ftrace formats: dropped
        size = take('Q')
        p += size
    out += struct.pack(e + 'I', 0)
    kept = []
    for _ in range(take('I')):
        end = d.index(b'\0', p)
        name = d[p:end]
        p = end + 1
        fmts = []
        for _ in range(take('I')):
            size = take('Q')
            fmts.append(d[p:p + size])
            p += size
        if name in systems:
            kept.append((name, fmts))
    out += struct.pack(e + 'I', len(kept))
    for name, fmts in kept:
        out += name + b'\0' + struct.pack(e + 'I', len(fmts))
        for f in fmts:
            out += struct.pack(e + 'Q', len(f)) + f
    size = take('I')                    # kallsyms: dropped
    p += size
    out += struct.pack(e + 'I', 0)
    size = take('I')                    # printk formats: dropped
    p += size
    out += struct.pack(e + 'I', 0)
    size = take('Q')
    out += struct.pack(e + 'Q', size) + d[p:p + size]
    p += size
    cpus = take('I')
    out += struct.pack(e + 'I', cpus)
    fly = d.index(b'flyrecord\0', p)
    out += d[p:fly]                     # "options  \0" and the options, as they are
    p = fly + len(b'flyrecord\0')
    blocks = [(take('Q'), take('Q')) for _ in range(cpus)]
    out += b'flyrecord\0'
    table = len(out)
    out += bytes(16 * cpus)
    for cpu, (off, size) in enumerate(blocks):
        size = min(size, pages * page_size)
        out += bytes(-len(out) % page_size)
        struct.pack_into(e + 'QQ', out, table + 16 * cpu, len(out), size)
        out += d[off:off + size]
    out += bytes(4)
    open(dst, 'wb').write(out)
    print(f'{dst}: {len(out)} bytes, {cpus} CPUs, {sum(len(f) for _, f in kept)} formats')


if __name__ == '__main__':
    main()
