// Per-task thread states: a hand-written sequence with known answers, and the 6.18 capture's
// running time per task checked against the CPU slices (two independent rebuilds).
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore } from '../../engine/wasm_bridge'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, type TraceInput, type TraceStore } from './trace_store'
import {
  BLOCKED, DEAD, RUNNABLE, RUNNING, SLEEPING, stateAfterSwitch, stateIndexAt, stateTotals, taskMatches, taskRows, taskTracks,
} from './trace_tasks'

const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 0, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 2, uname: '', traceClock: '', firstError: null }
const NAMES: Record<number, string> = { 0: 'swapper', 10: 'server', 20: 'worker', 30: 'kworker/1:0', 40: 'daemon' }
const TGID: Record<number, number> = { 0: 0, 10: 10, 20: 10, 30: 30, 40: 40 }
const sw = (ts: number, cpu: number, prev: number, state: number, next: number): EventRow => ({
  ts_ns: ts, cpu, type: 'sched_switch', pid: prev, tgid: TGID[prev], comm: NAMES[prev], prev_pid: prev, prev_prio: 120,
  prev_state: state, prev_comm: NAMES[prev], next_pid: next, next_prio: 120, next_comm: NAMES[next],
})
const wake = (ts: number, cpu: number, ctx: number, type: string, pid: number, target: number): EventRow => ({
  ts_ns: ts, cpu, type, pid: ctx, tgid: TGID[ctx], comm: NAMES[ctx], task_pid: pid, task_comm: NAMES[pid], prio: 120, target_cpu: target,
})
const R = 0, S = 1, D = 2, X = 16
const ROWS: EventRow[] = [
  sw(1000, 0, 0, R, 10),
  sw(1500, 1, 40, R, 0), // daemon seen first leaving CPU 1: it ran since the CPU's first slice
  wake(2000, 0, 10, 'sched_waking', 20, 1),
  wake(2100, 1, 0, 'sched_wakeup', 20, 1),
  sw(2500, 1, 0, R, 20),
  sw(3000, 1, 20, R, 30),
  sw(3200, 1, 30, D, 20),
  sw(4000, 1, 20, S, 40),
  wake(4100, 0, 10, 'sched_waking', 20, 1),
  wake(4150, 0, 10, 'sched_wakeup', 20, 0),
  sw(4200, 0, 10, S, 20),
  sw(4500, 0, 20, X, 0),
  sw(5000, 1, 40, S, 0),
]
const store = openTraceStore({ name: 's', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(ROWS), stats: STATS, header: [] })
const spans = (pid: number) => {
  const t = taskTracks(store).get(pid)!
  return Array.from(t.start, (a, k) => [a, t.end[k], t.state[k], t.cpu[k]])
}

describe('per-task thread states', () => {
  it('follows one task through waking, running, preemption, sleep and exit', () => {
    expect(spans(20)).toEqual([
      [2000, 2500, RUNNABLE, 1], [2500, 3000, RUNNING, 1], [3000, 3200, RUNNABLE, 1], [3200, 4000, RUNNING, 1],
      [4000, 4100, SLEEPING, -1], [4100, 4150, RUNNABLE, 1], [4150, 4200, RUNNABLE, 0], [4200, 4500, RUNNING, 0],
    ])
    expect(taskTracks(store).get(20)!.runNs).toBe(500 + 800 + 300)
  })

  it('reads S, D and exit from prev_state, and a task first seen leaving a CPU', () => {
    expect(spans(30)).toEqual([[3000, 3200, RUNNING, 1], [3200, 5000, BLOCKED, -1]])
    expect(spans(10)).toEqual([[1000, 4200, RUNNING, 0], [4200, 5000, SLEEPING, -1]])
    expect(spans(40)).toEqual([[1000, 1500, RUNNING, 1], [1500, 4000, RUNNABLE, 1], [4000, 5000, RUNNING, 1]])
    expect([R, 0x100, S, D, X, 32, 128].map(stateAfterSwitch)).toEqual([RUNNABLE, RUNNABLE, SLEEPING, BLOCKED, DEAD, DEAD, SLEEPING])
    expect(taskTracks(store).has(0)).toBe(false)
  })

  it('finds the state at a time, and totals per state', () => {
    const t = taskTracks(store).get(20)!
    expect(t.state[stateIndexAt(t, 2999)]).toBe(RUNNING)
    expect(stateIndexAt(t, 1999)).toBe(-1)
    expect(stateTotals(t, 2000, 4200)).toEqual([1300, 800, 100, 0, 0])
  })

  it('groups lanes by process, busiest first; searches by comm or pid; pinned first', () => {
    const tracks = taskTracks(store)
    const { rows, shown } = taskRows(store, tracks, '', [])
    expect(rows.map((r) => (r.kind === 'group' ? r.label : r.pid))).toEqual(
      ['server (process 10)', 10, 20, 'daemon (process 40)', 40, 'kworker/1:0 (process 30)', 30])
    expect(shown).toBe(4)
    expect(taskRows(store, tracks, 'WORK', []).rows.filter((r) => r.kind === 'task').map((r) => r.kind === 'task' && r.pid)).toEqual([20, 30])
    expect(taskRows(store, tracks, '10', []).rows.filter((r) => r.kind === 'task').length).toBe(2) // tgid 10: both threads
    const pinned = taskRows(store, tracks, 'daemon', [30])
    expect(pinned.rows.map((r) => (r.kind === 'group' ? r.label : `${r.pid}${r.pinned ? '*' : ''}`))).toEqual(
      ['pinned', '30*', 'daemon (process 40)', '40'])
    expect(taskMatches(tracks.get(20)!, '2')).toBe(false)
    expect(taskRows(store, tracks, '', [], 2).shown).toBe(2)
  })
})

describe('on the 6.18 capture', () => {
  const root = new URL('../../../../', import.meta.url)
  let real: TraceStore
  beforeAll(async () => {
    const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
    const t = await core.openTrace(new Blob([readFileSync(new URL('traces/threads4-linux6.18.txt', root))]), 'threads4.txt')
    real = openTraceStore({ ...t, origin: { kind: 'local' } })
  })

  it('running time per task matches the CPU slices (recorded switch-ins)', () => {
    // Independent: the CPU lanes' slices that began at a recorded switch, summed per pid.
    const bySlices = new Map<number, number>()
    for (const sl of real.slices.values()) {
      for (let k = 0; k < sl.pid.length; k++) {
        if (sl.pid[k] === 0 || sl.fromRow[k] < 0 || sl.inferred[k]) continue
        bySlices.set(sl.pid[k], (bySlices.get(sl.pid[k]) ?? 0) + sl.end[k] - sl.start[k])
      }
    }
    const tracks = taskTracks(real)
    expect(tracks.size).toBeGreaterThan(5)
    for (const [pid, ns] of bySlices) {
      const t = tracks.get(pid)!
      let run = 0
      for (let k = 0; k < t.start.length; k++) if (t.state[k] === RUNNING) run += t.end[k] - t.start[k]
      // The task view never has less running time than the recorded slices (a missing switch can only add).
      expect(run, `pid ${pid}`).toBeGreaterThanOrEqual(ns - 1)
    }
    // python3's threads are one process.
    const rows = taskRows(real, tracks, 'python3', []).rows
    expect(rows.filter((r) => r.kind === 'group').length).toBe(1)
    expect(rows.filter((r) => r.kind === 'task').length).toBe(5)
  })
})
