// Lessons as data: the shipped lesson loads; bad lessons fail with file, JSON path and what is wrong.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { lessonIds, loadLesson } from '../../core/lesson/lesson_data'
import { LessonDataError, parseLesson, validateLesson } from '../../core/lesson/lesson_validate'

const shipped = JSON.parse(readFileSync(new URL('../../lessons/mm_cid/mm_cid.lesson.json', import.meta.url), 'utf8'))
const schema = JSON.parse(readFileSync(new URL('../../lessons/mm_cid/lesson.schema.json', import.meta.url), 'utf8'))
const clone = () => structuredClone(shipped)

/** The problems validateLesson reports for a lesson, as "path: message" lines. */
function problems(data: unknown): string[] {
  try {
    validateLesson(data, 'bad.lesson.json')
  } catch (err) {
    expect(err).toBeInstanceOf(LessonDataError)
    const e = err as LessonDataError
    expect(e.file).toBe('bad.lesson.json')
    for (const line of e.message.split('\n')) expect(line.startsWith('bad.lesson.json: $')).toBe(true)
    return e.problems.map((p) => `${p.path}: ${p.message}`)
  }
  throw new Error('the lesson was accepted')
}

describe('the shipped mm_cid lesson', () => {
  it('loads, 10-20 steps, from what a cid is to the published 200 ms table', () => {
    expect(lessonIds()).toContain('mm_cid')
    const l = loadLesson('mm_cid')
    expect(l.steps.length).toBeGreaterThanOrEqual(10)
    expect(l.steps.length).toBeLessThanOrEqual(20)
    expect(l.steps[0].title).toMatch(/concurrency ID/)
    const table = l.steps.find((s) => s.published)
    expect(table?.published).toEqual({ entry: 'mm_cid_7e019dc', table: 'delay_200ms', row: '8-core/1-L3' })
    // Defaults are merged under each step's scenario.
    expect(l.steps[0].scenario).toMatchObject({ preset: 'epyc-9654-2s', variant: 'v6.12', seed: 1, cache: 'idle' })
    expect(l.steps[0].scenario.workload.placement).toEqual({ kind: 'pinned', cpus: [0, 1, 2, 3, 4, 5, 6, 7] })
    // It uses every kind of interaction.
    expect(l.steps.some((s) => s.quiz?.compute.kind === 'next_cid')).toBe(true)
    expect(l.steps.some((s) => s.quiz?.compute.kind === 'next_path')).toBe(true)
    expect(l.steps.some((s) => s.toggles.includes('no_recent_cid'))).toBe(true)
    expect(l.steps.some((s) => s.scenario.variant === 'compare')).toBe(true)
  })

  it('names an unknown lesson', () => {
    expect(() => loadLesson('nosuchlesson')).toThrow(/nosuchlesson\.lesson\.json: \$: no such lesson \(shipped: [a-z_, ]*mm_cid/)
  })

  it('the JSON schema describes the same format (version, views, toggles)', () => {
    expect(schema.properties.kscope_lesson.const).toBe(1)
    expect(schema.$defs.view.enum).toEqual(['picture', 'legend', 'narration', 'costs', 'breakdown', 'numbers', 'pcpu', 'chart', 'published'])
    expect(schema.$defs.toggle.enum).toEqual(['no_recent_cid', 'task_nr_cpus_allowed'])
    expect(Object.keys(schema.$defs.step.properties).sort()).toEqual(
      ['at', 'expect', 'id', 'narration', 'notes', 'published', 'quiz', 'scenario', 'title', 'toggles', 'views'])
    expect(schema.$defs.step.required).toContain('expect')
    expect(schema.$defs.claim.oneOf.map((c: { properties: { kind: { const: string } } }) => c.properties.kind.const)).toEqual(
      ['time', 'cids', 'pcpu', 'record', 'mm', 'burst', 'cost_ratio'])
  })
})

describe('bad lessons', () => {
  it('every step must say what it shows ("expect"), in claims the validator knows', () => {
    const d = clone()
    delete d.steps[3].expect
    d.steps[4].expect = [
      { kind: 'time', min_ms: 5, max_ms: 1 },
      { kind: 'cids' },
      { kind: 'record', path: 'SCAN_GONE' },
      { kind: 'pcpu', cpu: 2, cid: 1, colour: 'red' },
      { kind: 'mood' },
      { kind: 'cost_ratio', min: 2 },
      { kind: 'burst', source: 'dram', variant: 'v6.13' },
    ]
    const p = problems(d)
    expect(p).toContain('$.steps[3].expect: must be an array, got nothing')
    expect(p).toContain('$.steps[4].expect[0].max_ms: must be at least min_ms (5), got 1')
    expect(p).toContain('$.steps[4].expect[1]: a "cids" claim needs at least one of taken, free')
    expect(p.some((x) => x.startsWith('$.steps[4].expect[2].path: must be one of'))).toBe(true)
    expect(p.some((x) => x.startsWith('$.steps[4].expect[3].colour: unknown field'))).toBe(true)
    expect(p.some((x) => x.startsWith('$.steps[4].expect[4].kind: must be one of "time"'))).toBe(true)
    expect(p).toContain('$.steps[4].expect[5]: a "cost_ratio" claim needs a compare step (variant "compare")')
    expect(p).toContain('$.steps[4].expect[6].variant: names "v6.13", but the step\'s scenario runs v6.12')
  })

  it('another format version is refused before anything else', () => {
    const d = clone()
    d.kscope_lesson = 2
    expect(problems(d)).toEqual(['$.kscope_lesson: must be 1 (this kscope reads lesson format 1), got 2'])
  })

  it('names the JSON path of a wrong enum, type and range', () => {
    const d = clone()
    d.steps[3].scenario = { variant: 'v6.14' }
    d.steps[5].at = { time_ms: 'soon' }
    d.defaults.scenario.workload.delay_ms = 0
    const p = problems(d)
    expect(p).toContain('$.steps[3].scenario.variant: must be one of "v6.12", "v6.13", "v6.18", "v6.19", "compare", got "v6.14"')
    expect(p).toContain('$.steps[5].at.time_ms: must be a number, got "soon"')
    // A bad default is reported where it is written, once (not once per step that uses it).
    expect(p.filter((x) => x === '$.defaults.scenario.workload.delay_ms: must be between 1 and 2000, got 0')).toHaveLength(1)
  })

  it('refuses a quiz that carries its answer', () => {
    const d = clone()
    const i = d.steps.findIndex((s: { quiz?: unknown }) => s.quiz)
    d.steps[i].quiz.answer = '2'
    expect(problems(d)).toContain(`$.steps[${i}].quiz.answer: a lesson never carries the answer: say what to compute in "compute"`)
  })

  it('checks quiz choices against what the quiz computes', () => {
    const d = clone()
    const i = d.steps.findIndex((s: { quiz?: { compute: { kind: string } } }) => s.quiz?.compute.kind === 'next_path')
    d.steps[i].quiz.choices[1] = 'RECENT'
    d.steps[i].quiz.compute.variant = 'v6.12'
    const p = problems(d)
    expect(p.some((x) => x.startsWith(`$.steps[${i}].quiz.choices[1]: must be an allocator path`))).toBe(true)
    expect(p).toContain(`$.steps[${i}].quiz.compute.variant: names "v6.12", but the step's scenario runs v6.13`)
  })

  it('unknown fields, missing fields, undeclared toggles, repeated ids', () => {
    const d = clone()
    d.steps[0].narrative = 'typo'
    delete d.steps[1].notes
    d.steps[2].toggles = ['no_recent_cid']
    d.toggles = d.toggles.filter((t: { id: string }) => t.id !== 'no_recent_cid')
    d.steps[4].id = d.steps[3].id
    const p = problems(d)
    expect(p.some((x) => x.startsWith('$.steps[0].narrative: unknown field'))).toBe(true)
    expect(p).toContain('$.steps[1].notes: must be a string, got nothing')
    expect(p).toContain('$.steps[2].toggles[0]: "no_recent_cid" is not declared in $.toggles')
    expect(p).toContain('$.steps[2].toggles: toggles take parts of 7e019dc out of a 6.13+ run; this step runs only v6.12')
    expect(p).toContain(`$.steps[4].id: repeats the id of $.steps[3] ("${shipped.steps[3].id}")`)
  })

  it('a pinned placement must name as many CPUs as threads; "at" has exactly one form', () => {
    const d = clone()
    d.steps[6].scenario = { workload: { ...shipped.defaults.scenario.workload, threads: 4 } }
    d.steps[7].at = { step: 1, time_ms: 3 }
    const p = problems(d)
    expect(p).toContain('$.steps[6].scenario.workload.threads: must equal the number of CPUs in placement (8), got 4')
    expect(p).toContain('$.steps[7].at: must have exactly one of "step", "time_ms", "event", "end", got step, time_ms')
  })

  it('"repin" entries are checked: thread in range, at_ms a number, cpus listed, no unknown fields', () => {
    const d = clone()
    const i = d.steps.findIndex((s: { id: string }) => s.id === 'break-migrate-to')
    const w = d.steps[i].scenario.workload
    w.repin = [{ thread: 4, at_ms: 1, cpus: [0] }, { thread: 0, at_ms: 'soon', cpus: [] }, { thread: 0, cpus: [1.5], cpu: 2 }]
    const p = problems(d)
    const at = `$.steps[${i}].scenario.workload.repin`
    expect(p).toContain(`${at}[0].thread: must be between 0 and 3, got 4`)
    expect(p.some((x) => x.startsWith(`${at}[1].at_ms: must be a number`))).toBe(true)
    expect(p).toContain(`${at}[1].cpus: must have at least 1 entry, got 0`)
    expect(p).toContain(`${at}[2].at_ms: is required`)
    expect(p.some((x) => x.startsWith(`${at}[2].cpus[0]: must be an integer`))).toBe(true)
    expect(p.some((x) => x.startsWith(`${at}[2].cpu: unknown field`))).toBe(true)
    w.repin = []
    expect(problems(d)).toContain(`${at}: must have at least 1 entry, got 0`)
  })

  it('a JSON syntax error names the line and column', () => {
    expect(() => parseLesson('{\n  "kscope_lesson": 1,\n  "id": oops\n}', 'x.lesson.json')).toThrow(/^x\.lesson\.json: \$: not valid JSON at line 3, column 9:/)
  })

  it('a bad escape in a string is a syntax error with its place (found by lesson_validate.fuzz.test.ts)', () => {
    expect(() => parseLesson('{\n  "views": {"\\highlight": []}\n}', 'x.lesson.json'))
      .toThrow(/^x\.lesson\.json: \$: not valid JSON at line 2, column 15:/)
    expect(() => parseLesson('["\\u12G4"]', 'x.lesson.json')).toThrow(/not valid JSON at line 1, column 4:/)
    expect(() => parseLesson('["\\u12', 'x.lesson.json')).toThrow(/not valid JSON at line 1, column 4:/)
  })

  it('a published table requires the published view and vice versa', () => {
    const d = clone()
    const i = d.steps.findIndex((s: { published?: unknown }) => s.published)
    d.steps[i].views.show = ['costs']
    expect(problems(d)).toContain(`$.steps[${i}].views.show: must include "published" when the step has "published"`)
  })
})
