/*
 * The task-centric view: one lane per task, grouped by process, showing its
 * thread state over time (core/traces/trace_tasks.ts), on the same time window
 * as the CPU lanes (one shared zoom). Each state has its own shape, so colour
 * is never the only cue:
 *
 *   running      full-height bar in the process's colour (hatched for the
 *                second cycle of hues), "CPU n" written on it when it fits
 *   runnable     half-height white bar, dashed ink outline, "R · CPU n"
 *   sleeping (S) a thin grey line through the lane, "S"
 *   blocked (D)  a thick dark bar, "D" in white
 *
 * Search by comm or pid, pin tasks to the top (☆ in the gutter). A click on a
 * running stretch selects that CPU slice (the details and the wakeup panels
 * follow it); on a runnable stretch, the run it waited for. Keys: ← → pan,
 * + − zoom, Home all, ↑ ↓ move between tasks, Enter selects the focused task's
 * run at (or next after) the cursor, P pins it.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import type { Selection, ZoomState } from '../../core/traces/trace_session'
import {
  BLOCKED, RUNNABLE, RUNNING, SLEEPING, stateIndexAt, taskRows, taskTracks, type TaskRow, type TaskTrack,
} from '../../core/traces/trace_tasks'
import { sliceIndexAt, upperBound, type TraceStore } from '../../core/traces/trace_store'
import { THEME } from '../palette'
import { hatch } from './hatch'
import {
  GUTTER_PX, fitLabel, maxZoom, panBy, processStyle, timeTicks, timeToX, visibleWindow, xToTime, zoomAbout, type TimeWindow,
} from './layout'
import { useTimeZoom } from './use_time_zoom'
import { drawFlows } from './flows_draw'
import { drawMarkers, type Markers } from './area_draw'
import type { Flow } from '../../core/traces/trace_latency'

export interface TaskTimelineProps {
  store: TraceStore
  zoom: ZoomState
  cursor: number | null
  selection: Selection
  width: number
  /** The view's height; the lanes scroll inside it. */
  height: number
  query: string
  pinned: readonly number[]
  onQuery(q: string): void
  onTogglePin(pid: number): void
  onZoom(z: ZoomState): void
  onCursor(t: number | null): void
  onSelect(s: Selection): void
  /** Markers A and B (drawn as on the CPU lanes, with their delta). */
  markers?: Markers
  /** The selected slice's wakeup arrows (trace_latency.ts), drawn between task lanes. */
  flows?: readonly Flow[]
  /** The visible window changed (as the CPU timeline reports it: a stored trace loads its events). */
  onViewport?(start: number, end: number, width: number): void
}

const ROW = 34
const GROUP = 28
const AXIS = 30
const FONT = '18px system-ui, sans-serif'

interface Placed { row: TaskRow; y: number; h: number }

function place(rows: readonly TaskRow[]): { placed: Placed[]; height: number } {
  let y = AXIS
  const placed = rows.map((row) => {
    const h = row.kind === 'group' ? GROUP : ROW
    const p = { row, y, h }
    y += h
    return p
  })
  return { placed, height: y }
}

/** The CPU slice a click on a task's state at t selects: the run itself, or the run a wait ended in. */
export function sliceForState(store: TraceStore, t: TaskTrack, at: number): Selection {
  const k = stateIndexAt(t, at)
  if (k < 0) return null
  const run = t.state[k] === RUNNING ? k : t.state[k] === RUNNABLE && t.state[k + 1] === RUNNING ? k + 1 : -1
  if (run < 0) return null
  const mid = Math.max(t.start[run], Math.min(at, t.end[run] - 0.5))
  const index = sliceIndexAt(store, t.cpu[run], mid)
  return index >= 0 ? { kind: 'slice', cpu: t.cpu[run], index } : null
}

/** The task's run at the cursor, or its next one after it. */
function runAtOrAfter(store: TraceStore, t: TaskTrack, at: number): Selection {
  for (let k = Math.max(0, upperBound(t.end, at)); k < t.start.length; k++) {
    if (t.state[k] !== RUNNING) continue
    const index = sliceIndexAt(store, t.cpu[k], Math.max(at, t.start[k]))
    if (index >= 0) return { kind: 'slice', cpu: t.cpu[k], index }
  }
  return null
}

export function TaskTimeline(props: TaskTimelineProps) {
  const { store, width, height } = props
  const tracks = useMemo(() => taskTracks(store), [store])
  const { rows, shown, matching } = useMemo(() => taskRows(store, tracks, props.query, props.pinned), [store, tracks, props.query, props.pinned])
  const { placed, height: lanesH } = useMemo(() => place(rows), [rows])
  const plotW = Math.max(200, width - GUTTER_PX)
  const win = visibleWindow(store.t0, store.t1, plotW, props.zoom)
  const kMax = maxZoom(store.t0, store.t1, plotW)
  const canvasRef = useRef<HTMLCanvasElement>(null)
  const [focus, setFocus] = useState<number | null>(null)
  useTimeZoom(canvasRef, plotW, lanesH, kMax, props.zoom, props.onZoom)
  const onViewport = props.onViewport
  useEffect(() => {
    onViewport?.(win.start, win.end, plotW)
  }, [onViewport, win.start, win.end, plotW])
  const selectedPid = props.selection?.kind === 'slice' ? store.slices.get(props.selection.cpu)?.pid[props.selection.index] ?? null : null

  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    const dpr = window.devicePixelRatio || 1
    const w = Math.round(plotW * dpr), h = Math.round(lanesH * dpr)
    if (canvas.width !== w) canvas.width = w
    if (canvas.height !== h) canvas.height = h
    const ctx = canvas.getContext('2d')
    if (!ctx) return
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    drawTasks(ctx, store, tracks, placed, win, plotW, lanesH, props.cursor, selectedPid, focus)
    if (props.markers) drawMarkers(ctx, props.markers, lanesH, win, plotW, AXIS)
    if (props.flows?.length) {
      const byPid = new Map(placed.flatMap((p) => (p.row.kind === 'task' ? [[p.row.pid, { y: p.y, height: p.h }] as const] : [])))
      drawFlows(ctx, props.flows, win, plotW, (end) => (end.pid > 0 ? byPid.get(end.pid) ?? null : null))
    }
  })

  // A slice selected elsewhere (CPU lanes, latency panel): its task's lane scrolls into view.
  const scrollRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = scrollRef.current
    const p = placed.find((x) => x.row.kind === 'task' && x.row.pid === selectedPid)
    if (!el || !p) return
    if (p.y < el.scrollTop + AXIS || p.y + p.h > el.scrollTop + el.clientHeight) el.scrollTop = Math.max(0, p.y - AXIS - 40)
  }, [selectedPid, placed])
  const taskAt = (py: number): TaskTrack | null => {
    const p = placed.find((x) => py >= x.y && py < x.y + x.h)
    return p && p.row.kind === 'task' ? tracks.get(p.row.pid) ?? null : null
  }
  const onClick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect()
    const t = xToTime(e.clientX - r.left, win, plotW)
    props.onCursor(t)
    const task = taskAt(e.clientY - r.top)
    if (!task) return
    setFocus(task.pid)
    const sel = sliceForState(store, task, t)
    if (sel) props.onSelect(sel)
  }
  const taskPids = placed.flatMap((p) => (p.row.kind === 'task' ? [p.row.pid] : []))
  const onKeyDown = (e: KeyboardEvent<HTMLCanvasElement>) => {
    const centre = props.cursor !== null && props.cursor >= win.start && props.cursor <= win.end ? timeToX(props.cursor, win, plotW) : plotW / 2
    let z: ZoomState | null = null
    if (e.key === 'ArrowLeft') z = panBy(props.zoom, -0.2, plotW)
    else if (e.key === 'ArrowRight') z = panBy(props.zoom, 0.2, plotW)
    else if (e.key === '+' || e.key === '=') z = zoomAbout(props.zoom, 2, centre, plotW, kMax)
    else if (e.key === '-' || e.key === '_') z = zoomAbout(props.zoom, 0.5, centre, plotW, kMax)
    else if (e.key === 'Home' || e.key === '0') z = { k: 1, x: 0 }
    else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && taskPids.length) {
      const at = focus === null ? -1 : taskPids.indexOf(focus)
      const next = at < 0 ? 0 : Math.max(0, Math.min(taskPids.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))
      setFocus(taskPids[next])
      const p = placed.find((x) => x.row.kind === 'task' && x.row.pid === taskPids[next])
      if (p && scrollRef.current) scrollRef.current.scrollTop = Math.max(0, p.y - 60)
    } else if (e.key === 'Enter' && focus !== null) {
      const t = tracks.get(focus)
      const sel = t ? runAtOrAfter(store, t, props.cursor ?? win.start) : null
      if (sel) props.onSelect(sel)
    } else if ((e.key === 'p' || e.key === 'P') && focus !== null) props.onTogglePin(focus)
    else if (e.key === 'Escape') props.onSelect(null)
    else return
    e.preventDefault()
    if (z) props.onZoom(z)
  }
  const focusTrack = focus !== null ? tracks.get(focus) : undefined

  return (
    <section className="task-view" data-testid="task-view" aria-label="Tasks: thread states" style={{ height }}
      data-flows={props.flows?.length ?? 0}>
      <div className="task-bar">
        <label>
          find task{' '}
          <input type="search" value={props.query} placeholder="comm or pid" onChange={(e) => props.onQuery(e.target.value)}
            data-testid="task-search" />
        </label>
        <span className="task-count" data-testid="task-count">
          {shown < matching ? `first ${shown} of ${matching} tasks` : `${matching} task${matching === 1 ? '' : 's'}`}
        </span>
        <ul className="task-legend" aria-label="Thread states">
          <li><span className="ts-swatch ts-running" aria-hidden="true" /> running (CPU written)</li>
          <li><span className="ts-swatch ts-runnable" aria-hidden="true" /> runnable (R)</li>
          <li><span className="ts-swatch ts-sleeping" aria-hidden="true" /> sleeping (S)</li>
          <li><span className="ts-swatch ts-blocked" aria-hidden="true" /> blocked (D)</li>
        </ul>
      </div>
      <div className="task-scroll" ref={scrollRef}>
        <div className="task-body" style={{ height: lanesH }}>
          <div className="task-gutter" style={{ width: GUTTER_PX, height: lanesH }}>
            <span className="task-axis-label" style={{ top: 0, height: AXIS }}>time from start</span>
            {placed.map((p) => p.row.kind === 'group' ? (
              <span key={`g-${p.row.key}`} className="task-group" style={{ top: p.y, height: p.h, width: GUTTER_PX + plotW }}
                data-testid="task-group" title={`${p.row.label}: ${p.row.tasks} task${p.row.tasks === 1 ? '' : 's'}`}>
                {p.row.label}
              </span>
            ) : (
              <TaskLabel key={`t-${p.row.pid}`} track={tracks.get(p.row.pid)!} y={p.y} h={p.h} pinned={p.row.pinned}
                focused={focus === p.row.pid} onPin={props.onTogglePin} />
            ))}
          </div>
          <canvas ref={canvasRef} className="task-canvas" style={{ width: plotW, height: lanesH }} tabIndex={0} role="img"
            data-testid="task-canvas" onClick={onClick} onKeyDown={onKeyDown}
            aria-label={`Thread states of ${shown} tasks grouped by process; left and right arrows pan, plus and minus zoom, ` +
              'up and down move between tasks, Enter selects the focused task’s run at the cursor, P pins it'} />
        </div>
      </div>
      {focusTrack && (
        <p className="hint task-focus" data-testid="task-focus" role="status">
          Focused: {focusTrack.comm} {focusTrack.pid} (↑ ↓ move, Enter select its run, P {props.pinned.includes(focusTrack.pid) ? 'unpin' : 'pin'})
        </p>
      )}
    </section>
  )
}

function TaskLabel({ track, y, h, pinned, focused, onPin }: {
  track: TaskTrack; y: number; h: number; pinned: boolean; focused: boolean; onPin(pid: number): void
}) {
  // The pid first: threads of one process share a comm, and a cut name must still tell them apart.
  const name = `${track.pid} ${track.comm}`
  return (
    <span className={`task-label${focused ? ' focused' : ''}`} style={{ top: y, height: h }} data-testid="task-lane"
      title={`${track.comm} (pid ${track.pid}${track.tgid >= 0 ? `, process ${track.tgid}` : ''})`}>
      <button type="button" className="pin" aria-pressed={pinned} aria-label={`${pinned ? 'Unpin' : 'Pin'} ${name}`}
        onClick={() => onPin(track.pid)} data-testid="task-pin">{pinned ? '★' : '☆'}</button>
      <span className="task-name">{name}</span>
    </span>
  )
}

function drawTasks(ctx: CanvasRenderingContext2D, store: TraceStore, tracks: ReadonlyMap<number, TaskTrack>, placed: readonly Placed[],
  w: TimeWindow, width: number, height: number, cursor: number | null, selectedPid: number | null, focus: number | null) {
  ctx.clearRect(0, 0, width, height)
  ctx.fillStyle = '#ffffff'
  ctx.fillRect(0, 0, width, height)
  // Axis on top (the lanes scroll under the same labels as the CPU lanes' axis).
  ctx.fillStyle = THEME.ink
  ctx.strokeStyle = THEME.muted
  ctx.font = FONT
  ctx.textBaseline = 'middle'
  for (const t of timeTicks(w, width, store.t0, 130)) {
    ctx.beginPath(); ctx.moveTo(t.x + 0.5, AXIS - 6); ctx.lineTo(t.x + 0.5, AXIS); ctx.stroke()
    ctx.fillText(t.label, t.x + 3, AXIS / 2 - 2)
  }
  const pat = hatch(ctx)
  for (const p of placed) {
    if (p.row.kind === 'group') {
      ctx.fillStyle = '#eeeeee'
      ctx.fillRect(0, p.y, width, p.h)
      continue
    }
    const t = tracks.get(p.row.pid)
    if (!t) continue
    const top = p.y + 3, h = p.h - 6, mid = p.y + p.h / 2
    if (p.row.pid === focus) {
      ctx.fillStyle = '#f3f3f3'
      ctx.fillRect(0, p.y, width, p.h)
    }
    const style = processStyle(t.tgid >= 0 ? t.tgid : t.pid)
    let painted = -1
    for (let k = Math.max(0, upperBound(t.end, w.start)); k < t.start.length && t.start[k] < w.end; k++) {
      const x0 = Math.max(-2, timeToX(t.start[k], w, width))
      const x1 = Math.min(width + 2, timeToX(t.end[k], w, width))
      const px = x1 - x0
      if (px < 1 && Math.floor(x0) <= painted && t.state[k] !== RUNNING) continue
      painted = Math.floor(x1)
      const wpx = Math.max(1, px)
      const state = t.state[k]
      let label = ''
      if (state === RUNNING) {
        ctx.fillStyle = style.fill
        ctx.fillRect(x0, top, wpx, h)
        if (style.hatch && pat && wpx > 4) { ctx.fillStyle = pat; ctx.fillRect(x0, top, wpx, h) }
        label = fitLabel(`CPU ${t.cpu[k]}`, wpx, 10)
        if (label) {
          ctx.font = FONT
          const tw = ctx.measureText(label).width
          ctx.fillStyle = style.text === '#ffffff' ? 'rgba(0,0,0,0.35)' : 'rgba(255,255,255,0.6)'
          ctx.fillRect(x0 + 2, mid - 11, tw + 4, 22)
          ctx.fillStyle = style.text
          ctx.fillText(label, x0 + 4, mid + 1)
        }
        continue
      }
      if (state === RUNNABLE) {
        ctx.fillStyle = '#ffffff'
        ctx.fillRect(x0, mid - 1, wpx, h / 2)
        ctx.strokeStyle = THEME.ink
        ctx.lineWidth = 1.5
        ctx.setLineDash([4, 2])
        ctx.strokeRect(x0 + 0.75, mid - 1 + 0.75, Math.max(1, wpx - 1.5), h / 2 - 1.5)
        ctx.setLineDash([])
        label = fitLabel(t.cpu[k] >= 0 ? `R · CPU ${t.cpu[k]}` : 'R', wpx, 10)
        if (label) { ctx.fillStyle = THEME.ink; ctx.font = FONT; ctx.fillText(label, x0 + 4, p.y + 10) }
      } else if (state === SLEEPING) {
        ctx.fillStyle = '#8a8a8a'
        ctx.fillRect(x0, mid - 1, wpx, 2)
        label = wpx > 40 ? 'S' : ''
        if (label) { ctx.fillStyle = THEME.muted; ctx.font = FONT; ctx.fillText(label, x0 + 4, p.y + 10) }
      } else if (state === BLOCKED) {
        ctx.fillStyle = '#4a4a4a'
        ctx.fillRect(x0, mid - 9, wpx, 18)
        if (wpx > 24) { ctx.fillStyle = '#ffffff'; ctx.font = 'bold 16px system-ui, sans-serif'; ctx.fillText('D', x0 + 4, mid + 1) }
      }
    }
    // The selected slice's task: its lane outlined.
    if (p.row.pid === selectedPid) {
      ctx.strokeStyle = THEME.focus
      ctx.lineWidth = 2
      ctx.strokeRect(1, p.y + 1, width - 2, p.h - 2)
    }
    ctx.strokeStyle = '#e0e0e0'
    ctx.lineWidth = 1
    ctx.beginPath(); ctx.moveTo(0, p.y + p.h - 0.5); ctx.lineTo(width, p.y + p.h - 0.5); ctx.stroke()
  }
  if (cursor !== null) {
    const x = timeToX(cursor, w, width)
    if (x >= 0 && x <= width) {
      ctx.strokeStyle = THEME.focus
      ctx.lineWidth = 2
      ctx.setLineDash([6, 3])
      ctx.beginPath(); ctx.moveTo(x, AXIS); ctx.lineTo(x, height); ctx.stroke()
      ctx.setLineDash([])
    }
  }
}
