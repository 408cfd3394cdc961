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
import { select, zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3'
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import type { Selection, TraceViewState, ZoomState } from '../../core/trace_session'
import {
  TYPE_MIGRATE, dominantProcess, eventsIn, occupancy, sliceIndexAt, slicesIn, type EventFilter, type TraceStore,
} from '../../core/trace_store'
import { THEME } from '../palette'
import {
  detailLevel, fitLabel, heatColor, laneLayout, maxZoom, panBy, processStyle, timeTicks, timeToX, transformFor,
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
}

const GUTTER = 150
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
  const level = detailLevel(win, plotW)
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const zoomRef = useRef<ZoomBehavior<HTMLCanvasElement, unknown> | null>(null)
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

  // d3-zoom owns wheel/drag gestures; its transform is mirrored into the store's view state.
  const onZoom = props.onZoom
  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    const behaviour = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([1, kMax])
      .translateExtent([[0, 0], [plotW, canvasH]])
      .extent([[0, 0], [plotW, canvasH]])
      .filter((e: Event) => (e.type === 'wheel' || e.type === 'mousedown' || e.type === 'touchstart') && !(e as MouseEvent).button)
      .on('zoom', (e: D3ZoomEvent<HTMLCanvasElement, unknown>) => onZoom({ k: e.transform.k, x: e.transform.x }))
    zoomRef.current = behaviour
    select(canvas).call(behaviour).on('dblclick.zoom', null)
    return () => {
      select(canvas).on('.zoom', null)
    }
  }, [plotW, canvasH, kMax, onZoom])

  // Keep d3's own transform in step when the zoom changes by keyboard or reset.
  useEffect(() => {
    const canvas = canvasRef.current
    const behaviour = zoomRef.current
    if (!canvas || !behaviour) return
    const current = (canvas as unknown as { __zoom?: { k: number; x: number } }).__zoom
    if (current && Math.abs(current.k - view.zoom.k) < 1e-9 && Math.abs(current.x - view.zoom.x) < 1e-6) return
    select(canvas).call(behaviour.transform, zoomIdentity.translate(view.zoom.x, 0).scale(view.zoom.k))
  }, [view.zoom])

  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    const dpr = window.devicePixelRatio || 1
    canvas.width = Math.round(plotW * dpr)
    canvas.height = Math.round(canvasH * dpr)
    const ctx = canvas.getContext('2d')
    if (!ctx) return
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    draw(ctx, store, layout, win, plotW, level, view, filter)
  })

  const hitTest = (px: number, py: number) => {
    const t = xToTime(px, win, plotW)
    const lane = layout.lanes.find((l) => py >= l.y && py < l.y + l.height)
    return { t, lane: lane ?? null, index: lane ? sliceIndexAt(store, lane.cpu, t) : -1 }
  }

  const onClick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect()
    const h = hitTest(e.clientX - r.left, e.clientY - r.top)
    props.onCursor(h.t)
    if (h.lane && h.index >= 0) props.onSelect({ kind: 'slice', cpu: h.lane.cpu, index: h.index })
    else {
      const group = layout.groups.find((g) => g.collapsed && e.clientY - r.top >= g.bodyY && e.clientY - r.top < g.bodyY + g.bodyHeight)
      if (group) props.onToggleGroup(group.key)
    }
  }

  const onMove = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect()
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
    } else if (e.key === 'Escape') props.onSelect(null)
    else if (e.shiftKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) {
      const from = view.cursor ?? win.start
      const row = e.key === 'ArrowRight' ? nextEvent(store, from, filter) : prevEvent(store, from, filter)
      if (row >= 0) {
        props.onCursor(store.columns.ts[row])
        props.onSelect({ kind: 'event', row })
      }
    } else return
    e.preventDefault()
    if (z) props.onZoom(z)
  }

  return (
    <div className="timeline" data-testid="timeline" data-level={level}>
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
          'up and down select the slice under the cursor on a CPU lane, Enter zooms to it'}
        onClick={onClick}
        onMouseMove={onMove}
        onKeyDown={onKeyDown}
        data-testid="timeline-canvas"
        title={hover}
      />
    </div>
  )
}

function nextEvent(s: TraceStore, t: number, f: EventFilter): number {
  const rows = eventsIn(s, t + 1, s.t1 + 1, s.cpus, f, 1)
  return rows.length ? rows[0] : -1
}

function prevEvent(s: TraceStore, t: number, f: EventFilter): number {
  // Walk back in growing windows until one holds a match.
  for (let span = 1e6; span < (s.t1 - s.t0) * 2 + 2e6; span *= 4) {
    const rows = eventsIn(s, t - span, t, s.cpus, f)
    if (rows.length) return rows[rows.length - 1]
  }
  return -1
}

let hatchPattern: CanvasPattern | null = null
function hatch(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  if (hatchPattern) return hatchPattern
  const c = document.createElement('canvas')
  c.width = c.height = 8
  const g = c.getContext('2d')
  if (!g) return null
  g.strokeStyle = 'rgba(255,255,255,0.75)'
  g.lineWidth = 2
  g.beginPath()
  g.moveTo(0, 8); g.lineTo(8, 0)
  g.moveTo(-2, 2); g.lineTo(2, -2)
  g.moveTo(6, 10); g.lineTo(10, 6)
  g.stroke()
  hatchPattern = ctx.createPattern(c, 'repeat')
  return hatchPattern
}

function draw(ctx: CanvasRenderingContext2D, s: TraceStore, layout: LaneLayout, w: TimeWindow, width: number,
  level: 'slices' | 'buckets', view: TraceViewState, filter: EventFilter) {
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
      const occ = occupancy(s, w.start, w.end, buckets, g.cpus)
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
    const occ = occupancy(s, w.start, w.end, buckets, layout.lanes.map((l) => l.cpu))
    layout.lanes.forEach((lane, i) => {
      const row = occ.rows[i]
      const who = dominantProcess(s, lane.cpu, w.start, w.end, buckets)
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
      for (let k = from; k < to; k++) {
        const pid = sl.pid[k]
        if (pid === 0) continue
        const x0 = Math.max(-1, timeToX(sl.start[k], w, width))
        const x1 = Math.min(width + 1, timeToX(sl.end[k], w, width))
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
    const rows = eventsIn(s, w.start, w.end, layout.lanes.map((l) => l.cpu), filter, 4000)
    if (rows.length < 4000) {
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
  const rows = eventsIn(s, w.start, w.end, s.cpus, { ...filter, types: new Set([TYPE_MIGRATE]) }, 500)
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

/** "pid comm" when it fits, else the pid alone (threads of one process differ by it), else a cut name. */
function sliceLabel(pid: number, comm: string, px: number): string {
  const full = `${pid} ${comm}`
  const fitted = fitLabel(full, px)
  if (fitted === full) return full
  return fitLabel(String(pid), px) === String(pid) ? String(pid) : ''
}

function sliceMatches(pid: number, comm: string, f: EventFilter): boolean {
  if (f.pid !== undefined && pid !== f.pid) return false
  if (f.comm && !comm.toLowerCase().includes(f.comm.toLowerCase())) return false
  return true
}

