/*
 * The mm_cid lesson's picture, placed (pure, unit-tested without a DOM):
 *
 *   ┌ L3 #0 ─────────────────┐ ┌ L3 #1 ────────────┐    CPUs grouped by L3 (the
 *   │ CPU 0   (3)  CPU 1  ( )│ │ CPU 2 (1) ...      │    machine view's grouping),
 *   │ T1000        idle      │ │                    │    each with its cid badge
 *   └────────────────────────┘ └────────────────────┘
 *   cidmask   [1][0][1][1][0][0][0][0]                  one cell per cid: bit 1/0
 *             cid 0 1 2 3 ...
 *   areas     [L3 #0][cold][L3 #1] ...                  the cid's 16 KiB data area,
 *                                                       in the same column
 *   DRAM ───────────────────────────────────────────    where cold lines come from
 *
 * Units are CSS pixels at the width the view measured (scale 1), so type sizes
 * hold on a projector. Cards shrink (comfortable -> compact) before the cell
 * rows wrap; the picture grows downwards rather than shrinking its text.
 * The chart's scales (D3) are here too.
 */
import { scaleLinear, scaleLog, type ScaleLinear, type ScaleLogarithmic } from 'd3'
import type { Topology } from '../../core/shared/types'

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface CardPos extends Rect {
  cpu: number
  llc: number
  /** The cid badge (circle) at the card's top right. */
  badge: { cx: number; cy: number; r: number }
  /** Where the running thread's chip (or "idle") goes. */
  chip: Rect
}

export interface GroupPos extends Rect {
  llc: number
  socket: number
  label: string
  header: number
  cards: CardPos[]
}

export interface CellPos extends Rect {
  index: number
}

export interface PictureMetrics {
  /** head: the "CPU n" row's height; chipHeight: the thread chip's. */
  card: { width: number; height: number; gap: number; font: number; chipFont: number; badgeR: number; head: number; chipHeight: number }
  group: { header: number; pad: number; gap: number; font: number }
  /** indexGap: the row of cid numbers between a cidmask row and its data row. */
  cell: { height: number; areaHeight: number; gap: number; font: number; min: number; max: number; indexGap: number }
  gutter: number
  rowGap: number
  dramHeight: number
  /** Every label's font size, drawing units. */
  text: PictureText
  /**
   * Projector layout (presenter mode): the socket named in its L3's heading (no heading
   * row of its own), the data row's size note shortened; every label 18 units and up, so
   * the drawing, scaled to fill the stage at 1 or more, draws no text under 18 px.
   */
  projector: boolean
}

export interface PictureText {
  socket: number
  group: number
  cpu: number
  /** "CPU 100" and up. */
  cpuWide: number
  /** "recent n", "no cid". */
  note: number
  /** The thread chip "T1002", "idle". */
  chip: number
  lazy: number
  differs: number
  bit: number
  /** The cid numbers under the cidmask. */
  index: number
  /** "cidmask", "data". */
  row: number
  /** "16 KiB/cid". */
  rowNote: number
  area: number
  dram: number
  /** The "cid n" chip flying to a CPU. */
  flight: number
}

/** The text sizes of the page picture's densities (derived from their base fonts). */
function textOf(card: { font: number; chipFont: number }, groupFont: number, cellFont: number): PictureText {
  return {
    socket: groupFont + 1, group: groupFont, cpu: card.font, cpuWide: card.font - 1, note: card.chipFont - 1, chip: card.chipFont,
    lazy: card.font - 3, differs: 14, bit: cellFont + 2, index: cellFont - 1, row: cellFont, rowNote: cellFont - 2, area: cellFont,
    dram: cellFont, flight: 14,
  }
}

/** Two densities: the layout uses the first whose CPU rows fit `maxCpuHeight`. */
export const METRICS: readonly PictureMetrics[] = [
  {
    card: { width: 96, height: 72, gap: 8, font: 15, chipFont: 14, badgeR: 12, head: 20, chipHeight: 21 },
    group: { header: 24, pad: 6, gap: 10, font: 14 },
    cell: { height: 30, areaHeight: 38, gap: 4, font: 14, min: 38, max: 64, indexGap: 18 },
    gutter: 74,
    rowGap: 10,
    dramHeight: 22,
    text: textOf({ font: 15, chipFont: 14 }, 14, 14),
    projector: false,
  },
  {
    card: { width: 84, height: 64, gap: 6, font: 14, chipFont: 13, badgeR: 10, head: 20, chipHeight: 21 },
    group: { header: 22, pad: 5, gap: 8, font: 13 },
    cell: { height: 28, areaHeight: 36, gap: 3, font: 13, min: 34, max: 56, indexGap: 18 },
    gutter: 70,
    rowGap: 8,
    dramHeight: 22,
    text: textOf({ font: 14, chipFont: 13 }, 13, 13),
    projector: false,
  },
]

/** The smallest label of the projector layout, drawing units (the projector rule: 18 px). */
export const PROJECTOR_MIN_FONT = 18

/**
 * Presenter mode's density: fewer, larger labels. Every text is PROJECTOR_MIN_FONT or more,
 * and the boxes are sized for it (a card holds "recent 7" at 18 beside its badge).
 */
export const PROJECTOR_METRICS: PictureMetrics = {
  card: { width: 134, height: 88, gap: 8, font: 19, chipFont: 18, badgeR: 14, head: 24, chipHeight: 27 },
  group: { header: 28, pad: 6, gap: 10, font: 19 },
  cell: { height: 36, areaHeight: 50, gap: 5, font: 18, min: 58, max: 72, indexGap: 24 },
  gutter: 100,
  rowGap: 12,
  dramHeight: 30,
  text: {
    socket: 19, group: 19, cpu: 19, cpuWide: 18, note: 18, chip: 18, lazy: 18, differs: 20, bit: 21, index: 18,
    row: 19, rowNote: 18, area: 18, dram: 18, flight: 18,
  },
  projector: true,
}

export interface PictureLayout {
  width: number
  height: number
  metrics: PictureMetrics
  groups: GroupPos[]
  /** "Socket s" headings above each socket's L3s (several sockets only). */
  socketLabels: { x: number; y: number; text: string }[]
  /** Card of each shown CPU, by CPU number. */
  cards: Map<number, CardPos>
  /** Card of a CPU, or of its L3 group's first card when the CPU is not shown (arrows still land). */
  anchorOf: (cpu: number) => Rect | null
  /** The L3 group box of an LLC id (when one of its CPUs is shown). */
  groupOf: (llc: number) => GroupPos | null
  /** mm->cidmask cells, by cid. */
  cid: CellPos[]
  /** Data-area cells, by index, each straight below its cid. */
  area: CellPos[]
  /** Row label positions: one pair per wrapped row (cidmask, areas). */
  rowLabels: { cid: { x: number; y: number }; area: { x: number; y: number } }[]
  /** The memory strip lines come from when no cache has them. */
  dram: Rect
}

export interface PictureInput {
  topology: Topology
  /** CPUs to draw (ascending or not: grouped and sorted here). */
  cpus: readonly number[]
  /** cid / area cells to draw (cids 0..cells-1). */
  cells: number
  /** Available width, px. */
  width: number
  /** CPU rows taller than this switch to the compact density. */
  maxCpuHeight?: number
  /** Presenter mode: PROJECTOR_METRICS, one density. */
  projector?: boolean
}

/** Rough text width for a font size (the topology view uses the same rule). */
const textWidth = (text: string, font: number) => text.length * font * 0.6

/** CPUs grouped by (socket, L3), groups in L3 order, CPUs ascending inside. */
export function groupCpus(topology: Topology, cpus: readonly number[]): { llc: number; socket: number; cpus: number[] }[] {
  const by = new Map<number, { llc: number; socket: number; cpus: number[] }>()
  for (const cpu of [...new Set(cpus)].sort((a, b) => a - b)) {
    const info = topology.cpus[cpu]
    if (!info) continue
    let g = by.get(info.llc)
    if (!g) by.set(info.llc, (g = { llc: info.llc, socket: info.socket, cpus: [] }))
    g.cpus.push(cpu)
  }
  return [...by.values()].sort((a, b) => a.llc - b.llc)
}

/** Places the L3 groups, trying card-column caps 4..1 and keeping the lowest result (ties: more columns). */
function placeGroups(topology: Topology, cpus: readonly number[], width: number, m: PictureMetrics, top: number) {
  let best: { placed: ReturnType<typeof placeGroupsCapped>; score: number } | null = null
  for (const cap of [4, 3, 2, 1]) {
    const placed = placeGroupsCapped(topology, cpus, width, m, top, cap)
    const fits = placed.groups.every((g) => g.x + g.width <= width + 0.5)
    // Lowest first; then fewest empty card slots (2 x 2 rather than 3 + 1).
    const score = placed.bottom + placed.emptySlots * 0.5
    if (fits && (!best || score < best.score)) best = { placed, score }
  }
  return best?.placed ?? placeGroupsCapped(topology, cpus, width, m, top, 1)
}

/** Places the L3 groups left to right, wrapping at `width`, at most `cap` card columns per group. */
function placeGroupsCapped(topology: Topology, cpus: readonly number[], width: number, m: PictureMetrics, top: number, cap: number) {
  const sockets = new Set(topology.cpus.map((c) => c.socket)).size
  const groups: GroupPos[] = []
  const socketLabels: { x: number; y: number; text: string }[] = []
  let x = 0
  let y = top
  let rowHeight = 0
  let emptySlots = 0
  let socket = -1
  for (const g of groupCpus(topology, cpus)) {
    if (sockets > 1 && !m.projector && g.socket !== socket) {
      // Each socket's L3s start on a new row under a "Socket s" heading.
      if (socket >= 0) y += rowHeight + m.group.gap
      socket = g.socket
      socketLabels.push({ x: 0, y: y + SOCKET_LABEL / 2, text: `Socket ${g.socket}` })
      y += SOCKET_LABEL
      x = 0
      rowHeight = 0
    }
    // Projector: the socket in the L3's heading, no heading row of its own.
    const label = m.projector && sockets > 1 ? `L3 #${g.llc} · socket ${g.socket}` : `L3 #${g.llc}`
    const maxCols = Math.max(1, Math.floor((width - 2 * m.group.pad + m.card.gap) / (m.card.width + m.card.gap)))
    const cols = Math.min(g.cpus.length, maxCols, cap)
    const rows = Math.ceil(g.cpus.length / cols)
    emptySlots += rows * cols - g.cpus.length
    const inner = cols * m.card.width + (cols - 1) * m.card.gap
    const w = Math.max(inner + 2 * m.group.pad, Math.min(width, textWidth(label, m.group.font) + 2 * m.group.pad))
    const h = m.group.header + rows * m.card.height + (rows - 1) * m.card.gap + m.group.pad
    if (x > 0 && x + w > width) {
      x = 0
      y += rowHeight + m.group.gap
      rowHeight = 0
    }
    const cards = g.cpus.map((cpu, i) => {
      const cx = x + m.group.pad + (i % cols) * (m.card.width + m.card.gap)
      const cy = y + m.group.header + Math.floor(i / cols) * (m.card.height + m.card.gap)
      const r = m.card.badgeR
      // Rows: "CPU n" | cid badge + "recent n" | the running thread's chip.
      return {
        cpu, llc: g.llc, x: cx, y: cy, width: m.card.width, height: m.card.height,
        badge: { cx: cx + 5 + r, cy: cy + m.card.head + r, r },
        chip: { x: cx + 4, y: cy + m.card.height - 4 - m.card.chipHeight, width: m.card.width - 8, height: m.card.chipHeight },
      }
    })
    groups.push({ llc: g.llc, socket: g.socket, label, header: m.group.header, x, y, width: w, height: h, cards })
    x += w + m.group.gap
    rowHeight = Math.max(rowHeight, h)
  }
  return { groups, socketLabels, emptySlots, bottom: groups.length ? y + rowHeight : top }
}

/** Height of a "Socket s" heading row (machines with several sockets). */
const SOCKET_LABEL = 20

/** The cid / area cell grid: columns of cells, wrapped into row pairs below `top`. */
export function layoutCells(cells: number, width: number, m: PictureMetrics, top: number) {
  const avail = Math.max(m.cell.min, width - m.gutter)
  const fitAll = (avail + m.cell.gap) / Math.max(1, cells) - m.cell.gap
  const cellW = Math.max(m.cell.min, Math.min(m.cell.max, Math.floor(fitAll)))
  const perRow = Math.max(1, Math.floor((avail + m.cell.gap) / (cellW + m.cell.gap)))
  const rows = Math.ceil(cells / perRow)
  const pairHeight = m.cell.height + m.cell.indexGap + m.cell.areaHeight + m.rowGap
  const cid: CellPos[] = []
  const area: CellPos[] = []
  const rowLabels: PictureLayout['rowLabels'] = []
  for (let r = 0; r < rows; r++) {
    const y = top + r * pairHeight
    rowLabels.push({ cid: { x: 0, y: y + m.cell.height / 2 }, area: { x: 0, y: y + m.cell.height + m.cell.indexGap + m.cell.areaHeight / 2 } })
  }
  for (let i = 0; i < cells; i++) {
    const r = Math.floor(i / perRow)
    const x = m.gutter + (i % perRow) * (cellW + m.cell.gap)
    const y = top + r * pairHeight
    cid.push({ index: i, x, y, width: cellW, height: m.cell.height })
    area.push({ index: i, x, y: y + m.cell.height + m.cell.indexGap, width: cellW, height: m.cell.areaHeight })
  }
  return { cid, area, rowLabels, bottom: top + rows * pairHeight - m.rowGap, perRow }
}

/** Lays out the whole picture for a width; the first density whose CPU rows fit maxCpuHeight. */
export function layoutPicture({ topology, cpus, cells, width, maxCpuHeight = 260, projector = false }: PictureInput): PictureLayout {
  let chosen: { m: PictureMetrics; placed: ReturnType<typeof placeGroups> } | null = null
  for (const m of projector ? [PROJECTOR_METRICS] : METRICS) {
    const placed = placeGroups(topology, cpus, width, m, 0)
    chosen = { m, placed }
    if (placed.bottom <= maxCpuHeight) break
  }
  const { m, placed } = chosen!
  const cellsTop = placed.bottom + 12
  const grid = layoutCells(Math.max(1, cells), width, m, cellsTop)
  const dram = { x: m.gutter, y: grid.bottom + 8, width: Math.max(40, width - m.gutter), height: m.dramHeight }
  const cards = new Map<number, CardPos>()
  for (const g of placed.groups) for (const c of g.cards) cards.set(c.cpu, c)
  const groupByLlc = new Map(placed.groups.map((g) => [g.llc, g]))
  const contentWidth = Math.max(
    ...placed.groups.map((g) => g.x + g.width),
    ...grid.cid.map((c) => c.x + c.width),
    dram.x + dram.width,
  )
  return {
    width: Math.max(width, contentWidth),
    height: dram.y + dram.height + 2,
    metrics: m,
    groups: placed.groups,
    socketLabels: placed.socketLabels,
    cards,
    anchorOf: (cpu) => cards.get(cpu) ?? groupByLlc.get(topology.cpus[cpu]?.llc ?? -1) ?? null,
    groupOf: (llc) => groupByLlc.get(llc) ?? null,
    cid: grid.cid,
    area: grid.area,
    rowLabels: grid.rowLabels,
    dram,
  }
}

/**
 * Presenter mode: the projector layout that, scaled like an image to fill a box of
 * boxWidth x boxHeight px (preserveAspectRatio meet), is drawn largest. Tries layout
 * widths from narrow (cards wrap into more rows) to the box's width and keeps the one
 * whose scale, min(boxWidth / width, boxHeight / height), is largest; its smallest label
 * is then PROJECTOR_MIN_FONT x scale px on screen.
 */
export function fitProjectorPicture(input: Omit<PictureInput, 'width' | 'projector'>, boxWidth: number, boxHeight: number): { layout: PictureLayout; scale: number } {
  const m = PROJECTOR_METRICS
  const narrowest = m.gutter + Math.max(m.card.width + 2 * m.group.pad, 4 * (m.cell.min + m.cell.gap))
  let best: { layout: PictureLayout; scale: number } | null = null
  for (let w = narrowest; ; w += 12) {
    const layout = layoutPicture({ ...input, width: Math.min(w, Math.max(narrowest, boxWidth)), projector: true })
    const scale = Math.min(boxWidth / layout.width, boxHeight / layout.height)
    if (!best || scale > best.scale + 1e-9) best = { layout, scale }
    if (w >= boxWidth) break
  }
  return best!
}

/**
 * How many cid cells to draw: every cid that matters (allocated, remembered,
 * with a touched area, or below the thread count), at least 8, at most the
 * machine's CPU count (cids are below nr_cpu_ids).
 */
export function cellCount(nrCpus: number, threads: number, used: readonly number[]): number {
  const highest = used.reduce((m, c) => Math.max(m, c + 1), 0)
  return Math.min(nrCpus, Math.max(8, threads, highest))
}

export interface ArrowGeometry {
  /** SVG path data: a quadratic curve from the edge of `from` to the edge of `to`. */
  d: string
  start: { x: number; y: number }
  control: { x: number; y: number }
  end: { x: number; y: number }
}

/** A curved arrow between two boxes' centres, cut at their edges, bowed sideways (at least 28 px); arches over side-by-side boxes peak no higher than minY. */
export function arrowGeometry(from: Rect, to: Rect, minY = 2): ArrowGeometry {
  const x1 = from.x + from.width / 2
  const y1 = from.y + from.height / 2
  const x2 = to.x + to.width / 2
  const y2 = to.y + to.height / 2
  const dx = x2 - x1
  const dy = y2 - y1
  const len = Math.max(1, Math.hypot(dx, dy))
  const f = (n: number) => n.toFixed(1)
  if (Math.abs(dy) < Math.min(from.height, to.height) / 2) {
    // Side by side: from top edge to top edge, arching above both.
    const start = { x: x1 + Math.sign(dx) * Math.min(12, from.width / 4), y: from.y + 2 }
    const end = { x: x2 - Math.sign(dx) * Math.min(12, to.width / 4), y: to.y - 2 }
    // The curve peaks halfway to the control point: keep that peak at or below minY.
    const control = { x: (start.x + end.x) / 2, y: Math.max(2 * minY - Math.min(start.y, end.y), Math.min(from.y, to.y) - Math.max(26, Math.abs(dx) / 4)) }
    return { d: `M${f(start.x)},${f(start.y)} Q${f(control.x)},${f(control.y)} ${f(end.x)},${f(end.y)}`, start, control, end }
  }
  const shrink = (r: Rect) => Math.min(r.width, r.height) / 2
  const start = { x: x1 + (dx / len) * shrink(from), y: y1 + (dy / len) * shrink(from) }
  const end = { x: x2 - (dx / len) * (shrink(to) + 4), y: y2 - (dy / len) * (shrink(to) + 4) }
  const bow = Math.max(28, len / 5)
  const control = { x: (start.x + end.x) / 2 + (dy / len) * bow, y: (start.y + end.y) / 2 - (dx / len) * bow }
  return { d: `M${f(start.x)},${f(start.y)} Q${f(control.x)},${f(control.y)} ${f(end.x)},${f(end.y)}`, start, control, end }
}

/** The point at t (0..1) along an arrow's curve. */
export function pointOnArrow(g: ArrowGeometry, t: number): { x: number; y: number } {
  const u = 1 - t
  return {
    x: u * u * g.start.x + 2 * u * t * g.control.x + t * t * g.end.x,
    y: u * u * g.start.y + 2 * u * t * g.control.y + t * t * g.end.y,
  }
}

/** Where a label of `width` x `height` centred at p stays inside a w x h picture. */
export function clampLabel(p: { x: number; y: number }, width: number, height: number, w: number, h: number) {
  return {
    x: Math.min(Math.max(p.x, width / 2 + 2), w - width / 2 - 2),
    y: Math.min(Math.max(p.y, height / 2 + 2), h - height / 2 - 2),
  }
}

// ---- the chart: ns per burst over time ------------------------------------------------

export interface ChartBox {
  width: number
  height: number
  margin: { top: number; right: number; bottom: number; left: number }
}

export interface ChartScales {
  x: ScaleLinear<number, number>
  y: ScaleLogarithmic<number, number>
  /** Time ticks (ms) and cost ticks (ns) with their labels. */
  xTicks: { value: number; label: string }[]
  yTicks: { value: number; label: string }[]
}

/** "500 ns", "1 µs", "20 µs" for the log axis. */
export function nsTickLabel(ns: number): string {
  if (ns >= 1e6) return `${+(ns / 1e6).toPrecision(3)} ms`
  if (ns >= 1e3) return `${+(ns / 1e3).toPrecision(3)} µs`
  return `${+ns.toPrecision(3)} ns`
}

/**
 * Time (ms, linear, 0..tMaxMs) across and cost (ns per burst, log: costs span
 * 100x between a hot and a cold burst) up. The log domain covers every cost,
 * padded to whole decades' 1-2-5 steps.
 */
export function chartScales(costsNs: readonly number[], tMaxMs: number, box: ChartBox): ChartScales {
  const { width, height, margin } = box
  const positive = costsNs.filter((c) => c > 0)
  const lo = positive.length ? Math.min(...positive) : 100
  const hi = positive.length ? Math.max(...positive) : 10000
  const floor = Math.pow(10, Math.floor(Math.log10(lo * 0.8)))
  const ceil = Math.pow(10, Math.ceil(Math.log10(hi * 1.25)))
  const y = scaleLog().domain([floor, Math.max(ceil, floor * 10)]).range([height - margin.bottom, margin.top])
  const x = scaleLinear().domain([0, Math.max(1, tMaxMs)]).range([margin.left, width - margin.right]).nice()
  const decades: number[] = []
  for (let d = floor; d <= y.domain()[1] * 1.0001; d *= 10) decades.push(d)
  const yValues = decades.length <= 3 ? decades.flatMap((d) => [d, 2 * d, 5 * d]).filter((v) => v <= y.domain()[1]) : decades
  return {
    x,
    y,
    xTicks: x.ticks(Math.max(2, Math.floor((width - margin.left - margin.right) / 90))).map((v) => ({ value: v, label: `${v / 1000 >= 1 && v % 1000 === 0 ? `${v / 1000} s` : `${v} ms`}` })),
    yTicks: yValues.map((v) => ({ value: v, label: nsTickLabel(v) })),
  }
}
