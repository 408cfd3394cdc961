/*
 * The real-trace timeline: one lane per CPU on a canvas, grouped by topology,
 * zoomed and panned with d3-zoom (x only), the maths in layout.ts.
 *
 * (store, view state, size) -> pixels: the view reads the trace store and
 * reports intents (zoom, cursor, select, expand a group); it changes nothing
 * itself. Every string from the trace (comm, field text) is drawn with canvas
 * fillText or rendered as React text: never parsed as HTML.
 *
 * Keyboard (the canvas is focusable): ← → pan, + − zoom about the cursor (or
 * the centre), Home shows all, Shift+← → move the cursor to the previous/next
 * event that passes the filter, ↑ ↓ select the slice under the cursor on the
 * previous/next CPU lane, Enter zooms to the selected slice, Esc clears it.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import type { Selection, TraceViewState, ZoomState } from '../../core/traces/trace_session'
import {
  TYPE_MIGRATE, countIn, dominantProcess, eventMatches, eventsIn, occupancy, sliceIndexAt, slicesIn, type EventFilter, type Occupancy,
  type TraceStore,
} from '../../core/traces/trace_store'
import { resampleOverview, wantsExactEvents } from '../../core/traces/trace_window'
import type { ConformMarks } from '../../core/traces/trace_conform'
import type { Flow } from '../../core/traces/trace_latency'
import { drawFlows } from './flows_draw'
import { drawArea, drawMarkers, type Markers } from './area_draw'
import { drawQueryTrack } from './query_track_draw'
import { drawCpuTracks } from './cpu_tracks_draw'
import { cpuTracks } from '../../core/traces/trace_cpu_tracks'
import type { QueryTrack } from '../../core/traces/trace_sql'
import { areaFromDrag, type Area } from '../../core/traces/trace_area'
import { useTimeZoom } from './use_time_zoom'
import { hatch } from './hatch'
import { nextEventRow, prevEventRow } from '../../core/traces/trace_step'
import { OKABE_ITO, THEME } from '../palette'
import {
  GUTTER_PX, detailLevel, fitLabel, sliceLabel, heatColor, laneLayout, maxZoom, panBy, processStyle, timeTicks, timeToX, transformFor,
  visibleWindow, xToTime, zoomAbout, type LaneLayout, type TimeWindow,
} from './layout'

export interface TimelineProps {
  store: TraceStore
  view: TraceViewState
  filter: EventFilter
  width: number
  height: number
  onZoom(z: ZoomState): void
  onCursor(t: number | null): void
  onSelect(s: Selection): void
  onToggleGroup(key: string): void
  /** A server trace's occupancy summaries (coarse first); absent or [] for a local trace. */
  overviews?: readonly Occupancy[]
  /** Exact events for the window are on their way (server traces). */
  loading?: boolean
  /** The visible window changed: [start, end) ns over `width` px (server traces fetch for it). */
  onViewport?(start: number, end: number, width: number): void
  /** Model-vs-kernel disagreements to mark (diamonds on their CPU lanes), the selected one, and stepping. */
  marks?: ConformMarks | null
  selectedMark?: number
  onSelectMark?(k: number): void
  onStepMark?(dir: 1 | -1): void
  /** Shift+← →: step the cursor to the previous/next event passing the filter (core/traces/trace_step.ts). */
  onStepEvent?(dir: 1 | -1): void
  /** Space: play / pause the cursor. */
  onTogglePlay?(): void
  /** Arrows to draw over the lanes: the selected slice's wakeup, its wait, whom it woke (trace_latency.ts). */
  flows?: readonly Flow[]
  /** A selected area (Shift+drag across lanes), and two markers A and B with their delta. */
  area?: Area | null
  markers?: Markers
  onArea?(a: Area | null): void
  /** m / Shift+M: put marker A / B at the cursor. */
  onMarker?(which: 0 | 1, t: number): void
  /** An SQL answer shown as a track over the lanes (SqlConsole's "Show as track"). */
  queryTrack?: QueryTrack | null
}

/** Where the lanes' busy fractions come from: the store's own events, or the server's summaries. */
interface OccupancySource {
  occupancy(cpus: readonly number[], start: number, end: number, buckets: number): Occupancy
  /** The process that ran longest per bucket, or null when the source cannot say (summaries). */
  dominant(cpu: number, start: number, end: number, buckets: number): Int32Array | null
}

function occupancySource(store: TraceStore, overviews: readonly Occupancy[] | undefined): OccupancySource {
  if (store.loaded === null || !overviews?.length) {
    return {
      occupancy: (cpus, a, b, n) => occupancy(store, a, b, n, cpus),
      dominant: (cpu, a, b, n) => dominantProcess(store, cpu, a, b, n),
    }
  }
  return { occupancy: (cpus, a, b, n) => resampleOverview(overviews, cpus, a, b, n), dominant: () => null }
}

/** Do the store's loaded events cover [start, end) exactly (always, for a local trace)? */
export function eventsCover(store: TraceStore, start: number, end: number): boolean {
  const l = store.loaded
  if (l === null) return true
  // Past the trace's last event there is nothing to load (a compare view's shorter trace).
  return Math.min(start, store.lastTs) >= l.t0 && Math.min(end, store.lastTs) <= l.t1
}

const GUTTER = GUTTER_PX
const AXIS = 30
const FONT = '14px system-ui, sans-serif'
const SMALL_FONT = '13px system-ui, sans-serif'

export function Timeline(props: TimelineProps) {
  const { store, view, filter, width, height } = props
  const plotW = Math.max(200, width - GUTTER)
  const layout = useMemo(
    () => laneLayout(store.cpus, store.meta.topology, height - AXIS, new Set(view.expanded)),
    [store, height, view.expanded],
  )
  const canvasH = layout.height + AXIS
  const win = visibleWindow(store.t0, store.t1, plotW, view.zoom)
  const wanted = detailLevel(win, plotW) === 'slices' && wantsExactEvents(win.start, win.end, plotW, store.loaded ? store : null)
    ? 'slices' : 'buckets'
  // Zoomed in on a server trace whose window is still loading: the summaries stand in.
  const level = wanted === 'slices' && !eventsCover(store, win.start, win.end) ? 'buckets' : wanted
  const source = useMemo(() => occupancySource(store, props.overviews), [store, props.overviews])
  const onViewport = props.onViewport
  useEffect(() => {
    onViewport?.(win.start, win.end, plotW)
  }, [onViewport, win.start, win.end, plotW])
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const kMax = maxZoom(store.t0, store.t1, plotW)
  const [hover, setHover] = useState<string>('')

  // A resize keeps the same time window on screen (the transform is in pixels of the old width).
  const onZoomRef = useRef(props.onZoom)
  useEffect(() => {
    onZoomRef.current = props.onZoom
  })
  const lastW = useRef(plotW)
  useEffect(() => {
    if (lastW.current === plotW) return
    const before = visibleWindow(store.t0, store.t1, lastW.current, view.zoom)
    lastW.current = plotW
    if (view.zoom.k !== 1 || view.zoom.x !== 0) onZoomRef.current(transformFor(store.t0, store.t1, plotW, before.start, before.end))
  }, [plotW, store, view.zoom])

  // d3-zoom owns wheel/drag gestures (Shift+drag is left to an area selection); its transform is
  // mirrored into the store's view state.
  useTimeZoom(canvasRef, plotW, canvasH, kMax, view.zoom, props.onZoom)

  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    const dpr = window.devicePixelRatio || 1
    // Resizing a canvas reallocates (and clears) its bitmap: only when the size changes.
    const w = Math.round(plotW * dpr)
    const h = Math.round(canvasH * dpr)
    if (canvas.width !== w) canvas.width = w
    if (canvas.height !== h) canvas.height = h
    const ctx = canvas.getContext('2d')
    if (!ctx) return
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    const t = performance.now()
    draw(ctx, store, layout, win, plotW, level, view, filter, source)
    if (props.marks) drawMarks(ctx, props.marks, props.selectedMark ?? -1, layout, win, plotW)
    // irq / softirq / idle-state spans and frequency steps, where the trace has them (exact events only).
    canvas.dataset.cpuSpans = String(level === 'slices' ? drawCpuTracks(ctx, cpuTracks(store), layout, win, plotW) : 0)
    if (props.queryTrack) drawQueryTrack(ctx, props.queryTrack, layout, win, plotW)
    if (props.area) drawArea(ctx, props.area, layout, win, plotW, store.t0)
    if (props.markers) drawMarkers(ctx, props.markers, layout.height, win, plotW, layout.lanes[0]?.y ?? 0)
    if (drag) {
      ctx.strokeStyle = THEME.ink
      ctx.lineWidth = 1.5
      ctx.setLineDash([4, 3])
      ctx.strokeRect(Math.min(drag.x0, drag.x1), Math.min(drag.y0, drag.y1), Math.abs(drag.x1 - drag.x0), Math.abs(drag.y1 - drag.y0))
      ctx.setLineDash([])
    }
    if (props.flows?.length) {
      const lanes = new Map(layout.lanes.map((l) => [l.cpu, l]))
      drawFlows(ctx, props.flows, win, plotW, (end) => lanes.get(end.cpu) ?? null)
    }
    // The UI bench (scripts/bench-ui.mjs) sets this array to collect each draw's time, ms.
    const bench = window as unknown as { __kscopeDrawMs?: number[]; __kscopeDrawEnd?: number }
    if (bench.__kscopeDrawMs) {
      bench.__kscopeDrawEnd = performance.now()
      bench.__kscopeDrawMs.push(bench.__kscopeDrawEnd - t)
    }
  })

  // A window asked for by a URL: shown once, at this width.
  useEffect(() => {
    if (view.want) onZoomRef.current(transformFor(store.t0, store.t1, plotW, view.want.start, view.want.end))
  }, [view.want, store.t0, store.t1, plotW])

  // A selected disagreement: the page zooms to it (TracesPage's selectMark, trace_conform.ts windowForMark).

  const hitTest = (px: number, py: number) => {
    const t = xToTime(px, win, plotW)
    const lane = layout.lanes.find((l) => py >= l.y && py < l.y + l.height)
    return { t, lane: lane ?? null, index: lane ? sliceIndexAt(store, lane.cpu, t) : -1 }
  }

  // Shift+drag selects an area (time × the lanes it spans); d3-zoom leaves Shift gestures alone.
  const [drag, setDrag] = useState<{ x0: number; y0: number; x1: number; y1: number } | null>(null)
  const dragged = useRef(false)
  const laneIndexAt = (py: number) => {
    let best = 0
    layout.lanes.forEach((l, i) => { if (py >= l.y) best = i })
    return best
  }
  const onMouseDown = (e: React.MouseEvent<HTMLCanvasElement>) => {
    if (!e.shiftKey || !props.onArea || e.button) return
    const r = e.currentTarget.getBoundingClientRect()
    const x = e.clientX - r.left, y = e.clientY - r.top
    setDrag({ x0: x, y0: y, x1: x, y1: y })
  }
  const onMouseUp = (e: React.MouseEvent<HTMLCanvasElement>) => {
    if (!drag) return
    const r = e.currentTarget.getBoundingClientRect()
    const x1 = e.clientX - r.left, y1 = e.clientY - r.top
    setDrag(null)
    if (Math.abs(x1 - drag.x0) < 3) return
    dragged.current = true
    const a = areaFromDrag(xToTime(drag.x0, win, plotW), xToTime(x1, win, plotW), layout.lanes.map((l) => l.cpu),
      laneIndexAt(drag.y0), laneIndexAt(y1))
    if (a) props.onArea?.(a)
  }
  const onClick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    if (dragged.current) {
      dragged.current = false
      return
    }
    const r = e.currentTarget.getBoundingClientRect()
    const h = hitTest(e.clientX - r.left, e.clientY - r.top)
    const mark = props.marks ? markAt(props.marks, layout, win, plotW, e.clientX - r.left, e.clientY - r.top) : -1
    if (mark >= 0 && props.onSelectMark) {
      props.onSelectMark(mark)
      return
    }
    props.onCursor(h.t)
    if (h.lane && h.index >= 0) props.onSelect({ kind: 'slice', cpu: h.lane.cpu, index: h.index })
    else {
      const group = layout.groups.find((g) => g.collapsed && e.clientY - r.top >= g.bodyY && e.clientY - r.top < g.bodyY + g.bodyHeight)
      if (group) props.onToggleGroup(group.key)
    }
  }

  const onMove = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect()
    if (drag) setDrag({ ...drag, x1: e.clientX - r.left, y1: e.clientY - r.top })
    const h = hitTest(e.clientX - r.left, e.clientY - r.top)
    setHover(h.lane ? `CPU ${h.lane.cpu}` : '')
  }

  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>) => {
    const centre = view.cursor !== null && view.cursor >= win.start && view.cursor <= win.end
      ? timeToX(view.cursor, win, plotW) : plotW / 2
    let z: ZoomState | null = null
    if (e.key === 'ArrowLeft' && !e.shiftKey) z = panBy(view.zoom, -0.2, plotW)
    else if (e.key === 'ArrowRight' && !e.shiftKey) z = panBy(view.zoom, 0.2, plotW)
    else if (e.key === '+' || e.key === '=') z = zoomAbout(view.zoom, 2, centre, plotW, kMax)
    else if (e.key === '-' || e.key === '_') z = zoomAbout(view.zoom, 0.5, centre, plotW, kMax)
    else if (e.key === 'Home' || e.key === '0') z = { k: 1, x: 0 }
    else if (e.key === 'Enter' && view.selection?.kind === 'slice') {
      const sl = store.slices.get(view.selection.cpu)!
      const a = sl.start[view.selection.index]
      const b = sl.end[view.selection.index]
      const pad = (b - a) * 0.25 + 1000
      z = transformFor(store.t0, store.t1, plotW, a - pad, b + pad)
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && layout.lanes.length) {
      // Select the slice under the cursor on the next/previous lane.
      const t = view.cursor ?? (win.start + win.end) / 2
      if (view.cursor === null) props.onCursor(t)
      const sel = view.selection
      const selCpu = !sel ? -1 : sel.kind === 'slice' ? sel.cpu : store.columns.cpu[sel.row]
      const at = layout.lanes.findIndex((l) => l.cpu === selCpu)
      const next = at < 0 ? 0 : Math.max(0, Math.min(layout.lanes.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))
      const cpu = layout.lanes[next].cpu
      const index = sliceIndexAt(store, cpu, t)
      if (index >= 0) props.onSelect({ kind: 'slice', cpu, index })
    } else if ((e.key === ']' || e.key === '[') && props.onStepMark) props.onStepMark(e.key === ']' ? 1 : -1)
    else if (e.key === ' ' && props.onTogglePlay) props.onTogglePlay()
    else if ((e.key === 'm' || e.key === 'M') && props.onMarker) {
      const t = view.cursor ?? (win.start + win.end) / 2
      props.onMarker(e.key === 'm' ? 0 : 1, t)
    } else if (e.key === 'a' && props.onArea) {
      // The area between the markers (both set), else the visible window, over every lane shown.
      const [a, b] = props.markers ?? [null, null]
      const span = a !== null && b !== null && a !== b ? [Math.min(a, b), Math.max(a, b)] : [win.start, win.end]
      props.onArea({ start: span[0], end: span[1], cpus: layout.lanes.map((l) => l.cpu).sort((x, y) => x - y) })
    }
    else if (e.key === 'Escape') props.onSelect(null)
    else if (e.shiftKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      const dir = e.key === 'ArrowRight' ? 1 : -1
      if (props.onStepEvent) props.onStepEvent(dir)
      else {
        const from = view.cursor ?? win.start
        const row = dir > 0 ? nextEventRow(store, from, filter) : prevEventRow(store, from, filter)
        if (row >= 0) {
          props.onCursor(store.columns.ts[row])
          props.onSelect({ kind: 'event', row })
        }
      }
    } else return
    e.preventDefault()
    if (z) props.onZoom(z)
  }

  return (
    <div className="timeline" data-testid="timeline" data-level={level} data-flows={props.flows?.length ?? 0}
      data-query-track={props.queryTrack ? props.queryTrack.ts.length : undefined}
      data-area={props.area ? `${Math.round(props.area.start)}-${Math.round(props.area.end)}:${props.area.cpus.join(',')}` : undefined} data-window={`${Math.round(win.start)}-${Math.round(win.end)}`}
      data-loading={wanted === 'slices' && level === 'buckets' ? 'events' : undefined}>
      <div className="timeline-gutter" style={{ width: GUTTER, height: canvasH }} aria-hidden="false">
        {layout.groups.map((g) => g.headerHeight > 0 && (
          <button key={`h-${g.key}`} type="button" className="lane-group" style={{ top: g.y, height: g.headerHeight, width: GUTTER + plotW }}
            onClick={() => props.onToggleGroup(g.key)} aria-expanded={!g.collapsed}
            title={`${g.label}: CPUs ${g.cpus.join(', ')}. ${g.collapsed ? 'Expand' : 'Collapse'}`} data-testid="lane-group">
            {g.collapsed ? '▸' : '▾'} {g.label} ({g.cpus.length})
          </button>
        ))}
        {layout.groups.filter((g) => g.collapsed).map((g) => (
          <span key={`c-${g.key}`} className="lane-label heat" style={{ top: g.bodyY, height: g.bodyHeight }}>
            mean busy
          </span>
        ))}
        {layout.lanes.map((l) => (
          <span key={l.cpu} className="lane-label" style={{ top: l.y, height: l.height }} data-testid="lane">
            CPU {l.cpu}
          </span>
        ))}
        <span className="lane-label axis" style={{ top: layout.height, height: AXIS }}>time from start</span>
      </div>
      <canvas
        ref={canvasRef}
        className="timeline-canvas"
        style={{ width: plotW, height: canvasH }}
        tabIndex={0}
        role="img"
        aria-label={`Timeline of ${store.cpus.length} CPUs, ${level === 'slices' ? 'run slices' : 'busy fraction per pixel'}; ` +
          'left and right arrows pan, plus and minus zoom, Home shows all, Shift+arrows step through events, ' +
          'up and down select the slice under the cursor on a CPU lane, Enter zooms to it; ' +
          'm and Shift+M put markers A and B at the cursor, a selects the area between them (Shift+drag selects one)'}
        onClick={onClick}
        onMouseDown={onMouseDown}
        onMouseUp={onMouseUp}
        onMouseMove={onMove}
        onKeyDown={onKeyDown}
        data-testid="timeline-canvas"
        title={hover}
      />
    </div>
  )
}

function firstAtOrAfter(a: { length: number; get(k: number): number }, x: number): number {
  let lo = 0, hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a.get(mid) < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Where a disagreement's diamond goes: its CPU's lane, else the collapsed group holding the CPU. */
function markY(layout: LaneLayout, cpu: number): number | null {
  const lane = layout.lanes.find((l) => l.cpu === cpu)
  if (lane) return lane.y + lane.height / 2
  const g = layout.groups.find((x) => x.collapsed && x.cpus.includes(cpu))
  return g ? g.bodyY + g.bodyHeight / 2 : null
}

const MARK_R = 7
const MAX_MARKS = 2000

/**
 * Model-vs-kernel disagreements: a diamond (vermillion, ink outline, a white "≠" on it)
 * on the CPU lane at the rseq_update's time; the selected one ringed. The shape
 * marks them, not the colour alone.
 */
function drawMarks(ctx: CanvasRenderingContext2D, m: ConformMarks, selected: number, layout: LaneLayout, w: TimeWindow,
  width: number) {
  const ts = { length: m.ts.length, get: (k: number) => m.ts[k] }
  let drawn = 0
  for (let k = firstAtOrAfter(ts, w.start); k < m.ts.length && m.ts[k] <= w.end && drawn < MAX_MARKS; k++, drawn++) {
    const y = markY(layout, m.cpu[k])
    if (y === null) continue
    const x = timeToX(m.ts[k], w, width)
    ctx.beginPath()
    ctx.moveTo(x, y - MARK_R); ctx.lineTo(x + MARK_R, y); ctx.lineTo(x, y + MARK_R); ctx.lineTo(x - MARK_R, y)
    ctx.closePath()
    ctx.fillStyle = OKABE_ITO.vermillion
    ctx.fill()
    ctx.strokeStyle = THEME.ink
    ctx.lineWidth = 1.5
    ctx.stroke()
    ctx.strokeStyle = '#ffffff'
    ctx.lineWidth = 1.5
    ctx.beginPath()
    ctx.moveTo(x - 3, y - 1.5); ctx.lineTo(x + 3, y - 1.5)
    ctx.moveTo(x - 3, y + 1.5); ctx.lineTo(x + 3, y + 1.5)
    ctx.moveTo(x + 1.5, y - 4); ctx.lineTo(x - 1.5, y + 4)
    ctx.stroke()
    if (k === selected) {
      ctx.strokeStyle = THEME.focus
      ctx.lineWidth = 3
      ctx.beginPath()
      ctx.arc(x, y, MARK_R + 5, 0, Math.PI * 2)
      ctx.stroke()
    }
  }
}

/** The mark under (px, py), -1 for none. */
function markAt(m: ConformMarks, layout: LaneLayout, w: TimeWindow, width: number, px: number, py: number): number {
  const span = ((MARK_R + 2) / width) * (w.end - w.start)
  const ts = { length: m.ts.length, get: (k: number) => m.ts[k] }
  for (let k = firstAtOrAfter(ts, xToTime(px, w, width) - span); k < m.ts.length && m.ts[k] <= xToTime(px, w, width) + span; k++) {
    const y = markY(layout, m.cpu[k])
    if (y !== null && Math.abs(py - y) <= MARK_R + 2) return k
  }
  return -1
}

/** "No process known" per bucket (server summaries carry busy fractions only). */
function NOBODY(buckets: number): Int32Array {
  return new Int32Array(buckets).fill(-1)
}

function draw(ctx: CanvasRenderingContext2D, s: TraceStore, layout: LaneLayout, w: TimeWindow, width: number,
  level: 'slices' | 'buckets', view: TraceViewState, filter: EventFilter, source: OccupancySource) {
  const H = layout.height
  ctx.clearRect(0, 0, width, H + AXIS)
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, 0, width, H + AXIS)
  const filtering = filter.comm !== undefined || filter.pid !== undefined

  // Group header bands.
  for (const g of layout.groups) {
    if (g.headerHeight) {
      ctx.fillStyle = '#eeeeee'
      ctx.fillRect(0, g.y, width, g.headerHeight)
    }
  }

  // Collapsed groups: one heat row each (mean busy fraction per pixel column).
  const collapsed = layout.groups.filter((g) => g.collapsed)
  if (collapsed.length) {
    const buckets = Math.max(1, Math.floor(width / 2))
    for (const g of collapsed) {
      const occ = source.occupancy(g.cpus, w.start, w.end, buckets)
      for (let b = 0; b < buckets; b++) {
        let sum = 0
        for (const row of occ.rows) sum += row[b]
        ctx.fillStyle = heatColor(sum / occ.rows.length)
        ctx.fillRect((b * width) / buckets, g.bodyY + 1, width / buckets + 0.5, g.bodyHeight - 2)
      }
    }
  }

  if (level === 'buckets') {
    const buckets = Math.max(1, Math.floor(width / 2))
    const occ = source.occupancy(layout.lanes.map((l) => l.cpu), w.start, w.end, buckets)
    layout.lanes.forEach((lane, i) => {
      const row = occ.rows[i]
      const who = source.dominant(lane.cpu, w.start, w.end, buckets) ?? NOBODY(buckets)
      // Busy fraction as a bar height in the lane (height carries it, the grey ramp repeats it).
      for (let b = 0; b < buckets; b++) {
        const f = row[b]
        if (f <= 0) continue
        const x = (b * width) / buckets
        const h = Math.max(1, (lane.height - 4) * f)
        // Height = busy fraction; colour = the process that ran longest in this pixel.
        ctx.fillStyle = who[b] >= 0 ? processStyle(who[b]).fill : heatColor(0.8)
        ctx.fillRect(x, lane.y + lane.height - 2 - h, width / buckets + 0.5, h)
      }
      // Name the process on long mostly-busy runs, so colour is not the only cue.
      if (lane.height >= 18) {
        for (let b = 0; b < buckets; ) {
          let e = b
          while (e < buckets && who[e] === who[b] && row[e] >= 0.5) e++
          if (e > b && who[b] >= 0) {
            const px = ((e - b) * width) / buckets
            const label = fitLabel(`${s.commOf.get(who[b]) ?? ''} (${who[b]})`, px)
            if (label) {
              const style = processStyle(who[b])
              ctx.font = SMALL_FONT
              ctx.textBaseline = 'middle'
              const x = (b * width) / buckets
              const tw = ctx.measureText(label).width
              ctx.fillStyle = style.text === '#ffffff' ? 'rgba(0,0,0,0.35)' : 'rgba(255,255,255,0.6)'
              ctx.fillRect(x + 2, lane.y + lane.height / 2 - 8, tw + 4, 16)
              ctx.fillStyle = style.text
              ctx.fillText(label, x + 4, lane.y + lane.height / 2 + 1)
            }
          }
          b = Math.max(e, b + 1)
        }
      }
    })
  } else {
    const pat = hatch(ctx)
    for (const lane of layout.lanes) {
      const sl = s.slices.get(lane.cpu)
      if (!sl) continue
      const [from, to] = slicesIn(s, lane.cpu, w.start, w.end)
      const top = lane.y + 2
      const h = lane.height - 4
      // Slices narrower than a pixel share it: once a pixel column is painted, further
      // sub-pixel slices in it are skipped (the draw costs at most ~width per lane).
      let painted = -Infinity
      for (let k = from; k < to; k++) {
        const pid = sl.pid[k]
        if (pid === 0) continue
        const x0 = Math.max(-1, timeToX(sl.start[k], w, width))
        const x1 = Math.min(width + 1, timeToX(sl.end[k], w, width))
        if (x1 - x0 < 1 && Math.floor(x0) <= painted) continue
        painted = Math.floor(x1 - x0 < 1 ? x0 : x1 - 1)
        const wpx = Math.max(1, x1 - x0)
        const tgid = s.tgidOf.get(pid) ?? -1
        const style = processStyle(tgid >= 0 ? tgid : pid)
        const comm = sl.comm[k] >= 0 ? s.columns.strings[sl.comm[k]] : ''
        const dim = filtering && !sliceMatches(pid, comm, filter)
        ctx.globalAlpha = dim ? 0.18 : 1
        ctx.fillStyle = style.fill
        ctx.fillRect(x0, top, wpx, h)
        if (style.hatch && pat && wpx > 4) {
          ctx.fillStyle = pat
          ctx.fillRect(x0, top, wpx, h)
        }
        ctx.globalAlpha = 1
        const partial = sl.inferred[k] === 1 || (sl.toRow[k] < 0 && k === sl.start.length - 1)
        if (partial && !dim) {
          // Not recorded in full (switch-in missing, or running when the trace ended): dashed ink outline.
          ctx.strokeStyle = THEME.ink
          ctx.lineWidth = 1.5
          ctx.setLineDash([4, 3])
          ctx.strokeRect(x0 + 0.75, top + 0.75, Math.max(1, wpx - 1.5), h - 1.5)
          ctx.setLineDash([])
        } else if (wpx > 3) {
          ctx.strokeStyle = '#ffffff'
          ctx.lineWidth = 1
          ctx.strokeRect(x0 + 0.5, top + 0.5, wpx - 1, h - 1)
        }
        if (!dim && h >= 14) {
          const label = sliceLabel(pid, comm, wpx)
          if (label) {
            ctx.font = h >= 20 ? FONT : SMALL_FONT
            ctx.textBaseline = 'middle'
            const tw = ctx.measureText(label).width
            // A backing box under the label keeps it readable over the hatch.
            ctx.fillStyle = style.text === '#ffffff' ? 'rgba(0,0,0,0.35)' : 'rgba(255,255,255,0.6)'
            ctx.fillRect(Math.max(0, x0) + 2, top + h / 2 - 8, tw + 4, 16)
            ctx.fillStyle = style.text
            ctx.fillText(label, Math.max(0, x0) + 4, top + h / 2 + 1)
          }
        }
      }
      // Selected slice outline.
      if (view.selection?.kind === 'slice' && view.selection.cpu === lane.cpu) {
        const k = view.selection.index
        const x0 = timeToX(sl.start[k], w, width)
        const x1 = timeToX(sl.end[k], w, width)
        ctx.strokeStyle = THEME.focus
        ctx.lineWidth = 3
        ctx.strokeRect(x0 - 1.5, lane.y + 0.5, Math.max(3, x1 - x0 + 3), lane.height - 1)
      }
    }
    // Event ticks (wakeups, migrations...) on the lane's top edge when few enough to read.
    const tickCpus = layout.lanes.map((l) => l.cpu)
    const rows = countIn(s, w.start, w.end, tickCpus) < 4000 ? eventsIn(s, w.start, w.end, tickCpus, filter, 4000) : []
    if (rows.length) {
      const laneOf = new Map(layout.lanes.map((l) => [l.cpu, l]))
      ctx.fillStyle = THEME.ink
      for (const r of rows) {
        const lane = laneOf.get(s.columns.cpu[r])
        if (!lane || s.columns.type[r] === 1) continue
        const x = timeToX(s.columns.ts[r], w, width)
        ctx.fillRect(x - 0.5, lane.y, 1.5, 4)
      }
    }
  }

  // Past the trace's last event (a compare view lines a shorter trace up with a longer one).
  if (s.lastTs < w.end) {
    const x = Math.max(0, timeToX(s.lastTs, w, width))
    ctx.fillStyle = '#e4e4e4'
    ctx.fillRect(x, 0, width - x, H)
    if (width - x > 140) {
      ctx.fillStyle = THEME.ink
      ctx.font = FONT
      ctx.textBaseline = 'top'
      ctx.fillText('trace ended', x + 8, H / 2 - 8)
    }
  }

  // Migrations (sched_migrate_task): an arrow from the task's old CPU lane to its new one.
  if (level === 'slices') drawMigrations(ctx, s, layout, w, width, filter)

  // Lane separators.
  ctx.strokeStyle = '#d0d0d0'
  ctx.lineWidth = 1
  for (const lane of layout.lanes) {
    ctx.beginPath()
    ctx.moveTo(0, lane.y + lane.height - 0.5)
    ctx.lineTo(width, lane.y + lane.height - 0.5)
    ctx.stroke()
  }

  // Time axis.
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, H, width, AXIS)
  ctx.strokeStyle = THEME.muted
  ctx.fillStyle = THEME.ink
  ctx.font = FONT
  ctx.textBaseline = 'top'
  for (const t of timeTicks(w, width, s.t0, 130)) {
    ctx.beginPath()
    ctx.moveTo(t.x + 0.5, H)
    ctx.lineTo(t.x + 0.5, H + 6)
    ctx.stroke()
    ctx.strokeStyle = 'rgba(0,0,0,0.08)'
    ctx.beginPath()
    ctx.moveTo(t.x + 0.5, 0)
    ctx.lineTo(t.x + 0.5, H)
    ctx.stroke()
    ctx.strokeStyle = THEME.muted
    ctx.fillText(t.label, t.x + 3, H + 8)
  }

  // Cursor.
  if (view.cursor !== null) {
    const x = timeToX(view.cursor, w, width)
    if (x >= 0 && x <= width) {
      ctx.strokeStyle = THEME.focus
      ctx.lineWidth = 2
      ctx.setLineDash([6, 3])
      ctx.beginPath()
      ctx.moveTo(x, 0)
      ctx.lineTo(x, H)
      ctx.stroke()
      ctx.setLineDash([])
    }
  }
}

function drawMigrations(ctx: CanvasRenderingContext2D, s: TraceStore, layout: LaneLayout, w: TimeWindow, width: number,
  filter: EventFilter) {
  const laneOf = new Map(layout.lanes.map((l) => [l.cpu, l]))
  const types = filter.types && filter.types.size ? filter.types : new Set([TYPE_MIGRATE])
  if (!types.has(TYPE_MIGRATE)) return
  const ts = { length: s.migrations.length, get: (k: number) => s.columns.ts[s.migrations[k]] }
  const rows: number[] = []
  const only = { ...filter, types: undefined }
  for (let k = firstAtOrAfter(ts, w.start); k < s.migrations.length && rows.length < 500; k++) {
    const r = s.migrations[k]
    if (s.columns.ts[r] >= w.end) break
    if (eventMatches(s, r, only)) rows.push(r)
  }
  ctx.strokeStyle = THEME.ink
  ctx.fillStyle = THEME.ink
  ctx.lineWidth = 2
  for (const r of rows) {
    const from = laneOf.get(s.columns.f2[r])
    const to = laneOf.get(s.columns.f3[r])
    if (!from || !to || from === to) continue
    const x = timeToX(s.columns.ts[r], w, width)
    const y0 = from.y + from.height / 2
    const y1 = to.y + to.height / 2
    ctx.beginPath()
    ctx.moveTo(x, y0)
    ctx.lineTo(x, y1)
    ctx.stroke()
    const dir = y1 > y0 ? 1 : -1
    ctx.beginPath()
    ctx.moveTo(x, y1)
    ctx.lineTo(x - 5, y1 - dir * 8)
    ctx.lineTo(x + 5, y1 - dir * 8)
    ctx.closePath()
    ctx.fill()
    ctx.beginPath()
    ctx.arc(x, y0, 3, 0, Math.PI * 2)
    ctx.fill()
  }
}

function sliceMatches(pid: number, comm: string, f: EventFilter): boolean {
  if (f.pid !== undefined && pid !== f.pid) return false
  if (f.comm && !comm.toLowerCase().includes(f.comm.toLowerCase())) return false
  return true
}

