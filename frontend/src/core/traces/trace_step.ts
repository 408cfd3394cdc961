/*
 * Step to the next / previous event that passes the filter (Shift+→ / Shift+←
 * and the step buttons).
 *
 * A local trace has every event: a search in the store. A stored trace has
 * only the loaded window's: the answer comes from the store when the window
 * provably holds it (the search starts inside the loaded range and finds a
 * match there), else from the server (GET /events from the cursor on, or in
 * growing windows before it, since the route returns events in time order
 * only). The type filter goes to the server; comm and pid are matched here on
 * the rows it returns.
 */
import { fetchEventRows, type EventRow } from './traces_api'
import { eventsIn, type EventFilter, type TraceStore, EVENT_TYPES } from './trace_store'

export type StepResult = { kind: 'row'; row: number; ts: number } | { kind: 'time'; ts: number; cpu: number; type: string } | null

export function nextEventRow(s: TraceStore, t: number, f: EventFilter): number {
  const rows = eventsIn(s, t + 1, s.t1 + 1, s.cpus, f, 1)
  return rows.length ? rows[0] : -1
}

export function prevEventRow(s: TraceStore, t: number, f: EventFilter, floor = -Infinity): number {
  // Walk back in growing windows until one holds a match.
  for (let span = 1e6; span < (s.t1 - s.t0) * 2 + 2e6; span *= 4) {
    const rows = eventsIn(s, Math.max(floor, t - span), t, s.cpus, f)
    if (rows.length) return rows[rows.length - 1]
    if (t - span <= floor) break
  }
  return -1
}

/** Does a JSON event row pass the comm/pid part of the filter (any task it names)? */
export function rowMatches(r: EventRow, f: EventFilter): boolean {
  if (f.pid !== undefined) {
    const pids = [r.pid, r.task_pid, r.prev_pid, r.next_pid, r.child_pid]
    if (!pids.some((p) => p === f.pid)) return false
  }
  if (f.comm) {
    const q = f.comm.toLowerCase()
    const names = [r.comm, r.task_comm, r.prev_comm, r.next_comm, r.child_comm]
    if (!names.some((n) => typeof n === 'string' && n.toLowerCase().includes(q))) return false
  }
  return true
}

const SERVER_BATCH = 5_000

export async function stepEvent(s: TraceStore, from: number, f: EventFilter, dir: 1 | -1): Promise<StepResult> {
  const local = (row: number): StepResult => (row >= 0 ? { kind: 'row', row, ts: s.columns.ts[row] } : null)
  const l = s.loaded
  if (l === null) return local(dir > 0 ? nextEventRow(s, from, f) : prevEventRow(s, from, f))
  if (dir > 0 && from + 1 >= l.t0 && from < l.t1) {
    const row = nextEventRow(s, from, f)
    if (row >= 0 && s.columns.ts[row] < l.t1) return local(row)
  }
  if (dir < 0 && from > l.t0 && from <= l.t1) {
    const row = prevEventRow(s, from, f, l.t0)
    if (row >= 0) return local(row)
  }
  if (s.origin.kind !== 'server') return null
  const id = s.origin.id
  const types = f.types?.size ? [...f.types].map((t) => EVENT_TYPES[t]) : undefined
  const hit = (r: EventRow): StepResult => ({ kind: 'time', ts: Number(r.ts_ns), cpu: Number(r.cpu), type: String(r.type) })
  if (dir > 0) {
    // From the cursor on, a page at a time (the server's next-page cursor), until a row matches or the trace ends.
    let cursor: string | undefined
    for (let tries = 0; tries < 20; tries++) {
      const page = await fetchEventRows(id, { t0: from + 1, types, limit: SERVER_BATCH, cursor })
      const match = page.rows.find((r) => rowMatches(r, f))
      if (match) return hit(match)
      if (page.next === null) return null
      cursor = page.next
    }
    return null
  }
  for (let span = 1e6; ; span *= 8) {
    // [from - span, from) in time order, a page at a time; the last match wins.
    const t0 = Math.max(s.t0, from - span)
    let best: EventRow | null = null
    let cursor: string | undefined
    for (;;) {
      const page = await fetchEventRows(id, { t0, t1: from, types, limit: SERVER_BATCH * 4, cursor })
      for (const r of page.rows) if (rowMatches(r, f)) best = r
      if (page.next === null) break
      cursor = page.next
    }
    if (best) return hit(best)
    if (from - span <= s.t0) return null
  }
}
