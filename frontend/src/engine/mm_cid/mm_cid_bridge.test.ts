// The mm_cid lesson's bridge against the real C core: one call reads the whole
// lesson view (ks_mm_cid_lesson_get), stepping back restores identical views,
// the log's new entries match the scanned timeline, and the scan (timeline)
// sees every burst's sources.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KscopeError, KsStatus } from '../core_errors'
import type { MmCidView } from './mm_cid_bridge'
import { MM_CID_PATHS } from './mm_cid_records'
import { loadCore, type KscopeCore, type Simulation } from '../wasm_bridge'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))

/** Seed 000's benchmark as librseq paces it, on classroom-8's CPUs 0-7 (the lesson's default). */
const BENCH = JSON.stringify({
  name: 'bench', duration_ms: 12000,
  processes: [{ kind: 'intermittent', comm: 'rseq-bench', cpus: [0, 1, 2, 3, 4, 5, 6, 7], index_by: 'mm_cid', delay_ms: 200, order: 'fixed', warmup_sweeps: 20000, loops: 5 }],
})
const IDLE = { privateBackgroundBytesPerUs: 0, llcBackgroundBytesPerUs: 0 }
const TGID = 1000

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

const open: Simulation[] = []
afterEach(() => {
  while (open.length) open.pop()!.free()
})

function simulate(variant: string, cache = IDLE, workloadJson = BENCH): Simulation {
  const sim = core.simulate({ preset: 'classroom-8', workloadJson, seed: 1, algo: `mm_cid:${variant}`, cache })
  open.push(sim)
  return sim
}

/** The view without the since-dependent parts (records and bursts decoded since a point). */
const stateOf = (v: MmCidView) => ({ ...v, records: [], bursts: [] })

describe('mm_cid lesson bridge', () => {
  it('names the allocator paths as the core does, each with a help sentence', () => {
    const paths = core.mmCidPaths()
    expect(paths.map((p) => p.name)).toEqual([...MM_CID_PATHS])
    for (const p of paths) expect(p.help.length).toBeGreaterThan(20)
    expect(core.cacheDefaults()).toEqual({ privateBackgroundBytesPerUs: 1000, llcBackgroundBytesPerUs: 8000 })
  })

  it('reads the whole lesson view in one wasm call, consistent with the frame', () => {
    const sim = simulate('v6.13')
    sim.seek(90)
    sim.mmCidView(TGID) // the first call also sizes the block
    const before = sim.wasmCalls()
    const v = sim.mmCidView(TGID)
    expect(sim.wasmCalls() - before).toBe(1)
    expect(v.step).toBe(90)
    expect(v.frame).toEqual(sim.frame())
    expect(v.mm).toMatchObject({ tgid: TGID, variant: 'v6.13', nr_cpu_ids: 8, nr_cpus_allowed: 8, mm_users: 8 })
    // Every CPU's cid has its bit; the bits are exactly those cids.
    const owned = v.pcpu.filter((p) => p.cid >= 0).map((p) => p.cid).sort()
    expect(v.cidmask.flatMap((b, i) => (b ? [i] : []))).toEqual(owned)
    expect(v.mm!.cidmask_weight).toBe(owned.length)
    // Every area a burst swept is found, 256 lines, accounted for.
    expect(v.burstCount).toBeGreaterThan(0)
    for (const b of v.bursts) {
      const a = v.areas[b.index]
      expect(a).toMatchObject({ index: b.index, lines: 256 })
      expect(a.object).toBeGreaterThanOrEqual(0)
      expect(a.llc_lines + a.cold_lines).toBeLessThanOrEqual(256)
    }
  })

  it('a playback frame is 2 wasm calls: the move and the view', () => {
    const sim = simulate('v6.12')
    sim.mmCidView(TGID)
    for (const n of [1, 7, 40]) {
      const before = sim.wasmCalls()
      sim.advance(n)
      sim.mmCidView(TGID, { logFrom: 0, burstsFrom: 0 })
      expect(sim.wasmCalls() - before).toBe(2)
    }
  })

  it('step back restores identical views', () => {
    const sim = simulate('v6.12')
    sim.seek(90)
    const at90 = sim.mmCidView(TGID)
    sim.advance(50)
    expect(sim.mmCidView(TGID).step).toBe(140)
    for (let i = 0; i < 50; i++) sim.stepBack()
    const back = sim.mmCidView(TGID)
    expect(stateOf(back)).toEqual(stateOf(at90))
    expect(back.bursts).toEqual(at90.bursts)
    expect(back.records).toEqual(at90.records)
  })

  it('decodes only the log entries and bursts new since the last read', () => {
    const sim = simulate('v6.12')
    const timeline = sim.timeline(100_000)
    let last = sim.mmCidView(TGID)
    for (let s = 1; s <= 120; s++) {
      sim.step()
      const v = sim.mmCidView(TGID, { logFrom: last.logEnd, burstsFrom: last.burstCount })
      expect(v.logEnd).toBe(timeline.logEnd[s - 1])
      expect(v.records).toEqual(timeline.records.filter((r) => r.seq >= last.logEnd && r.seq < v.logEnd))
      expect(v.bursts.length).toBe(v.burstCount - last.burstCount)
      expect(v.burstCount).toBe(timeline.burstEnd[s - 1])
      last = v
    }
  })

  it('scans a run ahead and comes back: times, log, bursts and their sources', () => {
    const sim = simulate('v6.12')
    sim.seek(33)
    const frame = sim.frame()
    const t = sim.timeline(100_000)
    expect(sim.currentStep).toBe(33)
    expect(sim.frame()).toEqual(frame)
    expect(t.finished).toBe(true)
    expect(t.ts.length).toBeGreaterThan(100)
    for (let i = 1; i < t.ts.length; i++) {
      expect(t.ts[i]).toBeGreaterThanOrEqual(t.ts[i - 1])
      expect(t.logEnd[i]).toBeGreaterThanOrEqual(t.logEnd[i - 1])
    }
    expect(t.records.length).toBe(t.logEnd[t.logEnd.length - 1])
    const bursts = t.burstEnd[t.burstEnd.length - 1]
    expect(t.burstLines).toHaveLength(bursts)
    // A measured sweep loads and stores all 256 lines: 512 line accesses, from some source each.
    for (const lines of t.burstLines) expect(lines!.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(512)
    // v6.12 hands threads other CPUs' areas after the scan: some bursts pull lines from another core.
    expect(t.burstLines.some((l) => l![3] + l![4] + l![5] > 0)).toBe(true)
  })

  it('scans each burst\'s cost parts under cost model v2: they add up to its cost (v1: none)', () => {
    const sim = core.simulate({ preset: 'classroom-8', workloadJson: BENCH, seed: 1, algo: 'mm_cid:v6.12', cache: IDLE, costModel: 'v2' })
    open.push(sim)
    const t = sim.timeline(100_000)
    const bursts = t.burstEnd[t.burstEnd.length - 1]
    expect(t.burstParts).toHaveLength(bursts)
    sim.seek(t.ts.length)
    const costs = sim.mmCidView(TGID).bursts
    expect(costs).toHaveLength(bursts)
    costs.forEach((b, i) => expect(Math.abs(t.burstParts[i].reduce((a, x) => a + x, 0) - b.cost_ns)).toBeLessThanOrEqual(0.5 + 1e-6))
    expect(simulate('v6.12').timeline(100_000).burstParts.flat().every((x) => x === 0)).toBe(true)
  })

  it('the cache option reaches the model: on a busy machine the areas go cold between bursts', () => {
    const idle = simulate('v6.13').timeline(100_000)
    const busy = simulate('v6.13', {} as typeof IDLE).timeline(100_000)
    const dram = (t: typeof idle) => t.burstLines.filter((l) => l![6] + l![7] >= 256).length
    // Busy: all but the 8 bursts right after a warm-up read DRAM; idle: only the first touches.
    expect(dram(busy)).toBe(busy.burstLines.length - 8)
    expect(dram(idle)).toBe(8)
  })

  it('answers NOT_FOUND without an mm_cid model', () => {
    const sim = core.simulate({ preset: 'classroom-8', workloadJson: BENCH, seed: 1 })
    open.push(sim)
    let caught: unknown
    try {
      sim.mmCidView(TGID)
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(KscopeError)
    expect((caught as KscopeError).status).toBe(KsStatus.NOT_FOUND)
  })

  it('after the last thread exits the view says so and keeps the bursts', () => {
    const sim = simulate('v6.13')
    sim.seek(1_000_000)
    const v = sim.mmCidView(TGID)
    expect(v.mm).toBeNull()
    expect(v.cidmask.every((b) => !b)).toBe(true)
    expect(v.burstCount).toBe(48) // 8 warm-ups + 8 x 5 measured
    expect(v.bursts.filter((b) => b.warmup)).toHaveLength(8)
  })
})
