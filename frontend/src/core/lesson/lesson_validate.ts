/*
 * Checks a lesson file (format version 1, docs/lessons.md) and turns it into a
 * Lesson. Every problem is reported, not just the first, each as
 * "<file>: <JSON path>: <what is wrong>", e.g.
 *
 *   x.lesson.json: $.steps[4].quiz.compute.tid: must be an integer, got "1002"
 *
 * The format is JSON Schema: the generic core/lesson/lesson_schema.json with the
 * lesson's model's fragment (models/<model>/lesson.schema.json), composed and
 * compiled by ajv at build time (lesson_schema_build.ts, vite.config.ts) and
 * its errors worded by lesson_schema.ts. This file adds only what a schema cannot
 * say: a step's scenario is its own fields over $.defaults.scenario, so the
 * required fields, a pinned placement's CPU count and a repinned thread's
 * number are checked on the merged scenario; a variant named in a step must be
 * one the step runs; ids are unique; a step's toggles are declared in
 * $.toggles; a time claim's max is at least its min; and the model's own
 * cross-field checks (ModelDescriptor.lesson.check). A lesson must never carry
 * a quiz's answer: quizzes say what to compute, and the schema refuses "answer".
 */
import { parsePlacement, type LessonWorkload } from './lesson_state'
import { LESSON_FORMAT_VERSION, type Lesson, type LessonAt, type LessonStep, type LessonToggleDef } from './lesson_types'
import { lessonSchemaValidator, show, type LessonProblem, type LessonSchemaValidator } from './lesson_schema'
import precompiled from 'virtual:lesson-validators'
import { MODELS, modelOf } from '../../models/registry'
import type { LessonStepContext, ModelDescriptor } from '../../models/types'

export type { LessonProblem } from './lesson_schema'

/** A lesson file that failed validation: every problem, with the file named. */
export class LessonDataError extends Error {
  readonly file: string
  readonly problems: LessonProblem[]
  constructor(file: string, all: LessonProblem[]) {
    // A bad default is met by every step that uses it: say it once.
    const problems = all.filter((p, i) => all.findIndex((q) => q.path === p.path && q.message === p.message) === i)
    super(problems.map((p) => `${file}: ${p.path}: ${p.message}`).join('\n'))
    this.name = 'LessonDataError'
    this.file = file
    this.problems = problems
  }
}

type Json = unknown
type Obj = Record<string, Json>
const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const obj = (v: Json): Obj => (isObj(v) ? v : {})
const list = (v: Json): Json[] => (Array.isArray(v) ? v : [])
const isInt = (v: Json): v is number => typeof v === 'number' && Number.isInteger(v)

/** Each model's composed schema with its validator (precompiled at build time: vite.config.ts). */
const validators = new Map<string, LessonSchemaValidator>()
function validatorFor(model: ModelDescriptor): LessonSchemaValidator {
  let v = validators.get(model.id)
  if (!v) {
    const compiled = precompiled[model.id]
    if (!compiled) throw new Error(`no lesson validator for model "${model.id}" (models/${model.id}/lesson.schema.json missing?)`)
    v = lessonSchemaValidator(compiled.schema, compiled.validate)
    validators.set(model.id, v)
  }
  return v
}

const SCENARIO_KEYS = ['preset', 'variant', 'workload', 'cache', 'seed'] as const
type ScenarioKey = (typeof SCENARIO_KEYS)[number]

/** Where each scenario field of a step comes from: the step's own scenario, else the defaults. */
function mergedScenario(step: Obj, path: string, defaults: Obj) {
  const own = obj(step.scenario)
  const at = (k: ScenarioKey) => (k in own ? { v: own[k], at: `${path}.scenario.${k}` } : k in defaults ? { v: defaults[k], at: `$.defaults.scenario.${k}` } : null)
  return Object.fromEntries(SCENARIO_KEYS.map((k) => [k, at(k)])) as Record<ScenarioKey, { v: Json; at: string } | null>
}

/** The generic checks a schema cannot say, on one step (the data may be malformed: ajv has said so). */
function checkStep(fail: (path: string, message: string) => void, model: ModelDescriptor, s: Json, path: string, defaults: Obj, declared: readonly string[]) {
  if (!isObj(s)) return
  const scen = mergedScenario(s, path, defaults)
  if (s.scenario === undefined || isObj(s.scenario)) {
    for (const k of SCENARIO_KEYS) if (!scen[k]) fail(`${path}.scenario.${k}`, 'is required (in the step or in $.defaults.scenario)')
  }
  const w = scen.workload
  if (w && isObj(w.v)) {
    const placement = typeof w.v.placement === 'string' ? parsePlacement(w.v.placement) : null
    const threads = w.v.threads
    if (placement?.kind === 'pinned' && isInt(threads) && placement.cpus.length !== threads) {
      fail(`${w.at}.threads`, `must equal the number of CPUs in placement (${placement.cpus.length}), got ${threads}`)
    }
    list(w.v.repin).forEach((r, i) => {
      const t = obj(r).thread
      if (isInt(threads) && isInt(t) && t >= threads) fail(`${w.at}.repin[${i}].thread`, `must be between 0 and ${Math.max(0, threads - 1)}, got ${t}`)
    })
  }
  // A variant named inside the step must be one of the runs its scenario makes.
  const variant = typeof scen.variant?.v === 'string' ? scen.variant.v : null
  const runs = variant !== null ? model.variants.runsOf(variant) : null
  const checkRun = (v: Json, at: string) => {
    if (runs && typeof v === 'string' && model.variants.runs.includes(v) && !runs.includes(v)) {
      fail(at, `names ${show(v)}, but the step's scenario runs ${runs.join(' and ')}`)
    }
  }
  checkRun(obj(obj(s.at).event).variant, `${path}.at.event.variant`)
  checkRun(obj(obj(s.quiz).compute).variant, `${path}.quiz.compute.variant`)
  list(s.expect).forEach((c, i) => {
    const claim = obj(c)
    checkRun(claim.variant, `${path}.expect[${i}].variant`)
    if (claim.kind === 'time' && typeof claim.min_ms === 'number' && typeof claim.max_ms === 'number' && claim.max_ms < claim.min_ms) {
      fail(`${path}.expect[${i}].max_ms`, `must be at least min_ms (${claim.min_ms}), got ${claim.max_ms}`)
    }
  })
  list(s.toggles).forEach((t, i) => {
    if (typeof t === 'string' && !declared.includes(t)) fail(`${path}.toggles[${i}]`, `${show(t)} is not declared in $.toggles`)
  })
  const ctx: LessonStepContext = { path, step: s, variant, fail }
  model.lesson.check(ctx)
}

/** The Lesson a schema-valid, cross-checked file describes (defaults merged, workloads parsed). */
function lessonOf(o: Obj): Lesson {
  const defaults = obj(obj(o.defaults).scenario)
  const steps = list(o.steps).map((x, i): LessonStep => {
    const s = obj(x)
    const scen = mergedScenario(s, `$.steps[${i}]`, defaults)
    const w = obj(scen.workload!.v)
    const threads = w.threads as number
    const workload: LessonWorkload = {
      threads,
      placement: parsePlacement(w.placement as string)!,
      delayMs: w.delay_ms as number,
      order: w.order as LessonWorkload['order'],
      warmup: w.warmup as number,
      loops: w.loops as number,
      ...('repin' in w ? { repin: list(w.repin).map((r) => ({ thread: obj(r).thread as number, atMs: obj(r).at_ms as number, cpus: list(obj(r).cpus) as number[] })) } : {}),
    }
    const views = obj(s.views)
    const at = (s.at === undefined ? { step: 0 } : s.at) as Obj
    const event = isObj(at.event) ? { ...at.event, nth: (at.event.nth as number | undefined) ?? 1 } : null
    const step: LessonStep = {
      id: s.id as string,
      title: s.title as string,
      scenario: {
        preset: scen.preset!.v as string, variant: scen.variant!.v as LessonStep['scenario']['variant'], workload,
        cache: scen.cache!.v as LessonStep['scenario']['cache'], seed: scen.seed!.v as number,
      },
      at: (event ? { event } : at) as LessonAt,
      views: { show: list(views.show) as LessonStep['views']['show'], highlight: list(views.highlight) as LessonStep['views']['highlight'] },
      narration: s.narration as string,
      notes: s.notes as string,
      toggles: list(s.toggles) as LessonStep['toggles'],
      expect: list(s.expect) as LessonStep['expect'],
    }
    if (s.quiz !== undefined) step.quiz = s.quiz as LessonStep['quiz']
    if (s.published !== undefined) step.published = s.published as LessonStep['published']
    return step
  })
  return {
    kscope_lesson: 1,
    id: o.id as string,
    title: o.title as string,
    summary: o.summary as string,
    model: o.model as Lesson['model'],
    toggles: list(o.toggles) as LessonToggleDef[],
    steps,
  }
}

/** Validates a parsed lesson file; throws LessonDataError naming the file and every problem. */
export function validateLesson(data: Json, file: string): Lesson {
  const problems: LessonProblem[] = []
  const fail = (path: string, message: string) => void problems.push({ path, message })
  if (isObj(data) && data.kscope_lesson !== LESSON_FORMAT_VERSION) {
    fail('$.kscope_lesson', `must be ${LESSON_FORMAT_VERSION} (this kscope reads lesson format ${LESSON_FORMAT_VERSION}), got ${show(data.kscope_lesson)}`)
    throw new LessonDataError(file, problems)
  }
  // An unknown model is one problem ($.model); the rest is read with the first model's format.
  const model = (isObj(data) && typeof data.model === 'string' ? modelOf(data.model) : null) ?? MODELS[0]
  problems.push(...validatorFor(model).problems(data))
  if (isObj(data)) {
    const defaults = obj(obj(data.defaults).scenario)
    const declared = list(data.toggles).map((t) => obj(t).id).filter((t): t is string => typeof t === 'string')
    const steps = list(data.steps)
    steps.forEach((s, i) => checkStep(fail, model, s, `$.steps[${i}]`, defaults, declared))
    const ids = new Map<Json, number>()
    const quizIds = new Map<Json, number>()
    steps.forEach((x, i) => {
      const s = obj(x)
      if (typeof s.id === 'string') {
        if (ids.has(s.id)) fail(`$.steps[${i}].id`, `repeats the id of $.steps[${ids.get(s.id)}] (${show(s.id)})`)
        else ids.set(s.id, i)
      }
      const q = obj(s.quiz).id
      if (typeof q === 'string') {
        if (quizIds.has(q)) fail(`$.steps[${i}].quiz.id`, `repeats the quiz id of $.steps[${quizIds.get(q)}]`)
        else quizIds.set(q, i)
      }
    })
  }
  if (problems.length || !isObj(data)) throw new LessonDataError(file, problems)
  return lessonOf(data)
}

/**
 * The offset of the first JSON syntax error in text (the engine's own message
 * does not always say where), or text.length for a truncated document.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++
  }
  const fail = () => {
    throw i
  }
  const lit = (word: string) => {
    if (text.startsWith(word, i)) i += word.length
    else fail()
  }
  const str = () => {
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        // An escape is one of \" \\ \/ \b \f \n \r \t or \u and four hex digits (JSON.parse
        // refuses any other: "\h" once passed here, and the error was reported with no place).
        i++
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail()
          i += 4
        } else if (i < text.length && !'"\\/bfnrt'.includes(text[i])) fail()
      } else if (text.charCodeAt(i) < 0x20) fail()
      i++
    }
    if (i >= text.length) fail()
    i++
  }
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))
    if (!m) fail()
    i += m![0].length
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') return void i++
      for (;;) {
        ws()
        if (text[i] !== '"') fail()
        str()
        ws()
        if (text[i] !== ':') fail()
        i++
        value()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === '}') return void i++
        else fail()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') return void i++
      for (;;) {
        value()
        ws()
        if (text[i] === ',') i++
        else if (text[i] === ']') return void i++
        else fail()
      }
    }
    if (c === '"') return str()
    if (c === 't') return lit('true')
    if (c === 'f') return lit('false')
    if (c === 'n') return lit('null')
    return num()
  }
  try {
    value()
    ws()
    return i < text.length ? i : -1
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, text.length) : 0
  }
}

/** Parses lesson text (JSON) and validates it; a syntax error names the line and column. */
export function parseLesson(text: string, file: string): Lesson {
  let data: Json
  try {
    data = JSON.parse(text)
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err)
    const at = jsonErrorOffset(text)
    let where = ''
    if (at >= 0) {
      const before = text.slice(0, at)
      where = ` at line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`
    }
    throw new LessonDataError(file, [{ path: '$', message: `not valid JSON${where}: ${msg.split('\n')[0].slice(0, 120)}` }])
  }
  return validateLesson(data, file)
}
