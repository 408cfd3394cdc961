// irq / softirq / idle-state spans and frequency counters from generic events: a hand-written
// sequence, and the shipped irq-softirq capture against its own text (independent pairing).
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore } from '../../engine/wasm_bridge'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, type TraceInput, type TraceStore } from './trace_store'
import { SPAN_IDLE, SPAN_IRQ, SPAN_SOFTIRQ, cpuTracks, fieldMap, formatKhz } from './trace_cpu_tracks'

const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 0, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 2, uname: '', traceClock: '', firstError: null }
const g = (ts: number, cpu: number, name: string, fields: string): EventRow => ({ ts_ns: ts, cpu, type: name, pid: 0, tgid: 0, comm: 'swapper', name, fields })

describe('per-CPU tracks from generic events', () => {
  const rows = [
    g(50, 0, 'softirq_exit', 'vec=1 [action=TIMER]'), // began before the capture: dropped, counted
    g(100, 0, 'irq_handler_entry', 'irq=36 name=virtio1-req.0'),
    g(110, 0, 'softirq_entry', 'vec=9 [action=RCU]'),
    g(130, 0, 'softirq_exit', 'vec=9 [action=RCU]'),
    g(150, 0, 'irq_handler_exit', 'irq=36 ret=handled'),
    g(200, 1, 'cpu_idle', 'state=1 cpu_id=1'),
    g(260, 1, 'cpu_idle', 'state=4294967295 cpu_id=1'),
    g(270, 0, 'cpu_frequency', 'state=2400000 cpu_id=1'),
    g(280, 1, 'sched_stat_runtime', 'comm=a pid=5 runtime=1000 [ns]'),
    g(300, 1, 'softirq_entry', 'vec=3 [action=NET_RX]'), // no exit: open to the end
  ]
  const s = openTraceStore({ name: 'g', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(rows), stats: STATS, header: [] })

  it('pairs entries with exits per CPU and kind', () => {
    const t = cpuTracks(s)
    const cpu0 = t.spans.get(0)!
    expect(cpu0.start.map((a, k) => [a, cpu0.end[k], cpu0.kind[k], cpu0.label[k], cpu0.open[k]])).toEqual([
      [100, 150, SPAN_IRQ, 'irq 36 virtio1-req.0', 0], [110, 130, SPAN_SOFTIRQ, 'softirq RCU', 0]])
    const cpu1 = t.spans.get(1)!
    expect(cpu1.start.map((a, k) => [a, cpu1.end[k], cpu1.kind[k], cpu1.label[k], cpu1.open[k]])).toEqual([
      [200, 260, SPAN_IDLE, 'C1', 0], [300, 300, SPAN_SOFTIRQ, 'softirq NET_RX', 1]])
    expect(t.freq.get(1)).toEqual({ ts: [270], value: [2400000] })
    expect(t.counts).toEqual({ irq: 1, softirq: 2, idle: 1, freq: 1, stat: 1, unmatchedExits: 1 })
  })

  it('reads field text and formats frequencies', () => {
    expect([...fieldMap('vec=9 [action=RCU]')]).toEqual([['vec', '9'], ['action', 'RCU']])
    expect(formatKhz(2400000)).toBe('2.40 GHz')
    expect(formatKhz(800000)).toBe('800 MHz')
  })
})

describe('on the irq-softirq capture', () => {
  const root = new URL('../../../../', import.meta.url)
  const text = execFileSync('xz', ['-dc', new URL('traces/irq-softirq-linux6.18.txt.xz', root).pathname], { maxBuffer: 64 << 20 }).toString()
  let store: TraceStore
  beforeAll(async () => {
    const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
    store = openTraceStore({ ...(await core.openTrace(new Blob([text]), 'irq.txt')), origin: { kind: 'local' } })
  })

  it('has one span per handler run, and the text\'s own time in softirq per CPU', () => {
    // Independent: pair each CPU's softirq_entry with the next softirq_exit in the text.
    const open = new Map<number, number>()
    const total = new Map<number, number>()
    for (const m of text.matchAll(/\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (softirq_entry|softirq_exit):/g)) {
      const cpu = Number(m[1]), ts = Number(m[2]) * 1e9 + Number(m[3].padEnd(9, '0'))
      if (m[4] === 'softirq_entry') open.set(cpu, ts)
      else if (open.has(cpu)) { total.set(cpu, (total.get(cpu) ?? 0) + ts - open.get(cpu)!); open.delete(cpu) }
    }
    const t = cpuTracks(store)
    expect(t.counts.softirq).toBe(85)
    expect(t.counts.irq).toBe(3)
    for (const [cpu, ns] of total) {
      const x = t.spans.get(cpu)!
      let sum = 0
      for (let k = 0; k < x.start.length; k++) if (x.kind[k] === SPAN_SOFTIRQ && !x.open[k]) sum += x.end[k] - x.start[k]
      expect(sum, `CPU ${cpu}`).toBe(ns)
    }
  })
})
