/*
 * Compare two stored traces in lockstep: two timelines, one above the other,
 * aligned at their first events and sharing one zoom and one cursor (both in
 * time since each trace's start); below them, per-CPU busy time, switches and
 * migrations side by side with the difference (core/traces/trace_compare.ts).
 *
 * Each side keeps its own session (its summaries and loaded window of exact
 * events); the shared time scale comes from giving both the longer trace's
 * duration, so one zoom transform shows the same relative window on both.
 */
import { useCallback, useEffect, useMemo, useState } from 'react'
import { describeTraceError, queryFilter, useTraceSession, type TraceViewState, type ZoomState } from '../../core/traces/trace_session'
import { compareRows, fetchCpuStats, signedDelta, totals, type CpuStats } from '../../core/traces/trace_compare'
import type { TraceStore } from '../../core/traces/trace_store'
import { formatDuration } from '../../core/shared/units'
import { useElementSize } from '../size'
import { Timeline } from '.'

export interface CompareViewProps {
  ids: [string, string]
  /** A view to restore (from a URL): window and cursor in ns since the traces' starts. */
  initial?: { window: { start: number; end: number } | null; cursor: number | null }
  /** The shared view changed (same units), for the URL. */
  onView?(v: { window: { start: number; end: number } | null; cursor: number | null }): void
}

type Stats = { status: 'loading' } | { status: 'error'; message: string } | { status: 'done'; a: CpuStats[]; b: CpuStats[] }

export function CompareView({ ids, initial, onView }: CompareViewProps) {
  const a = useTraceSession()
  const b = useTraceSession()
  const [zoom, setZoom] = useState<ZoomState>({ k: 1, x: 0 })
  const [cursorRel, setCursorRel] = useState<number | null>(initial?.cursor ?? null)
  const [want, setWant] = useState(initial?.window ?? null)
  const [windowRel, setWindowRel] = useState<{ start: number; end: number } | null>(null)
  useEffect(() => {
    onView?.({ window: windowRel, cursor: cursorRel })
  }, [onView, windowRel, cursorRel])
  const [stats, setStats] = useState<Stats>({ status: 'loading' })
  const [boxRef, size] = useElementSize<HTMLDivElement>()
  const { openServer: openA } = a.actions
  const { openServer: openB } = b.actions

  useEffect(() => {
    void openA(ids[0])
    void openB(ids[1])
    setStats({ status: 'loading' })
    Promise.all([fetchCpuStats(ids[0]), fetchCpuStats(ids[1])]).then(
      ([sa, sb]) => setStats({ status: 'done', a: sa, b: sb }),
      (err) => setStats({ status: 'error', message: describeTraceError(err) }))
  }, [ids, openA, openB])

  const ready = a.state.open.status === 'ready' && b.state.open.status === 'ready'
  const storeA = a.state.open.status === 'ready' ? a.state.open.store : null
  const storeB = b.state.open.status === 'ready' ? b.state.open.store : null
  const span = storeA && storeB ? Math.max(storeA.t1 - storeA.t0, storeB.t1 - storeB.t0, 1) : 1
  const alignedA = useMemo(() => (storeA ? aligned(storeA, span) : null), [storeA, span])
  const alignedB = useMemo(() => (storeB ? aligned(storeB, span) : null), [storeB, span])
  // Side A's window, relative to its start, goes to the URL (side B shows the same relative window).
  const viewportOfA = a.actions.viewport
  const t0A = storeA?.t0 ?? 0
  const viewportA = useCallback((a0: number, a1: number, w: number) => {
    setWindowRel((old) => (old && old.start === a0 - t0A && old.end === a1 - t0A ? old : { start: a0 - t0A, end: a1 - t0A }))
    viewportOfA(a0, a1, w)
  }, [viewportOfA, t0A])
  const failed = [a, b].find((s) => s.state.open.status === 'error')

  const half = size ? Math.max(180, Math.floor((size.height - 8) / 2)) : 0
  return (
    <main className="compare" data-testid="compare">
      {failed && failed.state.open.status === 'error' && (
        <p className="error-text" role="alert">Could not open {failed.state.open.name}: {failed.state.open.message}</p>
      )}
      {!ready && !failed && <p className="hint" role="status">Opening both traces…</p>}
      <div className="compare-timelines" ref={boxRef}>
        {ready && size && alignedA && alignedB && ([['A', a, alignedA], ['B', b, alignedB]] as const).map(([label, side, store]) => (
          <section key={label} className="compare-side" data-testid={`compare-side-${label}`} aria-label={`Trace ${label}: ${store.name}`}>
            <h2 className="compare-title">
              <span className="compare-letter">{label}</span> <span className="trace-name">{store.name}</span>
              {' · '}{store.meta.kernel ? `Linux ${store.meta.kernel}` : store.format}
              {' · '}{formatDuration(store.totalSpan)} · {store.totalEvents.toLocaleString('en')} events
            </h2>
            <Timeline store={store}
              view={{ ...sideView(side.state.view, zoom, cursorRel, store),
                want: label === 'A' && want ? { start: store.t0 + want.start, end: store.t0 + want.end } : null }}
              filter={queryFilter(side.state.view.filter)} width={size.width} height={half - 28}
              onZoom={(z) => { setWant(null); setZoom(z) }} onCursor={(t) => setCursorRel(t === null ? null : t - store.t0)}
              onSelect={side.actions.select} onToggleGroup={side.actions.toggleGroup} overviews={side.state.overviews}
              loading={side.state.loading}
              onViewport={label === 'A' ? viewportA : side.actions.viewport} />
          </section>
        ))}
      </div>
      <CompareTable stats={stats} names={[storeA?.name ?? ids[0], storeB?.name ?? ids[1]]} />
    </main>
  )
}

type AlignedStore = TraceStore & { totalSpan: number }

/** The store on the shared time scale: the same start, and the longer trace's duration. */
function aligned(s: TraceStore, span: number): AlignedStore {
  return { ...s, t1: s.t0 + span, totalSpan: s.t1 - s.t0 }
}

function sideView(v: TraceViewState, zoom: ZoomState, cursorRel: number | null, s: TraceStore): TraceViewState {
  return { ...v, zoom, cursor: cursorRel === null ? null : s.t0 + cursorRel }
}

function CompareTable({ stats, names }: { stats: Stats; names: [string, string] }) {
  if (stats.status === 'loading') return <p className="hint" role="status">Counting per CPU…</p>
  if (stats.status === 'error') return <p className="error-text" role="alert">Per-CPU figures: {stats.message}</p>
  const rows = compareRows(stats.a, stats.b)
  const ta = totals(stats.a)
  const tb = totals(stats.b)
  const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`
  const cell = (x: CpuStats | null, f: (s: CpuStats) => string) => (x ? f(x) : '—')
  return (
    <section className="panel compare-table-panel" aria-label="Per-CPU differences">
      <h2>Per CPU: A = {names[0]}, B = {names[1]}</h2>
      <p className="hint">
        busy = time from each switch to a task other than idle until the CPU’s next switch; migrations = sched_migrate_task
        into / out of the CPU; Δ = B − A. Both MEASURED (or a simulation’s export, if one side is).
      </p>
      <div className="compare-table-scroll">
        <table className="trace-table compare-table" data-testid="compare-table">
          <thead>
            <tr>
              <th scope="col">CPU</th>
              <th scope="col" className="num">busy A</th><th scope="col" className="num">busy B</th><th scope="col" className="num">Δ busy</th>
              <th scope="col" className="num">switches A</th><th scope="col" className="num">switches B</th><th scope="col" className="num">Δ</th>
              <th scope="col" className="num">migrations in/out A</th><th scope="col" className="num">migrations in/out B</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.cpu} data-testid="compare-row">
                <th scope="row">{r.cpu}</th>
                <td className="num">{cell(r.a, (s) => ms(s.busyNs))}</td>
                <td className="num">{cell(r.b, (s) => ms(s.busyNs))}</td>
                <td className="num">{signedDelta(r.a?.busyNs ?? 0, r.b?.busyNs ?? 0, 'ms')}</td>
                <td className="num">{cell(r.a, (s) => s.switches.toLocaleString('en'))}</td>
                <td className="num">{cell(r.b, (s) => s.switches.toLocaleString('en'))}</td>
                <td className="num">{signedDelta(r.a?.switches ?? 0, r.b?.switches ?? 0, '')}</td>
                <td className="num">{cell(r.a, (s) => `${s.migrationsIn} / ${s.migrationsOut}`)}</td>
                <td className="num">{cell(r.b, (s) => `${s.migrationsIn} / ${s.migrationsOut}`)}</td>
              </tr>
            ))}
            <tr className="compare-total" data-testid="compare-total">
              <th scope="row">all</th>
              <td className="num">{ms(ta.busyNs)}</td><td className="num">{ms(tb.busyNs)}</td>
              <td className="num">{signedDelta(ta.busyNs, tb.busyNs, 'ms')}</td>
              <td className="num">{ta.switches.toLocaleString('en')}</td><td className="num">{tb.switches.toLocaleString('en')}</td>
              <td className="num">{signedDelta(ta.switches, tb.switches, '')}</td>
              <td className="num">{ta.migrationsIn} / {ta.migrationsOut}</td><td className="num">{tb.migrationsIn} / {tb.migrationsOut}</td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  )
}
