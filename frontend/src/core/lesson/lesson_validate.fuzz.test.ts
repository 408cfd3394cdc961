// The lesson validator's inputs, fuzzed (fast-check: random JSON values, random text,
// and the shipped lesson with random parts replaced, removed, added or its text cut and
// mutated). Whatever a lesson file holds, the validator returns a Lesson or throws a
// LessonDataError naming the file and each problem's JSON path - never another error,
// never an answer-carrying quiz accepted - and a JSON syntax error says where it is.
//
// It is a bounded property test, not libFuzzer: the validator is TypeScript (the C
// harnesses are in wasm-core/fuzz). `npm test` runs a fixed number of cases;
// `npm run fuzz -- lesson` runs it for --seconds (KSCOPE_FUZZ_SECONDS) instead.
// A failure prints fast-check's seed and the shrunk input: keep it as a case in
// lesson_validate.test.ts (the regression) once fixed.
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LessonDataError, jsonErrorOffset, parseLesson, validateLesson } from './lesson_validate'

const shippedText = readFileSync(new URL('../../lessons/mm_cid.lesson.json', import.meta.url), 'utf8')
const shipped = JSON.parse(shippedText) as Record<string, unknown>

const seconds = Number(process.env.KSCOPE_FUZZ_SECONDS ?? 0)
/** Runs by count in `npm test`; under `npm run fuzz`, each of the three properties for a third of the time. */
const budget = <T>(numRuns: number): fc.Parameters<T> =>
  seconds > 0
    ? { numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: seconds * 1000 / 3, markInterruptAsFailure: false }
    : { numRuns }
const timeout = seconds > 0 ? seconds * 1000 + 60_000 : 60_000

/** fc.assert, printing how many cases ran (scripts/fuzz.mjs reads the line). */
function assertProperty<T>(name: string, property: fc.IProperty<T>, params: fc.Parameters<T>) {
  const started = performance.now()
  const details = fc.check(property, params)
  const secs = (performance.now() - started) / 1000
  console.log(`fuzz-lesson ${name}: ${details.numRuns} runs in ${secs.toFixed(1)} s`)
  if (details.failed) throw new Error(fc.defaultReportMessage(details))
}

/** Validates; returns the Lesson or the LessonDataError. Any other throw fails the property. */
function check(run: () => unknown): unknown {
  try {
    return run()
  } catch (err) {
    if (!(err instanceof LessonDataError)) throw err
    expect(err.file).toBe('fuzz.lesson.json')
    expect(err.problems.length).toBeGreaterThan(0)
    for (const p of err.problems) {
      expect(p.path.startsWith('$')).toBe(true)
      expect(p.message.length).toBeGreaterThan(0)
    }
    for (const line of err.message.split('\n')) expect(line.startsWith('fuzz.lesson.json: $')).toBe(true)
    return err
  }
}

/** Every value at every path of a JSON document, as [path of keys, value]. */
function paths(v: unknown, at: (string | number)[] = []): [(string | number)[], unknown][] {
  const out: [(string | number)[], unknown][] = [[at, v]]
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])))
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]))
  return out
}

type Edit = { kind: 'set' | 'delete' | 'add', pick: number, key: string, value: unknown }

/** The shipped lesson with some edits applied (each at a path picked among the document's). */
function edited(edits: Edit[]): unknown {
  let doc: unknown = structuredClone(shipped)
  for (const e of edits) {
    const all = paths(doc)
    const [at] = all[e.pick % all.length]
    if (at.length === 0) {
      if (e.kind === 'set') doc = e.value
      continue
    }
    let parent = doc as Record<string | number, unknown>
    for (const k of at.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>
    const last = at[at.length - 1]
    const target = parent[last]
    if (e.kind === 'set') parent[last] = e.value
    else if (e.kind === 'delete') {
      if (Array.isArray(parent)) parent.splice(last as number, 1)
      else delete parent[last]
    } else if (target && typeof target === 'object' && !Array.isArray(target)) {
      (target as Record<string, unknown>)[e.key] = e.value
    } else if (Array.isArray(target)) target.push(e.value)
  }
  return doc
}

const keys = fc.constantFrom('answer', 'id', 'steps', 'quiz', 'compute', 'kind', 'variant', 'scenario',
  'workload', 'repin', 'cpus', 'threads', 'placement', 'at', 'event', 'views', 'show', 'toggles',
  'published', 'defaults', 'seed', '__proto__', 'constructor', 'x')
const values = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom('v6.12', 'v6.13', 'v6.18', 'compare', 'cpus:0-7', 'cpus:7-0', 'cpus:0-99999999', 'any',
    'l3:0', 'l3:-1', 'next_cid', 'next_path', 'published', '', ' ', 'answer'),
  fc.constantFrom(0, -1, 1, 2 ** 31, 2 ** 53, Number.MAX_SAFE_INTEGER, 1e308, 0.5, -0),
)
const edit: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom('set', 'delete', 'add'), pick: fc.nat(), key: keys, value: values,
}) as fc.Arbitrary<Edit>

describe('fuzzing the lesson validator', () => {
  it('any JSON value: a Lesson or a LessonDataError with paths', () => {
    assertProperty('json-values', fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
      check(() => validateLesson(v, 'fuzz.lesson.json'))
    }), budget(1500))
  }, timeout)

  it('the shipped lesson with random edits: never another error; a quiz with "answer" is refused', () => {
    assertProperty('edited-lesson', fc.property(fc.array(edit, { minLength: 1, maxLength: 6 }), (edits) => {
      const doc = edited(edits)
      const result = check(() => validateLesson(doc, 'fuzz.lesson.json'))
      const quizzes = paths(doc).filter(([at]) => at.length === 3 && at[0] === 'steps' && at[2] === 'quiz')
      const answered = quizzes.some(([, q]) => q && typeof q === 'object' && !Array.isArray(q) &&
        ('answer' in q || ((q as { compute?: unknown }).compute instanceof Object && 'answer' in ((q as { compute: object }).compute))))
      if (answered) expect(result).toBeInstanceOf(LessonDataError)
    }), budget(500))
  }, timeout)

  it('any text: parseLesson never throws anything but LessonDataError; syntax errors have a place', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      // The shipped text, cut or with a few characters replaced or inserted.
      fc.tuple(fc.nat(), fc.nat(), fc.string({ maxLength: 4 }), fc.boolean()).map(([at, len, s, cut]) => {
        const i = at % (shippedText.length + 1)
        return cut ? shippedText.slice(0, i) : shippedText.slice(0, i) + s + shippedText.slice(i + (len % 3))
      }),
    )
    assertProperty('any-text', fc.property(text, (t) => {
      const at = jsonErrorOffset(t)
      let valid = true
      try {
        JSON.parse(t)
      } catch {
        valid = false
      }
      // The offset finder agrees with the engine's parser: -1 exactly for valid JSON.
      expect(at === -1).toBe(valid)
      expect(at).toBeLessThanOrEqual(t.length)
      const result = check(() => parseLesson(t, 'fuzz.lesson.json'))
      if (!valid) {
        expect(result).toBeInstanceOf(LessonDataError)
        expect((result as LessonDataError).problems[0].message).toMatch(/^not valid JSON at line \d+, column \d+: /)
      }
    }), budget(2000))
  }, timeout)
})
