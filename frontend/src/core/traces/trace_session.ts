/*
 * The traces page's state: which trace is open (decoded here, or loaded from
 * the server), how far opening it has got, and what the user is looking at
 * (zoom, cursor, selection, filter, expanded CPU groups).
 *
 * User intents are named actions on a pure reducer (STYLE.md habit 5): the
 * timeline view only reports intents, it never mutates the store.
 */
import { useCallback, useMemo, useReducer, useRef } from 'react'
import { KscopeError } from '../../engine/core_errors'
import { openTraceLocally } from '../../engine/trace_open_local'
import { TraceApiError, fetchTopology, getTrace, statsFromPublic, type TracePublic } from './traces_api'
import { provenanceLines } from './trace_meta'
import {
  openTraceStore, sliceIndexAt, type EventFilter, type Occupancy, type TraceStore,
} from './trace_store'
import {
  emptyWindow, loadOverview, loadWindow, overviewServes, wantsExactEvents, windowServes, type ServerTraceBase,
} from './trace_window'

export interface ZoomState {
  k: number
  x: number
}

/** What is selected in the timeline: a run slice, or one event row. */
export type Selection = { kind: 'slice'; cpu: number; index: number } | { kind: 'event'; row: number } | null

export interface TraceViewState {
  zoom: ZoomState
  /** Absolute ns, or null before the user puts the cursor down. */
  cursor: number | null
  selection: Selection
  filter: { comm: string; pid: string; types: number[] }
  expanded: string[]
  /** A time window to show once the timeline knows its width (from a URL); cleared by the next zoom. */
  want: { start: number; end: number } | null
}

export type OpenState =
  | { status: 'empty' }
  | { status: 'opening'; name: string; phase: string; fraction: number; events: number }
  | { status: 'error'; name: string; message: string; notFound?: boolean }
  | { status: 'ready'; store: TraceStore }

export interface TraceSessionState {
  open: OpenState
  view: TraceViewState
  /**
   * A server trace's occupancy summaries (GET /summary): the whole trace,
   * then the latest finer one around the visible window. [] for local traces
   * (their store computes occupancy itself).
   */
  overviews: Occupancy[]
  /** A server window of exact events is being fetched. */
  loading: boolean
  /** The stored trace's record (counts per event type, ...); null for a local trace. */
  info: TracePublic | null
}

export const INITIAL_VIEW: TraceViewState = {
  zoom: { k: 1, x: 0 }, cursor: null, selection: null, filter: { comm: '', pid: '', types: [] }, expanded: [], want: null,
}

export const EMPTY_SESSION: TraceSessionState = {
  open: { status: 'empty' }, view: INITIAL_VIEW, overviews: [], loading: false, info: null,
}

/**
 * The same selection in a newly loaded window of the same trace: a slice by
 * its CPU and middle time, an event by its time, CPU and type (slice indices
 * and rows are per window).
 */
export function remapSelection(from: TraceStore, to: TraceStore, sel: Selection): Selection {
  if (!sel) return null
  if (sel.kind === 'slice') {
    const sl = from.slices.get(sel.cpu)
    if (!sl || sel.index >= sl.start.length) return null
    const index = sliceIndexAt(to, sel.cpu, (sl.start[sel.index] + sl.end[sel.index]) / 2)
    return index >= 0 ? { kind: 'slice', cpu: sel.cpu, index } : null
  }
  const c = from.columns
  const ts = c.ts[sel.row], cpu = c.cpu[sel.row], type = c.type[sel.row]
  const rows = to.byCpu.get(cpu)
  if (!rows) return null
  const tsOf = { length: rows.length, get: (k: number) => to.columns.ts[rows[k]] }
  let lo = 0, hi = tsOf.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (tsOf.get(mid) < ts) lo = mid + 1
    else hi = mid
  }
  for (let k = lo; k < rows.length && to.columns.ts[rows[k]] === ts; k++) {
    if (to.columns.type[rows[k]] === type) return { kind: 'event', row: rows[k] }
  }
  return null
}

export type TraceAction =
  | { type: 'opening'; name: string; phase: string; fraction: number; events: number }
  | { type: 'opened'; store: TraceStore; overviews?: Occupancy[]; info?: TracePublic }
  | { type: 'window'; store: TraceStore }
  | { type: 'overview'; overview: Occupancy }
  | { type: 'loading'; loading: boolean }
  | { type: 'failed'; name: string; message: string; notFound?: boolean }
  | { type: 'close' }
  | { type: 'zoom'; zoom: ZoomState }
  | { type: 'cursor'; t: number | null }
  | { type: 'select'; selection: Selection }
  | { type: 'filter'; filter: Partial<TraceViewState['filter']> }
  | { type: 'toggleGroup'; key: string }
  | { type: 'restore'; view: Pick<TraceViewState, 'cursor' | 'filter' | 'expanded' | 'want'> }

export function traceReducer(s: TraceSessionState, a: TraceAction): TraceSessionState {
  switch (a.type) {
    case 'opening':
      return { ...s, open: { status: 'opening', name: a.name, phase: a.phase, fraction: a.fraction, events: a.events } }
    case 'opened':
      return { open: { status: 'ready', store: a.store }, view: INITIAL_VIEW, overviews: a.overviews ?? [], loading: false,
        info: a.info ?? null }
    case 'window': {
      if (s.open.status !== 'ready') return s
      const selection = remapSelection(s.open.store, a.store, s.view.selection)
      return { ...s, open: { status: 'ready', store: a.store }, view: { ...s.view, selection }, loading: false }
    }
    case 'overview':
      return { ...s, overviews: s.overviews.length ? [s.overviews[0], a.overview] : [a.overview] }
    case 'loading':
      return { ...s, loading: a.loading }
    case 'failed':
      return { ...s, open: { status: 'error', name: a.name, message: a.message, notFound: a.notFound } }
    case 'close':
      return EMPTY_SESSION
    case 'zoom':
      return { ...s, view: { ...s.view, zoom: a.zoom, want: null } }
    case 'restore':
      return { ...s, view: { ...s.view, ...a.view } }
    case 'cursor':
      return { ...s, view: { ...s.view, cursor: a.t } }
    case 'select':
      return { ...s, view: { ...s.view, selection: a.selection } }
    case 'filter':
      return { ...s, view: { ...s.view, filter: { ...s.view.filter, ...a.filter } } }
    case 'toggleGroup': {
      const has = s.view.expanded.includes(a.key)
      return { ...s, view: { ...s.view, expanded: has ? s.view.expanded.filter((k) => k !== a.key) : [...s.view.expanded, a.key] } }
    }
  }
}

/** The view's filter as the store's query filter (pid text that is not a number is ignored). */
export function queryFilter(f: TraceViewState['filter']): EventFilter {
  const pid = /^\s*\d+\s*$/.test(f.pid) ? Number(f.pid) : undefined
  return { comm: f.comm.trim() || undefined, pid, types: f.types.length ? new Set(f.types) : undefined }
}

export function describeTraceError(err: unknown): string {
  if (err instanceof KscopeError) return err.message
  if (err instanceof Error) return err.message
  return String(err)
}

export function useTraceSession() {
  const [state, dispatch] = useReducer(traceReducer, EMPTY_SESSION)
  const generation = useRef(0)
  /** The open server trace and what of it is loaded (null for local traces). */
  const server = useRef<ServerSide | null>(null)

  const openLocal = useCallback(async (file: File) => {
    const gen = ++generation.current
    server.current = null
    dispatch({ type: 'opening', name: file.name, phase: 'reading', fraction: 0, events: 0 })
    try {
      let last = 0
      const t = await openTraceLocally(file, (p) => {
        const now = performance.now()
        if (gen !== generation.current || (now - last < 50 && p.phase === 'decode')) return
        last = now
        dispatch({ type: 'opening', name: file.name, phase: p.phase, fraction: p.bytesTotal ? p.bytesDone / p.bytesTotal : 0, events: p.events })
      })
      if (gen !== generation.current) return
      dispatch({ type: 'opened', store: openTraceStore({ ...t, origin: { kind: 'local' } }) })
    } catch (err) {
      if (gen === generation.current) dispatch({ type: 'failed', name: file.name, message: describeTraceError(err) })
    }
  }, [])

  const openServer = useCallback(async (id: string) => {
    const gen = ++generation.current
    server.current = null
    dispatch({ type: 'opening', name: id, phase: 'reading the summary', fraction: 0, events: 0 })
    try {
      const info = await getTrace(id)
      dispatch({ type: 'opening', name: info.name, phase: 'reading the summary', fraction: 0.3, events: 0 })
      const [sysfs, whole] = await Promise.all([
        fetchTopology(id),
        loadOverview(id, info.t_first_ns, info.t_last_ns + 1, 1000, info.t_first_ns, info.t_last_ns),
      ])
      if (gen !== generation.current) return
      const header = [
        ...(info.kernel ? [`# kscope: kernel=${info.kernel}`] : []),
        ...provenanceLines(info.provenance ?? { kind: 'measured' }),
        ...sysfs.split('\n').filter((l) => l.includes('\t')).map((l) => `# kscope-sysfs: ${l}`),
      ]
      const base: ServerTraceBase = {
        id, name: info.name, format: info.format, stats: statsFromPublic(info), header,
        t0: info.t_first_ns, t1: info.t_last_ns, cpus: whole.cpus, totalEvents: info.events,
      }
      server.current = { base, gen, loaded: null, overview: whole, timer: 0, windowAbort: null, overviewAbort: null }
      dispatch({ type: 'opened', store: emptyWindow(base), overviews: [whole], info })
    } catch (err) {
      // 404: not this browser's trace, and no working share token for it (the page says what that means).
      if (gen === generation.current) {
        dispatch({ type: 'failed', name: id, message: describeTraceError(err),
          notFound: err instanceof TraceApiError && err.status === 404 })
      }
    }
  }, [])

  /**
   * The timeline shows [start, end) over `width` px: fetch a finer summary
   * and, zoomed in, the window's exact events (server traces; debounced so a
   * wheel gesture fetches once it settles).
   */
  const viewport = useCallback((start: number, end: number, width: number) => {
    const sv = server.current
    if (!sv) return
    window.clearTimeout(sv.timer)
    sv.timer = window.setTimeout(() => {
      if (server.current !== sv) return
      // A compare view may show time past this trace's end: only its own span is fetched,
      // at the view's scale (ns per pixel).
      const nsPerPx = (end - start) / Math.max(1, width)
      start = Math.max(start, sv.base.t0)
      end = Math.min(end, sv.base.t1 + 1)
      if (end <= start) return
      width = Math.max(1, Math.round((end - start) / nsPerPx))
      if (!overviewServes(sv.overview, start, end, width)) {
        sv.overviewAbort?.abort()
        const abort = (sv.overviewAbort = new AbortController())
        loadOverview(sv.base.id, start, end, width, sv.base.t0, sv.base.t1, abort.signal).then((ov) => {
          if (server.current !== sv || abort.signal.aborted) return
          sv.overview = ov
          dispatch({ type: 'overview', overview: ov })
        }, () => { /* aborted or failed: the coarser overview stays */ })
      }
      const wantsEvents = wantsExactEvents(start, end, width, sv.base)
      if (wantsEvents && !windowServes(sv.loaded, start, end)) {
        sv.windowAbort?.abort()
        const abort = (sv.windowAbort = new AbortController())
        dispatch({ type: 'loading', loading: true })
        loadWindow(sv.base, start, end, abort.signal).then(({ store, lastTs }) => {
          if (server.current !== sv || abort.signal.aborted) return
          sv.loaded = { ...store.loaded!, lastTs }
          dispatch({ type: 'window', store })
        }, (err) => {
          if (server.current !== sv || abort.signal.aborted) return
          dispatch({ type: 'loading', loading: false })
          console.warn(`events window: ${describeTraceError(err)}`)
        })
      }
    }, VIEWPORT_DEBOUNCE_MS)
  }, [])

  const actions = useMemo(() => ({
    openLocal,
    openServer,
    viewport,
    close: () => { generation.current++; server.current = null; dispatch({ type: 'close' }) },
    zoom: (zoom: ZoomState) => dispatch({ type: 'zoom', zoom }),
    cursor: (t: number | null) => dispatch({ type: 'cursor', t }),
    select: (selection: Selection) => dispatch({ type: 'select', selection }),
    filter: (filter: Partial<TraceViewState['filter']>) => dispatch({ type: 'filter', filter }),
    toggleGroup: (key: string) => dispatch({ type: 'toggleGroup', key }),
    restore: (view: Pick<TraceViewState, 'cursor' | 'filter' | 'expanded' | 'want'>) => dispatch({ type: 'restore', view }),
  }), [openLocal, openServer, viewport])

  return { state, actions }
}

/** Quiet time after the last zoom/pan before fetching (ms). */
export const VIEWPORT_DEBOUNCE_MS = 60

interface ServerSide {
  base: ServerTraceBase
  gen: number
  loaded: { t0: number; t1: number; truncated: boolean; lastTs: number } | null
  overview: Occupancy | null
  timer: number
  windowAbort: AbortController | null
  overviewAbort: AbortController | null
}
