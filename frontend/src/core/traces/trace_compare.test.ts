// Per-CPU compare figures: from the store on the real 6.18 capture, against the
// server's SELECT (CPU_STATS_SQL) run by DuckDB over the same file ingested,
// whose answer is recorded here: CPU 0 busy 27,965,000 ns, 626 switches, 7 in /
// 8 out; CPU 1 12,060,000 ns, 1076 switches, 8 in / 7 out
// (kscope ingest traces/threads4-linux6.18.txt; kscope query ID "$CPU_STATS_SQL").
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore } from '../../engine/wasm_bridge'
import { compareRows, cpuStatsFromStore, signedDelta, totals } from './trace_compare'
import { openTraceStore, type TraceStore } from './trace_store'

const root = new URL('../../../../', import.meta.url)
let store: TraceStore
beforeAll(async () => {
  const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
  const t = await core.openTrace(new Blob([readFileSync(new URL('traces/threads4-linux6.18.txt', root))]), 'threads4.txt')
  store = openTraceStore({ ...t, origin: { kind: 'local' } })
})

describe('compare two: per-CPU figures', () => {
  it('match the server’s SQL on the same capture', () => {
    expect(cpuStatsFromStore(store)).toEqual([
      { cpu: 0, busyNs: 27_965_000, switches: 626, migrationsIn: 7, migrationsOut: 8 },
      { cpu: 1, busyNs: 12_060_000, switches: 1076, migrationsIn: 8, migrationsOut: 7 },
    ])
  })

  it('lines CPUs up side by side, with totals and signed differences in units', () => {
    const a = cpuStatsFromStore(store)
    const b = [{ cpu: 1, busyNs: 13_060_000, switches: 1000, migrationsIn: 0, migrationsOut: 0 },
      { cpu: 2, busyNs: 5, switches: 1, migrationsIn: 0, migrationsOut: 0 }]
    const rows = compareRows(a, b)
    expect(rows.map((r) => [r.cpu, !!r.a, !!r.b])).toEqual([[0, true, false], [1, true, true], [2, false, true]])
    expect(totals(a)).toEqual({ busyNs: 40_025_000, switches: 1702, migrationsIn: 15, migrationsOut: 15 })
    expect(signedDelta(a[1].busyNs, b[0].busyNs, 'ms')).toBe('+1.000 ms')
    expect(signedDelta(1076, 1000, '')).toBe('−76')
    expect(signedDelta(3, 3, '')).toBe('0')
  })
})
