/*
 * The traces page's state: which trace is open (decoded here, or loaded from
 * the server), how far opening it has got, and what the user is looking at
 * (zoom, cursor, selection, filter, expanded CPU groups).
 *
 * User intents are named actions on a pure reducer (STYLE.md habit 5): the
 * timeline view only reports intents, it never mutates the store.
 */
import { useCallback, useMemo, useReducer, useRef } from 'react'
import { KscopeError, openTraceLocally } from '../engine/wasm_bridge'
import { columnsFromRows, fetchEventRows, getTrace, statsFromPublic } from './traces_api'
import { openTraceStore, type EventFilter, type TraceStore } from './trace_store'

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
}

export type OpenState =
  | { status: 'empty' }
  | { status: 'opening'; name: string; phase: string; fraction: number; events: number }
  | { status: 'error'; name: string; message: string }
  | { status: 'ready'; store: TraceStore }

export interface TraceSessionState {
  open: OpenState
  view: TraceViewState
}

export const INITIAL_VIEW: TraceViewState = {
  zoom: { k: 1, x: 0 }, cursor: null, selection: null, filter: { comm: '', pid: '', types: [] }, expanded: [],
}

export type TraceAction =
  | { type: 'opening'; name: string; phase: string; fraction: number; events: number }
  | { type: 'opened'; store: TraceStore }
  | { type: 'failed'; name: string; message: string }
  | { type: 'close' }
  | { type: 'zoom'; zoom: ZoomState }
  | { type: 'cursor'; t: number | null }
  | { type: 'select'; selection: Selection }
  | { type: 'filter'; filter: Partial<TraceViewState['filter']> }
  | { type: 'toggleGroup'; key: string }

export function traceReducer(s: TraceSessionState, a: TraceAction): TraceSessionState {
  switch (a.type) {
    case 'opening':
      return { ...s, open: { status: 'opening', name: a.name, phase: a.phase, fraction: a.fraction, events: a.events } }
    case 'opened':
      return { open: { status: 'ready', store: a.store }, view: INITIAL_VIEW }
    case 'failed':
      return { ...s, open: { status: 'error', name: a.name, message: a.message } }
    case 'close':
      return { open: { status: 'empty' }, view: INITIAL_VIEW }
    case 'zoom':
      return { ...s, view: { ...s.view, zoom: a.zoom } }
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

/** Most events loaded from the server at once (the API's default page). */
export const SERVER_EVENT_LIMIT = 1_000_000

export function useTraceSession() {
  const [state, dispatch] = useReducer(traceReducer, { open: { status: 'empty' }, view: INITIAL_VIEW })
  const generation = useRef(0)

  const openLocal = useCallback(async (file: File) => {
    const gen = ++generation.current
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
    dispatch({ type: 'opening', name: id, phase: 'loading events', fraction: 0, events: 0 })
    try {
      const info = await getTrace(id)
      dispatch({ type: 'opening', name: info.name, phase: 'loading events', fraction: 0.1, events: 0 })
      const rows = await fetchEventRows(id, SERVER_EVENT_LIMIT)
      if (gen !== generation.current) return
      const header = info.kernel ? [`# kscope: kernel=${info.kernel}`] : []
      dispatch({ type: 'opened', store: openTraceStore({ name: info.name, format: info.format, origin: { kind: 'server', id },
        columns: columnsFromRows(rows), stats: statsFromPublic(info), header }) })
    } catch (err) {
      if (gen === generation.current) dispatch({ type: 'failed', name: id, message: describeTraceError(err) })
    }
  }, [])

  const actions = useMemo(() => ({
    openLocal,
    openServer,
    close: () => { generation.current++; dispatch({ type: 'close' }) },
    zoom: (zoom: ZoomState) => dispatch({ type: 'zoom', zoom }),
    cursor: (t: number | null) => dispatch({ type: 'cursor', t }),
    select: (selection: Selection) => dispatch({ type: 'select', selection }),
    filter: (filter: Partial<TraceViewState['filter']>) => dispatch({ type: 'filter', filter }),
    toggleGroup: (key: string) => dispatch({ type: 'toggleGroup', key }),
  }), [openLocal, openServer])

  return { state, actions }
}
