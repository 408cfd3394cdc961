/*
 * Per-task thread states, rebuilt from a real trace (MEASURED): for every task,
 * when it ran (and on which CPU), waited runnable (on which CPU's queue), slept
 * (S), was blocked (D, uninterruptible) or had exited:
 *
 *   sched_switch prev=P (prev_state)   P leaves the CPU: R/R+ runnable there,
 *                                      S sleeping, D blocked, X/Z dead
 *   sched_switch next=P                P runs on the CPU
 *   sched_waking / sched_wakeup(_new)  P runnable (on target_cpu)
 *   sched_migrate_task (P runnable)    P waits on dest_cpu from then on
 *
 * Before a task's first event its state is not known and nothing is drawn; a
 * task first seen leaving a CPU ran there since the CPU's slice began. The
 * tracks are grouped by process (tgid) for the task-centric view; search and
 * pinning pick and order the lanes. Pure; computed once per store.
 */
import {
  TYPE_MIGRATE, TYPE_SWITCH, TYPE_WAKEUP, TYPE_WAKEUP_NEW, TYPE_WAKING, isRunnableState, sliceIndexAt, upperBound, type TraceStore,
} from './trace_store'

export const RUNNING = 0
export const RUNNABLE = 1
export const SLEEPING = 2
export const BLOCKED = 3
export const DEAD = 4
export const STATE_NAMES = ['running', 'runnable', 'sleeping (S)', 'blocked (D)', 'exited'] as const

/** One task's states as parallel arrays in time order. */
export interface TaskTrack {
  pid: number
  /** -1 when the trace does not say. */
  tgid: number
  comm: string
  start: Float64Array
  end: Float64Array
  state: Uint8Array
  /** The CPU it ran on (running) or waited on (runnable); -1 otherwise. */
  cpu: Int32Array
  /** Total running time, ns. */
  runNs: number
}

/** The state a switch's prev_state leaves the task in. */
export function stateAfterSwitch(prevState: number): number {
  if (isRunnableState(prevState)) return RUNNABLE
  if (prevState & (16 | 32)) return DEAD
  if (prevState & 2) return BLOCKED
  return SLEEPING // S, I (idle kthreads), T, t, P: not runnable, waiting for something
}

interface Builder {
  start: number[]; end: number[]; state: number[]; cpu: number[]
  cur: { state: number; cpu: number; since: number } | null
  comm: string
}

const cache = new WeakMap<TraceStore, Map<number, TaskTrack>>()

export function taskTracks(s: TraceStore): Map<number, TaskTrack> {
  const hit = cache.get(s)
  if (hit) return hit
  const c = s.columns
  const b = new Map<number, Builder>()
  const get = (pid: number) => {
    let x = b.get(pid)
    if (!x) b.set(pid, (x = { start: [], end: [], state: [], cpu: [], cur: null, comm: '' }))
    return x
  }
  const go = (pid: number, state: number, cpu: number, t: number) => {
    const x = get(pid)
    const cur = x.cur
    if (cur && cur.state === state && cur.cpu === cpu) return
    if (cur && t > cur.since) {
      x.start.push(cur.since); x.end.push(t); x.state.push(cur.state); x.cpu.push(cur.cpu)
    }
    x.cur = { state, cpu, since: t }
  }
  const order = new Int32Array(c.count)
  let sorted = true
  for (let i = 0; i < c.count; i++) {
    order[i] = i
    if (i && c.ts[i] < c.ts[i - 1]) sorted = false
  }
  if (!sorted) order.sort((x, y) => c.ts[x] - c.ts[y] || x - y)
  for (const i of order) {
    const t = c.ts[i]
    const type = c.type[i]
    if (type === TYPE_SWITCH) {
      const prev = c.f0[i], next = c.f3[i], cpu = c.cpu[i]
      if (prev !== 0) {
        const x = get(prev)
        x.comm = c.strings[c.s1[i]] ?? x.comm
        if (!x.cur) {
          // First seen leaving the CPU: it ran there since the CPU's slice began.
          const k = sliceIndexAt(s, cpu, t - 0.5)
          const sl = s.slices.get(cpu)
          if (k >= 0 && sl && sl.pid[k] === prev) x.cur = { state: RUNNING, cpu, since: sl.start[k] }
        }
        go(prev, stateAfterSwitch(c.f2[i]), isRunnableState(c.f2[i]) ? cpu : -1, t)
      }
      if (next !== 0) {
        get(next).comm = c.strings[c.s2[i]] ?? get(next).comm
        go(next, RUNNING, cpu, t)
      }
    } else if (type === TYPE_WAKING || type === TYPE_WAKEUP || type === TYPE_WAKEUP_NEW) {
      const pid = c.f0[i]
      if (pid === 0) continue
      const x = get(pid)
      x.comm = c.strings[c.s1[i]] ?? x.comm
      if (x.cur?.state === RUNNING) continue
      // sched_waking's target_cpu is where it last ran; the wakeup's is where it is queued.
      if (type === TYPE_WAKING && x.cur?.state === RUNNABLE) continue
      go(pid, RUNNABLE, c.f2[i], t)
    } else if (type === TYPE_MIGRATE) {
      const pid = c.f0[i]
      const x = b.get(pid)
      if (x?.cur?.state === RUNNABLE) go(pid, RUNNABLE, c.f3[i], t)
    }
  }
  const endT = s.loaded ? Math.min(s.loaded.t1, s.lastTs) : s.t1
  const out = new Map<number, TaskTrack>()
  for (const [pid, x] of b) {
    if (x.cur && x.cur.state !== DEAD && endT > x.cur.since) {
      x.start.push(x.cur.since); x.end.push(endT); x.state.push(x.cur.state); x.cpu.push(x.cur.cpu)
    }
    if (!x.start.length) continue
    let runNs = 0
    for (let k = 0; k < x.start.length; k++) if (x.state[k] === RUNNING) runNs += x.end[k] - x.start[k]
    out.set(pid, {
      pid, tgid: s.tgidOf.get(pid) ?? -1, comm: s.commOf.get(pid) ?? x.comm, runNs,
      start: Float64Array.from(x.start), end: Float64Array.from(x.end), state: Uint8Array.from(x.state), cpu: Int32Array.from(x.cpu),
    })
  }
  cache.set(s, out)
  return out
}

/** Index of the track's interval holding t, -1 if none. */
export function stateIndexAt(t: TaskTrack, at: number): number {
  const k = upperBound(t.start, at) - 1
  return k >= 0 && at < t.end[k] ? k : -1
}

/* ---------- lanes: grouped by process, searched, pinned ---------- */

export type TaskRow =
  | { kind: 'group'; key: string; label: string; tasks: number }
  | { kind: 'task'; pid: number; pinned: boolean }

/** Does the task match "comm or pid" text (a number matches the pid or the process's tgid exactly)? */
export function taskMatches(t: TaskTrack, query: string): boolean {
  const q = query.trim().toLowerCase()
  if (!q) return true
  if (/^\d+$/.test(q)) return t.pid === Number(q) || t.tgid === Number(q)
  return t.comm.toLowerCase().includes(q)
}

/**
 * The rows of the task view: pinned tasks first, then one group per process
 * (tgid; a task without one is its own process), processes by running time
 * (busiest first), threads by pid. Only tasks matching `query` (pinned ones always).
 */
export function taskRows(s: TraceStore, tracks: ReadonlyMap<number, TaskTrack>, query: string,
  pinned: readonly number[], maxTasks = 300): { rows: TaskRow[]; shown: number; matching: number } {
  const rows: TaskRow[] = []
  const pins = pinned.filter((p) => tracks.has(p))
  if (pins.length) {
    rows.push({ kind: 'group', key: 'pinned', label: 'pinned', tasks: pins.length })
    for (const pid of pins) rows.push({ kind: 'task', pid, pinned: true })
  }
  const procs = new Map<number, { run: number; pids: number[] }>()
  let matching = 0
  for (const t of tracks.values()) {
    if (pins.includes(t.pid) || !taskMatches(t, query)) continue
    matching++
    const key = t.tgid >= 0 ? t.tgid : t.pid
    let p = procs.get(key)
    if (!p) procs.set(key, (p = { run: 0, pids: [] }))
    p.run += t.runNs
    p.pids.push(t.pid)
  }
  let shown = pins.length
  const order = [...procs.entries()].sort((a, b) => b[1].run - a[1].run || a[0] - b[0])
  for (const [tgid, p] of order) {
    if (shown >= maxTasks) break
    p.pids.sort((a, b) => a - b)
    const main = tracks.get(tgid)
    const name = main?.comm ?? s.commOf.get(tgid) ?? tracks.get(p.pids[0])?.comm ?? ''
    rows.push({ kind: 'group', key: `p${tgid}`, label: `${name} (process ${tgid})`, tasks: p.pids.length })
    for (const pid of p.pids) {
      if (shown >= maxTasks) break
      rows.push({ kind: 'task', pid, pinned: false })
      shown++
    }
  }
  return { rows, shown, matching: matching + pins.length }
}

/** Time in each state over [t0, t1) (ns), for a task's summary. */
export function stateTotals(t: TaskTrack, t0: number, t1: number): number[] {
  const out = [0, 0, 0, 0, 0]
  for (let k = Math.max(0, upperBound(t.end, t0)); k < t.start.length && t.start[k] < t1; k++) {
    const a = Math.max(t0, t.start[k]), e = Math.min(t1, t.end[k])
    if (e > a) out[t.state[k]] += e - a
  }
  return out
}
