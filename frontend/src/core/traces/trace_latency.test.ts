// Wakeup and scheduling latency: a hand-written sequence with known answers, and the
// 6.18 capture checked against an independent reading of its text (a regex, no decoder).
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore } from '../../engine/wasm_bridge'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, sliceIndexAt, type TraceInput, type TraceStore } from './trace_store'
import {
  LATENCY_EDGES, bucketOf, flowsForSlice, latencyGroups, percentile, recordAt, sliceEnd, waitBefore, waitIndex, wakerHandler, wakerOf,
  wokenDuring,
} from './trace_latency'

const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 0, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 2, uname: '', traceClock: '', firstError: null }
const NAMES: Record<number, string> = { 0: 'swapper', 10: 'a', 20: 'b', 30: 'c' }
const sw = (ts: number, cpu: number, prev: number, state: number, next: number): EventRow => ({
  ts_ns: ts, cpu, type: 'sched_switch', pid: prev, tgid: prev, comm: NAMES[prev], prev_pid: prev, prev_prio: 120,
  prev_state: state, prev_comm: NAMES[prev], next_pid: next, next_prio: 120, next_comm: NAMES[next],
})
const wake = (ts: number, cpu: number, ctx: number, type: string, pid: number, target: number): EventRow => ({
  ts_ns: ts, cpu, type, pid: ctx, tgid: ctx, comm: NAMES[ctx], task_pid: pid, task_comm: NAMES[pid], prio: 120, target_cpu: target,
})
const R = 0, S = 1
const ROWS: EventRow[] = [
  sw(1000, 0, 0, R, 10), // a runs on CPU 0 (runnable since before the capture: unknown)
  wake(2000, 0, 10, 'sched_waking', 20, 1), // a wakes b
  wake(2100, 1, 0, 'sched_wakeup', 20, 1),
  sw(2500, 1, 0, R, 20), // b runs 500 ns after its waking
  sw(3000, 1, 20, R, 30), // c preempts b
  sw(3200, 1, 30, S, 20), // b back after 200 ns runnable
  sw(4000, 1, 20, S, 0),
  wake(4100, 0, 10, 'sched_waking', 20, 0),
  wake(4150, 0, 10, 'sched_wakeup', 20, 0),
  sw(4200, 0, 10, S, 20), // b on CPU 0, 100 ns after its waking; a sleeps
  wake(4300, 1, 0, 'sched_waking', 20, 0), // b is running: no wait
  sw(4500, 0, 20, S, 0),
  sw(4600, 0, 0, R, 20), // no waking recorded since it slept: unknown
  sw(5000, 0, 20, S, 0),
]
const small = openTraceStore({ name: 's', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(ROWS), stats: STATS, header: [] })
const at = (s: TraceStore, cpu: number, t: number) => sliceIndexAt(s, cpu, t)

describe('the wait before each switch-in', () => {
  it('measures waking → running, and who woke', () => {
    const w = waitBefore(small, 1, at(small, 1, 2600))!
    expect(w).toMatchObject({ pid: 20, cpu: 1, why: 'waking', runnableAt: 2000, runAt: 2500, latency: 500 })
    expect(wakerOf(small, w)).toEqual({ pid: 10, comm: 'a', cpu: 0, ts: 2000 })
    expect(small.columns.ts[w.wakeupRow]).toBe(2100)
  })

  it('measures a preempted task from its switch-out as R', () => {
    const w = waitBefore(small, 1, at(small, 1, 3300))!
    expect(w).toMatchObject({ pid: 20, why: 'preempted', runnableAt: 3000, latency: 200 })
    expect(small.columns.ts[w.preemptRow]).toBe(3000)
    expect(sliceEnd(small, 1, at(small, 1, 2600))).toMatchObject({ kind: 'preempted', nextPid: 30, nextComm: 'c', ts: 3000 })
    expect(sliceEnd(small, 1, at(small, 1, 3300))).toMatchObject({ kind: 'sleep', nextPid: 0 })
  })

  it('says unknown when the trace does not show why, and ignores a waking of a running task', () => {
    expect(waitBefore(small, 0, at(small, 0, 1500))).toMatchObject({ pid: 10, why: 'unknown' })
    expect(waitBefore(small, 0, at(small, 0, 1500))!.latency).toBeNaN()
    expect(waitBefore(small, 0, at(small, 0, 4250))).toMatchObject({ why: 'waking', latency: 100 })
    expect(waitBefore(small, 0, at(small, 0, 4700))).toMatchObject({ why: 'unknown' })
    expect(waitBefore(small, 0, at(small, 0, 4550))).toBeNull() // the idle task
  })

  it('lists whom a slice woke, and draws the flows', () => {
    const a = at(small, 0, 1500)
    expect(wokenDuring(small, 0, a).map((o) => [small.columns.ts[o.wakingRow], o.wait?.runAt])).toEqual([[2000, 2500], [4100, 4200]])
    const flows = flowsForSlice(small, 1, at(small, 1, 2600), (ns) => `${ns} ns`)
    expect(flows).toEqual([
      { kind: 'woke', from: { cpu: 0, t: 2000, pid: 10 }, to: { cpu: 1, t: 2500, pid: 20 }, label: 'woken by a 10' },
      { kind: 'waited', from: { cpu: 1, t: 2000, pid: 20 }, to: { cpu: 1, t: 2500, pid: 20 }, label: 'waited 500 ns' },
    ])
    expect(flowsForSlice(small, 0, a, String).filter((f) => f.kind === 'woke-other').map((f) => f.label)).toEqual(['woke b 20', 'woke b 20'])
  })

  it('groups latencies per CPU and per task, longest first', () => {
    const byCpu = latencyGroups(small, 0, 10_000, 'cpu')
    expect(byCpu.map((g) => [g.label, g.count, g.max])).toEqual([['CPU 1', 1, 500], ['CPU 0', 1, 100]])
    const all = latencyGroups(small, 0, 10_000, 'task', { why: 'all' })
    expect(all.map((g) => [g.label, g.count, g.p50, g.max])).toEqual([['b 20', 3, 200, 500]])
    expect(latencyGroups(small, 0, 10_000, 'task', { why: 'preempted' })[0].count).toBe(1)
    expect(latencyGroups(small, 2600, 10_000, 'cpu').map((g) => g.label)).toEqual(['CPU 0'])
    expect(latencyGroups(small, 0, 10_000, 'cpu', { cpus: new Set([0]) }).map((g) => g.label)).toEqual(['CPU 0'])
    expect(byCpu[0].buckets[bucketOf(500)]).toBe(1)
  })

  it('names the interrupt handler a waking ran in, when the trace has irq / softirq spans', () => {
    const g = (ts: number, name: string, fields: string): EventRow => ({ ts_ns: ts, cpu: 0, type: name, pid: 10, tgid: 10, comm: 'a', name, fields })
    const rows = [...ROWS, g(1900, 'softirq_entry', 'vec=9 [action=RCU]'), g(2050, 'softirq_exit', 'vec=9 [action=RCU]')]
      .sort((x, y) => Number(x.ts_ns) - Number(y.ts_ns))
    const s = openTraceStore({ name: 'h', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(rows), stats: STATS, header: [] })
    const w = waitBefore(s, 1, at(s, 1, 2600))!
    expect(wakerHandler(s, wakerOf(s, w)!)).toBe('softirq RCU')
    // Without spans (the small trace), nothing to say but the current task.
    expect(wakerHandler(small, wakerOf(small, waitBefore(small, 1, at(small, 1, 2600))!)!)).toBeNull()
    // The waking at 4100 is after the softirq ended.
    expect(wakerHandler(s, wakerOf(s, waitBefore(s, 0, at(s, 0, 4250))!)!)).toBeNull()
  })

  it('percentiles by nearest rank; buckets by the edges', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2)
    expect(percentile([1, 2, 3, 4], 90)).toBe(4)
    expect(bucketOf(0)).toBe(0)
    expect(bucketOf(1000)).toBe(1)
    expect(bucketOf(1e9)).toBe(LATENCY_EDGES.length - 1)
  })
})

describe('on the 6.18 capture', () => {
  const root = new URL('../../../../', import.meta.url)
  const text = readFileSync(new URL('traces/threads4-linux6.18.txt', root), 'utf-8')
  let store: TraceStore
  beforeAll(async () => {
    const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
    const t = await core.openTrace(new Blob([text]), 'threads4.txt')
    store = openTraceStore({ ...t, origin: { kind: 'local' } })
  })

  it('agrees with the text: each switch-in after a sleep waited from the waking seen since', () => {
    // Independent reading: for every pid, its last switch-out state and its first waking after it.
    const LINE = /^\s*(.+?)-(\d+)\s+\(\s*[-\d]+\)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$/
    const running = new Set<number>()
    const preempted = new Set<number>()
    const waking = new Map<number, number>()
    const expected: number[] = []
    for (const l of text.split('\n')) {
      const m = LINE.exec(l)
      if (!m) continue
      const ts = Number(m[4]) * 1e9 + Number(m[5].padEnd(9, '0'))
      if (m[6] === 'sched_waking') {
        const pid = Number(/ pid=(\d+)/.exec(m[7])![1])
        if (!running.has(pid) && !preempted.has(pid) && !waking.has(pid)) waking.set(pid, ts)
      } else if (m[6] === 'sched_switch') {
        const f = /prev_pid=(\d+) .* prev_state=(\S+) ==> .* next_pid=(\d+)/.exec(m[7])!
        const prev = Number(f[1]), next = Number(f[3])
        running.delete(prev)
        waking.delete(prev)
        if (prev && f[2].startsWith('R')) preempted.add(prev)
        else preempted.delete(prev)
        if (next && waking.has(next)) expected.push(ts - waking.get(next)!)
        waking.delete(next)
        preempted.delete(next)
        if (next) running.add(next)
      }
    }
    const x = waitIndex(store)
    const got = Array.from({ length: x.count }, (_, k) => recordAt(x, k)).filter((r) => r.why === 'waking').map((r) => r.latency)
    expect(expected.length).toBeGreaterThan(100)
    expect(got).toEqual(expected)
  })
})
