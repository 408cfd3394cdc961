import { describe, expect, it } from 'vitest'
import {
  MIN_LANE, clampTransform, detailLevel, fitLabel, sliceLabel, formatCpuRanges, laneLayout, panBy, processStyle, timeTicks, timeToX,
  transformFor, visibleWindow, xToTime, zoomAbout,
} from './layout'

const T0 = 4_747_441_187_000
const T1 = T0 + 430_096_000 // 430 ms
const W = 1000

describe('time axis', () => {
  it('shows the whole trace at zoom 1 and maps time to pixels and back', () => {
    const w = visibleWindow(T0, T1, W, { k: 1, x: 0 })
    expect(w.start).toBe(T0)
    expect(w.end).toBe(T1)
    expect(timeToX(T0 + (T1 - T0) / 2, w, W)).toBeCloseTo(500)
    expect(xToTime(250, w, W)).toBeCloseTo(T0 + (T1 - T0) / 4, 0)
  })

  it('zooms about a pixel keeping the time under it fixed', () => {
    const z0 = { k: 1, x: 0 }
    const under = xToTime(300, visibleWindow(T0, T1, W, z0), W)
    const z1 = zoomAbout(z0, 4, 300, W, 1e6)
    expect(z1.k).toBe(4)
    expect(xToTime(300, visibleWindow(T0, T1, W, z1), W)).toBeCloseTo(under, 0)
  })

  it('clamps pans and zoom-outs to the trace', () => {
    expect(clampTransform({ k: 0.5, x: 100 }, W)).toEqual({ k: 1, x: 0 })
    expect(panBy({ k: 2, x: 0 }, -0.5, W)).toEqual({ k: 2, x: 0 })
    expect(panBy({ k: 2, x: 0 }, 5, W)).toEqual({ k: 2, x: -1000 })
  })

  it('builds the transform that shows a window', () => {
    const z = transformFor(T0, T1, W, T0 + 100e6, T0 + 200e6)
    const w = visibleWindow(T0, T1, W, z)
    expect(w.start).toBeCloseTo(T0 + 100e6, -1)
    expect(w.end).toBeCloseTo(T0 + 200e6, -1)
  })

  it('uses buckets when zoomed out and exact slices when zoomed in', () => {
    expect(detailLevel({ start: T0, end: T1 }, W)).toBe('buckets')
    expect(detailLevel({ start: T0, end: T0 + 10e6 }, W)).toBe('slices')
  })

  it('labels ticks relative to the first event with ms or µs', () => {
    const ticks = timeTicks({ start: T0, end: T1 }, W, T0)
    expect(ticks[0].label).toBe('0 ms')
    expect(ticks[1].label).toBe('100 ms')
    const fine = timeTicks({ start: T0 + 1_000_000, end: T0 + 1_400_000 }, W, T0)
    expect(fine[0].label).toBe('1.00 ms')
    expect(fine[1].label).toBe('1.05 ms')
    expect(timeTicks({ start: T0, end: T0 + 400_000 }, W, T0)[1].label).toBe('50 µs')
    expect(fine.every((t) => t.x >= 0 && t.x <= W)).toBe(true)
  })
})

describe('lanes', () => {
  const topo = new Map(Array.from({ length: 16 }, (_, cpu) => [cpu, { cpu, llc: cpu >> 2, node: cpu >> 2 }]))

  it('stacks CPUs flat without a topology', () => {
    const l = laneLayout([0, 1], null, 400)
    expect(l.groups).toHaveLength(1)
    expect(l.groups[0].headerHeight).toBe(0)
    expect(l.lanes.map((x) => x.cpu)).toEqual([0, 1])
  })

  it('groups CPUs by node and LLC', () => {
    const l = laneLayout([0, 1, 4, 5, 12], topo, 800)
    expect(l.groups.map((g) => g.label)).toEqual(['node 0 · LLC 0', 'node 1 · LLC 1', 'node 3 · LLC 3'])
    expect(l.lanes.map((x) => x.cpu)).toEqual([0, 1, 4, 5, 12])
    for (let i = 1; i < l.lanes.length; i++) expect(l.lanes[i].y).toBeGreaterThanOrEqual(l.lanes[i - 1].y + l.lanes[i - 1].height)
  })

  it('collapses 384 CPUs into heat rows per group, and expands one on request', () => {
    const big = new Map(Array.from({ length: 384 }, (_, cpu) => [cpu, { cpu, llc: cpu >> 4, node: cpu >> 7 }]))
    const cpus = [...big.keys()]
    const l = laneLayout(cpus, big, 700)
    expect(l.groups).toHaveLength(24)
    expect(l.groups.every((g) => g.collapsed)).toBe(true)
    expect(l.lanes).toHaveLength(0)
    const open = laneLayout(cpus, big, 700, new Set([l.groups[3].key]))
    expect(open.lanes.map((x) => x.cpu)).toEqual(big.size ? cpus.slice(48, 64) : [])
    expect(open.laneHeight).toBeGreaterThanOrEqual(MIN_LANE)
  })
})

describe('styles', () => {
  it('gives a process the same style every time, with readable text', () => {
    expect(processStyle(25277)).toEqual(processStyle(25277))
    const s = processStyle(15)
    expect(['#000000', '#ffffff']).toContain(s.text)
  })

  it('fits labels to the room', () => {
    expect(fitLabel('python3', 200)).toBe('python3')
    // A slice says the comm first: the whole "comm pid", else the name cut, else the pid.
    expect(sliceLabel(25278, 'python3', 200)).toBe('python3 25278')
    expect(sliceLabel(25278, 'python3', 60)).toBe('python3')
    expect(sliceLabel(25278, 'python3', 40)).toBe('pyt…')
    expect(sliceLabel(7, '', 40)).toBe('7')
    expect(fitLabel('python3', 40)).toBe('pyt…')
    expect(fitLabel('python3', 10)).toBe('')
  })
})

describe('lanes at 480 CPUs (hcc-2s-480: 2 nodes, one 240-CPU LLC each, SMT siblings n and n+240)', () => {
  const cpus = Array.from({ length: 480 }, (_, i) => i)
  const place = (cpu: number) => ({ cpu, node: (cpu % 240) < 120 ? 0 : 1, llc: (cpu % 240) < 120 ? 0 : 1 })
  const topo = new Map(cpus.map((c) => [c, place(c)]))

  it('splits each 240-CPU LLC into collapsed blocks of 16, in node/LLC order', () => {
    const l = laneLayout(cpus, topo, 900)
    expect(l.groups).toHaveLength(30)
    expect(l.lanes).toHaveLength(0)
    expect(l.groups.every((g) => g.collapsed && g.cpus.length === 16)).toBe(true)
    expect(l.groups[0].label).toBe('node 0 · LLC 0 · CPUs 0–15')
    expect(l.groups[7].label).toBe('node 0 · LLC 0 · CPUs 112–119,240–247')
    expect(l.groups[15].label).toBe('node 1 · LLC 1 · CPUs 120–135')
    expect(new Set(l.groups.flatMap((g) => g.cpus)).size).toBe(480)
  })

  it('drills down: an expanded block shows its 16 lanes, the others stay heat rows', () => {
    const key = laneLayout(cpus, topo, 900).groups[7].key
    const l = laneLayout(cpus, topo, 900, new Set([key]))
    expect(l.lanes.map((x) => x.cpu)).toEqual([112, 113, 114, 115, 116, 117, 118, 119, 240, 241, 242, 243, 244, 245, 246, 247])
    expect(l.lanes[0].height).toBeGreaterThanOrEqual(MIN_LANE)
    expect(l.groups.filter((g) => g.collapsed)).toHaveLength(29)
  })

  it('blocks a trace without topology the same way, and keeps small machines flat', () => {
    const flat = laneLayout(cpus, null, 900)
    expect(flat.groups).toHaveLength(30)
    expect(flat.groups[1].label).toBe('CPUs 16–31')
    expect(laneLayout([0, 1, 2, 3], null, 900).groups.map((g) => g.label)).toEqual(['all CPUs'])
    expect(formatCpuRanges([3, 1, 2, 7])).toBe('1–3,7')
  })
})
