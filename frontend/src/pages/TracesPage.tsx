/*
 * /traces: real kernel traces (MEASURED). The library (upload with progress,
 * list, open, delete), "Open locally" (decoded in this browser by the same C
 * decoders, never uploaded), and the open trace's timeline with its details.
 *
 * All names and field values come from user files: they are rendered as React
 * text only.
 */
import { useCallback, useEffect, useMemo, useState, type ChangeEvent } from 'react'
import { deleteTrace, listTraces, uploadTrace, type TracePublic, type UploadProgress } from '../core/traces_api'
import { describeTraceError, queryFilter, useTraceSession } from '../core/trace_session'
import { EVENT_TYPES, type TraceStore } from '../core/trace_store'
import { formatDuration } from '../core/units'
import { CursorPanel, SelectionPanel } from '../views/timeline/Details'
import { Timeline } from '../views/timeline'
import { useElementSize } from '../views/size'
import { AppHeader } from './AppHeader'
import { ErrorPanel } from './ErrorPanel'

const TRACE_ACCEPT = '.txt,.dat,.html,.htm,.gz,.perf,.trace,text/plain,text/html,application/octet-stream,application/gzip'

export function TracesPage({ navigate }: { navigate: (href: string) => void }) {
  const { state, actions } = useTraceSession()
  const open = state.open

  return (
    <>
      <AppHeader page="traces" navigate={navigate} compact>
        {open.status === 'ready' && (
          <button type="button" className="button" onClick={actions.close} data-testid="close-trace">
            Back to the library
          </button>
        )}
      </AppHeader>
      {open.status !== 'ready' && <Library onOpenLocal={actions.openLocal} onOpenServer={actions.openServer} />}
      {open.status === 'opening' && (
        <section className="open-progress" role="status" data-testid="open-progress">
          <span>Opening {open.name}: {open.phase}…</span>
          <progress max={1} value={open.fraction} aria-label="Opening progress" />
          <span>{Math.round(open.fraction * 100)}% · {open.events.toLocaleString('en')} events</span>
        </section>
      )}
      {open.status === 'error' && (
        <ErrorPanel title={`Could not open ${open.name}`} message={open.message} />
      )}
      {open.status === 'ready' && <TraceView store={open.store} session={{ state, actions }} />}
    </>
  )
}

/* ---------- the library ---------- */

function Library({ onOpenLocal, onOpenServer }: { onOpenLocal: (f: File) => void; onOpenServer: (id: string) => void }) {
  const [traces, setTraces] = useState<TracePublic[] | null>(null)
  const [listError, setListError] = useState('')
  const [upload, setUpload] = useState<{ name: string; p: UploadProgress } | null>(null)
  const [uploadError, setUploadError] = useState('')

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
    uploadTrace(file, (p) => setUpload({ name: file.name, p })).then(
      () => { setUpload(null); refresh() },
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
          {' '}<code>perf script</code>, systrace HTML; gzip is fine.
        </p>
        <div className="library-buttons">
          <label className="button file-button">
            Open locally…
            <input type="file" accept={TRACE_ACCEPT} onChange={onLocal} data-testid="open-local" className="visually-hidden" />
          </label>
          <span className="hint">decoded in this browser, never uploaded</span>
        </div>
        <div className="library-buttons">
          <label className="button file-button">
            Upload to the server…
            <input type="file" accept={TRACE_ACCEPT} onChange={onUpload} data-testid="upload" className="visually-hidden" />
          </label>
          <span className="hint">stored with your browser’s owner token; only you see it</span>
        </div>
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
        {listError && <ErrorPanel title="Could not list the stored traces" message={listError} />}
        {traces && traces.length === 0 && <p className="hint">None yet: upload one above.</p>}
        {traces && traces.length > 0 && (
          <table className="trace-table" data-testid="trace-list">
            <thead>
              <tr>
                <th scope="col">name</th><th scope="col">format</th><th scope="col">kernel</th>
                <th scope="col" className="num">CPUs</th><th scope="col" className="num">duration</th>
                <th scope="col" className="num">events</th><th scope="col" className="num">malformed lines</th>
                <th scope="col"><span className="visually-hidden">actions</span></th>
              </tr>
            </thead>
            <tbody>
              {traces.map((t) => (
                <tr key={t.id} data-testid="trace-row">
                  <td className="trace-name">{t.name}</td>
                  <td>{t.format}</td>
                  <td>{t.kernel || '—'}</td>
                  <td className="num">{t.cpus}</td>
                  <td className="num">{formatDuration(t.t_last_ns - t.t_first_ns)}</td>
                  <td className="num" data-testid="trace-row-events">{t.events.toLocaleString('en')}</td>
                  <td className="num">{t.malformed_lines}</td>
                  <td>
                    <div className="row-actions">
                      <button type="button" className="button" onClick={() => onOpenServer(t.id)}>Open</button>
                      <button type="button" className="button danger" onClick={() => onDelete(t)}>Delete</button>
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

  return (
    <>
      <p className="summary trace-summary" data-testid="trace-summary">
        <span className="measured" title="Decoded from a real kernel trace: nothing here is modelled">MEASURED</span>
        {' '}<span className="trace-name">{store.name}</span>
        {' · '}{st.format}{store.meta.kernel ? ` · Linux ${store.meta.kernel}` : ''}
        {' · '}{store.cpus.length} CPUs with events
        {' · '}{formatDuration(duration)}
        {' · '}<span data-testid="event-count">{store.columns.count.toLocaleString('en')}</span> events
        <span className="provenance">
          {' '}(decoder count <span data-testid="decoder-count">{st.events.toLocaleString('en')}</span>
          {store.origin.kind === 'local' ? ', decoded in this browser' : ', from the server'}
          {st.malformed ? `; ${st.malformed} malformed lines` : ''}
          {st.firstError ? `, first at ${st.firstError.line ? `line ${st.firstError.line}` : `offset ${st.firstError.offset}`}: ${st.firstError.message}` : ''}
          {st.lostEvents ? `; ${st.lostEvents} events lost by the ring buffer` : ''}
          {store.switchGaps ? `; ${store.switchGaps} switches missing from the trace, their slices inferred (dashed)` : ''})
        </span>
      </p>
      <FilterBar view={view} onFilter={actions.filter} />
      <main className="trace-main">
        <div className="trace-timeline" ref={boxRef}>
          {size && (
            <Timeline store={store} view={view} filter={filter} width={size.width} height={Math.max(200, size.height)}
              onZoom={actions.zoom} onCursor={actions.cursor} onSelect={actions.select} onToggleGroup={actions.toggleGroup} />
          )}
        </div>
        <aside className="side trace-side">
          <SelectionPanel store={store} selection={view.selection} />
          <CursorPanel store={store} cursor={view.cursor} />
          <TraceLegend />
        </aside>
      </main>
    </>
  )
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
      <span className="hint">Keys on the timeline: ← → pan · + − zoom · Home all · Shift+← → events · ↑ ↓ slice on a CPU · Enter zoom to it</span>
    </form>
  )
}

function TraceLegend() {
  return (
    <section className="panel legend trace-legend" aria-label="Legend">
      <h2>Legend</h2>
      <ul>
        <li><span className="swatch" style={{ background: '#0072B2' }} /> a task running: colour and hatch per process, name and pid written on it when wide enough</li>
        <li><span className="swatch" style={{ background: '#fff', border: '1px solid #888' }} /> no fill: the CPU is idle</li>
        <li><span className="swatch" style={{ background: '#fff', border: '2px dashed #1a1a1a' }} /> dashed outline: not recorded in full (the trace lacks the switch to it, or it still ran when the trace ended)</li>
        <li><span className="swatch" style={{ background: 'linear-gradient(to top, #0072B2 60%, #fff 60%)', border: '1px solid #888' }} /> zoomed out: bar height = fraction of time busy; colour = the process that ran longest there</li>
        <li><span className="swatch" style={{ background: 'linear-gradient(to right, rgb(245,245,245), rgb(55,55,55))' }} /> a collapsed CPU group (▸): light to dark = its CPUs’ mean busy fraction; click to expand</li>
        <li><span className="swatch tick" /> tick on a lane’s top edge: an event (wakeup, migration, …)</li>
        <li><span className="swatch migrate" aria-hidden="true">●→</span> dot to arrowhead: a task migrated from one CPU lane to another (sched_migrate_task)</li>
        <li><span className="swatch cursor" /> dashed line: the cursor</li>
      </ul>
      <p className="legend-note">Times are from the trace’s first event. MEASURED: a real kernel’s trace, not a model.</p>
    </section>
  )
}
