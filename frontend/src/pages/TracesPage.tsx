/*
 * /traces: real kernel traces (MEASURED). The library (upload with progress,
 * list, open, delete), "Open locally" (decoded in this browser by the same C
 * decoders, never uploaded), and the open trace's timeline with its details.
 *
 * All names and field values come from user files: they are rendered as React
 * text only.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ChangeEvent } from 'react'
import { formatTraceUrl, parseTraceUrl, type TraceUrlState } from '../core/traces/trace_url'
import { TRACE_FILE_ACCEPT } from '../engine/compression'
import { deleteTrace, listTraces, receivedShareToken, uploadTrace, setShareToken, type TracePublic, type UploadProgress } from '../core/traces/traces_api'
import { describeTraceError, queryFilter, useTraceSession } from '../core/traces/trace_session'
import { EVENT_TYPES, type TraceStore } from '../core/traces/trace_store'
import { stepEvent } from '../core/traces/trace_step'
import { formatDuration } from '../core/shared/units'
import type { TraceProvenance } from '../core/traces/trace_meta'
import { CursorPanel, SelectionPanel } from '../views/timeline/Details'
import { ConformPanel, type ConformModel, type ConformState } from '../views/timeline/Conform'
import { conformModel } from '../models/registry'
import { CompareView } from '../views/timeline/Compare'
import { conformMarks, narrateDisagreement, parseConformResult, stepMark, windowForMark } from '../core/traces/trace_conform'
import { fetchConform } from '../core/traces/traces_api'
import { Timeline } from '../views/timeline'
import { TopologyAttach, UploadTopologyPick } from '../views/timeline/TopologyAttach'
import { TraceExport } from '../views/timeline/TraceExport'
import { WakeupPanel } from '../views/timeline/WakeupPanel'
import { TaskTimeline } from '../views/timeline/TaskTimeline'
import { AreaPanel } from '../views/timeline/AreaPanel'
import { EventList } from '../views/timeline/EventList'
import { SqlConsole } from '../views/timeline/SqlConsole'
import type { QueryTrack } from '../core/traces/trace_sql'
import { cpuTracks } from '../core/traces/trace_cpu_tracks'
import type { Area } from '../core/traces/trace_area'
import { LatencyPanel } from '../views/timeline/LatencyPanel'
import { flowsForSlice, type WaitRecord } from '../core/traces/trace_latency'
import { sliceIndexAt } from '../core/traces/trace_store'
import { useElementSize } from '../views/size'
import { AppHeader } from './AppHeader'
import { ErrorPanel } from './ErrorPanel'
import { PrivateTraceNote, SharePanel, sharesOf } from './TraceShare'
import { formatBytes, formatUploadTime } from './trace_library_format'
import './traces.css'

/** The model "check against model" replays a stored trace through (models/registry.ts), as the panel reads it. */
const CONFORM_MODEL: ConformModel | null = (() => {
  const m = conformModel()
  return m?.conform ? { id: m.id, runs: m.variants.runs, compares: m.conform.compares } : null
})()
/** The panel's model when none has a check (the panel then only says so). */
const NO_CONFORM_MODEL: ConformModel = { id: '', runs: [], compares: '' }

/** Play speeds: trace time per second of wall time. */
const PLAY_SPEEDS = [
  { ns: 100_000, label: '0.1 ms of trace per second' },
  { ns: 1_000_000, label: '1 ms of trace per second' },
  { ns: 10_000_000, label: '10 ms of trace per second' },
  { ns: 100_000_000, label: '100 ms of trace per second' },
]
const PLAY_TICK_MS = 100
const URL_WRITE_MS = 250



export function TracesPage({ navigate }: { navigate: (href: string) => void }) {
  const { state, actions } = useTraceSession()
  const open = state.open
  const [compare, setCompare] = useState<[string, string] | null>(null)
  const [compareInitial, setCompareInitial] = useState<{ window: { start: number; end: number } | null; cursor: number | null }>()

  // A link with ?trace=ID&from=..&to=.. reopens that stored trace and view (core/trace_url.ts).
  const pending = useRef<TraceUrlState | null>(null)
  useEffect(() => {
    const u = parseTraceUrl(window.location.search)
    // A share link's read-only tokens go with that trace's reads (core/traces_api.ts).
    if (u.trace && u.share) setShareToken(u.trace, u.share)
    if (u.vs && u.vsShare) setShareToken(u.vs, u.vsShare)
    if (u.trace && u.vs) {
      setCompareInitial({ window: u.window, cursor: u.cursor })
      setCompare([u.trace, u.vs])
    }
    else if (u.trace) {
      pending.current = u
      void actions.openServer(u.trace)
    }
  }, [actions])
  useEffect(() => {
    const u = pending.current
    if (!u || open.status !== 'ready' || open.store.origin.kind !== 'server' || open.store.origin.id !== u.trace) return
    pending.current = null
    actions.restore({ cursor: u.cursor, filter: u.filter, expanded: u.expanded, want: u.window })
  }, [open, actions])
  const close = useCallback(() => {
    actions.close()
    setCompare(null)
    window.history.replaceState(null, '', '/traces')
  }, [actions])
  const openCompare = useCallback((ids: [string, string]) => {
    setCompareInitial(undefined)
    setCompare(ids)
    window.history.replaceState(null, '', formatTraceUrl({ trace: ids[0], vs: ids[1], window: null, cursor: null,
      filter: { comm: '', pid: '', types: [] }, expanded: [], ...sharesOf(ids[0], ids[1]) }))
  }, [])

  // Compare's URL: both ids, and the shared window and cursor in ns since the traces' starts.
  const compareUrlAt = useRef(0)
  const onCompareView = useCallback((v: { window: { start: number; end: number } | null; cursor: number | null }) => {
    if (!compare) return
    window.clearTimeout(compareUrlAt.current)
    compareUrlAt.current = window.setTimeout(() => {
      window.history.replaceState(null, '', formatTraceUrl({ trace: compare[0], vs: compare[1], window: v.window, cursor: v.cursor,
        filter: { comm: '', pid: '', types: [] }, expanded: [], ...sharesOf(compare[0], compare[1]) }))
    }, URL_WRITE_MS)
  }, [compare])

  if (compare) {
    return (
      <>
        <AppHeader page="traces" navigate={navigate} compact>
          <button type="button" className="button" onClick={close} data-testid="close-trace">Back to the library</button>
          <SharePanel ids={compare} />
        </AppHeader>
        <CompareView ids={compare} initial={compareInitial} onView={onCompareView} />
      </>
    )
  }

  return (
    <>
      <AppHeader page="traces" navigate={navigate} compact>
        {open.status === 'ready' && (
          <button type="button" className="button" onClick={close} data-testid="close-trace">
            Back to the library
          </button>
        )}
        {open.status === 'ready' && open.store.origin.kind === 'server' && <SharePanel ids={[open.store.origin.id]} />}
      </AppHeader>
      {open.status !== 'ready' && <Library onOpenLocal={actions.openLocal} onOpenServer={actions.openServer} onCompare={openCompare} />}
      {open.status === 'opening' && (
        <section className="open-progress" role="status" data-testid="open-progress">
          <span>Opening {open.name}: {open.phase}…</span>
          <progress max={1} value={open.fraction} aria-label="Opening progress" />
          <span>{Math.round(open.fraction * 100)}% · {open.events.toLocaleString('en')} events</span>
        </section>
      )}
      {open.status === 'error' && (open.notFound
        ? <PrivateTraceNote id={open.name} message={open.message} viaShare={!!receivedShareToken(open.name)} />
        : <ErrorPanel title={`Could not open ${open.name}`} message={open.message} />
      )}
      {open.status === 'ready' && <TraceView store={open.store} session={{ state, actions }} />}
    </>
  )
}

/* ---------- the library ---------- */

function Library({ onOpenLocal, onOpenServer, onCompare }: {
  onOpenLocal: (f: File) => void; onOpenServer: (id: string) => void; onCompare: (ids: [string, string]) => void
}) {
  const [picked, setPicked] = useState<string[]>([])
  const togglePick = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p.slice(-1), id]))
  const [traces, setTraces] = useState<TracePublic[] | null>(null)
  const [listError, setListError] = useState('')
  const [upload, setUpload] = useState<{ name: string; p: UploadProgress } | null>(null)
  const [uploadError, setUploadError] = useState('')
  const [uploadTopology, setUploadTopology] = useState<File | null>(null)

  const refresh = useCallback(() => {
    listTraces().then((t) => { setTraces(t); setListError('') }, (e) => setListError(describeTraceError(e)))
  }, [])
  useEffect(refresh, [refresh])

  const onUpload = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0]
    e.target.value = ''
    if (!file) return
    setUploadError('')
    setUpload({ name: file.name, p: { phase: 'upload', fraction: 0, events: 0 } })
    uploadTrace(file, (p) => setUpload({ name: file.name, p }), uploadTopology).then(
      () => { setUpload(null); setUploadTopology(null); refresh() },
      (err) => { setUpload(null); setUploadError(`${file.name}: ${describeTraceError(err)}`) },
    )
  }

  const onLocal = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0]
    e.target.value = ''
    if (file) onOpenLocal(file)
  }

  const onDelete = (t: TracePublic) => {
    if (!window.confirm(`Delete the stored trace "${t.name}"?`)) return
    deleteTrace(t.id).then(refresh, (e) => setListError(describeTraceError(e)))
  }

  return (
    <main className="library">
      <section className="panel library-actions">
        <h2>Open a real kernel trace</h2>
        <p className="hint">
          ftrace text (tracefs <code>trace</code>), <code>trace-cmd report</code> text, <code>trace.dat</code> v6/v7,
          {' '}<code>perf script</code>, systrace HTML; plain or compressed (gzip, xz, zstd, or a zip holding one trace).
        </p>
        <div className="library-buttons">
          <label className="button file-button">
            Open locally…
            <input type="file" accept={TRACE_FILE_ACCEPT} onChange={onLocal} data-testid="open-local" className="visually-hidden" />
          </label>
          <span className="hint">decoded in this browser, never uploaded</span>
        </div>
        <div className="library-buttons">
          <label className="button file-button">
            Upload to the server…
            <input type="file" accept={TRACE_FILE_ACCEPT} onChange={onUpload} data-testid="upload" className="visually-hidden" />
          </label>
          <span className="hint">stored with your browser’s owner token; only you see it</span>
        </div>
        <UploadTopologyPick file={uploadTopology} onPick={setUploadTopology} />
        {upload && (
          <div className="open-progress" role="status" data-testid="upload-progress">
            <span>{upload.name}: {upload.p.phase}</span>
            <progress max={1} value={upload.p.fraction} aria-label="Upload progress" />
            <span>{Math.round(upload.p.fraction * 100)}%{upload.p.events ? ` · ${upload.p.events.toLocaleString('en')} events` : ''}</span>
          </div>
        )}
        {uploadError && <ErrorPanel title="Upload failed" message={uploadError} />}
      </section>

      <section className="panel library-list">
        <h2>Your stored traces</h2>
        {traces && traces.length > 1 && (
          <p className="hint compare-pick-hint">
            Tick two traces (two captures, or a capture and a simulation exported with <code>kscope sim --export ftrace</code>)
            to see them in lockstep.{' '}
            <button type="button" className="button" disabled={picked.length !== 2} data-testid="compare-open"
              onClick={() => onCompare([picked[0], picked[1]])}>
              Compare the two{picked.length !== 2 ? ` (${picked.length} of 2 ticked)` : ''}
            </button>
          </p>
        )}
        {listError && <ErrorPanel title="Could not list the stored traces" message={listError} />}
        {traces && traces.length === 0 && <p className="hint">None yet: upload one above.</p>}
        {traces && traces.length > 0 && (
          <table className="trace-table" data-testid="trace-list">
            <colgroup>
              <col className="col-name" /><col className="col-format" /><col className="col-kernel" />
              <col className="col-cpus" /><col className="col-duration" /><col className="col-events" />
              <col className="col-malformed" /><col className="col-compare" /><col className="col-actions" />
            </colgroup>
            <thead>
              <tr>
                <th scope="col">name · uploaded · size · #id</th><th scope="col">format</th><th scope="col">kernel</th>
                <th scope="col" className="num">CPUs</th><th scope="col" className="num">duration</th>
                <th scope="col" className="num">events</th><th scope="col" className="num" title="malformed lines">bad lines</th>
                <th scope="col">compare</th>
                <th scope="col"><span className="visually-hidden">actions</span></th>
              </tr>
            </thead>
            <tbody>
              {traces.map((t) => (
                <tr key={t.id} data-testid="trace-row">
                  <td className="trace-cell">
                    <span className="trace-name" title={t.name} data-testid="trace-row-name">{t.name}</span>
                    <span className="trace-upload" data-testid="trace-row-upload">
                      <time dateTime={t.created_at} title={`uploaded ${t.created_at} (UTC)`}>{formatUploadTime(t.created_at)}</time>
                      {' · '}<span title={`${t.bytes_in.toLocaleString('en')} bytes as uploaded`}>{formatBytes(t.bytes_in)}</span>
                      {' · '}<span title={`trace id ${t.id}`}>#{t.id.slice(0, 6)}</span>
                    </span>
                  </td>
                  <td className="clip" title={t.format}>
                    {t.format}
                    {t.provenance?.kind === 'modelled' && (
                      <> <span className="modelled-tag row-modelled" data-testid="trace-row-modelled"
                        title={`A kscope simulator export (workload ${t.provenance.workload ?? '?'}, seed ${t.provenance.seed ?? '?'}): modelled, not measured`}>MODELLED</span></>
                    )}
                  </td>
                  <td className="clip" title={t.kernel || undefined}>{t.kernel || '—'}</td>
                  <td className="num">{t.cpus}</td>
                  <td className="num">{formatDuration(t.t_last_ns - t.t_first_ns)}</td>
                  <td className="num" data-testid="trace-row-events">{t.events.toLocaleString('en')}</td>
                  <td className="num">{t.malformed_lines}</td>
                  <td>
                    <input type="checkbox" checked={picked.includes(t.id)} onChange={() => togglePick(t.id)}
                      aria-label={`Compare ${t.name}`} data-testid="compare-pick" />
                  </td>
                  <td>
                    <div className="row-actions">
                      <button type="button" className="button" onClick={() => onOpenServer(t.id)} data-testid="trace-row-open"
                        aria-label={`Open ${t.name}`}>Open</button>
                      <button type="button" className="button danger" onClick={() => onDelete(t)} data-testid="trace-row-delete"
                        aria-label={`Delete ${t.name}`}>Delete</button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </main>
  )
}

/* ---------- an open trace ---------- */

type Session = ReturnType<typeof useTraceSession>

function TraceView({ store, session }: { store: TraceStore; session: Session }) {
  const { state, actions } = session
  const view = state.view
  const filter = useMemo(() => queryFilter(view.filter), [view.filter])
  const [boxRef, size] = useElementSize<HTMLDivElement>()
  const st = store.stats
  const duration = store.t1 - store.t0
  // The view in the URL (stored traces only: a local file cannot be reopened from a link).
  const lastWindow = useRef<{ start: number; end: number } | null>(null)
  // The visible window as state for the panels that summarise it (settled: not every zoom frame).
  const [shownWindow, setShownWindow] = useState<{ start: number; end: number } | null>(null)
  const shownTimer = useRef(0)
  const onViewport = useCallback((start: number, end: number, width: number) => {
    lastWindow.current = { start, end }
    actions.viewport(start, end, width)
    window.clearTimeout(shownTimer.current)
    shownTimer.current = window.setTimeout(() => setShownWindow({ start, end }), 150)
  }, [actions])
  useEffect(() => () => window.clearTimeout(shownTimer.current), [])
  // Lanes per CPU, per task (thread states, grouped by process), or both one above the other.
  const [lanes, setLanes] = useState<'cpu' | 'task' | 'both'>('cpu')
  const [taskQuery, setTaskQuery] = useState('')
  const [showList, setShowList] = useState(false)
  // The timeline box's height shared out: CPU lanes, task lanes, the event list.
  const heights = (h: number) => {
    const list = showList ? Math.max(220, Math.round(h * 0.4)) : 0
    const rest = Math.max(240, h - list - (showList ? 8 : 0))
    const cpu = lanes === 'both' ? Math.max(200, Math.round(rest * 0.45)) : Math.max(200, rest)
    return { cpu, task: lanes === 'both' ? Math.max(240, rest - cpu - 8) : Math.max(240, rest), list }
  }
  const pickEvent = useCallback((row: number) => {
    actions.cursor(store.columns.ts[row])
    actions.select({ kind: 'event', row })
  }, [actions, store])
  const [pinned, setPinned] = useState<number[]>([])
  const togglePin = useCallback((pid: number) => setPinned((p) => (p.includes(pid) ? p.filter((x) => x !== pid) : [...p, pid])), [])
  // The selected slice's wakeup, wait and the tasks it woke, as arrows (core/traces/trace_latency.ts).
  const flows = useMemo(() => (view.selection?.kind === 'slice'
    ? flowsForSlice(store, view.selection.cpu, view.selection.index, formatDuration) : []), [store, view.selection])
  const showSpan = useCallback((start: number, end: number, cursor: number) => {
    actions.restore({ cursor, filter: view.filter, expanded: view.expanded, want: { start, end } })
  }, [actions, view.filter, view.expanded])
  const pickWait = useCallback((w: WaitRecord) => {
    const index = sliceIndexAt(store, w.cpu, w.runAt)
    if (index >= 0) actions.select({ kind: 'slice', cpu: w.cpu, index })
    const pad = Math.max(2000, (w.runAt - w.runnableAt) * 0.3)
    showSpan(w.runnableAt - pad, w.runAt + pad, w.runAt)
  }, [store, actions, showSpan])
  const serverId = store.origin.kind === 'server' ? store.origin.id : null
  // The selected area and markers A, B (both in the URL; a link to this trace restores them).
  const fromUrl = useMemo(() => {
    const u = parseTraceUrl(window.location.search)
    return serverId && u.trace === serverId ? u : null
  }, [serverId])
  // Whole ns, as the URL writes them (a link restores exactly what was shown).
  const [area, setAreaRaw] = useState<Area | null>(fromUrl?.area ?? null)
  const setArea = useCallback((a: Area | null) => setAreaRaw(a && { ...a, start: Math.floor(a.start), end: Math.ceil(a.end) }), [])
  const [markers, setMarkersRaw] = useState<[number | null, number | null] | null>(fromUrl?.markers ?? null)
  const setMarkers = useCallback((m: [number | null, number | null] | null) => {
    setMarkersRaw(m && [m[0] === null ? null : Math.round(m[0]), m[1] === null ? null : Math.round(m[1])])
  }, [])
  const [queries, setQueries] = useState<string[]>(fromUrl?.queries ?? [])
  const [queryTrack, setQueryTrack] = useState<{ track: QueryTrack; sql: string } | null>(null)
  const setMarker = useCallback((which: 0 | 1, t: number) => {
    setMarkersRaw((m) => (which === 0 ? [Math.round(t), m?.[1] ?? null] : [m?.[0] ?? null, Math.round(t)]))
  }, [])
  const latencyScopes = useMemo(() => [
    // [start, end): a window reaching the trace's last event includes it.
    { id: 'visible', label: 'the visible window', window: shownWindow
      ? { start: shownWindow.start, end: shownWindow.end >= store.t1 ? store.t1 + 1 : shownWindow.end } : { start: store.t0, end: store.t1 + 1 } },
    { id: 'whole', label: store.loaded ? 'the loaded events' : 'the whole trace', window: { start: store.t0, end: store.t1 + 1 } },
    ...(area ? [{ id: 'area', label: 'the selected area', window: { start: area.start, end: area.end }, cpus: new Set(area.cpus) }] : []),
  ], [shownWindow, store, area])
  // Written at most every URL_WRITE_MS (a throttle, not a debounce: while playing, the view changes
  // ten times a second and the URL still follows).
  const lastUrlWrite = useRef(0)
  useEffect(() => {
    if (!serverId) return
    const write = () => {
      lastUrlWrite.current = performance.now()
      const href = formatTraceUrl({ trace: serverId, vs: null, window: view.want ?? lastWindow.current, cursor: view.cursor,
        filter: view.filter, expanded: view.expanded, area, markers, queries, ...sharesOf(serverId, null) })
      if (href !== window.location.pathname + window.location.search) window.history.replaceState(null, '', href)
    }
    const t = window.setTimeout(write, Math.max(0, URL_WRITE_MS - (performance.now() - lastUrlWrite.current)))
    return () => window.clearTimeout(t)
  }, [serverId, view, area, markers, queries])
  // Play: the cursor moves forward at `speed` ns of trace per second of wall time, ten
  // times a second; the view follows it (a window's width, the cursor a tenth in).
  const [playing, setPlaying] = useState(false)
  const [speed, setSpeed] = useState(PLAY_SPEEDS[1].ns)
  const playRef = useRef({ cursor: view.cursor, view, speed })
  playRef.current = { cursor: view.cursor, view, speed }
  useEffect(() => {
    if (!playing) return
    const tick = window.setInterval(() => {
      const p = playRef.current
      const w = lastWindow.current ?? { start: store.t0, end: store.t1 }
      const from = p.cursor !== null && p.cursor >= w.start && p.cursor <= w.end ? p.cursor : w.start
      const t = from + p.speed * (PLAY_TICK_MS / 1000)
      if (t > store.t1) {
        setPlaying(false)
        return
      }
      if (t > w.end) {
        const span = w.end - w.start
        actions.restore({ cursor: t, filter: p.view.filter, expanded: p.view.expanded, want: { start: t - span * 0.1, end: t + span * 0.9 } })
      } else actions.cursor(t)
    }, PLAY_TICK_MS)
    return () => window.clearInterval(tick)
  }, [playing, store, actions])
  const togglePlay = useCallback(() => setPlaying((p) => !p), [])

  // Step to the next/previous event (keys Shift+← →, and the buttons): from the store, or the server.
  const pendingStep = useRef<{ ts: number; cpu: number; type: number } | null>(null)
  const [stepNote, setStepNote] = useState('')
  const stepping = useRef(false)
  const onStepEvent = useCallback((dir: 1 | -1) => {
    if (stepping.current) return
    stepping.current = true
    const from = view.cursor ?? (lastWindow.current?.start ?? store.t0) - 1
    stepEvent(store, from, filter, dir).then((r) => {
      if (!r) {
        setStepNote(dir > 0 ? 'No later event passes the filter.' : 'No earlier event passes the filter.')
        return
      }
      setStepNote('')
      actions.cursor(r.ts)
      if (r.kind === 'row') {
        actions.select({ kind: 'event', row: r.row })
        return
      }
      // Outside the loaded window: show it there (same span, centred); selected once its events load.
      pendingStep.current = { ts: r.ts, cpu: r.cpu, type: (EVENT_TYPES as readonly string[]).indexOf(r.type) }
      const w = lastWindow.current ?? { start: store.t0, end: store.t1 }
      const half = (w.end - w.start) / 2
      actions.restore({ cursor: r.ts, filter: view.filter, expanded: view.expanded, want: { start: r.ts - half, end: r.ts + half } })
    }, (err) => setStepNote(describeTraceError(err))).finally(() => { stepping.current = false })
  }, [store, filter, view.cursor, view.filter, view.expanded, actions])
  // Selects the pending event once the loaded window holds it (now, or when its events arrive).
  const resolvePending = useCallback(() => {
    const p = pendingStep.current
    if (!p || !store.loaded || p.ts < store.loaded.t0 || p.ts >= store.loaded.t1) return
    pendingStep.current = null
    const rows = store.byCpu.get(p.cpu)
    if (!rows) return
    for (const row of rows) {
      if (store.columns.ts[row] === p.ts && store.columns.type[row] === p.type) {
        actions.select({ kind: 'event', row })
        return
      }
    }
  }, [store, actions])
  useEffect(resolvePending, [resolvePending])
  const [conform, setConform] = useState<ConformState>({ status: 'idle' })
  const [selectedMark, setSelectedMark] = useState(-1)
  const traceId = store.origin.kind === 'server' ? store.origin.id : null
  const rseq = state.info?.by_type?.rseq_update ?? 0
  const unavailable = !CONFORM_MODEL ? 'No model kscope teaches has a conformance check.' : !traceId
    ? 'The check runs on the server: upload this trace to check it against the model.'
    : !rseq ? 'This trace has no rseq_update events (record rseq:rseq_update with the scheduler events to check it).' : ''
  // Every failure lands on the page: the request's, and a bad answer's (ConformShapeError), never a silent hang.
  const runConform = useCallback((variant: string) => {
    if (!traceId || !CONFORM_MODEL) return
    const before = conform
    setConform({ status: 'running', variant })
    fetchConform(traceId, CONFORM_MODEL.id, variant)
      .then((json) => {
        const result = parseConformResult(json)
        const figures = result.variant_from === 'inferred' ? result.variants
          : before.status === 'done' ? before.figures : null
        setConform({ status: 'done', result, marks: conformMarks(result, store), figures })
        setSelectedMark(-1)
      })
      .catch((err) => setConform({ status: 'error', message: describeTraceError(err), variant }))
    // The trace (not its loaded window) decides the answer.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [traceId, conform])
  const marks = conform.status === 'done' ? conform.marks : null
  // A disagreement ([ ], the buttons, a click on its diamond): zoom to it, where the exact events load,
  // and select its rseq_update, so Details explains it and "At the cursor" shows who ran.
  const selectMark = useCallback((k: number) => {
    if (!marks || k < 0) return
    setSelectedMark(k)
    const ts = marks.ts[k]
    const want = windowForMark(ts, lastWindow.current, size?.width ?? 1000,
      { t0: store.t0, t1: store.t1, totalEvents: store.totalEvents })
    pendingStep.current = { ts, cpu: marks.cpu[k], type: (EVENT_TYPES as readonly string[]).indexOf('rseq_update') }
    actions.restore({ cursor: ts, filter: view.filter, expanded: view.expanded, want })
    resolvePending()
  }, [marks, actions, store, size, view.filter, view.expanded, resolvePending])
  const markNote = conform.status === 'done' && selectedMark >= 0 && view.selection?.kind === 'event'
    && store.columns.ts[view.selection.row] === marks?.ts[selectedMark]
    && store.columns.cpu[view.selection.row] === marks?.cpu[selectedMark]
    ? conform.result.disagreements[marks.index[selectedMark]] : null
  const stepConform = useCallback((dir: 1 | -1) => {
    if (!marks) return
    selectMark(stepMark(marks, selectedMark, view.cursor ?? store.t0 - 1, dir))
  }, [marks, selectedMark, view.cursor, store.t0, selectMark])

  // Where the check can run it leads the side panels; where it cannot, a note below them.
  const conformPanel = (
    <ConformPanel model={CONFORM_MODEL ?? NO_CONFORM_MODEL} state={conform} unavailable={unavailable} selected={selectedMark} t0={store.t0} onRun={runConform}
      onStep={stepConform} />
  )

  return (
    <>
      <p className="summary trace-summary" data-testid="trace-summary">
        <ProvenanceBadge provenance={store.meta.provenance} />
        {' '}<span className="trace-name">{store.name}</span>
        {' · '}{st.format}{store.meta.kernel ? ` · Linux ${store.meta.kernel}` : ''}
        {' · '}{store.cpus.length} CPUs with events
        {' · '}{formatDuration(duration)}
        {' · '}<span data-testid="event-count">{store.totalEvents.toLocaleString('en')}</span> events
        {st.buffers && (st.buffers.length > 1 || st.buffers.some((b) => b.name)) && (
          <span data-testid="trace-buffers">
            {' · trace buffers: '}{st.buffers.map((b) => `${b.name || 'top'} ${b.events.toLocaleString('en')}`).join(', ')}
          </span>
        )}
        <span className="provenance">
          {' '}(decoder count <span data-testid="decoder-count">{st.events.toLocaleString('en')}</span>
          {store.origin.kind === 'local' ? ', decoded in this browser' : ', from the server'}
          {store.loaded && (
            <span data-testid="loaded-window">
              {'; '}{store.loaded.t1 > store.loaded.t0
                ? `exact events loaded for ${formatDuration(store.loaded.t0 - store.t0)}–${formatDuration(Math.min(store.loaded.t1, store.t1) - store.t0)} (${store.columns.count.toLocaleString('en')}${store.loaded.truncated ? ', the window’s first ones' : ''}), summaries elsewhere`
                : 'zoomed out: drawn from the server’s summaries'}
              {state.loading ? ' · loading events…' : ''}
            </span>
          )}
          {st.malformed ? `; ${st.malformed} malformed lines` : ''}
          {st.firstError ? `, first at ${st.firstError.line ? `line ${st.firstError.line}` : `offset ${st.firstError.offset}`}: ${st.firstError.message}` : ''}
          {st.lostEvents ? `; ${st.lostEvents} events lost by the ring buffer` : ''}
          {store.switchGaps ? `; ${store.switchGaps} switches missing from the trace, their slices inferred (dashed)` : ''}
          <CpuTracksNote store={store} />)
        </span>
      </p>
      {store.origin.kind === 'server' && (
        <TopologyAttach traceId={store.origin.id} hasTopology={store.meta.topology !== null}
          onAttached={() => { void actions.openServer((store.origin as { id: string }).id) }} />
      )}
      {store.origin.kind === 'server' && (
        <TraceExport traceId={store.origin.id} currentWindow={() => lastWindow.current} />
      )}
      <FilterBar view={view} onFilter={actions.filter} />
      <div className="step-bar" role="group" aria-label="Step through events">
        <button type="button" className="button" onClick={() => onStepEvent(-1)} data-testid="step-back" aria-keyshortcuts="Shift+ArrowLeft">◀ previous event</button>
        <button type="button" className="button" onClick={() => onStepEvent(1)} data-testid="step-next" aria-keyshortcuts="Shift+ArrowRight">next event ▶</button>
        <button type="button" className="button" onClick={togglePlay} data-testid="play" aria-pressed={playing}
          aria-keyshortcuts="Space">{playing ? '❚❚ pause' : '▶ play'}</button>
        <label className="hint">
          speed{' '}
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))} data-testid="play-speed">
            {PLAY_SPEEDS.map((p) => <option key={p.ns} value={p.ns}>{p.label}</option>)}
          </select>
        </label>
        <label className="hint">
          lanes{' '}
          <select value={lanes} onChange={(e) => setLanes(e.target.value as typeof lanes)} data-testid="lanes-mode">
            <option value="cpu">per CPU</option>
            <option value="task">per task (thread states)</option>
            <option value="both">per CPU and per task</option>
          </select>
        </label>
        <label className="hint">
          <input type="checkbox" checked={showList} onChange={(e) => setShowList(e.target.checked)} data-testid="event-list-toggle" />
          {' '}event list
        </label>
        {stepNote && <span className="hint" role="status">{stepNote}</span>}
      </div>
      <main className="trace-main">
        <div className="trace-timeline" ref={boxRef}>
          {size && lanes !== 'task' && (
            <Timeline store={store} view={view} filter={filter} width={size.width}
              height={heights(size.height).cpu}
              onZoom={actions.zoom} onCursor={actions.cursor} onSelect={actions.select} onToggleGroup={actions.toggleGroup}
              overviews={state.overviews} loading={state.loading} onViewport={onViewport}
              marks={marks} selectedMark={selectedMark} onSelectMark={selectMark} onStepMark={stepConform}
              onStepEvent={onStepEvent} onTogglePlay={togglePlay} flows={flows}
              area={area} markers={markers} onArea={setArea} onMarker={setMarker} queryTrack={queryTrack?.track ?? null} />
          )}
          {size && lanes !== 'cpu' && (
            <TaskTimeline store={store} zoom={view.zoom} cursor={view.cursor} selection={view.selection} width={size.width}
              height={heights(size.height).task}
              query={taskQuery} pinned={pinned} onQuery={setTaskQuery} onTogglePin={togglePin}
              onZoom={actions.zoom} onCursor={actions.cursor} onSelect={actions.select} flows={flows} markers={markers}
              onViewport={lanes === 'task' ? onViewport : undefined} />
          )}
          {size && showList && (
            <EventList store={store} window={latencyScopes[0].window} filter={filter} cursor={view.cursor}
              selectedRow={view.selection?.kind === 'event' ? view.selection.row : -1} height={heights(size.height).list} onPick={pickEvent} />
          )}
        </div>
        <aside className="side trace-side">
          {!unavailable && conformPanel}
          <SelectionPanel store={store} selection={view.selection}>
            {markNote && conform.status === 'done' && (
              <div className="narration conform-narration" data-testid="details-disagreement">
                <h3>Model disagreement here</h3>
                {narrateDisagreement(markNote, conform.result, store.t0).map((line) => <p key={line}>{line}</p>)}
              </div>
            )}
          </SelectionPanel>
          <WakeupPanel store={store} selection={view.selection} onSelect={actions.select} onShow={showSpan} />
          <AreaPanel store={store} area={area} markers={markers} cursor={view.cursor} onArea={setArea} onMarkers={setMarkers}
            onShow={(a, b) => showSpan(a - (b - a) * 0.05, b + (b - a) * 0.05, view.cursor ?? a)} />
          <LatencyPanel store={store} scopes={latencyScopes} onPick={pickWait} />
          <SqlConsole traceId={serverId} saved={queries} onSaved={setQueries} trackShown={queryTrack !== null}
            onTrack={(track, sql) => setQueryTrack(track ? { track, sql } : null)}
            onJump={(ts) => {
              const w = lastWindow.current ?? { start: store.t0, end: store.t1 }
              const half = Math.min((w.end - w.start) / 2, 5e6)
              showSpan(ts - half, ts + half, ts)
            }} />
          <CursorPanel store={store} cursor={view.cursor} />
          {unavailable && conformPanel}
          <TraceLegend provenance={store.meta.provenance} />
        </aside>
      </main>
    </>
  )
}

/** What of irq / softirq / idle / frequency / sched_stat the trace holds (drawn in the lanes when zoomed in). */
function CpuTracksNote({ store }: { store: TraceStore }) {
  const n = useMemo(() => cpuTracks(store).counts, [store])
  const parts = [n.irq && `${n.irq.toLocaleString('en')} hardirq`, n.softirq && `${n.softirq.toLocaleString('en')} softirq`,
    n.idle && `${n.idle.toLocaleString('en')} idle-state`, n.freq && `${n.freq.toLocaleString('en')} frequency`,
    n.stat && `${n.stat.toLocaleString('en')} sched_stat`].filter(Boolean)
  if (!parts.length) return null
  return <span data-testid="cpu-tracks-note">; also {parts.join(', ')} events, drawn in the lanes when zoomed in</span>
}

function FilterBar({ view, onFilter }: { view: Session['state']['view']; onFilter: Session['actions']['filter'] }) {
  const type = view.filter.types[0] ?? -1
  return (
    <form className="filter-bar" onSubmit={(e) => e.preventDefault()} aria-label="Filter the trace">
      <label>
        task name contains
        <input type="search" value={view.filter.comm} onChange={(e) => onFilter({ comm: e.target.value })} data-testid="filter-comm" />
      </label>
      <label>
        pid
        <input type="search" inputMode="numeric" className="pid" value={view.filter.pid}
          onChange={(e) => onFilter({ pid: e.target.value })} data-testid="filter-pid" />
      </label>
      <label>
        event type
        <select value={type} onChange={(e) => onFilter({ types: Number(e.target.value) >= 0 ? [Number(e.target.value)] : [] })}
          data-testid="filter-type">
          <option value={-1}>all</option>
          {EVENT_TYPES.map((t, i) => <option key={t} value={i}>{t === 'generic' ? 'other (generic)' : t}</option>)}
        </select>
      </label>
      <span className="hint">Keys on the timeline: ← → pan · + − zoom · Home all · Shift+← → events · ↑ ↓ slice on a CPU · Enter zoom to it · Space play · [ ] model disagreements · m / Shift+M markers A / B · a area A–B · Shift+drag an area</span>
    </form>
  )
}

/**
 * MEASURED (a real kernel's trace) or MODELLED (a kscope simulator export, whose header
 * says so: trace_meta.ts), with the simulated run's workload and seed.
 */
function ProvenanceBadge({ provenance }: { provenance: TraceProvenance }) {
  if (provenance.kind === 'measured') {
    return <span className="measured" data-testid="provenance" title="Decoded from a real kernel trace: nothing here is modelled">MEASURED</span>
  }
  const run = [provenance.workload && `workload ${provenance.workload}`, provenance.seed && `seed ${provenance.seed}`,
    provenance.algo && `model ${provenance.algo}`].filter(Boolean).join(', ')
  return (
    <span className="measured modelled-trace" data-testid="provenance"
      title={`Written by kscope's simulator (${provenance.generator ?? 'kscope sim'}): every event is modelled, not measured on a real kernel`}>
      MODELLED{run ? <span className="provenance-run"> ({run})</span> : null}
    </span>
  )
}

function TraceLegend({ provenance }: { provenance: TraceProvenance }) {
  return (
    <section className="panel legend trace-legend" aria-label="Legend">
      <h2>Legend</h2>
      <ul>
        <li><span className="swatch" style={{ background: '#0072B2' }} /> a task running: colour and hatch per process, name and pid written on it when wide enough</li>
        <li><span className="swatch" style={{ background: '#fff', border: '1px solid #888' }} /> no fill: the CPU is idle</li>
        <li><span className="swatch" style={{ background: '#fff', border: '2px dashed #1a1a1a' }} /> dashed outline: not recorded in full (the trace lacks the switch to it, or it still ran when the trace ended)</li>
        <li><span className="swatch" style={{ background: 'linear-gradient(to top, #0072B2 60%, #fff 60%)', border: '1px solid #888' }} /> zoomed out: bar height = fraction of time busy; colour = the process that ran longest there (grey for a stored trace: the server’s summaries give busy time only)</li>
        <li><span className="swatch" style={{ background: 'linear-gradient(to right, rgb(245,245,245), rgb(55,55,55))' }} /> a collapsed CPU group (▸): light to dark = its CPUs’ mean busy fraction; click to expand</li>
        <li><span className="swatch tick" /> tick on a lane’s top edge: an event (wakeup, migration, …)</li>
        <li><span className="swatch migrate" aria-hidden="true">●→</span> dot to arrowhead: a task migrated from one CPU lane to another (sched_migrate_task)</li>
        <li><span className="swatch cursor" /> dashed line: the cursor</li>
        <li><span className="swatch migrate" aria-hidden="true">●⟶</span> a selected slice: solid arrow from its waker’s sched_waking to its switch-in, labelled; dashed bracket on its lane: its wait (runnable → running); dotted arrows: tasks it woke</li>
        <li><span className="swatch" style={{ background: '#1a1a1a' }} /> zoomed in, near a lane’s bottom: solid ink bar “irq N name” = a hardirq handler; white bar, ink outline “softirq X” = a softirq; grey bar, dotted top “C1” = an idle state; dashed step line = the CPU’s frequency (irq, softirq, cpu_idle, cpu_frequency events; capture them with <code>kscope capture --events sched,irq,softirq,idle,freq</code>)</li>
        <li><span className="swatch" style={{ background: '#1a1a1a', border: '1px solid #fff' }} /> ink bar along a lane’s top (▼ for an instant): a row of an SQL answer shown as a track, its name written on it</li>
        <li><span className="swatch" style={{ background: 'rgba(0,114,178,0.14)', border: '2px solid #1a1a1a' }} /> outlined wash marked “area”: the selected area (Shift+drag); solid lines flagged A and B: the markers, Δ between them</li>
        <li><span className="swatch conform-mark" aria-hidden="true">◆</span> diamond marked ≠ on a CPU lane: the {CONFORM_MODEL?.id ?? ''} model (MODELLED) gave another cid than the kernel (MEASURED) at that rseq_update; [ ] step between them</li>
      </ul>
      <p className="legend-note">Times are from the trace’s first event. {provenance.kind === 'modelled'
        ? 'MODELLED: this file is a kscope simulator export (its header says so), not a real kernel’s trace.'
        : 'MEASURED: a real kernel’s trace, not a model.'}</p>
    </section>
  )
}
