/*
 * The selected area's aggregates (core/traces/trace_area.ts) and the two
 * markers with their delta. The area comes from Shift+drag on the CPU lanes,
 * the `a` key (between the markers) or the button here; markers from m /
 * Shift+M at the cursor or the buttons. All figures MEASURED, with units.
 */
import { useMemo } from 'react'
import { BOUNDARIES, areaAggregates, type Area } from '../../core/traces/trace_area'
import type { TraceStore } from '../../core/traces/trace_store'
import { formatCpuList } from '../../core/shared/cpulist'
import { formatDuration } from '../../core/shared/units'
import { rel } from './Details'
import type { Markers } from './area_draw'

export interface AreaPanelProps {
  store: TraceStore
  area: Area | null
  markers: Markers
  cursor: number | null
  onArea(a: Area | null): void
  onMarkers(m: [number | null, number | null] | null): void
  onShow(start: number, end: number): void
}

const pct = (part: number, whole: number) => (whole > 0 ? `${((100 * part) / whole).toFixed(1)}%` : '—')
const TASKS = 6

export function AreaPanel({ store, area, markers, cursor, onArea, onMarkers, onShow }: AreaPanelProps) {
  // A stored trace holds only the loaded window's exact events: aggregates only when it covers the area.
  const loaded = store.loaded
  const covered = !area || !loaded || (!loaded.truncated && loaded.t0 <= area.start && Math.min(area.end, store.lastTs) <= loaded.t1)
  const agg = useMemo(() => (area && covered ? areaAggregates(store, area) : null), [store, area, covered])
  const [a, b] = markers ?? [null, null]
  const setMarker = (i: 0 | 1) => {
    if (cursor === null) return
    onMarkers(i === 0 ? [cursor, b] : [a, cursor])
  }
  return (
    <section className="panel workbench-panel" data-testid="area" aria-label="Area and markers">
      <h2>Area and markers</h2>
      <div className="marker-row" data-testid="markers">
        <span>A {a === null ? '—' : rel(store, a)}</span>
        <span>B {b === null ? '—' : rel(store, b)}</span>
        {a !== null && b !== null && <strong data-testid="marker-delta">Δ {formatDuration(Math.abs(b - a))}</strong>}
      </div>
      <div className="wakeup-actions">
        <button type="button" className="button" disabled={cursor === null} onClick={() => setMarker(0)} data-testid="marker-a"
          aria-keyshortcuts="M">A at the cursor</button>
        <button type="button" className="button" disabled={cursor === null} onClick={() => setMarker(1)} data-testid="marker-b"
          aria-keyshortcuts="Shift+M">B at the cursor</button>
        {(a !== null || b !== null) && <button type="button" className="button" onClick={() => onMarkers(null)} data-testid="marker-clear">Clear markers</button>}
        {a !== null && b !== null && a !== b && (
          <button type="button" className="button" data-testid="area-from-markers" aria-keyshortcuts="A"
            onClick={() => onArea({ start: Math.min(a, b), end: Math.max(a, b), cpus: [...store.cpus] })}>
            Area A–B, all CPUs
          </button>
        )}
      </div>
      {!area && <p className="hint">Shift+drag across CPU lanes to select an area (or put A and B down, then press a).</p>}
      {area && !covered && (
        <div data-testid="area-not-loaded">
          <p className="area-span" data-testid="area-span">
            {rel(store, area.start)} – {rel(store, area.end)} (<strong>{formatDuration(area.end - area.start)}</strong>) × CPU{area.cpus.length === 1 ? '' : 's'} {formatCpuList(area.cpus)}
          </p>
          <p className="hint">Its exact events are not loaded (a stored trace loads the events of what is on screen, up to a limit):
            zoom to it to read its aggregates.</p>
          <div className="wakeup-actions">
            <button type="button" className="button" onClick={() => onShow(area.start, area.end)} data-testid="area-zoom">Zoom to it</button>
            <button type="button" className="button" onClick={() => onArea(null)} data-testid="area-clear">Clear the area</button>
          </div>
        </div>
      )}
      {area && agg && (
        <div data-testid="area-aggregates">
          <p className="area-span" data-testid="area-span">
            {rel(store, area.start)} – {rel(store, area.end)} (<strong>{formatDuration(agg.span)}</strong>) × CPU{area.cpus.length === 1 ? '' : 's'} {formatCpuList(area.cpus)}
          </p>
          <div className="wakeup-actions">
            <button type="button" className="button" onClick={() => onShow(area.start, area.end)} data-testid="area-zoom">Zoom to it</button>
            <button type="button" className="button" onClick={() => onArea(null)} data-testid="area-clear">Clear the area</button>
          </div>
          <table className="area-table area-cpu-table" data-testid="area-cpus">
            <caption>Busy time per CPU</caption>
            <thead><tr><th scope="col">CPU</th><th scope="col" className="num">busy</th><th scope="col" className="num">share</th><th scope="col" className="num">switches</th></tr></thead>
            <tbody>
              {agg.perCpu.map((x) => (
                <tr key={x.cpu}><td>{x.cpu}</td><td className="num">{formatDuration(x.busy)}</td><td className="num">{pct(x.busy, agg.span)}</td><td className="num">{x.switches}</td></tr>
              ))}
            </tbody>
          </table>
          <table className="area-table area-task-table" data-testid="area-tasks">
            <caption>Tasks by time run (runnable: waiting on these CPUs)</caption>
            <thead><tr><th scope="col">task</th><th scope="col" className="num">ran</th><th scope="col" className="num">runnable</th></tr></thead>
            <tbody>
              {agg.perTask.slice(0, TASKS).map((t) => (
                <tr key={t.pid}><td className="clip" title={`${t.comm} ${t.pid}`}>{t.comm} {t.pid}</td><td className="num">{formatDuration(t.busy)}</td><td className="num">{formatDuration(t.runnable)}</td></tr>
              ))}
            </tbody>
          </table>
          {agg.perTask.length > TASKS && <p className="hint">{agg.perTask.length - TASKS} more tasks.</p>}
          <dl className="kv" data-testid="area-figures">
            <dt>runnable wait</dt><dd>{formatDuration(agg.runnableTotal)} task-time on these CPUs’ queues</dd>
            <dt>waits ended here</dt><dd>{agg.waits.count ? `${agg.waits.count}, mean ${formatDuration(agg.waits.mean)}, longest ${formatDuration(agg.waits.max)}` : 'none known'}</dd>
            <dt>switches</dt><dd data-testid="area-switches">{agg.switches.total} ({agg.switches.involuntary} preempted, {agg.switches.voluntary} slept or blocked)</dd>
            <dt>migrations</dt>
            <dd data-testid="area-migrations">
              {BOUNDARIES.filter((k) => k !== 'topology not known' || agg.migrations[k]).map((k) => `${agg.migrations[k]} ${k}`).join(' · ')}
            </dd>
          </dl>
          {!store.meta.topology && <p className="hint">This trace carries no topology: migrations cannot be told apart by LLC or node.</p>}
        </div>
      )}
    </section>
  )
}
