/*
 * Topology layout: pure maths from a Topology to nested, positioned boxes.
 * No DOM; index.tsx renders the result as SVG.
 *
 *   ┌ Socket 0 ───────────────────────────┐ ┌ Socket 1 ─────── ...
 *   │ ┌ Node 0 ─────────────────────────┐ │
 *   │ │ ┌ L3 #0 · 32 MiB ┐ ┌ L3 #1 ... ┐ │ │   top level: a grid (side by side when it fits)
 *   │ │ │ ┌core 0┐┌core 1┐│ │           │ │ │   each group: a grid of its child groups
 *   │ │ │ │ 0 192││ 1 193││ │           │ │ │   innermost group: a grid of cores
 *   │ │ │ └──────┘└──────┘│ │           │ │ │   core: its SMT threads side by side
 *
 * Nesting follows containment, not a fixed order. Usually socket > NUMA node >
 * LLC, but real machines differ: with memory interleaving one node spans both
 * sockets (node > socket > LLC), and with Intel's sub-NUMA clustering one L3
 * spans two nodes (socket > LLC > node). nestingOrder() picks the order in
 * which every group lies inside exactly one parent, so each socket, node and
 * LLC is drawn as exactly one box.
 *
 * Every grid has uniform cells (the largest sibling), so equal things look
 * equal and line up. The column counts are chosen by trying them all and
 * keeping the arrangement that lets the drawing be largest in the viewport it
 * will be shown in: 2 x 12 LLCs x 8 cores on a wide screen and 1 x 2 x 2 on a
 * projector both fill the space.
 *
 * Units: one unit is one CSS pixel at scale 1; the SVG viewBox is the layout's
 * width x height, and `scale` says how many pixels a unit gets in the viewport.
 */
import { group } from 'd3'
import type { CpuInfo, Topology } from '../../core/shared/types'
import { formatKib } from '../../core/shared/cpulist'

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export type GroupKind = 'socket' | 'node' | 'llc'

export interface CpuBox extends Rect {
  cpu: CpuInfo
  label: string
}
export interface CoreBox extends Rect {
  core: number
  label: string
  cpus: CpuBox[]
}
/** A socket, NUMA node or LLC: holds either child groups or (innermost) cores. */
export interface GroupBox extends Rect {
  kind: GroupKind
  id: number
  label: string
  groups: GroupBox[]
  cores: CoreBox[]
}

/** Spacing and type size of one kind of box, in layout units. */
export interface LevelStyle {
  /** Height of the label strip at the top of the box (0: no label). */
  header: number
  /** Inner margin left, right and bottom. */
  pad: number
  /** Space between the box's children (core: between its SMT CPUs; LLC: between cores; ...). */
  gap: number
  /** Font size of the box's label. */
  font: number
}

export interface Metrics {
  /** Side of a CPU square. */
  cpu: number
  /** Font size of the CPU number inside the square. */
  cpuFont: number
  core: LevelStyle
  llc: LevelStyle
  node: LevelStyle
  socket: LevelStyle
  /** Gap between the top-level boxes. */
  topGap: number
}

export interface GridChoice {
  /** Columns of the top-level grid, then of each nesting level's children; the last is cores. */
  columns: number[]
  /** Whether cores have a "core N" label strip (dropped only when too dense to read). */
  coreLabels: boolean
}

export interface TopologyLayout {
  width: number
  height: number
  /** Pixels per unit when fitted into the viewport the layout was made for (at most MAX_SCALE). */
  scale: number
  metrics: Metrics
  /** Outermost to innermost, e.g. ['socket', 'node', 'llc']. */
  order: GroupKind[]
  grid: GridChoice
  /** The top-level boxes (usually sockets). */
  groups: GroupBox[]
  /** Every CPU box, indexed by CPU number. */
  cpus: CpuBox[]
}

export interface Viewport {
  width: number
  height: number
}

/**
 * Sizes in layout units. Chrome (headers, pads, gaps) is kept thin because it
 * scales with everything else: at 384 CPUs the CPU numbers get ~16 px on a
 * 1600 x 1000 window and ~11 px on a 1280 x 720 projector.
 */
export const METRICS: Metrics = {
  cpu: 40,
  cpuFont: 19,
  core: { header: 16, pad: 2, gap: 3, font: 13 },
  llc: { header: 24, pad: 6, gap: 6, font: 17 },
  node: { header: 26, pad: 8, gap: 10, font: 19 },
  socket: { header: 30, pad: 8, gap: 12, font: 22 },
  topGap: 16,
}

/** Below this many pixels a "core N" label is unreadable; cores then go unlabelled. */
export const MIN_CORE_LABEL_PX = 11

/** Nothing is magnified more than this: 8 CPUs should fill a projector, not a wall. */
export const MAX_SCALE = 3.2

/**
 * A small machine is drawn magnified, but its labels stop growing at this zoom:
 * their fonts and strips shrink instead and the CPUs get the room.
 */
export const MAX_LABEL_ZOOM = 1.5

const DEFAULT_VIEWPORT: Viewport = { width: 1600, height: 1000 }

/** Rough width of a label in a sans-serif font (no DOM to measure with). */
export function textWidth(text: string, font: number): number {
  return text.length * font * 0.6
}

/** The label texts, so widths can be reserved for them. */
export const labels = {
  socket: (socket: number) => `Socket ${socket}`,
  node: (node: number) => `Node ${node}`,
  llc: (llc: number, l3Kib: number) => `L3 #${llc} · ${formatKib(l3Kib)}`,
  core: (core: number) => `core ${core}`,
  cpu: (cpu: number) => `${cpu}`,
}

// ---- nesting ----------------------------------------------------------------------

/** Preferred first: the textbook socket > node > LLC. */
const ORDERS: GroupKind[][] = [
  ['socket', 'node', 'llc'],
  ['node', 'socket', 'llc'],
  ['socket', 'llc', 'node'],
  ['node', 'llc', 'socket'],
  ['llc', 'socket', 'node'],
  ['llc', 'node', 'socket'],
]

/** Whether every `inner` group lies inside a single `outer` group. */
function nestsIn(cpus: readonly CpuInfo[], inner: GroupKind, outer: GroupKind): boolean {
  const parent = new Map<number, number>()
  for (const c of cpus) {
    const p = parent.get(c[inner])
    if (p === undefined) parent.set(c[inner], c[outer])
    else if (p !== c[outer]) return false
  }
  return true
}

/**
 * The nesting order in which each group has one parent (cores always nest in
 * every group). When none exists the textbook order is used and a group that
 * straddles its parents is drawn once per parent.
 */
export function nestingOrder(cpus: readonly CpuInfo[]): GroupKind[] {
  return ORDERS.find(([a, b, c]) => nestsIn(cpus, b, a) && nestsIn(cpus, c, b)) ?? ORDERS[0]
}

interface CoreNode {
  core: number
  cpus: CpuInfo[]
}
interface GroupNode {
  kind: GroupKind
  id: number
  groups: GroupNode[]
  cores: CoreNode[]
}

const sortedKeys = <T>(m: Map<number, T>) => [...m.keys()].sort((a, b) => a - b)

/** Groups the CPUs into nested groups in `order`, then cores, then SMT threads; all sorted by id. */
export function buildTree(cpus: readonly CpuInfo[], order: GroupKind[]): GroupNode[] {
  const level = (members: readonly CpuInfo[], depth: number): GroupNode[] => {
    const kind = order[depth]
    const byId = group(members, (c) => c[kind])
    return sortedKeys(byId).map((id) => {
      const inside = byId.get(id)!
      if (depth + 1 < order.length) return { kind, id, groups: level(inside, depth + 1), cores: [] }
      const byCore = group(inside, (c) => c.core)
      const cores = sortedKeys(byCore).map((core) => ({
        core,
        cpus: [...byCore.get(core)!].sort((a, b) => a.smt_index - b.smt_index),
      }))
      return { kind, id, groups: [], cores }
    })
  }
  return level(cpus, 0)
}

// ---- sizes --------------------------------------------------------------------

interface Size {
  width: number
  height: number
}

/** Size of a box holding `count` uniform cells in `columns` columns under a label. */
function gridBox(cell: Size, count: number, columns: number, style: LevelStyle, labelWidth: number): Size {
  const cols = Math.max(1, Math.min(columns, count))
  const rows = Math.ceil(count / cols)
  const contentWidth = cols * cell.width + (cols - 1) * style.gap
  return {
    width: 2 * style.pad + Math.max(contentWidth, labelWidth),
    height: style.header + rows * cell.height + (rows - 1) * style.gap + style.pad,
  }
}

/**
 * Positions of `count` uniform cells in `columns` columns inside a box at (x, y);
 * the grid is centred when the box is wider than it (a long label).
 */
function gridCells(box: Rect, cell: Size, count: number, columns: number, style: LevelStyle): Rect[] {
  const cols = Math.max(1, Math.min(columns, count))
  const contentWidth = cols * cell.width + (cols - 1) * style.gap
  const left = box.x + Math.max(style.pad, (box.width - contentWidth) / 2)
  return Array.from({ length: count }, (_, i) => ({
    x: left + (i % cols) * (cell.width + style.gap),
    y: box.y + style.header + Math.floor(i / cols) * (cell.height + style.gap),
    width: cell.width,
    height: cell.height,
  }))
}

const maxOf = (xs: number[]) => xs.reduce((m, x) => Math.max(m, x), 0)

/** The tree plus what sizing needs per nesting level: widest child count and widest label. */
interface Plan {
  order: GroupKind[]
  tree: GroupNode[]
  l3Kib: number
  /** [top-level count, max children of a level-0 group, ..., max cores of an innermost group]. */
  counts: number[]
  threads: number
  /** Widest label at each nesting level, then of cores. */
  labelWidth: number[]
}

const labelOf = (g: { kind: GroupKind; id: number }, l3Kib: number) =>
  g.kind === 'llc' ? labels.llc(g.id, l3Kib) : labels[g.kind](g.id)

function planFor(topology: Topology, m: Metrics): Plan {
  const order = nestingOrder(topology.cpus)
  const tree = buildTree(topology.cpus, order)
  const l3Kib = topology.summary.l3_kib
  const levels: GroupNode[][] = [tree]
  for (let d = 1; d < order.length; d++) levels.push(levels[d - 1].flatMap((g) => g.groups))
  const innermost = levels[levels.length - 1]
  const cores = innermost.flatMap((g) => g.cores)
  return {
    order,
    tree,
    l3Kib,
    counts: [tree.length, ...levels.slice(0, -1).map((gs) => maxOf(gs.map((g) => g.groups.length))), maxOf(innermost.map((g) => g.cores.length))],
    threads: maxOf(cores.map((c) => c.cpus.length)),
    labelWidth: [
      ...levels.map((gs, d) => maxOf(gs.map((g) => textWidth(labelOf(g, l3Kib), m[order[d]].font)))),
      maxOf(cores.map((c) => textWidth(labels.core(c.core), m.core.font))),
    ],
  }
}

interface Sizes {
  coreStyle: LevelStyle
  threadColumns: number
  cpu: Size
  core: Size
  /** Cell size of a group box at each nesting level. */
  groups: Size[]
  total: Size
}

/** Cell sizes at every level for one grid choice (uniform cells: the largest sibling). */
function sizesFor(plan: Plan, m: Metrics, g: GridChoice): Sizes {
  const depth = plan.order.length
  const coreStyle = g.coreLabels ? m.core : { ...m.core, header: m.core.pad }
  const cpu = { width: m.cpu, height: m.cpu }
  const threadColumns = plan.threads <= 2 ? plan.threads : Math.ceil(Math.sqrt(plan.threads))
  const core = gridBox(cpu, plan.threads, threadColumns, coreStyle, g.coreLabels ? plan.labelWidth[depth] : 0)
  const groups: Size[] = new Array(depth)
  let cell = core
  for (let d = depth - 1; d >= 0; d--) {
    cell = gridBox(cell, plan.counts[d + 1], g.columns[d + 1], m[plan.order[d]], plan.labelWidth[d])
    groups[d] = cell
  }
  const top = { header: 0, pad: 0, gap: m.topGap, font: 0 }
  const total = gridBox(cell, plan.counts[0], g.columns[0], top, 0)
  return { coreStyle, threadColumns, cpu, core, groups, total }
}

const fitScale = (size: Size, viewport: Viewport) =>
  Math.min(viewport.width / size.width, viewport.height / size.height)

const range1 = (n: number) => Array.from({ length: Math.max(1, n) }, (_, i) => i + 1)

/** Every combination of column counts: 1..count at each level. */
function* columnChoices(counts: number[], prefix: number[] = []): Generator<number[]> {
  if (prefix.length === counts.length) {
    yield prefix
    return
  }
  // Top level widest first, so equal scales keep sockets side by side, left to right.
  const options = range1(counts[prefix.length])
  if (prefix.length === 0) options.reverse()
  for (const c of options) yield* columnChoices(counts, [...prefix, c])
}

/** Empty grid cells an arrangement leaves (a last row with one core looks unfinished). */
function emptyCells(counts: number[], columns: number[]): number {
  return counts.reduce((sum, n, i) => {
    const cols = Math.max(1, Math.min(columns[i], n))
    return sum + Math.ceil(n / cols) * cols - n
  }, 0)
}

/** Scales within this factor of the best count as equal; the tidier grid then wins. */
const SCALE_TOLERANCE = 0.97

/**
 * The grid that makes the drawing largest in the viewport; among those nearly
 * as large, the one with the fewest empty cells, then the first tried.
 */
function chooseGrid(plan: Plan, m: Metrics, viewport: Viewport, coreLabels: boolean): GridChoice {
  const tried = [...columnChoices(plan.counts)].map((columns) => {
    const g = { columns, coreLabels }
    return { g, scale: fitScale(sizesFor(plan, m, g).total, viewport), empty: emptyCells(plan.counts, columns) }
  })
  const bestScale = Math.max(...tried.map((t) => t.scale))
  const nearBest = tried.filter((t) => t.scale >= bestScale * SCALE_TOLERANCE)
  return nearBest.reduce((a, b) => (b.empty < a.empty || (b.empty === a.empty && b.scale > a.scale * 1.0001) ? b : a)).g
}

/** Metrics with every level's label (font and strip) scaled by k; CPUs, pads and gaps unchanged. */
function scaleLabels(m: Metrics, k: number): Metrics {
  const level = (l: LevelStyle): LevelStyle => ({ ...l, header: l.header * k, font: l.font * k })
  return { ...m, core: level(m.core), llc: level(m.llc), node: level(m.node), socket: level(m.socket) }
}

/** The best grid for these metrics, and the scale it gets (capped at MAX_SCALE). */
function arrange(topology: Topology, m: Metrics, viewport: Viewport) {
  const plan = planFor(topology, m)
  let grid = chooseGrid(plan, m, viewport, true)
  const labelled = Math.min(MAX_SCALE, fitScale(sizesFor(plan, m, grid).total, viewport))
  if (labelled * m.core.font < MIN_CORE_LABEL_PX) grid = chooseGrid(plan, m, viewport, false)
  const sizes = sizesFor(plan, m, grid)
  return { plan, grid, sizes, scale: Math.min(MAX_SCALE, fitScale(sizes.total, viewport)) }
}

/** Lays out a topology to fit a viewport of the given size (only its shape matters). */
export function layoutTopology(
  topology: Topology,
  viewport: Viewport = DEFAULT_VIEWPORT,
  base: Metrics = METRICS,
): TopologyLayout {
  let m = base
  let arranged = arrange(topology, m, viewport)
  // Smaller labels let the drawing grow, so iterate towards labels at MAX_LABEL_ZOOM.
  for (let i = 0; i < 4 && (m.socket.font / base.socket.font) * arranged.scale > MAX_LABEL_ZOOM * 1.02; i++) {
    m = scaleLabels(base, MAX_LABEL_ZOOM / arranged.scale)
    arranged = arrange(topology, m, viewport)
  }
  const { plan, grid, sizes: s } = arranged
  const depth = plan.order.length
  const cpus: CpuBox[] = []

  const placeCore = (core: CoreNode, box: Rect): CoreBox => {
    const cells = gridCells(box, s.cpu, core.cpus.length, s.threadColumns, s.coreStyle)
    const boxes = core.cpus.map((cpu, i): CpuBox => ({ ...cells[i], cpu, label: labels.cpu(cpu.cpu) }))
    for (const b of boxes) cpus[b.cpu.cpu] = b
    return { ...box, core: core.core, label: labels.core(core.core), cpus: boxes }
  }

  const placeGroup = (node: GroupNode, box: Rect, d: number): GroupBox => {
    const style = m[node.kind]
    const inner = d + 1 < depth
    const cells = inner
      ? gridCells(box, s.groups[d + 1], node.groups.length, grid.columns[d + 1], style)
      : gridCells(box, s.core, node.cores.length, grid.columns[d + 1], style)
    return {
      ...box,
      kind: node.kind,
      id: node.id,
      label: labelOf(node, plan.l3Kib),
      groups: inner ? node.groups.map((child, i) => placeGroup(child, cells[i], d + 1)) : [],
      cores: inner ? [] : node.cores.map((core, i) => placeCore(core, cells[i])),
    }
  }

  const top = { header: 0, pad: 0, gap: m.topGap, font: 0 }
  const topCells = gridCells({ x: 0, y: 0, ...s.total }, s.groups[0], plan.tree.length, grid.columns[0], top)
  return {
    width: s.total.width,
    height: s.total.height,
    scale: arranged.scale,
    metrics: m,
    order: plan.order,
    grid,
    groups: plan.tree.map((g, i) => placeGroup(g, topCells[i], 0)),
    cpus,
  }
}

/** Every box of a layout by kind (for tests and the highlight overlay). */
export function flattenLayout(layout: TopologyLayout) {
  const all: GroupBox[] = []
  const walk = (gs: GroupBox[]) => {
    for (const g of gs) {
      all.push(g)
      walk(g.groups)
    }
  }
  walk(layout.groups)
  const cores = all.flatMap((g) => g.cores)
  return {
    sockets: all.filter((g) => g.kind === 'socket'),
    nodes: all.filter((g) => g.kind === 'node'),
    llcs: all.filter((g) => g.kind === 'llc'),
    cores,
    cpus: cores.flatMap((c) => c.cpus),
  }
}
