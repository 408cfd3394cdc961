// The machine view's layout, pure: synthetic topologies shaped like the presets
// (no wasm), open and closed L3 boxes, projector and desktop viewports.
import { describe, expect, it } from 'vitest'
import type { CpuInfo, Topology } from '../../core/shared/types'
import { MACHINE_METRICS, MAX_SUMMARY_SCALE, MIN_SCALE, layoutMachine, type GroupBox, type MachineLayout, type Rect } from './layout'

/** CPUs numbered thread-major like Linux: cpu = smt * cores + core. */
function machine(name: string, o: { sockets: number; coresPerSocket: number; threads: number; coresPerLlc: number; nodesPerSocket?: number }): Topology {
  const cores = o.sockets * o.coresPerSocket
  const nodesPerSocket = o.nodesPerSocket ?? 1
  const cpus: CpuInfo[] = []
  for (let smt = 0; smt < o.threads; smt++) {
    for (let core = 0; core < cores; core++) {
      const socket = Math.floor(core / o.coresPerSocket)
      const inSocket = core % o.coresPerSocket
      cpus.push({
        cpu: smt * cores + core,
        core,
        llc: Math.floor(core / o.coresPerLlc),
        node: socket * nodesPerSocket + Math.floor((inSocket * nodesPerSocket) / o.coresPerSocket),
        socket,
        smt_index: smt,
      })
    }
  }
  cpus.sort((a, b) => a.cpu - b.cpu)
  const llcs = new Set(cpus.map((c) => c.llc)).size
  return {
    name,
    cpus,
    summary: {
      cpus: cpus.length, cores, llcs, nodes: o.sockets * nodesPerSocket, sockets: o.sockets,
      threads_per_core: o.threads, l1d_kib: 32, l2_kib: 1024, l3_kib: 32768,
    },
  }
}

const classroom = machine('classroom-8', { sockets: 1, coresPerSocket: 4, threads: 2, coresPerLlc: 2 })
const epyc = machine('epyc-9654-2s', { sockets: 2, coresPerSocket: 96, threads: 2, coresPerLlc: 8 })
const hcc = machine('hcc-2s-480', { sockets: 2, coresPerSocket: 120, threads: 2, coresPerLlc: 120 })

const DESKTOP = { width: 1180, height: 560 }
const PROJECTOR = { width: 860, height: 320 }
const all = (t: Topology) => new Set(t.cpus.map((c) => c.llc))
const none = new Set<number>()

const inside = (inner: Rect, outer: Rect) =>
  inner.x >= outer.x - 1e-6 && inner.y >= outer.y - 1e-6 &&
  inner.x + inner.width <= outer.x + outer.width + 1e-6 && inner.y + inner.height <= outer.y + outer.height + 1e-6
const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

function boxes(layout: MachineLayout): GroupBox[] {
  const out: GroupBox[] = []
  const walk = (g: GroupBox) => {
    out.push(g)
    g.groups.forEach(walk)
  }
  layout.groups.forEach(walk)
  return out
}

function expectNoOverlap(rects: Rect[]) {
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length; j++) expect(overlap(rects[i], rects[j]), `${i} and ${j} overlap`).toBe(false)
  }
}

describe('machine layout: classroom-8', () => {
  it('draws 8 cards in 2 open L3 boxes under one "Socket 0 · Node 0" box', () => {
    const l = layoutMachine(classroom, all(classroom), DESKTOP)
    expect(l.groups).toHaveLength(1)
    expect(l.groups[0].label).toBe('Socket 0 · Node 0')
    expect(l.groups[0].look).toBe('socket')
    expect(l.llcs.map((b) => [b.id, b.collapsed, b.label])).toEqual([
      [0, false, 'L3 #0 · CPUs 0-1,4-5'],
      [1, false, 'L3 #1 · CPUs 2-3,6-7'],
    ])
    const cards = l.cards.filter((c) => c !== undefined)
    expect(cards.map((c) => c.cpu.cpu).sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    for (const llc of l.llcs) for (const c of llc.cards) expect(inside(c, llc)).toBe(true)
    expectNoOverlap(cards)
    expectNoOverlap(l.llcs)
  })

  it('fills a projector and a desktop window without scrolling, magnified on the desktop', () => {
    const projector = layoutMachine(classroom, all(classroom), PROJECTOR)
    const desktop = layoutMachine(classroom, all(classroom), DESKTOP)
    for (const [l, v] of [[projector, PROJECTOR], [desktop, DESKTOP]] as const) {
      expect(l.overflows).toBe(false)
      expect(l.width * l.scale).toBeLessThanOrEqual(v.width + 0.5)
      expect(l.height * l.scale).toBeLessThanOrEqual(v.height + 0.5)
    }
    expect(projector.scale).toBeGreaterThanOrEqual(MIN_SCALE)
    expect(desktop.scale).toBeGreaterThan(1.2)
    // On a projector the two L3s sit side by side as 2 x 2 grids (one row of boxes).
    expect(projector.llcs[0].y).toBe(projector.llcs[1].y)
  })

  it('keeps SMT siblings side by side and gives each card its run and queue slots', () => {
    const l = layoutMachine(classroom, all(classroom), DESKTOP)
    const c0 = l.cards[0]!
    const c4 = l.cards[4]!
    expect(c0.y).toBe(c4.y)
    expect(c4.x).toBeGreaterThan(c0.x)
    for (const c of [c0, c4]) {
      expect(inside(c.run, c)).toBe(true)
      expect(c.queue.length).toBeGreaterThanOrEqual(3)
      for (const q of c.queue) expect(inside(q, c)).toBe(true)
      expectNoOverlap([c.run, ...c.queue])
    }
    expect(l.anchors[0]).toEqual(c0.run)
  })

  it('a closed L3 is a summary row; its CPUs are anchored to its strip', () => {
    const l = layoutMachine(classroom, new Set([0]), DESKTOP)
    const closed = l.llcs[1]
    expect(closed.collapsed).toBe(true)
    expect(closed.label).toBe('L3 #1')
    expect(closed.title).toBe('L3 #1 · CPUs 2-3,6-7')
    expect(closed.cards).toEqual([])
    expect(closed.cpus).toEqual([2, 3, 6, 7])
    expect(inside(closed.strip!, closed)).toBe(true)
    expect(inside(closed.summary!, closed)).toBe(true)
    for (const cpu of closed.cpus) {
      expect(l.cards[cpu]).toBeUndefined()
      expect(l.anchors[cpu]).toEqual(closed.strip)
    }
    expect(closed.height).toBeLessThan(l.llcs[0].height / 2)
  })
})

describe('machine layout: hundreds of CPUs', () => {
  it('480 CPUs closed: two summary rows, no cards, fits a projector', () => {
    const l = layoutMachine(hcc, none, PROJECTOR)
    expect(l.llcs.map((b) => [b.id, b.collapsed, b.cpus.length])).toEqual([
      [0, true, 240],
      [1, true, 240],
    ])
    expect(l.cards.filter(Boolean)).toHaveLength(0)
    expect(l.anchors).toHaveLength(480)
    expect(l.anchors.every((a) => a !== undefined)).toBe(true)
    expect(l.overflows).toBe(false)
    expect(l.scale).toBeLessThanOrEqual(MAX_SUMMARY_SCALE) // summaries do not balloon on a big screen
    expect(layoutMachine(hcc, none, { width: 3000, height: 2000 }).scale).toBe(MAX_SUMMARY_SCALE)
    expect(l.groups.map((g) => [g.label, g.title])).toEqual([
      ['Socket 0 · Node 0 · L3 #0', 'Socket 0 · Node 0 · L3 #0 · CPUs 0-119,240-359'],
      ['Socket 1 · Node 1 · L3 #1', 'Socket 1 · Node 1 · L3 #1 · CPUs 120-239,360-479'],
    ])
  })

  it('480 CPUs with one L3 open: 240 cards inside it, legible, the page scrolls', () => {
    const l = layoutMachine(hcc, new Set([1]), DESKTOP)
    const open = l.llcs[1]
    expect(open.collapsed).toBe(false)
    expect(l.llcs[0].collapsed).toBe(true)
    const cards = l.cards.filter((c) => c !== undefined)
    expect(cards).toHaveLength(240)
    for (const c of open.cards) expect(inside(c, open)).toBe(true)
    expectNoOverlap(cards)
    expect(l.overflows).toBe(true)
    expect(l.scale).toBe(MIN_SCALE)
    expect(MACHINE_METRICS.run.font * l.scale).toBeGreaterThanOrEqual(14)
    expect(l.width * l.scale).toBeLessThanOrEqual(DESKTOP.width + 0.5)
  })

  it('EPYC closed: 24 summary rows in two socket boxes fit a 1600 x 1000 window', () => {
    const l = layoutMachine(epyc, none, DESKTOP)
    expect(l.groups.map((g) => g.label)).toEqual(['Socket 0 · Node 0', 'Socket 1 · Node 1'])
    expect(l.llcs).toHaveLength(24)
    expect(l.llcs.every((b) => b.collapsed && b.cpus.length === 16)).toBe(true)
    expect(l.overflows).toBe(false)
    expectNoOverlap(l.llcs)
    for (const g of l.groups) for (const b of g.groups) expect(inside(b, g)).toBe(true)
  })

  it('EPYC with L3 #5 open: its 16 cards, SMT pairs side by side, the rest still closed', () => {
    const l = layoutMachine(epyc, new Set([5]), DESKTOP)
    const open = l.llcs[5]
    expect(open.cards.map((c) => c.cpu.cpu)).toEqual([40, 232, 41, 233, 42, 234, 43, 235, 44, 236, 45, 237, 46, 238, 47, 239])
    expect(l.cards[40]!.y).toBe(l.cards[232]!.y)
    expect(l.llcs.filter((b) => b.collapsed)).toHaveLength(23)
    expectNoOverlap(boxes(l).filter((b) => b.kind === 'llc'))
  })
})
