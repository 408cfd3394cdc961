// Layout maths on the real presets' shapes, without the wasm: the topologies are
// built here by the numbering rule the C core documents (topology_spec.h), and
// wasm_bridge.test.ts checks the core produces exactly that.
import { describe, expect, it } from 'vitest'
import type { CpuInfo, Topology } from '../../core/shared/types'
import {
  MAX_LABEL_ZOOM, MAX_SCALE, METRICS, MIN_CORE_LABEL_PX, flattenLayout, layoutTopology, type GroupBox, type Rect, type TopologyLayout,
} from './layout'

/** Thread-major numbering: cpu = core + thread * cores (as the C core does). */
function machine(name: string, sockets: number, coresPerSocket: number, threads: number, coresPerLlc: number, nodes: number): Topology {
  const cores = sockets * coresPerSocket
  const cpus: CpuInfo[] = []
  for (let t = 0; t < threads; t++)
    for (let core = 0; core < cores; core++)
      cpus[core + t * cores] = {
        cpu: core + t * cores, core, llc: Math.floor(core / coresPerLlc),
        node: Math.floor(core / (cores / nodes)), socket: Math.floor(core / coresPerSocket), smt_index: t,
      }
  return {
    name,
    summary: {
      cpus: cpus.length, cores, llcs: cores / coresPerLlc, nodes, sockets, threads_per_core: threads,
      l1d_kib: 32, l2_kib: 1024, l3_kib: 32 * 1024,
    },
    cpus,
  }
}

const epyc = machine('epyc-9654-2s', 2, 96, 2, 8, 2)
const classroom = machine('classroom-8', 1, 4, 2, 2, 1)

const inside = (child: Rect, parent: Rect) =>
  child.x >= parent.x && child.y >= parent.y &&
  child.x + child.width <= parent.x + parent.width && child.y + child.height <= parent.y + parent.height

const overlap = (a: Rect, b: Rect) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

function expectNoOverlap(boxes: Rect[]) {
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i], boxes[j]), `boxes ${i} and ${j}`).toBe(false)
}

/** Every box inside its parent and no two siblings overlapping, at every level. */
function expectWellNested(layout: TopologyLayout) {
  const root = { x: 0, y: 0, width: layout.width, height: layout.height }
  const walk = (boxes: GroupBox[], parent: Rect) => {
    expectNoOverlap(boxes)
    for (const g of boxes) {
      expect(inside(g, parent), `${g.label} inside its parent`).toBe(true)
      walk(g.groups, g)
      expectNoOverlap(g.cores)
      for (const c of g.cores) {
        expect(inside(c, g)).toBe(true)
        expectNoOverlap(c.cpus)
        for (const cpu of c.cpus) expect(inside(cpu, c)).toBe(true)
      }
    }
  }
  walk(layout.groups, root)
}

describe('topology layout', () => {
  it('draws the 384-CPU EPYC as 2 sockets, 2 nodes, 24 LLCs, 192 cores, 384 CPUs', () => {
    const boxes = flattenLayout(layoutTopology(epyc))
    expect(boxes.sockets).toHaveLength(2)
    expect(boxes.nodes).toHaveLength(2)
    expect(boxes.llcs).toHaveLength(24)
    expect(boxes.cores).toHaveLength(192)
    expect(boxes.cpus).toHaveLength(384)
    expect(new Set(boxes.cpus.map((b) => b.cpu.cpu)).size).toBe(384)
    expect(boxes.llcs.map((l) => l.label)).toContain('L3 #3 · 32 MiB')
  })

  it('nests EPYC boxes inside their parents without overlaps', () => {
    expectWellNested(layoutTopology(epyc))
  })

  it('puts SMT siblings in the same core box and every CPU in its own LLC and socket', () => {
    const layout = layoutTopology(epyc)
    const { llcs } = flattenLayout(layout)
    const core5 = llcs[0].cores.find((c) => c.core === 5)!
    expect(llcs[0].label).toBe('L3 #0 · 32 MiB')
    expect(core5.cpus.map((b) => b.label)).toEqual(['5', '197'])
    expect(core5.label).toBe('core 5')
    for (const l of llcs) for (const c of l.cores) for (const b of c.cpus) expect(b.cpu.llc).toBe(l.id)
    expect(layout.order).toEqual(['socket', 'node', 'llc'])
    expect(layout.cpus[197].cpu.socket).toBe(0)
    expect(layout.cpus[383].cpu.socket).toBe(1)
  })

  it('is readable at 384 CPUs on a 16:10 screen and on a 16:9 projector', () => {
    // Area the topology gets in the app: the window less header and side panel.
    for (const viewport of [{ width: 1240, height: 840 }, { width: 940, height: 560 }]) {
      const layout = layoutTopology(epyc, viewport)
      expect(layout.width * layout.scale).toBeLessThanOrEqual(viewport.width + 1e-6)
      expect(layout.height * layout.scale).toBeLessThanOrEqual(viewport.height + 1e-6)
      expect(layout.metrics.cpuFont * layout.scale, `${viewport.width}x${viewport.height}`).toBeGreaterThanOrEqual(11)
      expectWellNested(layout)
    }
    const big = layoutTopology(epyc, { width: 1240, height: 840 })
    expect(big.metrics.cpuFont * big.scale).toBeGreaterThanOrEqual(14)
  })

  it('follows the viewport shape: wide viewports get wide arrangements', () => {
    const wide = layoutTopology(epyc, { width: 2400, height: 600 })
    const tall = layoutTopology(epyc, { width: 600, height: 2400 })
    expect(wide.width / wide.height).toBeGreaterThan(tall.width / tall.height)
    expectWellNested(wide)
    expectWellNested(tall)
  })

  it('draws the classroom machine as 1 socket, 2 LLCs of 2 cores, 8 CPUs', () => {
    const layout = layoutTopology(classroom)
    const boxes = flattenLayout(layout)
    expect(boxes.cpus).toHaveLength(8)
    expect(boxes.llcs).toHaveLength(2)
    expect(boxes.sockets).toHaveLength(1)
    expect(boxes.llcs.map((l) => l.cores.length)).toEqual([2, 2])
    expect(layout.grid.coreLabels).toBe(true)
    expectWellNested(layout)
  })

  it('magnifies a small machine for a projector, but its labels less than its CPUs', () => {
    const layout = layoutTopology(classroom, { width: 1240, height: 840 })
    const px = (units: number) => units * layout.scale
    expect(px(layout.metrics.cpuFont)).toBeGreaterThanOrEqual(40)
    expect(px(layout.metrics.socket.font)).toBeLessThanOrEqual(METRICS.socket.font * MAX_LABEL_ZOOM * 1.05)
    expect(px(layout.metrics.core.font)).toBeGreaterThanOrEqual(MIN_CORE_LABEL_PX)
    expect(layout.scale).toBeLessThanOrEqual(MAX_SCALE)
    expectWellNested(layout)
  })

  it('is deterministic', () => {
    expect(layoutTopology(epyc, { width: 1000, height: 700 })).toEqual(layoutTopology(epyc, { width: 1000, height: 700 }))
  })

  it('nests by containment: a node spanning both sockets, an L3 spanning two nodes', () => {
    // spr-2s: memory interleaved across sockets, so 1 node holding 2 sockets of 1 LLC each.
    const spr = layoutTopology(machine('spr-2s', 2, 30, 2, 30, 1))
    expect(spr.order).toEqual(['node', 'socket', 'llc'])
    expect(flattenLayout(spr).nodes).toHaveLength(1)
    expect(spr.groups[0].groups.map((g) => g.label)).toEqual(['Socket 0', 'Socket 1'])
    // gnr-2s-snc: sub-NUMA clustering, 2 nodes inside each socket's single L3.
    const gnr = layoutTopology(machine('gnr-2s-snc', 2, 86, 2, 86, 4))
    expect(gnr.order).toEqual(['socket', 'llc', 'node'])
    const boxes = flattenLayout(gnr)
    expect([boxes.sockets.length, boxes.llcs.length, boxes.nodes.length, boxes.cpus.length]).toEqual([2, 2, 4, 344])
    expectWellNested(spr)
    expectWellNested(gnr)
  })

  it('handles odd shapes: no SMT, 4 nodes per socket, 4 threads, 480 CPUs', () => {
    const shapes = [
      machine('no-smt', 1, 6, 1, 3, 1), machine('nps4', 2, 64, 2, 8, 8), machine('smt4', 1, 10, 4, 2, 1),
      machine('hcc-2s-480', 2, 120, 2, 120, 2),
    ]
    for (const t of shapes) {
      const layout = layoutTopology(t)
      const boxes = flattenLayout(layout)
      expect(boxes.cpus).toHaveLength(t.cpus.length)
      expect(boxes.llcs).toHaveLength(t.summary.llcs)
      expect(boxes.nodes).toHaveLength(t.summary.nodes)
      expect(boxes.sockets).toHaveLength(t.summary.sockets)
      expectWellNested(layout)
    }
  })
})
