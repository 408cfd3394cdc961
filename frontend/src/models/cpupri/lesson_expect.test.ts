// Every step of the shipped cpupri lesson, shown by the store on the real C model (wasm):
// the state has what the narration claims (lesson_expect.ts), the quiz's answer is one
// of its choices and follows the model, and a claim that does not hold is reported.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { loadLesson } from '../../core/lesson/lesson_data'
import { memoryHost, runParamsOf } from '../../core/lesson/lesson_player'
import { quizAnswer } from '../../core/lesson/lesson_quiz'
import type { LessonStep } from '../../core/lesson/lesson_types'
import { failedClaims, type CpupriClaim } from './lesson_expect'
import { CpupriLessonStore, type CpupriLessonView } from './lesson_store'
import { narrateStep } from './narrate'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})
const stops: (() => void)[] = []
afterEach(() => {
  while (stops.length) stops.pop()!()
})

const lesson = loadLesson('cpupri')

function shown(step: LessonStep, toggles: string[] = []) {
  const s = new CpupriLessonStore(memoryHost())
  stops.push(s.start(core))
  const problem = s.showStep(runParamsOf(step, toggles), step.at)
  return { store: s, view: s.getSnapshot().view as CpupriLessonView, problem }
}

describe('the cpupri lesson on the model', () => {
  it('has 5 to 8 steps, a quiz, the bug toggle and a compare step', () => {
    expect(lesson.steps.length).toBeGreaterThanOrEqual(5)
    expect(lesson.steps.length).toBeLessThanOrEqual(8)
    expect(lesson.steps.some((s) => s.quiz)).toBe(true)
    expect(lesson.steps.some((s) => s.toggles.includes('unordered_set'))).toBe(true)
    expect(lesson.steps.some((s) => s.scenario.variant === 'compare')).toBe(true)
  })

  for (const [i, step] of lesson.steps.entries()) {
    it(`step ${i} (${step.id}): its claims hold and it narrates`, () => {
      const { view, problem } = shown(step)
      expect(problem).toBeNull()
      expect(failedClaims(view, step.expect as CpupriClaim[])).toEqual([])
      expect(narrateStep(view).length).toBeGreaterThan(1)
    })
  }

  it('the quiz answer comes from the model and is a choice', () => {
    const step = lesson.steps.find((s) => s.quiz)!
    const { store, view } = shown(step)
    const a = quizAnswer(step.quiz!, store.quizRuns(), view.time_ns)
    expect(a).not.toBeNull()
    expect(a!.inChoices).toBe(true)
    expect(a!.source).toMatch(/thread 1013/)
  })

  it('a claim that does not hold is reported (the check can fail)', () => {
    const step = lesson.steps.find((s) => s.id === 'per-node')!
    const { view } = shown(step)
    expect(failedClaims(view, [{ kind: 'mask_line', lines: 1, variant: 'pernode' }, { kind: 'level', cpu: 0, level: 50 },
      { kind: 'cycles_ratio', max: 1 }])).toHaveLength(3)
  })

  it('the line owner moves between the steps "line-crosses" and "line-returns", and per-node lines have no remote HITM', () => {
    const cross = shown(lesson.steps.find((s) => s.id === 'line-crosses')!).view
    const back = shown(lesson.steps.find((s) => s.id === 'line-returns')!).view
    const owner = (v: CpupriLessonView) => v.runs[0].view.places.find((p) => p.object === 'cpupri_vec[99].mask')
    const socket = (v: CpupriLessonView, core_: number) => v.topology!.cpus.find((c) => c.core === core_)!.socket
    expect(socket(cross, owner(cross)!.owner_core)).toBe(1)
    expect(socket(back, owner(back)!.owner_core)).toBe(0)
    const perNode = shown(lesson.steps.find((s) => s.id === 'per-node')!).view.runs.find((r) => r.variant === 'pernode')!
    expect(perNode.view.rows.filter((r) => r.object.startsWith('cpupri_vec[99].masks')).every((r) => r.remote_hitm === 0)).toBe(true)
  })

  it('the bug toggle changes the run (its flag reaches the model)', () => {
    const step = lesson.steps.find((s) => s.toggles.includes('unordered_set'))!
    const off = shown(step).view.runs[0]
    const on = shown(step, ['unordered_set']).view.runs[0]
    expect(off.view.summary.flags).toBe(0)
    expect(on.view.summary.flags).toBe(1)
    expect(on.algo).toBe('cpupri:global+unordered_set')
  })
})
