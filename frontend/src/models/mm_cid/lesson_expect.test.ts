// Every step of every shipped lesson, shown by the controller on the real C model (wasm): the
// state it shows has what its narration says (the step's "expect" claims, lesson_expect.ts).
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { LessonController, type LessonView } from './lesson_controller'
import { loadLesson } from '../../core/lesson/lesson_data'
import { checkExpect, checkOne, type LessonExpect } from './lesson_expect'
import { memoryHost, runParamsOf } from '../../core/lesson/lesson_player'
import type { LessonStep } from '../../core/lesson/lesson_types'

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

function shown(step: LessonStep, toggles: string[] = []): { view: LessonView; problem: string | null } {
  const c = new LessonController(memoryHost())
  stops.push(c.start(core))
  const problem = c.showStep(runParamsOf(step, toggles), step.at)
  return { view: c.getSnapshot().view, problem }
}

describe('every lesson step shows what its narration says', () => {
  for (const [i, step] of lesson.steps.entries()) {
    it(`step ${i + 1} ${step.id}: ${step.expect.length} claims hold on the model`, () => {
      const { view, problem } = shown(step)
      expect(problem).toBeNull()
      expect(view.problem).toBeNull()
      expect(checkExpect(step.expect, view)).toEqual([])
    })
  }

  it('every step makes a claim about the instant it shows', () => {
    for (const step of lesson.steps) expect(step.expect.some((e) => e.kind === 'time'), step.id).toBe(true)
  })
})

describe('the scan step (issue 13 item 3)', () => {
  const scan = lesson.steps.find((s) => s.id === 'the-scan')!

  it('shows the state after the 204 ms scan, not the 200 ms instant of the step before', () => {
    const before = shown(lesson.steps.find((s) => s.id === 'cpu-keeps-cid')!).view
    const { view } = shown(scan)
    expect(before.time_ns).toBeLessThan(204e6)
    expect(view.time_ns).toBeGreaterThanOrEqual(204e6)
    const run = view.runs[0]
    // the scan (task_work the 204 ms tick queued, run as thread 1007 returned to user space)
    // freed cids 0-6 and marked CPU 7's for a lazy put, which 1007 keeps while it runs
    expect(run.records.filter((r) => r.path === 'SCAN_DROPPED_OLD').map((r) => r.cid)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(run.records.filter((r) => r.path === 'SCAN_DROPPED_OLD').every((r) => Math.floor(r.ts_ns / 1e6) === 204)).toBe(true)
    expect(run.view.cidmask.map((b, cid) => (b ? cid : -1)).filter((c) => c >= 0)).toEqual([7])
    expect(before.runs[0].view.cidmask.every((b, cid) => b === cid < 8)).toBe(true)
  })

  it('its claims fail on the state of the step before (what the lesson showed before the fix)', () => {
    const before = shown(lesson.steps.find((s) => s.id === 'cpu-keeps-cid')!).view
    const failures = checkExpect(scan.expect, before)
    expect(failures.some((f) => /cid 0 is taken/.test(f))).toBe(true)
    expect(failures.some((f) => /SCAN_DROPPED_OLD/.test(f))).toBe(true)
  })
})

describe('claims, one by one', () => {
  it('each kind can fail, and says what the model showed', () => {
    const { view } = shown(lesson.steps.find((s) => s.id === 'first-cids')!)
    const bad: LessonExpect[] = [
      { kind: 'time', min_ms: 999_000, max_ms: 999_001 },
      { kind: 'cids', free: [0] },
      { kind: 'pcpu', cpu: 0, cid: 5 },
      { kind: 'record', path: 'RECENT_CID' },
      { kind: 'mm', cids_in_use: 1 },
      { kind: 'burst', source: 'other-socket' },
    ]
    for (const e of bad) expect(checkOne(e, view), e.kind).toMatch(/\w/)
    expect(checkOne({ kind: 'cost_ratio', min: 1 }, view)).toMatch(/no v6.12 and v6.13/)
  })
})
