/*
 * The trace timeline's geometry: pure functions, no DOM, unit-tested.
 *
 *   time axis   the trace's [t0, t1] (ns) maps onto [0, width] px at zoom 1; a
 *               D3 zoom transform {k, x} then gives the visible window:
 *                   px = k * base(t) + x        t = base^-1((px - x) / k)
 *   lanes       one lane per CPU, stacked by NUMA node then LLC when the trace
 *               says (a header row per group), flat otherwise; when the lanes
 *               would be thinner than MIN_LANE px, each group collapses to a
 *               single heat row (mean occupancy) until the user expands it
 *   detail      exact run slices when a pixel is less than SLICE_NS_PER_PX
 *               long, occupancy buckets (one per pixel column) otherwise
 *   colour      stable per process (tgid, else pid): an Okabe–Ito hue plus a
 *               hatch for the second cycle of hues; labels carry the name
 *               whenever the slice is wide enough
 */
import { SLICE_NS_PER_PX } from '../../core/traces/trace_window'
import { OKABE_ITO } from '../palette'

/** Width of the label column left of every timeline's canvas (CPU and task lanes line up on it). */
export const GUTTER_PX = 170

export interface ZoomTransform {
  k: number
  x: number
}

export interface TimeWindow {
  /** Visible start and end, absolute ns. */
  start: number
  end: number
}

/** Visible window for a zoom transform over the trace's [t0, t1] drawn `width` px wide. */
export function visibleWindow(t0: number, t1: number, width: number, z: ZoomTransform): TimeWindow {
  const span = Math.max(1, t1 - t0)
  const toT = (px: number) => t0 + (((px - z.x) / z.k) / width) * span
  return { start: toT(0), end: toT(width) }
}

/** x (px) of absolute time t in a window drawn `width` px wide. */
export function timeToX(t: number, w: TimeWindow, width: number): number {
  return ((t - w.start) / Math.max(1e-9, w.end - w.start)) * width
}

export function xToTime(x: number, w: TimeWindow, width: number): number {
  return w.start + (x / width) * (w.end - w.start)
}

/** The largest zoom: one pixel = 100 ns (the text formats print µs; trace.dat has ns). */
export function maxZoom(t0: number, t1: number, width: number): number {
  return Math.max(1, (t1 - t0) / width / 100)
}

/**
 * A transform that shows [start, end] (clamped to the trace): used by keyboard
 * zoom/pan and "zoom to selection".
 */
export function transformFor(t0: number, t1: number, width: number, start: number, end: number): ZoomTransform {
  const span = Math.max(1, t1 - t0)
  const s = Math.max(t0, Math.min(start, t1))
  const e = Math.max(s + 100, Math.min(end, t1))
  const k = Math.min(maxZoom(t0, t1, width), Math.max(1, span / (e - s)))
  const x = -((s - t0) / span) * width * k
  return clampTransform({ k, x }, width)
}

/** Keeps the trace on screen: x in [width - k * width, 0]. */
export function clampTransform(z: ZoomTransform, width: number): ZoomTransform {
  const k = Math.max(1, z.k)
  return { k, x: Math.min(0, Math.max(width - k * width, z.x)) }
}

/** Zoom by `factor` about pixel `px` (keyboard +/-). */
export function zoomAbout(z: ZoomTransform, factor: number, px: number, width: number, kMax: number): ZoomTransform {
  const k = Math.max(1, Math.min(kMax, z.k * factor))
  const x = px - ((px - z.x) / z.k) * k
  return clampTransform({ k, x }, width)
}

/** Pan by a fraction of the view's width (keyboard arrows). */
export function panBy(z: ZoomTransform, fraction: number, width: number): ZoomTransform {
  return clampTransform({ k: z.k, x: z.x - fraction * width }, width)
}

/** Exact slices below this many ns per pixel (the server fetches exact events below it too). */
export { SLICE_NS_PER_PX }

export function detailLevel(w: TimeWindow, width: number): 'slices' | 'buckets' {
  return (w.end - w.start) / Math.max(1, width) <= SLICE_NS_PER_PX ? 'slices' : 'buckets'
}

/* ---------- time ticks ---------- */

export interface Tick {
  x: number
  /** Relative to the trace's first event, with its unit: "12.5 ms", "250 µs". */
  label: string
}

const STEPS = [1, 2, 5]

/** Ticks every 1/2/5 x 10^n ns, about one per `spacing` px, labelled relative to t0 in ms (µs within the first ms). */
export function timeTicks(w: TimeWindow, width: number, t0: number, spacing = 120): Tick[] {
  const span = Math.max(1, w.end - w.start)
  const target = (span / width) * spacing
  let step = 1
  for (let p = 1; step < target; p *= 10) {
    for (const m of STEPS) {
      step = m * p
      if (step >= target) break
    }
  }
  // ms once the axis is past 1 ms from the start (µs only near it): "214.90 ms", not "214900 µs".
  const unitNs = step >= 1e6 || w.end - t0 >= 1e6 ? 1e6 : 1e3
  const unit = unitNs === 1e6 ? 'ms' : 'µs'
  const decimals = Math.max(0, Math.ceil(-Math.log10(step / unitNs) - 1e-9))
  const first = Math.ceil((w.start - t0) / step) * step
  const ticks: Tick[] = []
  for (let rel = first; t0 + rel <= w.end && ticks.length < 1000; rel += step) {
    ticks.push({ x: timeToX(t0 + rel, w, width), label: `${(rel / unitNs).toFixed(decimals)} ${unit}` })
  }
  return ticks
}

/* ---------- lanes ---------- */

export interface CpuPlace {
  cpu: number
  llc: number
  node: number
}

export interface LaneGroup {
  key: string
  /** "node 0 · LLC 1" or "all CPUs". */
  label: string
  cpus: number[]
  collapsed: boolean
  /** Header row. */
  y: number
  headerHeight: number
  /** The heat row when collapsed, else the first lane's top. */
  bodyY: number
  bodyHeight: number
}

export interface Lane {
  cpu: number
  group: string
  y: number
  height: number
}

export interface LaneLayout {
  groups: LaneGroup[]
  lanes: Lane[]
  height: number
  laneHeight: number
}

export const MIN_LANE = 22
/** A collapsed group's heat row while another group is expanded. */
export const HEAT_ROW = 16
export const MAX_LANE = 96
export const HEADER = 22
/** Groups with more CPUs than this split into blocks of CHUNK when the lanes do not fit. */
export const MAX_GROUP = 32
export const CHUNK = 16

/** "0-7,240-247": ascending CPU numbers as ranges. */
export function formatCpuRanges(cpus: readonly number[]): string {
  const sorted = [...cpus].sort((a, b) => a - b)
  const out: string[] = []
  for (let i = 0; i < sorted.length; ) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    out.push(j > i ? `${sorted[i]}–${sorted[j]}` : String(sorted[i]))
    i = j + 1
  }
  return out.join(',')
}

/**
 * Lanes for `cpus`, grouped by topology (null: one flat group). Groups named in
 * `expanded` always show their lanes; with `autoCollapse`, groups collapse to
 * one heat row when all lanes would not fit `height` at MIN_LANE.
 */
export function laneLayout(cpus: readonly number[], topology: ReadonlyMap<number, CpuPlace> | null, height: number,
  expanded: ReadonlySet<string> = new Set(), autoCollapse = true): LaneLayout {
  const topo = new Map<string, { label: string; cpus: number[]; order: number[] }>()
  for (const cpu of cpus) {
    const p = topology?.get(cpu)
    const key = p ? `n${p.node}-l${p.llc}` : 'all'
    const label = !p ? (topology ? 'CPUs not in the topology' : 'all CPUs')
      : [p.node >= 0 ? `node ${p.node}` : '', p.llc >= 0 ? `LLC ${p.llc}` : ''].filter(Boolean).join(' · ') || 'CPUs'
    let g = topo.get(key)
    if (!g) topo.set(key, (g = { label, cpus: [], order: [p?.node ?? 1e9, p?.llc ?? 1e9] }))
    g.cpus.push(cpu)
  }
  // Too many lanes to fit: a group bigger than MAX_GROUP CPUs (a 240-CPU LLC, or a
  // trace without topology) splits into blocks of CHUNK CPUs in its own order, so
  // each block collapses to a heat row and expands on its own (drill-down).
  const fits = (height - HEADER * topo.size) / Math.max(1, cpus.length) >= MIN_LANE
  const buckets = new Map<string, { label: string; cpus: number[]; order: number[] }>()
  for (const [key, g] of topo) {
    if (fits || !autoCollapse || g.cpus.length <= MAX_GROUP) {
      buckets.set(key, g)
      continue
    }
    for (let i = 0; i < g.cpus.length; i += CHUNK) {
      const part = g.cpus.slice(i, i + CHUNK)
      const base = g.label === 'all CPUs' ? 'CPUs' : `${g.label} · CPUs`
      buckets.set(`${key}/${i / CHUNK}`, { label: `${base} ${formatCpuRanges(part)}`, cpus: part, order: [...g.order, i] })
    }
  }
  const ordered = [...buckets.entries()].sort((a, b) => a[1].order[0] - b[1].order[0] || a[1].order[1] - b[1].order[1]
    || (a[1].order[2] ?? 0) - (b[1].order[2] ?? 0))
  const grouped = ordered.length > 1 || topology !== null
  const headerH = grouped ? HEADER : 0
  const totalCpus = cpus.length
  const fitsAll = (height - headerH * ordered.length) / Math.max(1, totalCpus) >= MIN_LANE
  const collapse = (key: string) => autoCollapse && !fitsAll && grouped && !expanded.has(key)
  const heatRows = ordered.filter(([key]) => collapse(key)).length
  const lanesShown = ordered.reduce((n, [key, g]) => n + (collapse(key) ? 0 : g.cpus.length), 0)
  // Heat rows stay thin so an expanded group's lanes get the room (the view scrolls past it).
  const heatHeight = heatRows && lanesShown ? HEAT_ROW : Math.max(HEAT_ROW, Math.min(MAX_LANE, (height - headerH * ordered.length) / Math.max(1, heatRows)))
  const laneHeight = Math.max(MIN_LANE, Math.min(MAX_LANE,
    (height - headerH * ordered.length - heatRows * heatHeight) / Math.max(1, lanesShown)))
  const groups: LaneGroup[] = []
  const lanes: Lane[] = []
  let y = 0
  for (const [key, g] of ordered) {
    const collapsed = collapse(key)
    const bodyY = y + headerH
    const bodyHeight = collapsed ? heatHeight : laneHeight * g.cpus.length
    groups.push({ key, label: g.label, cpus: g.cpus, collapsed, y, headerHeight: headerH, bodyY, bodyHeight })
    if (!collapsed) g.cpus.forEach((cpu, i) => lanes.push({ cpu, group: key, y: bodyY + i * laneHeight, height: laneHeight }))
    y = bodyY + bodyHeight
  }
  return { groups, lanes, height: y, laneHeight }
}

/* ---------- colour ---------- */

/** Okabe–Ito hues readable with white or black text, in a fixed order (black is the ink). */
const HUES = [OKABE_ITO.blue, OKABE_ITO.orange, OKABE_ITO.bluishGreen, OKABE_ITO.reddishPurple,
  OKABE_ITO.skyBlue, OKABE_ITO.vermillion, OKABE_ITO.yellow] as const
const DARK_HUES = new Set<string>([OKABE_ITO.blue, OKABE_ITO.bluishGreen, OKABE_ITO.vermillion])

export interface ProcessStyle {
  fill: string
  /** Text colour with enough contrast on the fill. */
  text: string
  /** Diagonal hatch over the fill (second cycle of hues): colour is not the only cue. */
  hatch: boolean
}

/** A stable style for a process key (tgid, or pid when the trace has no tgid); idle (0) is not filled. */
export function processStyle(key: number): ProcessStyle {
  // Knuth multiplicative hash: neighbouring pids get different hues.
  const h = Math.imul(key >>> 0, 2654435761) >>> 0
  const fill = HUES[h % HUES.length]
  return { fill, text: DARK_HUES.has(fill) ? '#ffffff' : '#000000', hatch: ((h >>> 8) & 1) === 1 }
}

/** Grey ramp (light = idle, dark = busy) for occupancy heat rows: lightness carries it, no hue. */
export function heatColor(fraction: number): string {
  const f = Math.max(0, Math.min(1, fraction))
  const v = Math.round(245 - f * 190)
  return `rgb(${v},${v},${v})`
}

/** Characters that fit in `px` at about `charPx` per character (labels are drawn only when they fit). */
export function fitLabel(text: string, px: number, charPx = 7.5): string {
  const room = Math.floor((px - 6) / charPx)
  if (room < 3) return ''
  return text.length <= room ? text : `${text.slice(0, Math.max(1, room - 1))}…`
}

/** "comm pid" when it fits, else the comm (cut), else the pid alone: a slice says who ran, by name first. */
export function sliceLabel(pid: number, comm: string, px: number): string {
  const full = comm ? `${comm} ${pid}` : String(pid)
  const fitted = fitLabel(full, px)
  if (fitted === full) return full
  const name = comm ? fitLabel(comm, px) : ''
  if (name.length >= 3) return name
  return fitLabel(String(pid), px) === String(pid) ? String(pid) : ''
}
