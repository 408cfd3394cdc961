// What one run's picture shows (pure): badges, bits and what changed, area
// labels, the cid chips' flights, the transfer arrows, the digest.
import { describe, expect, it } from 'vitest'
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import type { BurstInfo } from '../../models/mm_cid/lesson_narrate'
import type { MmCidArea, MmCidPcpu, MmCidRecord, MmCidView, Topology } from '../../core/shared/types'
import { areaState, lessonDigest, pictureState, shownCpus, transferFrom } from './picture'

const topology: Topology = {
  name: 'classroom-8',
  summary: { cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 16384 },
  cpus: Array.from({ length: 8 }, (_, cpu) => ({ cpu, core: cpu % 4, llc: (cpu % 4) >> 1, node: 0, socket: 0, smt_index: cpu >> 2 })),
}

const pcpu = (cids: number[], recent: number[] = [], running: Record<number, number> = {}): MmCidPcpu[] =>
  Array.from({ length: 8 }, (_, cpu) => ({ cpu, cid: cids[cpu] ?? -1, recent_cid: recent[cpu] ?? -1, lazy_put: false, running_tid: running[cpu] ?? -1, time_ns: 0 }))

const area = (index: number, a: Partial<MmCidArea> = {}): MmCidArea => ({
  index, object: -1, lines: 0, llc: -1, llc_lines: 0, cold_lines: 0, core: -1, core_lines: 0, ...a,
})

function view(cids: number[], extra: Partial<MmCidView> = {}): MmCidView {
  const mask = Array.from({ length: 8 }, (_, i) => cids.includes(i))
  return {
    now_ns: 0, step: 0, frame: { step: 0, now_ns: 0, cpus: [], tasks: [] }, mm: null, cidmask: mask, cpusAllowed: mask,
    pcpu: pcpu(cids), areas: Array.from({ length: 8 }, (_, i) => area(i)), logStart: 0, logEnd: 0, records: [], burstCount: 0, bursts: [],
    ...extra,
  }
}

const record = (path: MmCidRecord['path'], cpu: number, cid: number): MmCidRecord => ({
  seq: 0, ts_ns: 0, age_ns: 0, path, tgid: 1000, tid: 1001, cpu, cid, prev_cid: -1, recent_cid: -1, max_nr_cid: -1, bound: 8, mm_users: 8, other_cpu: -1, flags: 0,
})

const burst = (b: Partial<BurstInfo>): BurstInfo => ({ n: 0, ts_ns: 0, tid: 1001, cpu: 1, index: 0, cost_ns: 9000, warmup: false, source: 'same-llc-core', fromCpu: 0, ...b })

function run(v: MmCidView, extra: Partial<LessonRunView> = {}): LessonRunView {
  return {
    variant: 'v6.12', view: v, previous: null, records: [], history: [], bursts: [], stepBursts: [], events: [], narration: [],
    totals: { measured: 0, total_ns: 0, mean_ns: 0, warmups: 0, transfers: 0, dram: 0 }, ended: false, ...extra,
  }
}

describe('picture state', () => {
  it('a cid handed to CPU 1: its bit changes 0 -> 1 and a chip flies to CPU 1; the burst that pulled lines gets an arrow', () => {
    const before = view([])
    const after = view([0], { pcpu: pcpu([-1, 0], [], { 1: 1001 }) })
    const s = pictureState(
      run(after, { previous: before, records: [record('FIRST_FREE', 1, 0)], stepBursts: [burst({ n: 4 })] }),
      [0, 1, 2, 3],
      8,
      undefined,
      topology,
    )
    expect(s.bits).toEqual([true, false, false, false, false, false, false, false])
    expect([...s.changed]).toEqual([[0, 1]])
    expect(s.flights).toEqual([{ cid: 0, cpu: 1 }])
    expect(s.cards[1]).toEqual({ cpu: 1, cid: 0, recent: -1, lazy: false, tid: 1001, differs: false })
    expect(s.transfers).toEqual([{ n: 4, cpu: 1, source: 'same-llc-core', fromCpu: 0, label: "burst on CPU 1 pulled area[0]'s 256 lines from CPU 0, same L3" }])
  })

  it('no motion when the step was a jump (no previous view); kept cids do not fly', () => {
    const s = pictureState(run(view([0]), { records: [record('FIRST_FREE', 1, 0)] }), [0, 1], 8)
    expect(s.changed.size).toBe(0)
    expect(s.flights).toEqual([])
    const kept = pictureState(run(view([0]), { previous: view([0]), records: [record('KEEP_PCPU_CID', 1, 0)] }), [0, 1], 8)
    expect(kept.flights).toEqual([])
  })

  it('a cleared bit is a change too (the scan took it back)', () => {
    const s = pictureState(run(view([]), { previous: view([3]) }), [0], 8)
    expect([...s.changed]).toEqual([[3, -1]])
  })

  it('compare: the CPUs whose cid differs from the other kernel are marked', () => {
    const a = run(view([0], { pcpu: pcpu([-1, 0]) }))
    const b = run(view([1], { pcpu: pcpu([-1, 1]) }), { variant: 'v6.13' })
    const s = pictureState(a, [0, 1], 8, b)
    expect(s.cards.map((c) => c.differs)).toEqual([false, true])
  })

  it('hits in the own core draw no arrow; DRAM does', () => {
    const s = pictureState(run(view([]), { stepBursts: [burst({ source: 'core', fromCpu: 1 }), burst({ n: 1, source: 'dram', fromCpu: null, warmup: true })] }), [1], 8)
    expect(s.transfers.map((t) => [t.source, t.fromCpu, t.label])).toEqual([['dram', null, "warm-up on CPU 1 pulled area[0]'s 256 lines from DRAM"]])
  })
})

describe('area labels (never by colour alone)', () => {
  it('untouched, cold, or the L3 holding most lines', () => {
    expect(areaState(area(2), 2)).toMatchObject({ kind: 'unused', lines: ['—', ''] })
    expect(areaState(area(2, { object: 3, lines: 256, llc: 0, llc_lines: 100, cold_lines: 156 }), 2)).toMatchObject({ kind: 'cold', lines: ['cold', 'DRAM'] })
    const cached = areaState(area(2, { object: 3, lines: 256, llc: 1, llc_lines: 256, core: 2, core_lines: 256 }), 2)
    expect(cached).toMatchObject({ kind: 'cached', llc: 1, lines: ['L3', '#1'] })
    expect(cached.title).toBe('area[2]: 256 of 256 lines held by L3 #1; core 2 owns 256 Modified/Exclusive')
  })

  it('arrow sources in words', () => {
    expect(transferFrom('other-llc', 4, topology)).toBe('from L3 #0')
    expect(transferFrom('other-socket', 2, topology)).toBe('from L3 #1, other socket')
    expect(transferFrom('dram', null)).toBe('from DRAM')
  })
})

describe('which CPUs the picture shows', () => {
  it('the pinned CPUs, the L3, every CPU of a small machine, the used ones of a big one', () => {
    expect(shownCpus(topology, { kind: 'pinned', cpus: [5, 0, 99] }, [])).toEqual([0, 5])
    expect(shownCpus(topology, { kind: 'l3', llc: 1 }, [])).toEqual([2, 3, 6, 7])
    expect(shownCpus(topology, { kind: 'any' }, [])).toHaveLength(8)
    expect(shownCpus(topology, { kind: 'any' }, [3, 1, 3], 4)).toEqual([1, 3])
  })
})

describe('the digest the tests compare', () => {
  it('step, time, each kernel\u2019s cidmask and CPU cids', () => {
    const a = run(view([0], { pcpu: pcpu([-1, 0]) }), { totals: { measured: 3, total_ns: 0, mean_ns: 0, warmups: 0, transfers: 0, dram: 0 } })
    const b = run(view([1], { pcpu: pcpu([-1, 1]) }), { variant: 'v6.13' })
    expect(lessonDigest(10, 800000001, [a, b])).toBe(
      'step 10 · t=800000001 ns · v6.12: cidmask 10000000 · cpu cids 1:0 · bursts 3 | v6.13: cidmask 01000000 · cpu cids 1:1 · bursts 0',
    )
  })
})
