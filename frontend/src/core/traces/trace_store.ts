/*
 * The open real trace, and what the views ask of it.
 *
 * A trace arrives as columns (engine/trace_records.ts: decoded in the browser,
 * or rows from GET /api/traces/{id}/events turned into the same columns).
 * openTraceStore() indexes it once:
 *
 *   byCpu    per CPU, the event rows in time order (Int32Array)
 *   slices   per CPU, who ran when, rebuilt from sched_switch:
 *
 *              switch A->B        switch B->idle       switch idle->A
 *     CPU 1 ------|=======B==========|------idle---------|=====A====...
 *            (A before the first switch: a slice marked `partial`, the
 *             capture started while it ran)
 *
 * and the queries below are pure functions of (store, arguments): events in a
 * window, per-CPU occupancy buckets for the overview, the task running on a
 * CPU at time t, and the tasks waiting to run at t (rebuilt from wakeups,
 * preemptions, switches and migrations).
 *
 * MEASURED data: every number here comes from a real kernel trace; nothing is
 * modelled. Times are the trace's own clock in ns.
 */
import { TYPE_EXIT, TYPE_MIGRATE, TYPE_SWITCH, TYPE_WAKEUP, TYPE_WAKEUP_NEW, type TraceColumns, type TraceDecodeStats } from '../../engine/trace_records'
import { parseTraceMeta, type TraceMeta } from './trace_meta'

export { EVENT_TYPES } from '../../engine/sim_records'
export { TYPE_EXIT, TYPE_FORK, TYPE_FREE, TYPE_GENERIC, TYPE_MIGRATE, TYPE_RSEQ, TYPE_SWITCH, TYPE_WAKEUP, TYPE_WAKEUP_NEW, TYPE_WAKING } from '../../engine/trace_records'

/** Where the trace came from: decoded in this browser, or stored on the server. */
export type TraceOrigin = { kind: 'local' } | { kind: 'server'; id: string }

/** Who ran on one CPU, as parallel arrays in time order. */
export interface CpuSlices {
  start: Float64Array
  end: Float64Array
  pid: Int32Array
  /** String id of the comm sched_switch printed for the task. */
  comm: Int32Array
  /** Row of the sched_switch that started the slice (-1: the capture started mid-slice). */
  fromRow: Int32Array
  /** Row of the sched_switch that ended it (-1: still running when the capture stopped). */
  toRow: Int32Array
  /** 1: the slice's start is inferred (its switch-in is missing; it starts at the task's first event seen). */
  inferred: Uint8Array
  /** Slices whose closing switch names another prev task than the one switched in: a switch was not recorded. */
  gaps: number
}

export interface TraceStore {
  name: string
  format: string
  origin: TraceOrigin
  columns: TraceColumns
  stats: TraceDecodeStats
  meta: TraceMeta
  /** CPUs that have events, ascending. */
  cpus: number[]
  /** First and last event time, ns. */
  t0: number
  t1: number
  byCpu: Map<number, Int32Array>
  slices: Map<number, CpuSlices>
  /** tgid of each pid seen with one (from the events' own context columns). */
  tgidOf: Map<number, number>
  /** Switches the trace lacks: a CPU's next switch names another prev task than the last one switched in. */
  switchGaps: number
  /** A name per pid (the comm its last run slice had), to label a process by its main thread (pid = tgid). */
  commOf: Map<number, string>
  /**
   * null: every event of the trace is in `columns` (opened locally). Otherwise
   * the columns hold only the events with loaded.t0 <= ts < loaded.t1 (a window
   * fetched from the server); `truncated` when the window had more events than
   * were fetched (the rest of it is not drawn exactly).
   */
  loaded: LoadedWindow | null
  /** The sched_migrate_task rows in time order (the timeline's arrows look them up by time). */
  migrations: Int32Array
  /** The trace's last event time, ns (t1, unless a view stretched t1 to line traces up). */
  lastTs: number
  /** Events in the whole trace (columns.count when all are loaded). */
  totalEvents: number
}

export interface LoadedWindow {
  t0: number
  t1: number
  truncated: boolean
}

export interface TraceInput {
  name: string
  format: string
  origin: TraceOrigin
  columns: TraceColumns
  stats: TraceDecodeStats
  header: string[]
  /**
   * A window of a larger (server) trace: the trace's first/last event time and
   * CPUs, and the time range the columns cover. Absent: the columns are the trace.
   */
  window?: { extentT0: number; extentT1: number; cpus: number[]; loaded: LoadedWindow; totalEvents: number
    /** Per CPU, the task the last sched_switch before the window put on it (who runs at its start). */
    before?: Map<number, { pid: number; comm: string }> }
}

/** sched_switch prev_state: runnable ("R", "R+") when no state bit other than the preemption mark is set. */
export const isRunnableState = (prevState: number) => (prevState & ~0x100) === 0

export function openTraceStore(input: TraceInput): TraceStore {
  const c = input.columns
  const n = c.count
  const rowsOf = new Map<number, number[]>()
  const tgidOf = new Map<number, number>()
  for (let i = 0; i < n; i++) {
    const cpu = c.cpu[i]
    let rows = rowsOf.get(cpu)
    if (!rows) rowsOf.set(cpu, (rows = []))
    rows.push(i)
    if (c.tgid[i] >= 0 && !tgidOf.has(c.pid[i])) tgidOf.set(c.pid[i], c.tgid[i])
  }
  const byCpu = new Map<number, Int32Array>()
  for (const [cpu, rows] of rowsOf) {
    // Decoders emit time order; a stable sort keeps ties in file order if a merge did not.
    rows.sort((a, b) => c.ts[a] - c.ts[b] || a - b)
    byCpu.set(cpu, Int32Array.from(rows))
  }
  const win = input.window
  const cpus = win ? [...win.cpus].sort((a, b) => a - b)
    : [...byCpu.keys()].filter((cpu) => cpu >= 0).sort((a, b) => a - b)
  let t0 = Infinity
  let t1 = -Infinity
  for (let i = 0; i < n; i++) {
    if (c.ts[i] < t0) t0 = c.ts[i]
    if (c.ts[i] > t1) t1 = c.ts[i]
  }
  if (!n) t0 = t1 = 0
  // A window's slices run from its loaded range's start (cut there) to its end.
  const sliceT0 = win ? Math.max(win.extentT0, win.loaded.t0) : t0
  const sliceT1 = win ? Math.min(win.extentT1, win.loaded.t1) : t1
  if (win) {
    t0 = win.extentT0
    t1 = win.extentT1
  }
  const slices = new Map<number, CpuSlices>()
  for (const cpu of cpus) {
    const prior = win?.before?.get(cpu)
    const known = prior ? { pid: prior.pid, comm: internString(c, prior.comm) } : undefined
    slices.set(cpu, buildSlices(c, byCpu.get(cpu) ?? new Int32Array(0), sliceT0, sliceT1, known))
  }
  const meta = parseTraceMeta(input.header, input.stats.uname)
  if (!meta.nrCpus) meta.nrCpus = input.stats.nrCpus || (cpus.length ? cpus[cpus.length - 1] + 1 : 0)
  let switchGaps = 0
  const commOf = new Map<number, string>()
  for (const sl of slices.values()) {
    switchGaps += sl.gaps
    for (let k = 0; k < sl.pid.length; k++) if (sl.comm[k] >= 0) commOf.set(sl.pid[k], c.strings[sl.comm[k]])
  }
  const migrations: number[] = []
  for (let i = 0; i < n; i++) if (c.type[i] === TYPE_MIGRATE) migrations.push(i)
  migrations.sort((a, b) => c.ts[a] - c.ts[b] || a - b)
  return { name: input.name, format: input.format, origin: input.origin, columns: c, stats: input.stats, meta, cpus,
    migrations: Int32Array.from(migrations),
    t0, t1, lastTs: t1, byCpu, slices, tgidOf, switchGaps, commOf, loaded: win ? win.loaded : null, totalEvents: win ? win.totalEvents : n }
}

/** The id of `text` in the columns' string table (appended when new). */
function internString(c: TraceColumns, text: string): number {
  const at = c.strings.indexOf(text)
  if (at >= 0) return at
  c.strings.push(text)
  return c.strings.length - 1
}

function buildSlices(c: TraceColumns, rows: Int32Array, t0: number, t1: number,
  prior?: { pid: number; comm: number }): CpuSlices {
  const start: number[] = [], end: number[] = [], pid: number[] = [], comm: number[] = []
  const fromRow: number[] = [], toRow: number[] = [], inferred: number[] = []
  const push = (a: number, b: number, p: number, name: number, from: number, to: number, guess: number) => {
    start.push(a); end.push(b); pid.push(p); comm.push(name); fromRow.push(from); toRow.push(to); inferred.push(guess)
  }
  let gaps = 0
  let curStart = t0
  let curFrom = -1
  /** Earliest event since the last switch recorded while each pid was current (proof it ran). */
  let firstSeen = new Map<number, number>()
  for (const i of rows) {
    if (c.type[i] !== TYPE_SWITCH) {
      if (!firstSeen.has(c.pid[i])) firstSeen.set(c.pid[i], c.ts[i])
      continue
    }
    if (c.ts[i] > curStart || curFrom >= 0) {
      const known = curFrom >= 0
      const inName = known ? c.f3[curFrom] : c.f0[i]
      if (known && inName !== c.f0[i]) {
        // The switch that put prev on the CPU is missing from the trace: the task
        // switched in ran until prev's first recorded event, prev from then on
        // (marked inferred: its true start lies somewhere before).
        gaps++
        const split = Math.min(c.ts[i], firstSeen.get(c.f0[i]) ?? c.ts[i])
        push(curStart, split, inName, c.s2[curFrom], curFrom, -1, 0)
        push(split, c.ts[i], c.f0[i], c.s1[i], -1, i, 1)
      } else {
        push(curStart, c.ts[i], inName, known ? c.s2[curFrom] : c.s1[i], curFrom, i, 0)
      }
    }
    curStart = c.ts[i]
    curFrom = i
    firstSeen = new Map()
  }
  if (curFrom >= 0 && t1 > curStart) push(curStart, t1, c.f3[curFrom], c.s2[curFrom], curFrom, -1, 0)
  // A window without a switch on this CPU: the task switched in before it ran throughout.
  else if (curFrom < 0 && prior && t1 > t0) push(t0, t1, prior.pid, prior.comm, -1, -1, 0)
  return {
    start: Float64Array.from(start), end: Float64Array.from(end), pid: Int32Array.from(pid),
    comm: Int32Array.from(comm), fromRow: Int32Array.from(fromRow), toRow: Int32Array.from(toRow),
    inferred: Uint8Array.from(inferred), gaps,
  }
}

/** First index i with a[i] >= x (a ascending). */
export function lowerBound(a: ArrayLike<number>, x: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index i with a[i] > x (a ascending). */
export function upperBound(a: ArrayLike<number>, x: number, lo = 0, hi = a.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Which events a view wants: substring of comm (any comm the event names), pid, types. */
export interface EventFilter {
  comm?: string
  pid?: number
  /** ks_event_type values; absent or empty = all. */
  types?: ReadonlySet<number>
}

/** Does row i pass the filter? comm/pid match the current task or any task the event is about. */
export function eventMatches(s: TraceStore, i: number, f: EventFilter): boolean {
  const c = s.columns
  if (f.types && f.types.size && !f.types.has(c.type[i])) return false
  const type = c.type[i]
  const about = type === TYPE_SWITCH ? [c.f0[i], c.f3[i]] : type >= 2 && type <= 8 && type !== 6 ? [c.f0[i]]
    : type === 6 ? [c.f0[i], c.f3[i]] : []
  if (f.pid !== undefined && c.pid[i] !== f.pid && !about.includes(f.pid)) return false
  if (f.comm) {
    const q = f.comm.toLowerCase()
    const names = [c.comm[i], type !== 0 ? c.s1[i] : -1, type === TYPE_SWITCH || type === 6 ? c.s2[i] : -1]
    if (!names.some((id) => id >= 0 && c.strings[id].toLowerCase().includes(q))) return false
  }
  return true
}

/** How many rows have t0 <= ts < t1 on `cpus` (binary searches only: cheap whatever the count). */
export function countIn(s: TraceStore, t0: number, t1: number, cpus: readonly number[] = s.cpus): number {
  const c = s.columns
  let n = 0
  for (const cpu of cpus) {
    const rows = s.byCpu.get(cpu)
    if (!rows) continue
    const at = (x: number) => {
      let lo = 0, hi = rows.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (c.ts[rows[mid]] < x) lo = mid + 1
        else hi = mid
      }
      return lo
    }
    n += at(t1) - at(t0)
  }
  return n
}

/** Rows with t0 <= ts < t1 on `cpus` (default all), passing the filter, in time order. */
export function eventsIn(s: TraceStore, t0: number, t1: number, cpus: readonly number[] = s.cpus,
  filter: EventFilter = {}, limit = Infinity): number[] {
  const c = s.columns
  const out: number[] = []
  const ts = (rows: Int32Array) => ({ length: rows.length, at: (k: number) => c.ts[rows[k]] })
  for (const cpu of cpus) {
    const rows = s.byCpu.get(cpu)
    if (!rows) continue
    const t = ts(rows)
    let lo = 0, hi = t.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (t.at(mid) < t0) lo = mid + 1
      else hi = mid
    }
    for (let k = lo; k < rows.length && c.ts[rows[k]] < t1; k++) {
      if (eventMatches(s, rows[k], filter)) out.push(rows[k])
    }
  }
  out.sort((a, b) => c.ts[a] - c.ts[b] || a - b)
  return out.length > limit ? out.slice(0, limit) : out
}

/** Per-CPU busy fraction (time not in the idle task, pid 0) per bucket of [t0, t1). */
export interface Occupancy {
  t0: number
  t1: number
  bucketNs: number
  cpus: number[]
  /** One row per CPU in `cpus` order, 0..1 per bucket. */
  rows: Float32Array[]
}

export function occupancy(s: TraceStore, t0: number, t1: number, buckets: number, cpus: readonly number[] = s.cpus): Occupancy {
  const width = Math.max(1e-9, (t1 - t0) / buckets)
  const rows = cpus.map((cpu) => {
    const row = new Float32Array(buckets)
    const sl = s.slices.get(cpu)
    if (!sl) return row
    for (let k = upperBound(sl.end, t0); k < sl.start.length && sl.start[k] < t1; k++) {
      if (sl.pid[k] === 0) continue
      const a = Math.max(t0, sl.start[k])
      const b = Math.min(t1, sl.end[k])
      if (b <= a) continue
      let bi = Math.floor((a - t0) / width)
      while (bi < buckets) {
        const bs = t0 + bi * width
        const be = bs + width
        const overlap = Math.min(b, be) - Math.max(a, bs)
        if (overlap > 0) row[bi] += overlap / width
        if (be >= b) break
        bi++
      }
    }
    for (let i = 0; i < buckets; i++) row[i] = Math.min(1, row[i])
    return row
  })
  return { t0, t1, bucketNs: width, cpus: [...cpus], rows }
}

/**
 * Per bucket of [t0, t1) on `cpu`, the process (tgid, else pid) that ran
 * longest in it; -1 where the CPU only idled. The zoomed-out overview colours
 * each busy bar by it.
 */
export function dominantProcess(s: TraceStore, cpu: number, t0: number, t1: number, buckets: number): Int32Array {
  const out = new Int32Array(buckets).fill(-1)
  const sl = s.slices.get(cpu)
  if (!sl) return out
  const width = Math.max(1e-9, (t1 - t0) / buckets)
  let bucket = -1
  let time = new Map<number, number>()
  const flush = () => {
    let best = -1, bestT = 0
    for (const [key, t] of time) if (t > bestT) { best = key; bestT = t }
    if (bucket >= 0 && bucket < buckets) out[bucket] = best
    time = new Map()
  }
  for (let k = upperBound(sl.end, t0); k < sl.start.length && sl.start[k] < t1; k++) {
    const pid = sl.pid[k]
    if (pid === 0) continue
    const key = s.tgidOf.get(pid) ?? pid
    const a = Math.max(t0, sl.start[k])
    const b = Math.min(t1, sl.end[k])
    for (let bi = Math.floor((a - t0) / width); bi < buckets && t0 + bi * width < b; bi++) {
      if (bi !== bucket) { flush(); bucket = bi }
      const overlap = Math.min(b, t0 + (bi + 1) * width) - Math.max(a, t0 + bi * width)
      if (overlap > 0) time.set(key, (time.get(key) ?? 0) + overlap)
    }
  }
  flush()
  return out
}

/** One run slice, resolved. */
export interface RunSlice {
  cpu: number
  start: number
  end: number
  pid: number
  /** -1 when the trace does not say. */
  tgid: number
  comm: string
  /** Slice index on its CPU. */
  index: number
  /** The capture started (or stopped) while the task ran: the slice is cut at the trace's edge. */
  cutStart: boolean
  cutEnd: boolean
  /** The switch-in is missing from the trace: start is the task's first event seen on the CPU. */
  inferred: boolean
}

export function sliceAt(s: TraceStore, cpu: number, index: number): RunSlice {
  const sl = s.slices.get(cpu)!
  const pid = sl.pid[index]
  return {
    cpu, index, start: sl.start[index], end: sl.end[index], pid, tgid: pid === 0 ? 0 : s.tgidOf.get(pid) ?? -1,
    comm: sl.comm[index] >= 0 ? s.columns.strings[sl.comm[index]] : '', cutStart: sl.fromRow[index] < 0 && !sl.inferred[index],
    cutEnd: sl.toRow[index] < 0 && index === sl.start.length - 1, inferred: sl.inferred[index] === 1,
  }
}

/** The task on `cpu` at time t (the idle task is pid 0); null outside the trace or before the CPU's first switch is known. */
export function runningAt(s: TraceStore, cpu: number, t: number): RunSlice | null {
  const k = sliceIndexAt(s, cpu, t)
  return k < 0 ? null : sliceAt(s, cpu, k)
}

/** Index of the slice on `cpu` holding time t, -1 if none. */
export function sliceIndexAt(s: TraceStore, cpu: number, t: number): number {
  const sl = s.slices.get(cpu)
  if (!sl) return -1
  const k = upperBound(sl.start, t) - 1 // last slice starting at or before t
  return k >= 0 && t < sl.end[k] ? k : -1
}

/** Slice indices on `cpu` overlapping [t0, t1). */
export function slicesIn(s: TraceStore, cpu: number, t0: number, t1: number): [number, number] {
  const sl = s.slices.get(cpu)
  if (!sl) return [0, 0]
  const from = upperBound(sl.end, t0)
  const to = lowerBound(sl.start, t1)
  return [from, Math.max(from, to)]
}

/** A task waiting on a CPU's runqueue at some time. */
export interface Waiting {
  pid: number
  comm: string
  /** When it became runnable there (woken, preempted, or migrated in keeps its original time), ns. */
  since: number
  /** What made it runnable. */
  why: 'wakeup' | 'wakeup_new' | 'preempted'
}

/**
 * The runnable (waiting, not running) tasks per CPU at time t, each CPU's list
 * ordered by how long they have waited (longest first): rebuilt by replaying
 * every event up to t. The kernel's own pick order (EEVDF deadlines) is not in
 * the trace, so the order is the waiting order, not the pick order.
 */
export function runnableAt(s: TraceStore, t: number): Map<number, Waiting[]> {
  const c = s.columns
  const queues = new Map<number, Map<number, Waiting>>()
  const where = new Map<number, number>() // pid -> cpu whose queue holds it
  const q = (cpu: number) => {
    let m = queues.get(cpu)
    if (!m) queues.set(cpu, (m = new Map()))
    return m
  }
  const dequeue = (pid: number) => {
    const cpu = where.get(pid)
    if (cpu !== undefined) {
      queues.get(cpu)?.delete(pid)
      where.delete(pid)
    }
  }
  const enqueue = (cpu: number, w: Waiting) => {
    if (w.pid === 0) return
    dequeue(w.pid)
    q(cpu).set(w.pid, w)
    where.set(w.pid, cpu)
  }
  const running = new Set<number>()
  const order = eventsIn(s, -Infinity, t + 0.5) // ts are integer ns: events at t included
  for (const i of order) {
    const type = c.type[i]
    // An event recorded while a task is current proves it runs (its switch-in may be missing).
    if (c.pid[i] !== 0 && type !== TYPE_SWITCH && where.has(c.pid[i])) {
      dequeue(c.pid[i])
      running.add(c.pid[i])
    }
    if (type === TYPE_SWITCH) {
      const prev = c.f0[i]
      const next = c.f3[i]
      running.delete(prev)
      dequeue(next)
      if (next !== 0) running.add(next)
      if (prev !== 0 && isRunnableState(c.f2[i])) {
        enqueue(c.cpu[i], { pid: prev, comm: c.strings[c.s1[i]], since: c.ts[i], why: 'preempted' })
      }
    } else if (type === TYPE_WAKEUP || type === TYPE_WAKEUP_NEW) {
      const pid = c.f0[i]
      // A second wakeup of a task still waiting from a wakeup means it ran and slept
      // in between without a recorded switch: it waits again from now.
      const queued = where.has(pid) ? queues.get(where.get(pid)!)!.get(pid) : undefined
      if (!running.has(pid) && (!queued || queued.why !== 'preempted')) {
        enqueue(c.f2[i], { pid, comm: c.strings[c.s1[i]], since: c.ts[i], why: type === TYPE_WAKEUP ? 'wakeup' : 'wakeup_new' })
      }
    } else if (type === TYPE_MIGRATE) {
      const pid = c.f0[i]
      const w = where.get(pid) !== undefined ? queues.get(where.get(pid)!)!.get(pid) : undefined
      if (w) enqueue(c.f3[i], w)
    } else if (type === TYPE_EXIT) {
      dequeue(c.f0[i])
      running.delete(c.f0[i])
    }
  }
  const out = new Map<number, Waiting[]>()
  for (const cpu of s.cpus) out.set(cpu, [...(queues.get(cpu)?.values() ?? [])].sort((a, b) => a.since - b.since))
  return out
}

/** Events per type name (for the summary line and to check against the server's counts). */
export function countByType(s: TraceStore, names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  const c = s.columns
  for (let i = 0; i < c.count; i++) {
    const name = c.type[i] === 0 ? c.strings[c.s1[i]] : names[c.type[i]]
    counts[name] = (counts[name] ?? 0) + 1
  }
  return counts
}
