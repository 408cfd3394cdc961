// trace.dat files with a tracefs instance buffer (traces/sleep-*instance*.dat) opened the
// browser's way: every buffer decoded, each record's type read right whatever its buffer
// (bytes 8..11 of a ks_event are type u16 + buffer u16), and the buffers named with their
// records, against trace-cmd report's counts (<file>.expected.json).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EVENT_TYPES } from './sim_records'
import { openTraceLocally } from './trace_open_local'

const root = new URL('../../../', import.meta.url)
const wasmBinary = readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root))
const bytesOf = (rel: string) => new Uint8Array(readFileSync(new URL(rel, root)))

describe('openTraceLocally: trace.dat instance buffers', () => {
  for (const layout of ['sleep-instance', 'sleep-top-instance']) {
    for (const kind of ['v6', 'v7', 'v7-zstd']) {
      const file = `traces/${layout}-linux6.18.${kind}.dat`
      it(`${layout} ${kind}: trace-cmd report's counts per type and per buffer`, async () => {
        const expected = JSON.parse(new TextDecoder().decode(bytesOf(`${file}.expected.json`)))
        const t = await openTraceLocally(new Blob([bytesOf(file)]), () => {}, { wasmBinary, name: 'i.dat' })
        const c = t.columns
        expect(c.count).toBe(expected.events)
        const byType: Record<string, number> = {}
        for (let i = 0; i < c.count; i++) {
          const name = EVENT_TYPES[c.type[i]]
          byType[name] = (byType[name] ?? 0) + 1
        }
        expect(byType).toEqual(expected.by_type)
        expect(Object.fromEntries((t.stats.buffers ?? []).map((b) => [b.name, b.events]))).toEqual(expected.by_buffer)
        const perIndex = new Map<number, number>()
        for (const b of c.buffer ?? []) perIndex.set(b, (perIndex.get(b) ?? 0) + 1)
        expect([...perIndex.entries()].sort()).toEqual((t.stats.buffers ?? []).map((b, i) => [i, b.events]))
        expect(c.ts[0]).toBe(expected.t_first_ns)
        expect(c.ts[c.count - 1]).toBe(expected.t_last_ns)
      })
    }
  }
})
