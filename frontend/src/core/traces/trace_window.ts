/*
 * A stored (server) trace is never loaded whole: the timeline asks for what
 * the screen shows, at the detail the zoom needs.
 *
 *   zoomed out (a pixel > SLICE_NS_PER_PX)   GET /summary?t0&t1&buckets
 *       per-CPU busy fraction per bucket, from the summaries written at ingest:
 *       a few kB whatever the trace's size (level of detail)
 *   zoomed in                                GET /events?t0&t1&limit (Arrow IPC)
 *       the exact events of the visible window padded by half a window each
 *       side, decoded into the same columns as a local trace (trace_arrow.ts),
 *       at most WINDOW_EVENT_LIMIT of them
 *
 * So memory and work follow the screen, not the trace: a 10 M-event trace
 * costs what a 1 M one does. The policy (what to fetch when) is pure and
 * unit-tested; the fetches are thin wrappers over traces_api.ts.
 */
import { TraceApiError, eventsUrl, fetchArrow, fetchSummary, requestHeaders, runSql, type SummaryResponse } from './traces_api'
import type { WindowJob, WindowReply } from './trace_window_worker'
import { storeFromWindow, type WindowInput } from './trace_window_store'
import { columnsFromArrow } from './trace_arrow'
import { openTraceStore, type Occupancy, type TraceInput, type TraceStore } from './trace_store'

/** Exact events (run slices) below this many ns per pixel; occupancy buckets above. */
export const SLICE_NS_PER_PX = 40_000

/** Most events fetched for one window (the server's own Arrow page is Settings.events_max_rows, 200 k). */
export const WINDOW_EVENT_LIMIT = 150_000

/**
 * Does the view at [start, end) over `width` px draw exact events? Zoomed in
 * past SLICE_NS_PER_PX, and, for a stored trace, when its padded window holds
 * about WINDOW_EVENT_LIMIT events or fewer at the trace's mean rate (a dense
 * trace stays on summaries a little longer; a burst above the mean arrives
 * truncated and the rest of that window stays on summaries).
 */
export function wantsExactEvents(start: number, end: number, width: number,
  trace: { t0: number; t1: number; totalEvents: number } | null): boolean {
  if ((end - start) / Math.max(1, width) > SLICE_NS_PER_PX) return false
  if (!trace) return true
  const rate = trace.totalEvents / Math.max(1, trace.t1 - trace.t0)
  return rate * 2 * (end - start) <= WINDOW_EVENT_LIMIT
}

/** A time range to fetch, absolute ns. */
export interface WindowRequest {
  start: number
  end: number
}

/** The padded range to fetch for a visible window: half a window each side, clamped to the trace. */
export function paddedRange(start: number, end: number, t0: number, t1: number): WindowRequest {
  const span = Math.max(1, end - start)
  return { start: Math.max(t0, Math.floor(start - span / 2)), end: Math.min(t1 + 1, Math.ceil(end + span / 2)) }
}

/**
 * Does the loaded window serve the visible one? It must cover it; a truncated
 * window only serves while the view is well inside its first (loaded) part.
 */
export function windowServes(loaded: { t0: number; t1: number; truncated: boolean; lastTs: number } | null,
  start: number, end: number): boolean {
  if (!loaded) return false
  if (start < loaded.t0 || end > loaded.t1) {
    // Clamped at the trace's edges the loaded range may end before `end`: still fine.
    return false
  }
  if (loaded.truncated) return end <= loaded.lastTs
  return true
}

/** Does an overview serve the visible window: covering it with buckets no wider than ~2 px? */
export function overviewServes(ov: Occupancy | null, start: number, end: number, width: number): boolean {
  if (!ov) return false
  if (start < ov.t0 || end > ov.t1) return false
  return ov.bucketNs <= ((end - start) / Math.max(1, width)) * 2.5
}

/** The summary response as an Occupancy (the same shape the local store computes). */
export function occupancyFromSummary(s: SummaryResponse): Occupancy {
  return { t0: s.t0_ns, t1: s.t1_ns, bucketNs: s.bucket_ns, cpus: s.cpus, rows: s.occupancy.map((r) => Float32Array.from(r)) }
}

/** Overview of [start, end) for a plot `width` px wide: about one bucket per 2 px, padded for panning. */
export async function loadOverview(id: string, start: number, end: number, width: number, t0: number, t1: number,
  signal?: AbortSignal): Promise<Occupancy> {
  const r = paddedRange(start, end, t0, t1)
  const visibleFraction = (end - start) / Math.max(1, r.end - r.start)
  const buckets = Math.max(1, Math.min(10_000, Math.round(width / 2 / Math.max(0.01, visibleFraction))))
  return occupancyFromSummary(await fetchSummary(id, r.start, r.end, buckets, signal))
}

export interface ServerTraceBase {
  id: string
  name: string
  format: string
  stats: TraceInput['stats']
  header: string[]
  t0: number
  t1: number
  cpus: number[]
  totalEvents: number
}

/** The exact events of [start, end) as a store (padded range fetched); lastTs = the last event fetched. */
export async function loadWindow(base: ServerTraceBase, start: number, end: number, signal?: AbortSignal,
  limit = WINDOW_EVENT_LIMIT): Promise<{ store: TraceStore; lastTs: number }> {
  const r = paddedRange(start, end, base.t0, base.t1)
  const before = await runningBefore(base.id, r.start)
  const input: WindowInput = {
    name: base.name, format: base.format, origin: { kind: 'server', id: base.id }, stats: base.stats, header: base.header,
    window: { extentT0: base.t0, extentT1: base.t1, cpus: base.cpus, totalEvents: base.totalEvents,
      loaded: { t0: r.start, t1: r.end, truncated: false }, before },
  }
  const url = eventsUrl(base.id, { t0: r.start, t1: r.end, limit })
  const store = typeof Worker === 'undefined'
    ? storeFromWindow(columnsFromArrow(await fetchArrow(url, signal)), input, limit)
    : await inWorker(url, input, limit, signal)
  const c = store.columns
  return { store, lastTs: c.count ? c.ts[c.count - 1] : r.end }
}

let worker: Worker | null = null
let jobs = 0
const waiting = new Map<number, { resolve(s: TraceStore): void; reject(e: Error): void }>()

/** Fetch, decode and index in core/trace_window_worker.ts; the store comes back transferred. */
function inWorker(url: string, input: WindowInput, limit: number, signal?: AbortSignal): Promise<TraceStore> {
  if (!worker) {
    worker = new Worker(new URL('./trace_window_worker.ts', import.meta.url), { type: 'module', name: 'kscope-trace-window' })
    worker.onmessage = (e: MessageEvent<WindowReply>) => {
      const job = waiting.get(e.data.id)
      if (!job) return
      waiting.delete(e.data.id)
      if ('store' in e.data) job.resolve(e.data.store)
      else job.reject(new TraceApiError(e.data.status, e.data.error))
    }
  }
  const id = ++jobs
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject })
    // An aborted window's answer is dropped (the worker finishes it; the next job queues behind).
    signal?.addEventListener('abort', () => {
      if (waiting.delete(id)) reject(new DOMException('aborted', 'AbortError'))
    })
    const job: WindowJob = { id, url, headers: requestHeaders(url), input, limit }
    worker!.postMessage(job)
  })
}

/** Per CPU, the task the last sched_switch before `t` put on it (one read-only SELECT on the server). */
export async function runningBefore(id: string, t: number): Promise<Map<number, { pid: number; comm: string }>> {
  const r = await runSql(id, `SELECT cpu, arg_max(next_pid, ts_ns), arg_max(next_comm, ts_ns) FROM events ` +
    `WHERE type = 'sched_switch' AND ts_ns < ${Math.floor(t)} GROUP BY cpu`)
  return new Map(r.rows.map((row) => [Number(row[0]), { pid: Number(row[1]), comm: String(row[2] ?? '') }]))
}

/** A server trace with no events loaded yet (the overview draws from summaries alone). */
export function emptyWindow(base: ServerTraceBase): TraceStore {
  return openTraceStore({
    name: base.name, format: base.format, origin: { kind: 'server', id: base.id }, stats: base.stats, header: base.header,
    columns: {
      count: 0, ts: new Float64Array(0), type: new Uint8Array(0), cpu: new Int32Array(0), pid: new Int32Array(0),
      tgid: new Int32Array(0), comm: new Int32Array(0), f0: new Int32Array(0), f1: new Int32Array(0), f2: new Int32Array(0),
      f3: new Int32Array(0), f4: new Int32Array(0), s1: new Int32Array(0), s2: new Int32Array(0), strings: [],
    },
    window: { extentT0: base.t0, extentT1: base.t1, cpus: base.cpus, totalEvents: base.totalEvents,
      loaded: { t0: base.t0, t1: base.t0, truncated: false } },
  })
}

/**
 * Occupancy of `cpus` over [start, end) in `buckets` equal buckets, resampled
 * from server summaries (`overviews`, coarse first): each output bucket is the
 * overlap-weighted mean of the finest summary's buckets that cover it wholly,
 * else of the coarser one. Parts no summary covers read 0.
 */
export function resampleOverview(overviews: readonly Occupancy[], cpus: readonly number[], start: number, end: number,
  buckets: number): Occupancy {
  const width = Math.max(1e-9, (end - start) / buckets)
  const rows = cpus.map(() => new Float32Array(buckets))
  const rowOf = overviews.map((ov) => new Map(ov.cpus.map((cpu, i) => [cpu, i])))
  for (let b = 0; b < buckets; b++) {
    const a = start + b * width
    const z = a + width
    let pick = -1
    for (let o = overviews.length - 1; o >= 0; o--) {
      if (overviews[o].t0 <= a && overviews[o].t1 >= z) { pick = o; break }
    }
    if (pick < 0) {
      // At the trace's edges (or while a summary loads): the one overlapping most.
      for (let o = overviews.length - 1; o >= 0 && pick < 0; o--) if (overviews[o].t0 < z && overviews[o].t1 > a) pick = o
      if (pick < 0) continue
    }
    const ov = overviews[pick]
    const first = Math.max(0, Math.floor((a - ov.t0) / ov.bucketNs))
    const last = Math.min(ov.rows[0]?.length ?? 0, Math.ceil((z - ov.t0) / ov.bucketNs))
    let covered = 0
    const weights: number[] = []
    for (let k = first; k < last; k++) {
      const w = Math.min(z, ov.t0 + (k + 1) * ov.bucketNs) - Math.max(a, ov.t0 + k * ov.bucketNs)
      weights.push(Math.max(0, w))
      covered += Math.max(0, w)
    }
    if (covered <= 0) continue
    cpus.forEach((cpu, i) => {
      const r = rowOf[pick].get(cpu)
      if (r === undefined) return
      const src = ov.rows[r]
      let sum = 0
      for (let k = first; k < last; k++) sum += src[k] * weights[k - first]
      rows[i][b] = sum / covered
    })
  }
  return { t0: start, t1: end, bucketNs: width, cpus: [...cpus], rows }
}
