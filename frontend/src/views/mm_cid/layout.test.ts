// The lesson picture's layout and the chart's scales: pure maths, no DOM.
import { describe, expect, it } from 'vitest'
import type { Topology } from '../../core/shared/types'
import { METRICS, PROJECTOR_METRICS, PROJECTOR_MIN_FONT, arrowGeometry, cellCount, chartScales, fitProjectorPicture, groupCpus, layoutCells, layoutPicture, nsTickLabel, pointOnArrow, type Rect } from './layout'

/** classroom-8: 4 cores x 2 threads, 2 L3s; CPU i+4 is CPU i's sibling. */
const classroom: Topology = {
  name: 'classroom-8',
  summary: { cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 16384 },
  cpus: Array.from({ length: 8 }, (_, cpu) => ({ cpu, core: cpu % 4, llc: (cpu % 4) >> 1, node: 0, socket: 0, smt_index: cpu >> 2 })),
}

/** A 2-socket machine shaped like the EPYC preset: 24 L3s of 8 cores (16 CPUs), 192 cores. */
const epyc: Topology = {
  name: 'epyc-9654-2s',
  summary: { cpus: 384, cores: 192, llcs: 24, nodes: 2, sockets: 2, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 32768 },
  cpus: Array.from({ length: 384 }, (_, cpu) => {
    const core = cpu % 192
    return { cpu, core, llc: core >> 3, node: core >= 96 ? 1 : 0, socket: core >= 96 ? 1 : 0, smt_index: cpu >= 192 ? 1 : 0 }
  }),
}

const inside = (a: Rect, b: Rect) => a.x >= b.x - 0.01 && a.y >= b.y - 0.01 && a.x + a.width <= b.x + b.width + 0.01 && a.y + a.height <= b.y + b.height + 0.01
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

describe('CPUs grouped by L3', () => {
  it('groups and sorts', () => {
    expect(groupCpus(classroom, [7, 0, 5, 2])).toEqual([
      { llc: 0, socket: 0, cpus: [0, 5] },
      { llc: 1, socket: 0, cpus: [2, 7] },
    ])
  })

  it('classroom-8 side by side: two L3 boxes of 2 x 2 cards, every card inside its box, none overlapping', () => {
    const l = layoutPicture({ topology: classroom, cpus: [0, 1, 2, 3, 4, 5, 6, 7], cells: 8, width: 390 })
    expect(l.groups.map((g) => g.label)).toEqual(['L3 #0', 'L3 #1'])
    expect(l.groups[0].y).toBe(l.groups[1].y) // one row
    for (const g of l.groups) {
      expect(g.cards).toHaveLength(4)
      expect(new Set(g.cards.map((c) => c.x)).size).toBe(2) // 2 x 2, not 3 + 1
      for (const c of g.cards) expect(inside(c, g)).toBe(true)
    }
    const cards = [...l.cards.values()]
    for (let i = 0; i < cards.length; i++) for (let j = i + 1; j < cards.length; j++) expect(overlap(cards[i], cards[j])).toBe(false)
    expect(l.width).toBeLessThanOrEqual(390)
  })

  it('one thread per L3 on two sockets: a heading per socket, every L3 box in the width', () => {
    const cpus = Array.from({ length: 24 }, (_, i) => i * 8)
    const l = layoutPicture({ topology: epyc, cpus, cells: 24, width: 796 })
    expect(l.socketLabels.map((s) => s.text)).toEqual(['Socket 0', 'Socket 1'])
    expect(l.groups).toHaveLength(24)
    for (const g of l.groups) expect(g.x + g.width).toBeLessThanOrEqual(796)
    const firstOfSocket1 = l.groups.find((g) => g.socket === 1)!
    expect(firstOfSocket1.x).toBe(0)
    expect(firstOfSocket1.y).toBeGreaterThan(l.socketLabels[1].y)
    expect(l.anchorOf(8)).toBe(l.cards.get(8))
    expect(l.anchorOf(9)).toBe(l.groupOf(1)) // not shown: its L3's box
  })

  it('uses the compact cards when the comfortable ones are too tall', () => {
    const cpus = Array.from({ length: 24 }, (_, i) => i * 8)
    expect(layoutPicture({ topology: epyc, cpus, cells: 24, width: 390 }).metrics).toBe(METRICS[1])
    expect(layoutPicture({ topology: classroom, cpus: [0, 1, 2, 3, 4, 5, 6, 7], cells: 8, width: 796 }).metrics).toBe(METRICS[0])
  })
})

describe('cidmask and data areas', () => {
  it('one cell per cid, each area straight below its cid, wrapping into row pairs', () => {
    const m = METRICS[0]
    const g = layoutCells(24, 400, m, 100)
    expect(g.cid).toHaveLength(24)
    expect(g.area).toHaveLength(24)
    expect(g.perRow).toBeLessThan(24)
    for (let i = 0; i < 24; i++) {
      expect(g.area[i].x).toBe(g.cid[i].x)
      expect(g.area[i].width).toBe(g.cid[i].width)
      expect(g.area[i].y).toBeGreaterThan(g.cid[i].y + g.cid[i].height)
      expect(g.cid[i].x + g.cid[i].width).toBeLessThanOrEqual(400)
      expect(g.cid[i].width).toBeGreaterThanOrEqual(m.cell.min)
    }
    expect(g.rowLabels).toHaveLength(Math.ceil(24 / g.perRow))
    // The second row pair starts below the first one's areas.
    expect(g.cid[g.perRow].y).toBeGreaterThan(g.area[0].y + g.area[0].height)
  })

  it('8 cells fit one row at the widest', () => {
    const g = layoutCells(8, 800, METRICS[0], 0)
    expect(new Set(g.cid.map((c) => c.y)).size).toBe(1)
    expect(g.cid[0].width).toBe(METRICS[0].cell.max)
  })

  it('draws the cids that matter: used ones, the thread count, at least 8, at most the CPUs', () => {
    expect(cellCount(8, 8, [0, 3])).toBe(8)
    expect(cellCount(384, 24, [0, 1, 2])).toBe(24)
    expect(cellCount(384, 4, [0, 30])).toBe(31)
    expect(cellCount(4, 2, [])).toBe(4)
  })

  it('the DRAM strip is the picture\u2019s last row', () => {
    const l = layoutPicture({ topology: classroom, cpus: [0, 1], cells: 8, width: 600 })
    expect(l.dram.y).toBeGreaterThan(Math.max(...l.area.map((a) => a.y + a.height)))
    expect(l.height).toBeGreaterThanOrEqual(l.dram.y + l.dram.height)
  })
})

describe('transfer arrows', () => {
  const a = { x: 0, y: 100, width: 80, height: 60 }
  const b = { x: 300, y: 300, width: 80, height: 60 }
  it('run from the source box to the target box, cut at their edges', () => {
    const g = arrowGeometry(a, b)
    expect(g.d.startsWith('M')).toBe(true)
    expect(g.start.x).toBeGreaterThan(40)
    expect(g.end.x).toBeLessThan(340)
    expect(pointOnArrow(g, 0)).toEqual(g.start)
    expect(pointOnArrow(g, 1)).toEqual(g.end)
  })
  it('arch above two boxes side by side', () => {
    const g = arrowGeometry(a, { ...a, x: 90 })
    expect(g.control.y).toBeLessThan(a.y)
    expect(g.start.y).toBeLessThanOrEqual(a.y + 2)
  })
})

describe('the chart of ns per burst', () => {
  const box = { width: 600, height: 130, margin: { top: 6, right: 12, bottom: 24, left: 62 } }
  it('log scale covering every cost, in whole decades', () => {
    const s = chartScales([576, 8000, 25326], 9000, box)
    const [lo, hi] = s.y.domain()
    expect(lo).toBe(100)
    expect(hi).toBe(100000)
    expect(s.y(576)).toBeGreaterThan(s.y(25326)) // up is costlier
    expect(s.y(lo)).toBe(box.height - box.margin.bottom)
    expect(s.yTicks.map((t) => t.label)).toEqual(['100 ns', '1 µs', '10 µs', '100 µs'])
  })
  it('a narrow range gets 1-2-5 ticks; time runs across in ms', () => {
    const s = chartScales([576, 600], 2000, box)
    expect(s.yTicks.map((t) => t.label)).toEqual(['100 ns', '200 ns', '500 ns', '1 µs'])
    expect(s.x(0)).toBe(62)
    expect(s.x(2000)).toBe(588)
    expect(s.xTicks.at(-1)!.label).toBe('2 s')
  })
  it('labels', () => {
    expect(nsTickLabel(500)).toBe('500 ns')
    expect(nsTickLabel(2000)).toBe('2 µs')
    expect(nsTickLabel(1e7)).toBe('10 ms')
  })
})

describe('the projector layout (presenter mode)', () => {
  const eight = [0, 1, 2, 3, 4, 5, 6, 7]
  it('draws every label at 18 units or more', () => {
    for (const [k, v] of Object.entries(PROJECTOR_METRICS.text)) expect(v, k).toBeGreaterThanOrEqual(PROJECTOR_MIN_FONT)
    // the page's own densities are unchanged (smaller: the rule is for projectors)
    expect(METRICS[0].text.rowNote).toBe(12)
  })
  it('names the socket in the L3 heading instead of a heading row', () => {
    const l = layoutPicture({ topology: epyc, cpus: eight, cells: 8, width: 600, projector: true })
    expect(l.metrics).toBe(PROJECTOR_METRICS)
    expect(l.socketLabels).toEqual([])
    expect(l.groups[0].label).toBe('L3 #0 · socket 0')
    expect(layoutPicture({ topology: epyc, cpus: eight, cells: 8, width: 600 }).socketLabels.length).toBe(1)
  })
  it('picks the layout drawn largest in the stage: 8 CPUs of one L3 at 1280x720 scale up (labels >= 18 px)', () => {
    // the presenter stage's picture box at 1280x720 is about 720 x 440 px
    const { layout, scale } = fitProjectorPicture({ topology: epyc, cpus: eight, cells: 8 }, 720, 440)
    expect(scale).toBeGreaterThanOrEqual(1.1)
    expect(layout.width * scale).toBeLessThanOrEqual(720 + 0.5)
    expect(layout.height * scale).toBeLessThanOrEqual(440 + 0.5)
    // 4 + 4 cards, not one long row
    expect(new Set([...layout.cards.values()].map((c) => c.y)).size).toBe(2)
    // no layout width does better
    for (let w = 300; w <= 1400; w += 50) {
      const l = layoutPicture({ topology: epyc, cpus: eight, cells: 8, width: w, projector: true })
      expect(Math.min(720 / l.width, 440 / l.height)).toBeLessThanOrEqual(scale + 1e-9)
    }
  })
  it('grows with the projector: at 1920x1080 the labels are half as large again', () => {
    const small = fitProjectorPicture({ topology: epyc, cpus: eight, cells: 8 }, 720, 440).scale
    const big = fitProjectorPicture({ topology: epyc, cpus: eight, cells: 8 }, 1120, 700).scale
    expect(big).toBeGreaterThan(1.5 * small)
  })
  it('keeps a card\u2019s labels inside the card: "recent 7" beside the badge, the chip below', () => {
    const l = layoutPicture({ topology: epyc, cpus: eight, cells: 8, width: 600, projector: true })
    const m = l.metrics
    for (const c of l.cards.values()) {
      const noteEnd = c.badge.cx + c.badge.r + 4 + 'recent 7'.length * 0.6 * m.text.note
      expect(noteEnd).toBeLessThanOrEqual(c.x + c.width)
      expect(c.badge.cy + c.badge.r).toBeLessThanOrEqual(c.chip.y)
      expect(inside(c.chip, c)).toBe(true)
    }
    for (const a of l.area) expect(a.width).toBeGreaterThanOrEqual('DRAM'.length * 0.62 * m.text.area)
  })
})
