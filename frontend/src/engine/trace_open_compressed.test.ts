// Compressed trace.dat v7 opened the browser's way (Blob slices -> the C decoder in wasm,
// the code trace_worker.ts runs): zstd (a real trace-cmd capture, traces/) and zlib
// (wasm-core/tests/fixtures), against trace-cmd report's counts; a damaged chunk is a
// TraceOpenError naming the file, the offset and the chunk.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { TraceOpenError } from './core_errors'
import { openTraceLocally } from './trace_open_local'
import { TYPE_RSEQ, TYPE_SWITCH } from './trace_records'

const root = new URL('../../../', import.meta.url)
const wasmBinary = readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root))
const bytesOf = (rel: string) => new Uint8Array(readFileSync(new URL(rel, root)))
const ZSTD = 'traces/threads4-linux6.18.v7-zstd.dat'

/** Offset of CPU `cpu`'s compressed block in a little-endian v7 file (its BUFFER option). */
function cpuBlock(d: Uint8Array, cpu: number): number {
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength)
  let pos = 18
  for (let i = 0; i < 2; i++) pos = d.indexOf(0, pos) + 1
  let off = Number(v.getBigUint64(pos, true))
  while (off) {
    let p = off + 16
    const end = p + Number(v.getBigUint64(off + 8, true))
    off = 0
    while (p < end) {
      const id = v.getUint16(p, true), size = v.getUint32(p + 2, true), at = p + 6
      if (id === 0) { off = Number(v.getBigUint64(at, true)); break }
      if (id === 3 && d[at + 8] === 0) {
        const k = d.indexOf(0, at + 9) + 1 + 8          // past the clock, page size, cpu count
        return Number(v.getBigUint64(k + 20 * cpu + 4, true))
      }
      p = at + size
    }
  }
  throw new Error('no BUFFER option')
}

describe('openTraceLocally: compressed trace.dat v7', () => {
  it('decodes the zstd capture with trace-cmd report\'s counts', async () => {
    const expected = JSON.parse(new TextDecoder().decode(bytesOf(`${ZSTD}.expected.json`)))
    const progress: number[] = []
    const t = await openTraceLocally(new Blob([bytesOf(ZSTD)]), (p) => progress.push(p.bytesDone),
      { wasmBinary, name: 'threads4.v7-zstd.dat' })
    expect(t.format).toBe('trace.dat')
    expect(t.stats.malformed).toBe(0)
    expect(t.stats.firstError).toBeNull()
    expect(t.columns.count).toBe(6429)
    const c = t.columns
    let switches = 0, rseq = 0
    for (let i = 0; i < c.count; i++) {
      if (c.type[i] === TYPE_SWITCH) switches++
      if (c.type[i] === TYPE_RSEQ) rseq++
    }
    expect(switches).toBe(expected.by_type.sched_switch)
    expect(rseq).toBe(expected.by_type.rseq_update)
    expect(c.ts[0]).toBe(expected.t_first_ns)
    expect(c.ts[c.count - 1]).toBe(expected.t_last_ns)
    expect(new Set(c.cpu).size).toBe(2)
    expect(progress.length).toBeGreaterThan(0)
  })

  it('decodes the zlib fixture to the same 130 records as the uncompressed one', async () => {
    const plain = await openTraceLocally(new Blob([bytesOf('wasm-core/tests/fixtures/tracecmd_6.18_v7.dat.gz')]),
      undefined, { wasmBinary, name: 'v7.dat.gz' })
    const z = await openTraceLocally(new Blob([bytesOf('wasm-core/tests/fixtures/tracecmd_6.18_v7_zlib.dat')]),
      undefined, { wasmBinary, name: 'v7-zlib.dat' })
    expect(z.columns.count).toBe(130)
    expect(Array.from(z.columns.ts)).toEqual(Array.from(plain.columns.ts))
    expect(Array.from(z.columns.type)).toEqual(Array.from(plain.columns.type))
    expect(Array.from(z.columns.pid)).toEqual(Array.from(plain.columns.pid))
  })

  it('refuses a damaged zstd chunk with the offset, the CPU and the chunk', async () => {
    const d = bytesOf(ZSTD)
    const v = new DataView(d.buffer, d.byteOffset, d.byteLength)
    let chunk = cpuBlock(d, 0) + 4
    for (let i = 0; i < 2; i++) chunk += 8 + v.getUint32(chunk, true)   // chunk 2's header
    d[chunk + 8] ^= 1                                                       // its zstd magic
    const err = await openTraceLocally(new Blob([d]), undefined, { wasmBinary, name: 'bad.dat' }).catch((e) => e)
    expect(err).toBeInstanceOf(TraceOpenError)
    expect(err.file).toBe('bad.dat')
    expect(err.offset).toBe(chunk + 8)
    expect(err.problem).toContain(`CPU 0's zstd-compressed data, chunk 2 (at byte ${chunk}): zstd: `)
  })
})
