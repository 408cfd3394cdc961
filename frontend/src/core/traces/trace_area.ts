/*
 * An area of the trace (a time window × a set of CPUs, dragged on the CPU
 * lanes) and what happened in it (MEASURED):
 *
 *   busy        per CPU: time not in the idle task (pid 0); per task: time run
 *   runnable    time tasks spent waiting on these CPUs' queues (per-task thread
 *               states, trace_tasks.ts), and the waits that ended in a run here
 *   migrations  sched_migrate_task from or to these CPUs, by the boundary
 *               crossed: within an LLC, across LLCs of a node, across nodes
 *               (needs the trace's topology; otherwise "topology not known")
 *   switches    sched_switch on these CPUs: involuntary (prev left runnable,
 *               preempted) and voluntary (it slept, blocked or exited)
 *
 * Pure functions of (store, area); tested in trace_area.test.ts.
 */
import { TYPE_SWITCH, isRunnableState, lowerBound, slicesIn, type TraceStore } from './trace_store'
import { RUNNABLE, taskTracks } from './trace_tasks'
import { waitIndex } from './trace_latency'

export interface Area {
  start: number
  end: number
  /** Ascending CPU numbers. */
  cpus: number[]
}

export type Boundary = 'same CPU' | 'within LLC' | 'across LLC' | 'across node' | 'topology not known'
export const BOUNDARIES: readonly Boundary[] = ['within LLC', 'across LLC', 'across node', 'topology not known']

export interface AreaAggregates {
  span: number
  perCpu: { cpu: number; busy: number; switches: number }[]
  /** Tasks by time run in the area, most first. */
  perTask: { pid: number; comm: string; busy: number; runnable: number }[]
  busyTotal: number
  /** Task-time spent runnable on these CPUs' queues, ns. */
  runnableTotal: number
  /** Waits ended by a switch-in in the area (known ones): count, mean and longest, ns. */
  waits: { count: number; mean: number; max: number }
  migrations: Record<Boundary, number>
  switches: { total: number; involuntary: number; voluntary: number }
}

/** The boundary a move from one CPU to another crosses, by the trace's topology. */
export function boundaryOf(topology: ReadonlyMap<number, { llc: number; node: number }> | null, from: number, to: number): Boundary {
  if (from === to) return 'same CPU'
  const a = topology?.get(from), b = topology?.get(to)
  if (!a || !b || a.llc < 0 || b.llc < 0) return 'topology not known'
  if (a.node >= 0 && b.node >= 0 && a.node !== b.node) return 'across node'
  return a.llc === b.llc ? 'within LLC' : 'across LLC'
}

export function areaAggregates(s: TraceStore, area: Area): AreaAggregates {
  const { start, end } = area
  const cpus = new Set(area.cpus)
  const c = s.columns
  const perCpu: AreaAggregates['perCpu'] = []
  const task = new Map<number, { busy: number; runnable: number; comm: string }>()
  const taskOf = (pid: number) => {
    let t = task.get(pid)
    if (!t) task.set(pid, (t = { busy: 0, runnable: 0, comm: s.commOf.get(pid) ?? '' }))
    return t
  }
  let busyTotal = 0
  const switches = { total: 0, involuntary: 0, voluntary: 0 }
  for (const cpu of area.cpus) {
    let busy = 0
    const sl = s.slices.get(cpu)
    if (sl) {
      const [a, b] = slicesIn(s, cpu, start, end)
      for (let k = a; k < b; k++) {
        if (sl.pid[k] === 0) continue
        const d = Math.min(end, sl.end[k]) - Math.max(start, sl.start[k])
        if (d <= 0) continue
        busy += d
        const t = taskOf(sl.pid[k])
        t.busy += d
        if (!t.comm && sl.comm[k] >= 0) t.comm = c.strings[sl.comm[k]]
      }
    }
    let n = 0
    const rows = s.byCpu.get(cpu)
    if (rows) {
      let lo = 0
      for (let hi = rows.length; lo < hi; ) {
        const mid = (lo + hi) >>> 1
        if (c.ts[rows[mid]] < start) lo = mid + 1
        else hi = mid
      }
      for (let k = lo; k < rows.length && c.ts[rows[k]] < end; k++) {
        const r = rows[k]
        if (c.type[r] !== TYPE_SWITCH) continue
        n++
        if (c.f0[r] !== 0 && isRunnableState(c.f2[r])) switches.involuntary++
        else if (c.f0[r] !== 0) switches.voluntary++
      }
    }
    switches.total += n
    busyTotal += busy
    perCpu.push({ cpu, busy, switches: n })
  }
  let runnableTotal = 0
  for (const t of taskTracks(s).values()) {
    for (let k = Math.max(0, lowerBound(t.end, start + 1e-9)); k < t.start.length && t.start[k] < end; k++) {
      if (t.state[k] !== RUNNABLE || !cpus.has(t.cpu[k])) continue
      const d = Math.min(end, t.end[k]) - Math.max(start, t.start[k])
      if (d <= 0) continue
      runnableTotal += d
      const x = taskOf(t.pid)
      x.runnable += d
      if (!x.comm) x.comm = t.comm
    }
  }
  const idx = waitIndex(s)
  let count = 0, sum = 0, max = 0
  for (let k = lowerBound(idx.runAt, start); k < idx.count && idx.runAt[k] < end; k++) {
    const latency = idx.runAt[k] - idx.runnableAt[k]
    if (!cpus.has(idx.cpu[k]) || !Number.isFinite(latency)) continue
    count++
    sum += latency
    max = Math.max(max, latency)
  }
  const migrations = { 'same CPU': 0, 'within LLC': 0, 'across LLC': 0, 'across node': 0, 'topology not known': 0 } as Record<Boundary, number>
  const m = s.migrations
  let first = 0
  for (let hi = m.length; first < hi; ) {
    const mid = (first + hi) >>> 1
    if (c.ts[m[mid]] < start) first = mid + 1
    else hi = mid
  }
  for (let k = first; k < m.length && c.ts[m[k]] < end; k++) {
    const r = m[k]
    if (!cpus.has(c.f2[r]) && !cpus.has(c.f3[r])) continue
    migrations[boundaryOf(s.meta.topology, c.f2[r], c.f3[r])]++
  }
  const perTask = [...task.entries()].map(([pid, t]) => ({ pid, comm: t.comm, busy: t.busy, runnable: t.runnable }))
    .sort((a, b) => b.busy - a.busy || b.runnable - a.runnable || a.pid - b.pid)
  return { span: end - start, perCpu, perTask, busyTotal, runnableTotal, waits: { count, mean: count ? sum / count : 0, max },
    migrations, switches }
}

/** The area a drag from (t0, lane i) to (t1, lane j) covers: its time span and every lane between. */
export function areaFromDrag(t0: number, t1: number, laneCpus: readonly number[], i: number, j: number): Area | null {
  if (!laneCpus.length || t0 === t1) return null
  const a = Math.max(0, Math.min(i, j)), b = Math.min(laneCpus.length - 1, Math.max(i, j))
  return { start: Math.min(t0, t1), end: Math.max(t0, t1), cpus: laneCpus.slice(a, b + 1).sort((x, y) => x - y) }
}
