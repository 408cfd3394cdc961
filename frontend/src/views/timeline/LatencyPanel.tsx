/*
 * Scheduling latency histograms for a window (per CPU or per task): how long
 * tasks waited between becoming runnable and running (core/traces/trace_latency.ts).
 * One bar per bucket (1-2-5 steps from 1 µs to 100 ms), the tallest one's count
 * written above it (every count in the bar's tooltip); the longest wait of each
 * row is a button that selects it and shows its wait.
 * Bars carry no meaning by colour: height and the written count do.
 */
import { useEffect, useMemo, useState } from 'react'
import { LATENCY_EDGES, latencyGroups, type LatencyGroup, type WaitRecord } from '../../core/traces/trace_latency'
import type { TraceStore } from '../../core/traces/trace_store'
import { formatDuration } from '../../core/shared/units'
import { OKABE_ITO } from '../palette'

/** A window the histograms can cover: the visible one, the whole trace, a selected area. */
export interface LatencyScope {
  id: string
  /** "the visible window", "the whole trace", "the selected area". */
  label: string
  window: { start: number; end: number }
  /** Only these CPUs (an area selection), all when absent. */
  cpus?: ReadonlySet<number>
}

export interface LatencyPanelProps {
  store: TraceStore
  /** The first is the default. */
  scopes: readonly LatencyScope[]
  /** A wait picked (a row's longest): select its slice and show it. */
  onPick(w: WaitRecord): void
}

const SHORT = (ns: number) => (ns >= 1e6 ? `${ns / 1e6} ms` : ns >= 1e3 ? `${ns / 1e3} µs` : `${ns} ns`)
const ROWS = 6

function Histogram({ g }: { g: LatencyGroup }) {
  const W = 300, H = 90, n = g.buckets.length
  const peak = Math.max(1, ...g.buckets)
  const bw = W / n
  return (
    <svg className="latency-hist" viewBox={`0 0 ${W} ${H + 22}`} role="img"
      aria-label={`${g.label}: ${g.count} waits, median ${formatDuration(g.p50)}, longest ${formatDuration(g.max)}`}>
      {g.buckets.map((count, i) => {
        const h = count ? Math.max(2, (count / peak) * (H - 26)) : 0
        const range = i + 1 < n ? `${SHORT(LATENCY_EDGES[i])}–${SHORT(LATENCY_EDGES[i + 1])}` : `≥ ${SHORT(LATENCY_EDGES[i])}`
        return (
          <g key={i}>
            <title>{`${range}: ${count}`}</title>
            <rect x={i * bw + 1} y={H - h} width={bw - 2} height={h} fill={OKABE_ITO.blue} />
            {count === peak && i === g.buckets.indexOf(peak) && (
              <text x={Math.min(W - 30, Math.max(30, i * bw + bw / 2))} y={H - h - 4} textAnchor="middle" className="hist-count">{count}</text>
            )}
          </g>
        )
      })}
      <line x1={0} x2={W} y1={H + 0.5} y2={H + 0.5} stroke="#555" />
      {[1, 7, 13].map((i) => (
        <text key={i} x={i * bw} y={H + 18} textAnchor="middle" className="hist-axis">{SHORT(LATENCY_EDGES[i])}</text>
      ))}
    </svg>
  )
}

export function LatencyPanel({ store, scopes, onPick }: LatencyPanelProps) {
  const [scopeId, setScopeId] = useState(scopes[0]?.id ?? '')
  const scope = scopes.find((x) => x.id === scopeId) ?? scopes[0]
  const win = scope?.window ?? null
  const cpus = scope?.cpus
  const windowLabel = scope?.label ?? ''
  const [by, setBy] = useState<'cpu' | 'task'>('task')
  const [why, setWhy] = useState<'woken' | 'preempted' | 'all'>('woken')
  const [all, setAll] = useState(false)
  // The first computation (the whole trace's wait index, about 1.4 s per million events in Node) waits
  // until the timeline has drawn: the page shows its first picture first.
  const [ready, setReady] = useState<TraceStore | null>(null)
  useEffect(() => {
    const t = window.setTimeout(() => setReady(store), 50)
    return () => window.clearTimeout(t)
  }, [store])
  const groups = useMemo(() => (win && ready === store ? latencyGroups(store, win.start, win.end, by, { cpus, why }) : []),
    [store, ready, win, by, cpus, why])
  const shown = all ? groups : groups.slice(0, ROWS)
  return (
    <section className="panel workbench-panel" data-testid="latency" aria-label="Scheduling latency">
      <h2>Scheduling latency</h2>
      <p className="hint">In {windowLabel}: runnable → running, per {by === 'cpu' ? 'CPU it ran on' : 'task'}; longest first.</p>
      <div className="latency-controls" role="group" aria-label="Group and kind">
        <label><input type="radio" name="lat-by" checked={by === 'task'} onChange={() => setBy('task')} data-testid="latency-by-task" /> per task</label>
        <label><input type="radio" name="lat-by" checked={by === 'cpu'} onChange={() => setBy('cpu')} data-testid="latency-by-cpu" /> per CPU</label>
        <select value={scope?.id} onChange={(e) => setScopeId(e.target.value)} aria-label="Over which window" data-testid="latency-scope">
          {scopes.map((x) => <option key={x.id} value={x.id}>{x.label}</option>)}
        </select>
        <select value={why} onChange={(e) => setWhy(e.target.value as typeof why)} aria-label="Which waits" data-testid="latency-why">
          <option value="woken">after a wakeup</option>
          <option value="preempted">after a preemption</option>
          <option value="all">all</option>
        </select>
      </div>
      {ready !== store && <p className="hint" role="status">Reading the waits…</p>}
      {ready === store && !groups.length && <p className="hint">No switch-in with a known wait in {windowLabel}.</p>}
      {store.loaded && (
        <p className="hint" data-testid="latency-loaded">A stored trace: from its loaded events only ({store.loaded.t1 > store.loaded.t0
          ? `${formatDuration(store.loaded.t0 - store.t0)}–${formatDuration(Math.min(store.loaded.t1, store.lastTs) - store.t0)}`
          : 'none while zoomed out'}); zoom in to load a window’s events.</p>
      )}
      <ul className="latency-rows" data-testid="latency-rows">
        {shown.map((g) => (
          <li key={g.key} data-testid="latency-row">
            <div className="latency-head">
              <span className="latency-label">{g.label}</span>
              <span className="latency-figures">n={g.count} · median {formatDuration(g.p50)} · p90 {formatDuration(g.p90)}</span>
            </div>
            <Histogram g={g} />
            <button type="button" className="link-button" data-testid="latency-worst"
              onClick={() => onPick(g.worst)}>
              longest: {formatDuration(g.max)} (select it)
            </button>
          </li>
        ))}
      </ul>
      {groups.length > ROWS && (
        <button type="button" className="button" onClick={() => setAll(!all)} data-testid="latency-more">
          {all ? `Show the first ${ROWS}` : `Show all ${groups.length}`}
        </button>
      )}
    </section>
  )
}
