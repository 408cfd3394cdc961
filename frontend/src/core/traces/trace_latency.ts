/*
 * Wakeup and scheduling latency, rebuilt from a real trace (MEASURED).
 *
 * For every switch-in of a task (sched_switch next_pid = P) this finds why P
 * was runnable and since when, by replaying the events in time order:
 *
 *   sched_waking P   (in the WAKER's context: the event's current task and CPU)
 *        │  ttwu picks a CPU, enqueues
 *   sched_wakeup P   (target_cpu)
 *        │  P waits on the runqueue
 *   sched_switch prev ==> P          the switch-in: P runs
 *
 *   latency = switch-in − when it became runnable:
 *     woken     since its sched_waking (sched_wakeup when the trace has no waking)
 *     preempted since the sched_switch that took it off the CPU as R / R+
 *     unknown   runnable before the capture (or its wakeup lost): no latency
 *
 * A waking of a task that is still on its CPU (it had set itself sleeping but
 * not yet switched out) puts it straight back to running in the kernel
 * (ttwu_runnable): no wait, so no record. The kernel's own pick order is not
 * in the trace; this measures what the trace shows.
 *
 * Pure functions of (store, arguments); the records are computed once per
 * store (a WeakMap), O(events).
 */
import { TYPE_SWITCH, TYPE_WAKEUP, TYPE_WAKEUP_NEW, TYPE_WAKING, isRunnableState, lowerBound, type TraceStore } from './trace_store'
import { SPAN_IDLE, cpuTracks } from './trace_cpu_tracks'

export type RunnableWhy = 'waking' | 'wakeup' | 'wakeup_new' | 'preempted' | 'unknown'

/** One switch-in of a task and the wait before it. */
export interface WaitRecord {
  /** Row of the sched_switch that put the task on the CPU. */
  switchRow: number
  pid: number
  cpu: number
  /** The switch-in, ns. */
  runAt: number
  /** When it became runnable (NaN: unknown). */
  runnableAt: number
  /** runAt − runnableAt, ns (NaN: unknown). */
  latency: number
  why: RunnableWhy
  /** The sched_waking (in the waker's context), -1: none recorded. */
  wakingRow: number
  /** The sched_wakeup / sched_wakeup_new, -1: none recorded. */
  wakeupRow: number
  /** The sched_switch that preempted it (prev_state R), -1: not preempted. */
  preemptRow: number
}

/**
 * Every switch-in of a task (not the idle task), in time order, as parallel typed arrays
 * (about 45 bytes a switch, no object per record: a 10 M-event trace stays bounded);
 * `recordAt` gives one as a WaitRecord.
 */
export interface WaitIndex {
  count: number
  switchRow: Int32Array
  pid: Int32Array
  cpu: Int32Array
  runAt: Float64Array
  runnableAt: Float64Array
  /** WHY_CODES index. */
  why: Uint8Array
  wakingRow: Int32Array
  wakeupRow: Int32Array
  preemptRow: Int32Array
  /** Per event row: the record its switch-in (or its sched_waking) belongs to, -1 for none. */
  recordOfRow: Int32Array
}

const WHY_CODES: readonly RunnableWhy[] = ['waking', 'wakeup', 'wakeup_new', 'preempted', 'unknown']

export function recordAt(x: WaitIndex, k: number): WaitRecord {
  return {
    switchRow: x.switchRow[k], pid: x.pid[k], cpu: x.cpu[k], runAt: x.runAt[k], runnableAt: x.runnableAt[k],
    latency: x.runAt[k] - x.runnableAt[k], why: WHY_CODES[x.why[k]], wakingRow: x.wakingRow[k], wakeupRow: x.wakeupRow[k],
    preemptRow: x.preemptRow[k],
  }
}

/** The record of a switch-in row or a sched_waking row, null for none. */
export function recordOfRow(x: WaitIndex, row: number, kind: 'switch' | 'waking'): WaitRecord | null {
  const k = row >= 0 && row < x.recordOfRow.length ? x.recordOfRow[row] : -1
  if (k < 0) return null
  if (kind === 'switch' ? x.switchRow[k] !== row : x.wakingRow[k] !== row) return null
  return recordAt(x, k)
}

const cache = new WeakMap<TraceStore, WaitIndex>()

/** Rows in time order (the decoders' order; sorted only if a merge left it unsorted). */
function timeOrder(s: TraceStore): Int32Array {
  const c = s.columns
  const rows = new Int32Array(c.count)
  let sorted = true
  for (let i = 0; i < c.count; i++) {
    rows[i] = i
    if (i && c.ts[i] < c.ts[i - 1]) sorted = false
  }
  if (!sorted) rows.sort((a, b) => c.ts[a] - c.ts[b] || a - b)
  return rows
}

interface Pending {
  since: number
  why: RunnableWhy
  wakingRow: number
  wakeupRow: number
  preemptRow: number
}

/** Growable typed columns for the index. */
class Columns {
  n = 0
  cap = 1024
  switchRow = new Int32Array(this.cap); pid = new Int32Array(this.cap); cpu = new Int32Array(this.cap)
  runAt = new Float64Array(this.cap); runnableAt = new Float64Array(this.cap); why = new Uint8Array(this.cap)
  wakingRow = new Int32Array(this.cap); wakeupRow = new Int32Array(this.cap); preemptRow = new Int32Array(this.cap)
  push(sw: number, pid: number, cpu: number, runAt: number, p: Pending | undefined) {
    if (this.n === this.cap) this.grow()
    const k = this.n++
    this.switchRow[k] = sw; this.pid[k] = pid; this.cpu[k] = cpu; this.runAt[k] = runAt
    this.runnableAt[k] = p ? p.since : NaN
    this.why[k] = WHY_CODES.indexOf(p ? p.why : 'unknown')
    this.wakingRow[k] = p?.wakingRow ?? -1; this.wakeupRow[k] = p?.wakeupRow ?? -1; this.preemptRow[k] = p?.preemptRow ?? -1
  }
  private grow() {
    this.cap *= 2
    const more = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(this.cap)
      b.set(a as never)
      return b
    }
    for (const k of ['switchRow', 'pid', 'cpu', 'wakingRow', 'wakeupRow', 'preemptRow'] as const) this[k] = more(this[k], (m) => new Int32Array(m))
    this.runAt = more(this.runAt, (m) => new Float64Array(m))
    this.runnableAt = more(this.runnableAt, (m) => new Float64Array(m))
    this.why = more(this.why, (m) => new Uint8Array(m))
  }
}

export function waitIndex(s: TraceStore): WaitIndex {
  const hit = cache.get(s)
  if (hit) return hit
  const c = s.columns
  const pending = new Map<number, Pending>()
  const running = new Set<number>()
  const out = new Columns()
  for (const i of timeOrder(s)) {
    const type = c.type[i]
    if (type === TYPE_SWITCH) {
      const prev = c.f0[i]
      const next = c.f3[i]
      running.delete(prev)
      if (prev !== 0 && isRunnableState(c.f2[i])) {
        pending.set(prev, { since: c.ts[i], why: 'preempted', wakingRow: -1, wakeupRow: -1, preemptRow: i })
      } else pending.delete(prev)
      if (next !== 0) {
        out.push(i, next, c.cpu[i], c.ts[i], pending.get(next))
        pending.delete(next)
        running.add(next)
      }
    } else if (type === TYPE_WAKING || type === TYPE_WAKEUP || type === TYPE_WAKEUP_NEW) {
      const pid = c.f0[i]
      if (pid === 0 || running.has(pid)) continue
      const p = pending.get(pid)
      if (type === TYPE_WAKING) {
        if (!p) pending.set(pid, { since: c.ts[i], why: 'waking', wakingRow: i, wakeupRow: -1, preemptRow: -1 })
      } else if (p && p.why === 'waking' && p.wakeupRow < 0) p.wakeupRow = i
      else if (!p) {
        pending.set(pid, { since: c.ts[i], why: type === TYPE_WAKEUP ? 'wakeup' : 'wakeup_new', wakingRow: -1, wakeupRow: i, preemptRow: -1 })
      }
    } else if (c.pid[i] !== 0 && pending.has(c.pid[i]) && !running.has(c.pid[i])) {
      // An event in a task's own context proves it ran: its switch-in is missing.
      pending.delete(c.pid[i])
    }
  }
  const n = out.n
  const recordOf = new Int32Array(c.count).fill(-1)
  for (let k = 0; k < n; k++) {
    recordOf[out.switchRow[k]] = k
    if (out.wakingRow[k] >= 0) recordOf[out.wakingRow[k]] = k
  }
  const index: WaitIndex = {
    count: n, switchRow: out.switchRow.slice(0, n), pid: out.pid.slice(0, n), cpu: out.cpu.slice(0, n),
    runAt: out.runAt.slice(0, n), runnableAt: out.runnableAt.slice(0, n), why: out.why.slice(0, n),
    wakingRow: out.wakingRow.slice(0, n), wakeupRow: out.wakeupRow.slice(0, n), preemptRow: out.preemptRow.slice(0, n),
    recordOfRow: recordOf,
  }
  cache.set(s, index)
  return index
}

/** Who made a task runnable, as the trace records it. */
export interface Waker {
  /** The task current on the waker's CPU at the sched_waking (0: the idle task, so an interrupt). */
  pid: number
  comm: string
  cpu: number
  ts: number
}

/** The sched_waking's context: who woke the task (null when no waking was recorded). */
export function wakerOf(s: TraceStore, r: WaitRecord): Waker | null {
  const row = r.wakingRow >= 0 ? r.wakingRow : r.wakeupRow
  if (row < 0) return null
  const c = s.columns
  return { pid: c.pid[row], comm: c.strings[c.comm[row]] ?? '', cpu: c.cpu[row], ts: c.ts[row] }
}

/**
 * The interrupt handler a waking ran in, when the trace recorded irq / softirq spans on the
 * waker's CPU (kscope capture --events irq,softirq): "softirq RCU", "irq 36 virtio1-req.0".
 * null when none holds it, or the trace has no such spans (the current task is then all it says).
 */
export function wakerHandler(s: TraceStore, w: Waker): string | null {
  const x = cpuTracks(s).spans.get(w.cpu)
  if (!x) return null
  let best: string | null = null
  let bestStart = -Infinity
  for (let k = 0; k < x.start.length && x.start[k] <= w.ts; k++) {
    if (x.kind[k] === SPAN_IDLE || x.end[k] < w.ts) continue
    if (x.start[k] >= bestStart) { best = x.label[k]; bestStart = x.start[k] } // the innermost (latest begun)
  }
  return best
}

/** How a run slice ended: the sched_switch that took the task off. */
export interface SliceEnd {
  kind: 'preempted' | 'sleep' | 'blocked' | 'exited' | 'other' | 'unknown'
  /** prev_state, -1 when unknown. */
  state: number
  ts: number
  /** Who ran next on the CPU (-1 when unknown). */
  nextPid: number
  nextComm: string
}

export function sliceEnd(s: TraceStore, cpu: number, index: number): SliceEnd {
  const sl = s.slices.get(cpu)
  const row = sl ? sl.toRow[index] : -1
  if (!sl || row < 0) return { kind: 'unknown', state: -1, ts: sl ? sl.end[index] : NaN, nextPid: -1, nextComm: '' }
  const c = s.columns
  const state = c.f2[row]
  const kind = isRunnableState(state) ? 'preempted' : state & 1 ? 'sleep' : state & 2 ? 'blocked'
    : state & (16 | 32) ? 'exited' : 'other'
  return { kind, state, ts: c.ts[row], nextPid: c.f3[row], nextComm: c.strings[c.s2[row]] ?? '' }
}

/** The wait before run slice `index` on `cpu` (null: the slice has no recorded switch-in, or is idle). */
export function waitBefore(s: TraceStore, cpu: number, index: number): WaitRecord | null {
  const sl = s.slices.get(cpu)
  if (!sl || sl.pid[index] === 0 || sl.fromRow[index] < 0) return null
  return recordOfRow(waitIndex(s), sl.fromRow[index], 'switch')
}

/** The tasks this slice's task woke while it ran (sched_waking in its context on its CPU), with their waits. */
export function wokenDuring(s: TraceStore, cpu: number, index: number, limit = 50): { wakingRow: number; wait: WaitRecord | null }[] {
  const sl = s.slices.get(cpu)
  const rows = s.byCpu.get(cpu)
  if (!sl || !rows) return []
  const c = s.columns
  const pid = sl.pid[index]
  let k = 0
  for (let hi = rows.length; k < hi; ) {
    const mid = (k + hi) >>> 1
    if (c.ts[rows[mid]] < sl.start[index]) k = mid + 1
    else hi = mid
  }
  const out: { wakingRow: number; wait: WaitRecord | null }[] = []
  const index_ = waitIndex(s)
  for (; k < rows.length && c.ts[rows[k]] <= sl.end[index] && out.length < limit; k++) {
    const r = rows[k]
    if (c.type[r] === TYPE_WAKING && c.pid[r] === pid) out.push({ wakingRow: r, wait: recordOfRow(index_, r, 'waking') })
  }
  return out
}

/* ---------- an arrow picture of one wakeup ---------- */

/** A flow to draw on the timeline: an arrow between two (CPU, time) points, or a wait along one lane. */
export interface Flow {
  kind: 'woke' | 'waited' | 'woke-other'
  /** pid: the task at each end (the task lanes draw by it; 0 is an interrupt, no lane). */
  from: { cpu: number; t: number; pid: number }
  to: { cpu: number; t: number; pid: number }
  label: string
}

/** "woken by python3 25277", "woken by softirq RCU (in python3 25277)", "woken by an interrupt". */
function wokenLabel(s: TraceStore, w: Waker): string {
  const handler = wakerHandler(s, w)
  if (handler) return `woken by ${handler}${w.pid === 0 ? '' : ` (in ${w.comm} ${w.pid})`}`
  return `woken by ${w.pid === 0 ? 'an interrupt' : `${w.comm} ${w.pid}`}`
}

/** The flows of a selected slice: who woke it (arrow), its wait (bracket on its lane), whom it woke. */
export function flowsForSlice(s: TraceStore, cpu: number, index: number, format: (ns: number) => string): Flow[] {
  const flows: Flow[] = []
  const w = waitBefore(s, cpu, index)
  if (w && Number.isFinite(w.latency)) {
    const waker = wakerOf(s, w)
    if (waker && w.why !== 'preempted') {
      flows.push({ kind: 'woke', from: { cpu: waker.cpu, t: waker.ts, pid: waker.pid }, to: { cpu: w.cpu, t: w.runAt, pid: w.pid },
        label: wokenLabel(s, waker) })
    }
    flows.push({ kind: 'waited', from: { cpu: w.cpu, t: w.runnableAt, pid: w.pid }, to: { cpu: w.cpu, t: w.runAt, pid: w.pid },
      label: `${w.why === 'preempted' ? 'runnable (preempted)' : 'waited'} ${format(w.latency)}` })
  }
  for (const o of wokenDuring(s, cpu, index, 20)) {
    if (!o.wait) continue
    flows.push({ kind: 'woke-other', from: { cpu, t: s.columns.ts[o.wakingRow], pid: s.slices.get(cpu)!.pid[index] },
      to: { cpu: o.wait.cpu, t: o.wait.runAt, pid: o.wait.pid },
      label: `woke ${s.columns.strings[s.columns.s1[o.wakingRow]] ?? ''} ${o.wait.pid}` })
  }
  return flows
}

/* ---------- histograms over a window ---------- */

/** Bucket edges, ns: 1 µs · 2 · 5 · 10 µs … 100 ms, then everything longer. */
export const LATENCY_EDGES = [0, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8]

export interface LatencyGroup {
  key: string
  label: string
  count: number
  p50: number
  p90: number
  max: number
  /** Counts per [LATENCY_EDGES[i], LATENCY_EDGES[i+1]) (the last: ≥ 100 ms). */
  buckets: number[]
  /** The record with the longest wait (jump to it). */
  worst: WaitRecord
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

export function bucketOf(latency: number): number {
  let b = 0
  while (b + 1 < LATENCY_EDGES.length && latency >= LATENCY_EDGES[b + 1]) b++
  return b
}

/**
 * Latencies of the switch-ins with t0 <= runAt < t1 (optionally only on `cpus`, and only
 * woken or only preempted), grouped per CPU or per task; groups with the longest wait first.
 */
export function latencyGroups(s: TraceStore, t0: number, t1: number, by: 'cpu' | 'task',
  opts: { cpus?: ReadonlySet<number>; why?: 'woken' | 'preempted' | 'all' } = {}): LatencyGroup[] {
  const x = waitIndex(s)
  const why = opts.why ?? 'woken'
  const PREEMPTED = WHY_CODES.indexOf('preempted')
  const groups = new Map<string, { label: string; values: number[]; worst: number }>()
  for (let k = lowerBound(x.runAt, t0); k < x.count && x.runAt[k] < t1; k++) {
    const latency = x.runAt[k] - x.runnableAt[k]
    if (!Number.isFinite(latency)) continue
    if (opts.cpus && !opts.cpus.has(x.cpu[k])) continue
    if (why === 'woken' && x.why[k] === PREEMPTED) continue
    if (why === 'preempted' && x.why[k] !== PREEMPTED) continue
    const key = by === 'cpu' ? `cpu${x.cpu[k]}` : `pid${x.pid[k]}`
    let g = groups.get(key)
    if (!g) {
      const label = by === 'cpu' ? `CPU ${x.cpu[k]}` : `${s.commOf.get(x.pid[k]) ?? s.columns.strings[s.columns.s2[x.switchRow[k]]] ?? ''} ${x.pid[k]}`
      groups.set(key, (g = { label, values: [], worst: k }))
    }
    g.values.push(latency)
    if (latency > x.runAt[g.worst] - x.runnableAt[g.worst]) g.worst = k
  }
  const out: LatencyGroup[] = []
  for (const [key, g] of groups) {
    const sorted = [...g.values].sort((a, b) => a - b)
    const buckets = new Array(LATENCY_EDGES.length).fill(0)
    for (const v of sorted) buckets[bucketOf(v)]++
    out.push({ key, label: g.label, count: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90),
      max: sorted[sorted.length - 1], buckets, worst: recordAt(x, g.worst) })
  }
  return out.sort((a, b) => b.max - a.max || a.key.localeCompare(b.key))
}
