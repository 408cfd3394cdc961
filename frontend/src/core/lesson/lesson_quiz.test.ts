// Quizzes and "run to event" computed by the model (the real C core), never read from the lesson:
// the same quiz gives another answer when the scenario (variant, toggle) changes.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { LessonController } from './lesson_controller'
import { loadLesson } from './lesson_data'
import { clampStep, memoryHost, runParamsOf, togglesOn } from './lesson_player'
import { findEvent, quizAnswer, resolveAt } from './lesson_quiz'
import type { LessonStep } from './lesson_types'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})
const stops: (() => void)[] = []
afterEach(() => {
  while (stops.length) stops.pop()!()
})

const lesson = loadLesson('mm_cid')
const stepById = (id: string) => lesson.steps.find((s) => s.id === id)!

/** A controller showing a step with some toggles on. */
function show(step: LessonStep, toggles: string[] = []) {
  const c = new LessonController(memoryHost())
  stops.push(c.start(core))
  const problem = c.showStep(runParamsOf(step, toggles), step.at)
  return { c, problem, snap: c.getSnapshot() }
}

describe('predict-next quizzes', () => {
  it('the same question, asked of v6.12 and of v6.13, gets the answer each model computes', () => {
    const q612 = stepById('predict-v612')
    const q613 = stepById('predict-v613')
    // Same quiz data but for the id and the variant: the answers differ because the models do.
    expect(q612.quiz!.compute).toEqual(q613.quiz!.compute)
    const a = show(q612)
    const b = show(q613)
    const ans612 = quizAnswer(q612.quiz!, a.c.quizRuns(), a.snap.view.time_ns)!
    const ans613 = quizAnswer(q613.quiz!, b.c.quizRuns(), b.snap.view.time_ns)!
    expect(ans612.record.tid).toBe(1002)
    expect(ans612.record.ts_ns).toBeGreaterThan(a.snap.view.time_ns)
    expect(ans612.answer).not.toBe(ans613.answer)
    expect(ans613.answer).toBe('2') // its old cid, via recent_cid
    expect(ans613.record.path).toBe('RECENT_CID')
    expect(ans612.record.path).toBe('FIRST_FREE')
    expect(ans612.inChoices && ans613.inChoices).toBe(true)
  })

  it('a toggle reruns the scenario and changes the computed answer', () => {
    const s = stepById('break-recent-cid')
    expect(s.quiz!.compute.kind).toBe('next_path')
    const on = show(s, ['no_recent_cid'])
    const off = show(s)
    expect(on.snap.state.toggles).toEqual(['no_recent_cid'])
    expect(quizAnswer(s.quiz!, off.c.quizRuns(), off.snap.view.time_ns)!.answer).toBe('RECENT_CID')
    expect(quizAnswer(s.quiz!, on.c.quizRuns(), on.snap.view.time_ns)!.answer).toBe('FIRST_FREE')
    // and the picture: no CPU keeps a recent_cid hint without the field
    expect(off.snap.view.runs[0].view.pcpu.some((p) => p.recent_cid >= 0)).toBe(true)
    expect(on.snap.view.runs[0].view.pcpu.every((p) => p.recent_cid < 0)).toBe(true)
  })

  it('another thread, another computed answer; a thread with no next decision, none', () => {
    const s = stepById('predict-v613')
    const a = show(s)
    const other = { ...s.quiz!, compute: { ...s.quiz!.compute, tid: 1005 } }
    expect(quizAnswer(other, a.c.quizRuns(), a.snap.view.time_ns)!.answer).toBe('5')
    expect(quizAnswer({ ...other, compute: { ...other.compute, tid: 4242 } }, a.c.quizRuns(), 0)).toBeNull()
  })
})

describe('the shipped lesson against the model', () => {
  it('every step reaches its place; every quiz has a computed answer among its choices, toggles on or off', () => {
    for (const step of lesson.steps) {
      for (const toggles of [[], step.toggles]) {
        const { problem, snap, c } = show(step, toggles)
        expect(problem, `${step.id}`).toBeNull()
        expect(snap.view.problem, `${step.id}`).toBeNull()
        expect(snap.view.runs.length, step.id).toBe(step.scenario.variant === 'compare' ? 2 : 1)
        if (step.quiz) {
          const a = quizAnswer(step.quiz, c.quizRuns(), snap.view.time_ns)
          expect(a?.inChoices, `${step.id} ${toggles}`).toBe(true)
        }
        while (stops.length) stops.pop()!()
      }
    }
  })

  it('the old migrate-to toggle changes its step: a re-pinned thread leaves cid 1 on CPU 1 (4 cids in use, not 3)', () => {
    const s = stepById('break-migrate-to')
    expect(s.scenario.workload.repin?.length).toBeGreaterThan(0)
    const off = show(s)
    const on = show(s, ['task_nr_cpus_allowed'])
    expect(off.problem).toBeNull()
    expect(on.problem).toBeNull()
    const a = off.snap.view.runs[0]
    const b = on.snap.view.runs[0]
    // the same instant (thread 1001 on CPU 0 after its re-pin), two pictures
    expect(on.snap.view.time_ns).toBe(off.snap.view.time_ns)
    expect(a.records.map((r) => [r.path, r.tid, r.other_cpu, r.cpu])).toContainEqual(['MIGRATE_SRC_DROPPED', 1001, 1, 0])
    expect(b.records.map((r) => [r.path, r.tid, r.other_cpu, r.cpu])).toContainEqual(['MIGRATE_KEPT_SRC', 1001, 1, 0])
    expect(a.view.mm!.cidmask_weight).toBe(3)
    expect(b.view.mm!.cidmask_weight).toBe(4)
    expect(a.view.pcpu[1].cid).toBe(-1)
    expect(b.view.pcpu[1].cid).toBe(1)
    // and the allocator's words say why
    const said = (r: typeof a) => r.narration.map((n) => n.text).join(' | ')
    expect(said(a)).toMatch(/CPU 1's cid 1 was freed/)
    expect(said(b)).toMatch(/mm_users 4 >= 1 \(the thread's own allowed CPUs: the test from before 7e019dc, injected\), so CPU 1 keeps cid 1/)
  })

  it('what the predict steps say is on screen is: CPU 2 has no cid; on v6.13 it remembers cid 2', () => {
    const a = show(stepById('predict-v612')).snap.view.runs[0].view.pcpu[2]
    expect(a.cid).toBe(-1)
    const b = show(stepById('predict-v613')).snap.view.runs[0].view.pcpu[2]
    expect(b.cid).toBe(-1)
    expect(b.recent_cid).toBe(2)
  })

  it('the lowest-free step lands on a burst from DRAM, the recent-cid step on one from its own core', () => {
    const low = show(stepById('lowest-free')).snap.view.runs[0]
    expect(low.stepBursts.map((b) => [b.tid, b.source])).toEqual([[1002, 'dram']])
    const rec = show(stepById('recent-cid')).snap.view.runs[0]
    expect(rec.stepBursts.map((b) => [b.tid, b.source])).toEqual([[1002, 'core']])
  })
})

describe('where a step stands', () => {
  it('an event target lands on the instant of that allocator record', () => {
    const s = stepById('lowest-free')
    const { snap, problem, c } = show(s)
    expect(problem).toBeNull()
    const r = findEvent(c.quizRuns(), (s.at as { event: Parameters<typeof findEvent>[1] }).event)!
    expect(r.path).toBe('FIRST_FREE')
    expect(r.tid).toBe(1002)
    expect(snap.view.time_ns).toBe(r.ts_ns)
    expect(snap.view.runs[0].records.some((x) => x.seq === r.seq)).toBe(true)
  })

  it('time, step and end targets; a missing event is a problem shown, at the end', () => {
    const s = stepById('cost-612')
    const { snap, c } = show(s)
    expect(snap.view.time_ns).toBeLessThanOrEqual(4000e6)
    const clock = { times: new Float64Array([1, 5, 9]), stepAt: [new Uint32Array([0, 1, 2, 3])], complete: true }
    expect(resolveAt({ step: 2 }, clock, [])).toEqual({ step: 2, problem: null })
    expect(resolveAt({ step: 99 }, clock, [])).toEqual({ step: 3, problem: null })
    expect(resolveAt({ time_ms: 6e-6 }, clock, [])).toEqual({ step: 2, problem: null })
    expect(resolveAt({ end: true }, clock, [])).toEqual({ step: 3, problem: null })
    const missing = resolveAt({ event: { path: 'RECENT_CID', nth: 1 } }, clock, c.quizRuns())
    expect(missing.problem).toMatch(/no RECENT_CID decision #1: showing its end/)
  })

  it('positions clamp to the lesson, toggles only where the step offers them', () => {
    expect(clampStep(lesson, -3)).toBe(0)
    expect(clampStep(lesson, 999)).toBe(lesson.steps.length - 1)
    expect(clampStep(lesson, Number.NaN)).toBe(0)
    expect(togglesOn(stepById('break-recent-cid'), { no_recent_cid: true, task_nr_cpus_allowed: true })).toEqual(['no_recent_cid'])
    expect(togglesOn(stepById('predict-v613'), { no_recent_cid: true })).toEqual([])
  })
})
