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

export interface WaitIndex {
  /** Every switch-in of a task (not the idle task), in time order. */
  records: WaitRecord[]
  /** records[k].runAt, for binary searches. */
  runAt: Float64Array
  bySwitchRow: Map<number, WaitRecord>
  byWakingRow: Map<number, WaitRecord>
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

export function waitIndex(s: TraceStore): WaitIndex {
  const hit = cache.get(s)
  if (hit) return hit
  const c = s.columns
  const pending = new Map<number, Pending>()
  const running = new Set<number>()
  const records: WaitRecord[] = []
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
        const p = pending.get(next)
        const since = p ? p.since : NaN
        records.push({
          switchRow: i, pid: next, cpu: c.cpu[i], runAt: c.ts[i], runnableAt: since, latency: c.ts[i] - since,
          why: p ? p.why : 'unknown', wakingRow: p?.wakingRow ?? -1, wakeupRow: p?.wakeupRow ?? -1, preemptRow: p?.preemptRow ?? -1,
        })
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
  const index: WaitIndex = {
    records,
    runAt: Float64Array.from(records, (r) => r.runAt),
    bySwitchRow: new Map(records.map((r) => [r.switchRow, r])),
    byWakingRow: new Map(records.filter((r) => r.wakingRow >= 0).map((r) => [r.wakingRow, r])),
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
  return waitIndex(s).bySwitchRow.get(sl.fromRow[index]) ?? null
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
    if (c.type[r] === TYPE_WAKING && c.pid[r] === pid) out.push({ wakingRow: r, wait: index_.byWakingRow.get(r) ?? null })
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

/** The flows of a selected slice: who woke it (arrow), its wait (bracket on its lane), whom it woke. */
export function flowsForSlice(s: TraceStore, cpu: number, index: number, format: (ns: number) => string): Flow[] {
  const flows: Flow[] = []
  const w = waitBefore(s, cpu, index)
  if (w && Number.isFinite(w.latency)) {
    const waker = wakerOf(s, w)
    if (waker && w.why !== 'preempted') {
      flows.push({ kind: 'woke', from: { cpu: waker.cpu, t: waker.ts, pid: waker.pid }, to: { cpu: w.cpu, t: w.runAt, pid: w.pid },
        label: `woken by ${waker.pid === 0 ? 'an interrupt' : `${waker.comm} ${waker.pid}`}` })
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
  const { records, runAt } = waitIndex(s)
  const why = opts.why ?? 'woken'
  const groups = new Map<string, { label: string; values: number[]; worst: WaitRecord }>()
  for (let k = lowerBound(runAt, t0); k < records.length && records[k].runAt < t1; k++) {
    const r = records[k]
    if (!Number.isFinite(r.latency)) continue
    if (opts.cpus && !opts.cpus.has(r.cpu)) continue
    if (why === 'woken' && r.why === 'preempted') continue
    if (why === 'preempted' && r.why !== 'preempted') continue
    const key = by === 'cpu' ? `cpu${r.cpu}` : `pid${r.pid}`
    let g = groups.get(key)
    if (!g) {
      const label = by === 'cpu' ? `CPU ${r.cpu}` : `${s.commOf.get(r.pid) ?? s.columns.strings[s.columns.s2[r.switchRow]] ?? ''} ${r.pid}`
      groups.set(key, (g = { label, values: [], worst: r }))
    }
    g.values.push(r.latency)
    if (r.latency > g.worst.latency) g.worst = r
  }
  const out: LatencyGroup[] = []
  for (const [key, g] of groups) {
    const sorted = [...g.values].sort((a, b) => a - b)
    const buckets = new Array(LATENCY_EDGES.length).fill(0)
    for (const v of sorted) buckets[bucketOf(v)]++
    out.push({ key, label: g.label, count: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90),
      max: sorted[sorted.length - 1], buckets, worst: g.worst })
  }
  return out.sort((a, b) => b.max - a.max || a.key.localeCompare(b.key))
}
