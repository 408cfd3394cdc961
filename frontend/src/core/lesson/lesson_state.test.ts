// The lesson's state: URL round trip, the workload it builds, and its named actions.
import { describe, expect, it } from 'vitest'
import {
  BENCHMARK_WORKLOAD, addThread, arrive, formatCpuSequence, initialLessonState, lessonDurationMs, lessonStateFromSearch,
  lessonWorkloadJson, newLessonRun, onePerL3, parseCpuSequence, parsePlacement, pinThread, removeThread,
  searchForLessonState, seek, setPlacementKind, step, stepBack, togglePlay, variantsOf, type LessonState,
} from './lesson_state'
import type { Topology } from '../shared/types'

/** classroom-8 as the core describes it: 4 cores x 2 threads, 2 L3s, CPU i+4 the sibling of CPU i. */
const classroom: Topology = {
  name: 'classroom-8',
  summary: { cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 16384 },
  cpus: Array.from({ length: 8 }, (_, cpu) => ({ cpu, core: cpu % 4, llc: (cpu % 4) >> 1, node: 0, socket: 0, smt_index: cpu >> 2 })),
}

describe('lesson URL', () => {
  it('reads the link the lesson is shared as', () => {
    const s = lessonStateFromSearch('?variant=compare&preset=epyc-9654-2s&threads=8&placement=cpus:0-7&delay_ms=200&seed=1&step=40')
    expect(s).toMatchObject({ variant: 'compare', preset: 'epyc-9654-2s', seed: 1, step: 40, cache: 'idle', untilNs: null })
    expect(s.workload).toEqual({ ...BENCHMARK_WORKLOAD, threads: 8, placement: { kind: 'pinned', cpus: [0, 1, 2, 3, 4, 5, 6, 7] }, delayMs: 200 })
  })

  it('round-trips every field, and the defaults', () => {
    const states: LessonState[] = [
      initialLessonState(),
      {
        ...initialLessonState(), variant: 'v6.18', preset: 'epyc-9654-2s', cache: 'busy', seed: 42, step: 17,
        workload: { threads: 3, placement: { kind: 'pinned', cpus: [5, 0, 8] }, delayMs: 10, order: 'reshuffle', warmup: 0, loops: 7 },
      },
      { ...initialLessonState(), variant: 'v6.12', workload: { ...BENCHMARK_WORKLOAD, threads: 12, placement: { kind: 'l3', llc: 3 } } },
      { ...initialLessonState(), workload: { ...BENCHMARK_WORKLOAD, threads: 5, placement: { kind: 'any' } } },
      { ...initialLessonState(), variant: 'v6.13', toggles: ['no_recent_cid', 'task_nr_cpus_allowed'] },
    ]
    for (const s of states) expect(lessonStateFromSearch(searchForLessonState(s))).toEqual(s)
    expect(searchForLessonState(initialLessonState())).toBe(
      '?variant=compare&preset=classroom-8&threads=8&placement=cpus:0-7&delay_ms=200&order=fixed&warmup=20000&loops=5&cache=idle&seed=1&step=0',
    )
  })

  it('reads until_ms once, and writes it only while unresolved', () => {
    const s = lessonStateFromSearch('?until_ms=2500.5')
    expect(s.untilNs).toBe(2_500_500_000)
    expect(searchForLessonState(s)).toContain('until_ms=2500.5')
    const landed = arrive(s, 57, false)
    expect(landed).toMatchObject({ step: 57, untilNs: null })
    expect(searchForLessonState(landed)).not.toContain('until_ms')
  })

  it('cleans what a hand-edited link gets wrong', () => {
    const s = lessonStateFromSearch('?variant=v9&threads=9999&delay_ms=-3&seed=x&step=-2&placement=cpus:7-3&loops=abc&cache=warm')
    expect(s).toMatchObject({ variant: 'compare', seed: 1, step: 0, cache: 'idle' })
    expect(s.workload).toMatchObject({ threads: 48, delayMs: 1, loops: 5, placement: BENCHMARK_WORKLOAD.placement })
  })
})

describe('CPU sequences and placements', () => {
  it('keep the order of the CPUs (thread i is pinned to the i-th)', () => {
    expect(formatCpuSequence([0, 1, 2, 3, 4, 5, 6, 7])).toBe('0-7')
    expect(formatCpuSequence([0, 8, 16])).toBe('0,8,16')
    expect(formatCpuSequence([5, 3, 4, 0, 1])).toBe('5,3,4,0,1')
    expect(formatCpuSequence([2, 3, 4, 9])).toBe('2-4,9')
    for (const list of [[0, 8, 16], [5, 3, 4, 0, 1], [2, 3, 4, 9], [7]]) expect(parseCpuSequence(formatCpuSequence(list))).toEqual(list)
    expect(parseCpuSequence('4-2')).toBeNull()
    expect(parseCpuSequence('a')).toBeNull()
  })

  it('parse the three placements', () => {
    expect(parsePlacement('any')).toEqual({ kind: 'any' })
    expect(parsePlacement('l3:5')).toEqual({ kind: 'l3', llc: 5 })
    expect(parsePlacement('cpus:0,2-3')).toEqual({ kind: 'pinned', cpus: [0, 2, 3] })
    expect(parsePlacement('somewhere')).toBeNull()
  })
})

describe('the workload the core runs', () => {
  it('is seed 000 benchmark JSON, pinned or free in an L3', () => {
    const pinned = JSON.parse(lessonWorkloadJson(BENCHMARK_WORKLOAD, classroom))
    expect(pinned.processes[0]).toEqual({
      kind: 'intermittent', comm: 'rseq-bench', threads: 8, placement: 'one-per-core', index_by: 'mm_cid', area_bytes: 16384,
      delay_ms: 200, order: 'fixed', warmup_sweeps: 20000, loops: 5, cpus: [0, 1, 2, 3, 4, 5, 6, 7],
    })
    expect(pinned.duration_ms).toBe(lessonDurationMs(BENCHMARK_WORKLOAD))
    const l3 = JSON.parse(lessonWorkloadJson({ ...BENCHMARK_WORKLOAD, threads: 3, placement: { kind: 'l3', llc: 1 } }, classroom))
    expect(l3.processes[0]).toMatchObject({ placement: 'free', threads: 3, cpus: [2, 3, 6, 7] })
  })

  it('lasts long enough for every thread to finish its loops', () => {
    // librseq's pacing: the last thread starts after (threads - 1) x delay, then loops x threads x delay.
    expect(lessonDurationMs(BENCHMARK_WORKLOAD)).toBeGreaterThan(7 * 200 + 5 * 8 * 200)
    expect(lessonDurationMs({ ...BENCHMARK_WORKLOAD, threads: 24 })).toBeGreaterThan(23 * 200 + 5 * 24 * 200)
  })

  it('edits: add, remove, pin (swapping), change placement', () => {
    const two = { ...BENCHMARK_WORKLOAD, threads: 2, placement: { kind: 'pinned' as const, cpus: [0, 1] } }
    expect(addThread(two, classroom)!.placement).toEqual({ kind: 'pinned', cpus: [0, 1, 2] })
    expect(addThread(BENCHMARK_WORKLOAD, classroom)).toBeNull() // all 8 CPUs taken
    expect(removeThread(two)).toMatchObject({ threads: 1, placement: { cpus: [0] } })
    expect(removeThread({ ...two, threads: 1, placement: { kind: 'pinned', cpus: [0] } })).toBeNull()
    expect(pinThread(two, 0, 1).placement).toEqual({ kind: 'pinned', cpus: [1, 0] })
    expect(pinThread(two, 1, 6).placement).toEqual({ kind: 'pinned', cpus: [0, 6] })
    expect(setPlacementKind(two, 'l3', classroom, 1).placement).toEqual({ kind: 'l3', llc: 1 })
    expect(setPlacementKind({ ...two, placement: { kind: 'any' } }, 'pinned', classroom).placement).toEqual({ kind: 'pinned', cpus: [0, 1] })
    expect(addThread({ ...two, placement: { kind: 'any' } }, classroom)).toMatchObject({ threads: 3, placement: { kind: 'any' } })
    expect(onePerL3(classroom)).toMatchObject({ threads: 2, placement: { kind: 'pinned', cpus: [0, 2] } })
  })
})

describe('lesson actions', () => {
  it('step, back, seek and play are pure and bounded', () => {
    const s0 = initialLessonState()
    expect(stepBack(s0)).toBe(s0)
    const s1 = step(s0)
    expect(s1.step).toBe(1)
    expect(stepBack(s1).step).toBe(0)
    expect(seek(s1, 30).step).toBe(30)
    expect(seek(s1, -4).step).toBe(0)
    expect(togglePlay(s1).playing).toBe(true)
    const done = { ...s1, finished: true }
    expect(step(done)).toBe(done)
    expect(togglePlay(done)).toBe(done)
  })

  it('a new run starts at step 0, paused; the same run again changes nothing', () => {
    const s = { ...initialLessonState(), step: 12, playing: true }
    const next = newLessonRun(s, { variant: 'v6.13' })
    expect(next).toMatchObject({ variant: 'v6.13', step: 0, playing: false })
    const atZero = { ...initialLessonState() }
    expect(newLessonRun(atZero, { variant: 'compare' })).toBe(atZero)
  })

  it('compare runs v6.12 and v6.13', () => {
    expect(variantsOf('compare')).toEqual(['v6.12', 'v6.13'])
    expect(variantsOf('v6.18')).toEqual(['v6.18'])
  })
})

describe('bug-injection toggles', () => {
  it('reach the C model as "+flag" on 6.13+ runs only, known ones once, sorted', async () => {
    const { algoOf, cleanToggles } = await import('./lesson_state')
    expect(algoOf('v6.13', ['task_nr_cpus_allowed', 'no_recent_cid'])).toBe('mm_cid:v6.13+no_recent_cid+task_nr_cpus_allowed')
    expect(algoOf('v6.12', ['no_recent_cid'])).toBe('mm_cid:v6.12')
    expect(algoOf('v6.18')).toBe('mm_cid:v6.18')
    expect(cleanToggles(['x', 'no_recent_cid', 'no_recent_cid'])).toEqual(['no_recent_cid'])
  })
  it('are part of what defines a run, and of the URL', () => {
    const s = newLessonRun(initialLessonState(), { toggles: ['no_recent_cid'] })
    expect(s.toggles).toEqual(['no_recent_cid'])
    expect(searchForLessonState(s)).toContain('&toggles=no_recent_cid&')
    expect(lessonStateFromSearch('?toggles=bogus,no_recent_cid').toggles).toEqual(['no_recent_cid'])
    expect(newLessonRun(s, { toggles: [] }).toggles).toEqual([])
  })
})
