/*
 * Machine layout: pure maths from a Topology (and which L3 boxes are open) to
 * positioned boxes for the simulation's machine view. No DOM; index.tsx draws.
 *
 * The grouping is the topology view's (nestingOrder + buildTree: socket > NUMA
 * node > L3 on most machines), but each CPU is a card with room for words:
 *
 *   ┌ Socket 0 · Node 0 ──────────────────────────────────────────────┐
 *   │ ┌ ▾ L3 #0 · CPUs 0-1,4-5 ─────────────┐ ┌ ▸ L3 #1     1/4 busy ┐ │
 *   │ │ ┌ CPU 0      rq 2 ┐ ┌ CPU 4   rq 0 ┐ │ │ [■][ ][ ][ ]         │ │
 *   │ │ │[hackbench 1003] │ │ ┆   idle   ┆ │ │ │ hackbench            │ │
 *   │ │ │[1004]           │ │ queue empty  │ │ └──────────────────────┘ │
 *   │ │ └─────────────────┘ └──────────────┘ │  a closed L3: one cell   │
 *   │ └──────────────────────────────────────┘  per CPU, what runs     │
 *
 * Boxes flow like words in a paragraph: left to right, wrapping to a new row
 * when the next does not fit, so two open L3s sit side by side on a wide
 * screen and stack on a projector. A group with a single child merges with it
 * ("Socket 0 · Node 0"), so a one-node socket costs no extra frame. When some
 * L3s of a group are open and some closed, all of them keep their place in a
 * grid of closed boxes, and each open one's cards fill a panel below its row
 * (the place and the panel share an outline): opening one L3 of 24 moves
 * nothing else sideways.
 *
 * The scale is the largest (up to MAX_SCALE; MAX_SUMMARY_SCALE when every L3
 * is closed) at which the drawing fits the viewport, trying card grids from
 * widest to narrowest; big machines that do not fit even at MIN_SCALE scroll
 * vertically at MIN_SCALE rather than shrink text below projector size.
 *
 * Units: one unit is one CSS pixel at scale 1.
 */
import { formatCpuList } from '../../core/shared/cpulist'
import type { CpuInfo, Topology } from '../../core/shared/types'
import { buildTree, nestingOrder, textWidth, type GroupKind, type Rect, type Viewport } from '../topology/layout'

export type { Rect, Viewport }

export const MACHINE_METRICS = {
  card: { width: 212, height: 112, pad: 8, gap: 10 },
  /** Inside a card: title row, running-task slot, queue row (offsets from the card's top). */
  title: { y: 8, height: 24, font: 18 },
  run: { y: 38, height: 36, font: 17 },
  queue: { y: 80, height: 24, font: 15, slot: 58, gap: 5 },
  group: {
    socket: { header: 32, pad: 8, gap: 10, font: 19 },
    node: { header: 32, pad: 8, gap: 10, font: 19 },
    llc: { header: 30, pad: 7, gap: 10, font: 17 },
  },
  /**
   * A closed L3: its header ("▸ L3 #5 · 3/16 busy", smaller type), a strip of
   * its CPUs, the running programs: 24 of them fit a 1600 x 1000 window.
   */
  collapsed: { width: 224, header: 27, headerFont: 15, strip: 14, summary: 20, font: 14, pad: 6 },
  topGap: 12,
} as const

export const MAX_SCALE = 2
/** With every L3 closed there are no cards to read from afar: summaries stop growing here. */
export const MAX_SUMMARY_SCALE = 1.4
export const MIN_SCALE = 0.9
/** Scales closer than this count as equal (the wider grid then wins). */
const SCALE_TIE = 0.005
/** Precision of the scale search. */
const SCALE_STEP = 0.001

export interface CardBox extends Rect {
  cpu: CpuInfo
  /** Where the running task's chip (or "idle") goes. */
  run: Rect
  /** Slots for queued tasks' chips, left to right; more tasks than slots show "+N". */
  queue: Rect[]
}

export interface GroupBox extends Rect {
  /** Kind of the box (an L3 merged with its parent is an 'llc', so it can still close). */
  kind: GroupKind
  /** The outermost kind merged into it, which sets its line style ("Socket 0 · Node 0" looks like a socket). */
  look: GroupKind
  id: number
  label: string
  /** Height of the label strip. */
  header: number
  font: number
  groups: GroupBox[]
  cards: CardBox[]
  /** L3 boxes only: whether it is shown as one summary row. */
  collapsed: boolean
  /** L3 boxes only: its CPUs (ascending). */
  cpus: number[]
  /** Closed L3 boxes only: the strip with one cell per CPU, and the line naming what runs. */
  strip: Rect | null
  summary: Rect | null
  /** The full name ("L3 #5 · CPUs 40-47,232-239"), also when the label is the short one. */
  title: string
  /**
   * An open L3 among closed siblings keeps its place in their grid: this is
   * that place (drawn like a closed box, marked open), and the box itself is a
   * full-width panel below the row.
   */
  tab: GroupBox | null
}

export interface MachineLayout {
  width: number
  height: number
  /** Pixels per unit in the viewport the layout was made for. */
  scale: number
  /** Whether the drawing is taller than the viewport at that scale (the view scrolls). */
  overflows: boolean
  groups: GroupBox[]
  /** Every L3 box, by ascending id. */
  llcs: GroupBox[]
  /** CPU cards of open L3s, indexed by CPU number (undefined inside closed ones). */
  cards: (CardBox | undefined)[]
  /** Where a task on each CPU is drawn: its card's run slot, or its closed L3's summary line. */
  anchors: Rect[]
}

interface Node {
  kind: GroupKind
  look: GroupKind
  id: number
  label: string
  /** Label of the closed L3 ("L3 #5", or "Socket 0 · L3 #5" when merged). */
  short: string
  groups: Node[]
  cpus: CpuInfo[] // innermost: in core order, SMT siblings adjacent
}

const labelText = {
  socket: (id: number) => `Socket ${id}`,
  node: (id: number) => `Node ${id}`,
  llc: (id: number, cpus: readonly CpuInfo[]) => `L3 #${id} · CPUs ${formatCpuList(cpus.map((c) => c.cpu))}`,
}

/** The topology's groups as nodes, single-child chains merged ("Socket 0 · Node 0"). */
function buildNodes(topology: Topology): Node[] {
  const order = nestingOrder(topology.cpus)
  const convert = (g: ReturnType<typeof buildTree>[number]): Node => {
    const cpus = g.groups.length ? [] : g.cores.flatMap((core) => core.cpus)
    const all: CpuInfo[] = []
    const collect = (x: ReturnType<typeof buildTree>[number]) => {
      all.push(...x.cores.flatMap((core) => core.cpus))
      x.groups.forEach(collect)
    }
    collect(g)
    const label = g.kind === 'llc' ? labelText.llc(g.id, all) : labelText[g.kind](g.id)
    const short = g.kind === 'llc' ? `L3 #${g.id}` : label
    const node: Node = { kind: g.kind, look: g.kind, id: g.id, label, short, groups: g.groups.map(convert), cpus }
    if (node.groups.length === 1) {
      const only = node.groups[0]
      const keepChild = only.kind === 'llc' || node.kind !== 'llc'
      return {
        kind: keepChild ? only.kind : node.kind,
        look: node.look,
        id: keepChild ? only.id : node.id,
        label: `${node.label} · ${only.label}`,
        short: `${node.short} · ${only.short}`,
        groups: only.groups,
        cpus: only.cpus,
      }
    }
    return node
  }
  return buildTree(topology.cpus, order).map(convert)
}

const M = MACHINE_METRICS
const style = (kind: GroupKind) => M.group[kind]
const labelWidth = (n: Node) => textWidth(`▸ ${n.label}`, style(n.kind).font) + 2 * style(n.kind).pad
/** A closed L3's header: its short label and the busy count the view appends. */
const closedWidth = (n: Node) =>
  Math.max(M.collapsed.width, textWidth(`▸ ${n.short}  000/000 busy`, M.collapsed.headerFont) + 2 * M.collapsed.pad)

/** Width of a row of n cards. */
const cardsWidth = (n: number) => n * M.card.width + Math.max(0, n - 1) * M.card.gap

/** The widest a box would be with all its content on one row. */
function naturalWidth(n: Node, open: ReadonlySet<number>, maxCols: number): number {
  const s = style(n.kind)
  if (n.kind === 'llc' && !open.has(n.id)) return closedWidth(n)
  const content = n.groups.length
    ? n.groups.reduce((sum, g, i) => sum + naturalWidth(g, open, maxCols) + (i ? s.gap : 0), 0)
    : cardsWidth(Math.min(n.cpus.length, maxCols))
  return Math.max(content + 2 * s.pad, labelWidth(n))
}

/** Card columns that fit `inner` units (at most maxCols), keeping SMT siblings on one row when it can. */
function cardColumns(inner: number, count: number, threads: number, maxCols: number): number {
  const fit = Math.floor((inner + M.card.gap) / (M.card.width + M.card.gap))
  let cols = Math.max(1, Math.min(count, fit, maxCols))
  if (threads > 1 && cols > threads && cols < count) cols -= cols % threads
  return cols
}

function cardAt(cpu: CpuInfo, x: number, y: number): CardBox {
  const inner = M.card.width - 2 * M.card.pad
  const slots = Math.max(1, Math.floor((inner + M.queue.gap) / (M.queue.slot + M.queue.gap)))
  return {
    cpu, x, y, width: M.card.width, height: M.card.height,
    run: { x: x + M.card.pad, y: y + M.run.y, width: inner, height: M.run.height },
    queue: Array.from({ length: slots }, (_, i) => ({
      x: x + M.card.pad + i * (M.queue.slot + M.queue.gap), y: y + M.queue.y, width: M.queue.slot, height: M.queue.height,
    })),
  }
}

interface Ctx {
  open: ReadonlySet<number>
  threads: number
  /** Most card columns an open group may use (the layout search tries several). */
  maxCols: number
}

/** Lays out a node with its top-left at (x, y) in at most `avail` units of width. */
/** A closed L3 at (x, y): header, strip, summary line. */
function closedBox(n: Node, x: number, y: number, avail: number): GroupBox {
  const c = M.collapsed
  const width = Math.min(avail, closedWidth(n))
  const inner = width - 2 * c.pad
  const strip = { x: x + c.pad, y: y + c.header, width: inner, height: c.strip }
  const summary = { x: x + c.pad, y: strip.y + strip.height + 2, width: inner, height: c.summary }
  return {
    kind: n.kind, look: n.look, id: n.id, label: n.short, title: n.label, header: c.header, font: c.headerFont,
    x, y, width, height: summary.y + summary.height + c.pad - y, cpus: collectCpus(n),
    groups: [], cards: [], collapsed: true, strip, summary, tab: null,
  }
}

function place(n: Node, x: number, y: number, avail: number, ctx: Ctx): GroupBox {
  const s = style(n.kind)
  const isLlc = n.kind === 'llc'
  const cpus = isLlc ? collectCpus(n) : []
  const base = { kind: n.kind, look: n.look, id: n.id, label: n.label, title: n.label, header: s.header, font: s.font, x, y, cpus }
  if (isLlc && !ctx.open.has(n.id)) return closedBox(n, x, y, avail)
  const inner = Math.max(M.card.width, avail - 2 * s.pad)
  if (!n.groups.length) {
    const cols = cardColumns(inner, n.cpus.length, ctx.threads, ctx.maxCols)
    const rows = Math.ceil(n.cpus.length / cols)
    const cards = n.cpus.map((cpu, i) =>
      cardAt(cpu, x + s.pad + (i % cols) * (M.card.width + M.card.gap), y + s.header + Math.floor(i / cols) * (M.card.height + M.card.gap)))
    return {
      ...base,
      width: Math.max(cardsWidth(cols) + 2 * s.pad, Math.min(avail, labelWidth(n))),
      height: s.header + rows * M.card.height + (rows - 1) * M.card.gap + s.pad,
      groups: [], cards, collapsed: false, strip: null, summary: null, tab: null,
    }
  }
  const flowed = flow(n.groups, x + s.pad, y + s.header, inner, s.gap, ctx)
  return {
    ...base,
    width: Math.max(flowed.width + 2 * s.pad, Math.min(avail, labelWidth(n))),
    height: s.header + flowed.height + s.pad,
    groups: flowed.boxes, cards: [], collapsed: false, strip: null, summary: null, tab: null,
  }
}

function collectCpus(n: Node): number[] {
  const out: number[] = []
  const walk = (x: Node) => {
    out.push(...x.cpus.map((c) => c.cpu))
    x.groups.forEach(walk)
  }
  walk(n)
  return out.sort((a, b) => a - b)
}

/** Splits nodes into rows, left to right, wrapping when the next width does not fit `avail`. */
function rowsOf(nodes: Node[], avail: number, gap: number, widthOf: (n: Node) => number): Node[][] {
  const rows: Node[][] = []
  let used = 0
  for (const n of nodes) {
    const w = widthOf(n)
    if (rows.length && used > 0 && used + gap + w > avail) {
      rows.push([n])
      used = w
    } else if (!rows.length) {
      rows.push([n])
      used = w
    } else {
      rows.at(-1)!.push(n)
      used += (used > 0 ? gap : 0) + w
    }
  }
  return rows
}

/**
 * Places nodes left to right from (x, y), wrapping at `avail` units; rows as
 * tall as their tallest box. L3s of which some are open and some closed are
 * laid out as a grid of closed boxes (so every L3 keeps its place when one
 * opens), each open one's panel spanning the width below its row.
 */
function flow(nodes: Node[], x: number, y: number, avail: number, gap: number, ctx: Ctx) {
  const isOpen = (n: Node) => n.kind === 'llc' && ctx.open.has(n.id)
  const mixed = nodes.every((n) => n.kind === 'llc') && nodes.some(isOpen) && !nodes.every(isOpen)
  const rows = rowsOf(nodes, avail, gap, (n) => (mixed ? closedWidth(n) : naturalWidth(n, ctx.open, ctx.maxCols)))
  const boxes: GroupBox[] = []
  let cy = y
  let width = 0
  for (const row of rows) {
    let cx = x
    let rowHeight = 0
    const panels: Node[] = []
    const tabs = new Map<number, GroupBox>()
    for (const n of row) {
      const box = mixed ? closedBox(n, cx, cy, x + avail - cx) : place(n, cx, cy, Math.min(naturalWidth(n, ctx.open, ctx.maxCols), x + avail - cx), ctx)
      if (mixed && isOpen(n)) {
        panels.push(n)
        tabs.set(n.id, box)
      } else {
        boxes.push(box)
      }
      cx += box.width + gap
      rowHeight = Math.max(rowHeight, box.height)
    }
    width = Math.max(width, cx - gap - x)
    cy += rowHeight + gap
    for (const n of panels) {
      const panel = place(n, x, cy, avail, ctx)
      boxes.push({ ...panel, width: Math.max(panel.width, avail), tab: tabs.get(n.id)! })
      width = Math.max(width, avail)
      cy += panel.height + gap
    }
  }
  return { boxes, width, height: cy - gap - y }
}

function layoutAt(nodes: Node[], width: number, ctx: Ctx) {
  return flow(nodes, 0, 0, width, M.topGap, ctx)
}

/** Card-column limits worth trying: every count up to the largest open group (capped), widest first. */
function columnLimits(nodes: Node[], open: ReadonlySet<number>): number[] {
  let most = 1
  const walk = (n: Node, inOpen: boolean) => {
    const visible = inOpen && (n.kind !== 'llc' || open.has(n.id))
    if (visible && !n.groups.length) most = Math.max(most, n.cpus.length)
    n.groups.forEach((g) => walk(g, visible))
  }
  nodes.forEach((n) => walk(n, true))
  return Array.from({ length: Math.min(most, MAX_COLUMN_LIMIT) }, (_, i) => Math.min(most, MAX_COLUMN_LIMIT) - i)
}

/** Past this many columns a card grid is wider than any screen anyway. */
const MAX_COLUMN_LIMIT = 24

/**
 * Lays out the machine for a viewport: the largest scale (MIN_SCALE..MAX_SCALE)
 * at which it fits, trying card grids from widest to narrowest (so two L3s of
 * four CPUs may sit side by side as 2 x 2 rather than stack as 1 x 4); when
 * nothing fits, MIN_SCALE with the widest grid, and the view scrolls.
 */
export function layoutMachine(topology: Topology, open: ReadonlySet<number>, viewport: Viewport): MachineLayout {
  const nodes = buildNodes(topology)
  const threads = topology.summary.threads_per_core
  const maxScale = topology.cpus.some((c) => open.has(c.llc)) ? MAX_SCALE : MAX_SUMMARY_SCALE
  let chosen: { scale: number; flowed: ReturnType<typeof layoutAt> } | null = null
  for (const maxCols of columnLimits(nodes, open)) {
    const ctx = { open, threads, maxCols }
    const fitting = (scale: number) => {
      const flowed = layoutAt(nodes, viewport.width / scale, ctx)
      const fits = flowed.height * scale <= viewport.height && flowed.width * scale <= viewport.width + 0.5
      return fits ? flowed : null
    }
    // Bisect for the largest fitting scale (a smaller scale means more room, so fitting is monotone).
    let lo = MIN_SCALE
    let best = fitting(lo)
    if (!best) continue
    let hi = maxScale
    const top = fitting(hi)
    if (top) {
      lo = hi
      best = top
    }
    while (hi - lo > SCALE_STEP) {
      const mid = (lo + hi) / 2
      const f = fitting(mid)
      if (f) {
        lo = mid
        best = f
      } else {
        hi = mid
      }
    }
    if (!chosen || lo > chosen.scale + SCALE_TIE) chosen = { scale: lo, flowed: best }
  }
  // Nothing fits: the smallest legible scale, widest grid, and a vertical scroll.
  chosen ??= { scale: MIN_SCALE, flowed: layoutAt(nodes, viewport.width / MIN_SCALE, { open, threads, maxCols: MAX_COLUMN_LIMIT }) }
  const { scale, flowed } = chosen

  const llcs: GroupBox[] = []
  const cards: (CardBox | undefined)[] = new Array(topology.cpus.length)
  const anchors: Rect[] = new Array(topology.cpus.length)
  const walk = (b: GroupBox) => {
    if (b.kind === 'llc') llcs.push(b)
    for (const c of b.cards) cards[c.cpu.cpu] = c
    b.groups.forEach(walk)
  }
  flowed.boxes.forEach(walk)
  llcs.sort((a, b) => a.id - b.id)
  for (const l of llcs) {
    for (const cpu of l.cpus) anchors[cpu] = cards[cpu]?.run ?? l.strip ?? l
  }
  return {
    width: flowed.width,
    height: flowed.height,
    scale,
    overflows: flowed.height * scale > viewport.height + 0.5,
    groups: flowed.boxes,
    llcs,
    cards,
    anchors,
  }
}
