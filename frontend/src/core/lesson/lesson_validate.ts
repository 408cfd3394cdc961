/*
 * Checks a lesson file (format version 1, docs/lessons.md) and turns it into a
 * Lesson. Every problem is reported, not just the first, each as
 * "<file>: <JSON path>: <what is wrong>", e.g.
 *
 *   mm_cid.lesson.json: $.steps[4].quiz.compute.kind: must be one of "next_cid", "next_path", got "answer"
 *
 * The file's `defaults.scenario` is merged under each step's `scenario`, so a
 * step names only what it changes. A lesson must never carry a quiz's answer:
 * quizzes say what to compute (`compute`), and a key named "answer" anywhere in
 * a quiz is an error.
 */
import {
  CACHE_MODES, LESSON_VARIANTS, LIMITS, MM_CID_TOGGLES, parsePlacement, type LessonRepin, type LessonWorkload, type MmCidToggle,
} from './lesson_state'
import {
  LESSON_FORMAT_VERSION, LESSON_HIGHLIGHTS, LESSON_VIEWS,
  type Lesson, type LessonAt, type LessonPublishedRef, type LessonQuiz, type LessonScenario, type LessonStep, type LessonToggleDef,
} from './lesson_types'
import { MM_CID_PATHS } from '../shared/types'
import { LESSON_EXPECT_KINDS, type LessonExpect } from './lesson_expect'
import type { BurstSource } from './lesson_timeline'

export interface LessonProblem {
  /** JSON path, e.g. "$.steps[2].scenario.seed". */
  path: string
  message: string
}

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
const RUN_VARIANTS = ['v6.12', 'v6.13', 'v6.18'] as const
const ID = /^[a-z0-9][a-z0-9_-]{0,63}$/

const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v)
const show = (v: Json) => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 40))
const oneOf = (list: readonly string[]) => list.map((x) => JSON.stringify(x)).join(', ')

/** Collects problems while reading one file. */
class Reader {
  problems: LessonProblem[] = []
  fail(path: string, message: string) {
    this.problems.push({ path, message })
  }
  obj(v: Json, path: string, keys: readonly string[]): Record<string, Json> | null {
    if (!isObj(v)) {
      this.fail(path, `must be an object, got ${show(v)}`)
      return null
    }
    for (const k of Object.keys(v)) if (!keys.includes(k)) this.fail(`${path}.${k}`, `unknown field (allowed: ${keys.join(', ')})`)
    return v
  }
  str(v: Json, path: string, { min = 1, max = 4000 } = {}): string {
    if (typeof v !== 'string') {
      this.fail(path, `must be a string, got ${show(v)}`)
      return ''
    }
    if (v.trim().length < min) this.fail(path, 'must not be empty')
    if (v.length > max) this.fail(path, `must be at most ${max} characters, got ${v.length}`)
    return v
  }
  id(v: Json, path: string): string {
    const s = this.str(v, path, { max: 64 })
    if (s && !ID.test(s)) this.fail(path, `must be lower-case letters, digits, "-" or "_", got ${show(s)}`)
    return s
  }
  int(v: Json, path: string, lo: number, hi: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      this.fail(path, `must be an integer, got ${show(v)}`)
      return lo
    }
    if (v < lo || v > hi) this.fail(path, `must be between ${lo} and ${hi}, got ${v}`)
    return v
  }
  num(v: Json, path: string, lo: number, hi: number): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.fail(path, `must be a number, got ${show(v)}`)
      return lo
    }
    if (v < lo || v > hi) this.fail(path, `must be between ${lo} and ${hi}, got ${v}`)
    return v
  }
  enumOf<T extends string>(v: Json, path: string, list: readonly T[]): T {
    if (typeof v !== 'string' || !(list as readonly string[]).includes(v)) {
      this.fail(path, `must be one of ${oneOf(list)}, got ${show(v)}`)
      return list[0]
    }
    return v as T
  }
  arr(v: Json, path: string, { min = 0, max = 1000 } = {}): Json[] {
    if (!Array.isArray(v)) {
      this.fail(path, `must be an array, got ${show(v)}`)
      return []
    }
    if (v.length < min) this.fail(path, `must have at least ${min} entr${min === 1 ? 'y' : 'ies'}, got ${v.length}`)
    if (v.length > max) this.fail(path, `must have at most ${max} entries, got ${v.length}`)
    return v
  }
}

const WORKLOAD_KEYS = ['threads', 'placement', 'delay_ms', 'order', 'warmup', 'loops'] as const
const REPIN_KEYS = ['thread', 'at_ms', 'cpus'] as const

/** "repin": [{thread, at_ms, cpus}] — a thread's sched_setaffinity() during the run (workload.c checks the CPUs against the machine). */
function readRepin(r: Reader, v: Json, path: string, threads: number): LessonRepin[] {
  return r.arr(v, path, { min: 1, max: 64 }).map((e, i) => {
    const at = `${path}[${i}]`
    const o = r.obj(e, at, REPIN_KEYS) ?? {}
    for (const k of REPIN_KEYS) if (!(k in o)) r.fail(`${at}.${k}`, 'is required')
    return {
      thread: r.int(o.thread, `${at}.thread`, 0, Math.max(0, threads - 1)),
      atMs: r.num(o.at_ms, `${at}.at_ms`, 0, 3_600_000),
      cpus: r.arr(o.cpus, `${at}.cpus`, { min: 1, max: 4096 }).map((c, k) => r.int(c, `${at}.cpus[${k}]`, 0, 4095)),
    }
  })
}
const SCENARIO_KEYS = ['preset', 'variant', 'workload', 'cache', 'seed'] as const

/** A workload as lessons write it: {threads, placement: "cpus:0-7" | "any" | "l3:N", delay_ms, order, warmup, loops}. */
function readWorkload(r: Reader, v: Json, path: string): LessonWorkload {
  const o = r.obj(v, path, [...WORKLOAD_KEYS, 'repin']) ?? {}
  for (const k of WORKLOAD_KEYS) if (!(k in o)) r.fail(`${path}.${k}`, 'is required')
  const placement = typeof o.placement === 'string' ? parsePlacement(o.placement) : null
  if (!placement) r.fail(`${path}.placement`, `must be "cpus:<list>", "any" or "l3:<n>", got ${show(o.placement)}`)
  const threads = r.int(o.threads, `${path}.threads`, LIMITS.threads.min, LIMITS.threads.max)
  if (placement?.kind === 'pinned' && placement.cpus.length !== threads) {
    r.fail(`${path}.threads`, `must equal the number of CPUs in placement (${placement.cpus.length}), got ${threads}`)
  }
  return {
    threads,
    placement: placement ?? { kind: 'any' },
    delayMs: r.int(o.delay_ms, `${path}.delay_ms`, LIMITS.delayMs.min, LIMITS.delayMs.max),
    order: r.enumOf(o.order, `${path}.order`, ['fixed', 'reshuffle'] as const),
    warmup: r.int(o.warmup, `${path}.warmup`, LIMITS.warmup.min, LIMITS.warmup.max),
    loops: r.int(o.loops, `${path}.loops`, LIMITS.loops.min, LIMITS.loops.max),
    ...('repin' in o ? { repin: readRepin(r, o.repin, `${path}.repin`, threads) } : {}),
  }
}

/** A step's scenario: the defaults' fields, with the step's own on top (each checked where it was written). */
function readScenario(r: Reader, defaults: Record<string, Json>, own: Json, path: string, defaultsPath: string): LessonScenario {
  const o = own === undefined ? {} : (r.obj(own, path, SCENARIO_KEYS) ?? {})
  const pick = (k: (typeof SCENARIO_KEYS)[number]) => (k in o ? { v: o[k], at: `${path}.${k}` } : { v: defaults[k], at: `${defaultsPath}.${k}` })
  const missing = SCENARIO_KEYS.filter((k) => !(k in o) && !(k in defaults))
  for (const k of missing) r.fail(`${path}.${k}`, 'is required (in the step or in $.defaults.scenario)')
  const field = (k: (typeof SCENARIO_KEYS)[number]) => pick(k)
  return {
    preset: missing.includes('preset') ? '' : r.str(field('preset').v, field('preset').at, { max: 200 }),
    variant: missing.includes('variant') ? 'v6.13' : r.enumOf(field('variant').v, field('variant').at, LESSON_VARIANTS),
    workload: missing.includes('workload') ? { threads: 1, placement: { kind: 'any' }, delayMs: 1, order: 'fixed', warmup: 0, loops: 1 }
      : readWorkload(r, field('workload').v, field('workload').at),
    cache: missing.includes('cache') ? 'idle' : r.enumOf(field('cache').v, field('cache').at, CACHE_MODES),
    seed: missing.includes('seed') ? 0 : r.int(field('seed').v, field('seed').at, 0, Number.MAX_SAFE_INTEGER),
  }
}

function readAt(r: Reader, v: Json, path: string, scenario: LessonScenario): LessonAt {
  const o = r.obj(v, path, ['step', 'time_ms', 'event', 'end'])
  if (!o) return { step: 0 }
  const keys = Object.keys(o)
  if (keys.length !== 1) {
    r.fail(path, `must have exactly one of "step", "time_ms", "event", "end", got ${keys.length ? keys.join(', ') : 'none'}`)
    return { step: 0 }
  }
  if ('step' in o) return { step: r.int(o.step, `${path}.step`, 0, 10_000_000) }
  if ('time_ms' in o) return { time_ms: r.num(o.time_ms, `${path}.time_ms`, 0, 1e7) }
  if ('end' in o) {
    if (o.end !== true) r.fail(`${path}.end`, `must be true, got ${show(o.end)}`)
    return { end: true }
  }
  const e = r.obj(o.event, `${path}.event`, ['path', 'tid', 'after_ms', 'nth', 'variant']) ?? {}
  const event = {
    path: r.enumOf(e.path, `${path}.event.path`, MM_CID_PATHS),
    nth: 'nth' in e ? r.int(e.nth, `${path}.event.nth`, 1, 100000) : 1,
    ...('tid' in e ? { tid: r.int(e.tid, `${path}.event.tid`, 0, 1 << 30) } : {}),
    ...('after_ms' in e ? { after_ms: r.num(e.after_ms, `${path}.event.after_ms`, 0, 1e7) } : {}),
    ...('variant' in e ? { variant: r.enumOf(e.variant, `${path}.event.variant`, RUN_VARIANTS) } : {}),
  }
  checkRunVariant(r, event.variant, scenario, `${path}.event.variant`)
  return { event }
}

/** A variant named inside a step must be one of the runs the step's scenario makes. */
function checkRunVariant(r: Reader, variant: string | undefined, scenario: LessonScenario, path: string) {
  if (!variant) return
  const runs = scenario.variant === 'compare' ? ['v6.12', 'v6.13'] : [scenario.variant]
  if (!runs.includes(variant)) r.fail(path, `names ${show(variant)}, but the step's scenario runs ${runs.join(' and ')}`)
}

function readQuiz(r: Reader, v: Json, path: string, scenario: LessonScenario): LessonQuiz {
  if (isObj(v) && 'answer' in v) r.fail(`${path}.answer`, 'a lesson never carries the answer: say what to compute in "compute"')
  const o = r.obj(v, path, ['id', 'prompt', 'choices', 'compute', 'explain', 'answer']) ?? {}
  const c = r.obj(o.compute, `${path}.compute`, ['kind', 'tid', 'variant']) ?? {}
  if (isObj(o.compute) && 'answer' in o.compute) r.fail(`${path}.compute.answer`, 'a lesson never carries the answer')
  const kind = r.enumOf(c.kind, `${path}.compute.kind`, ['next_cid', 'next_path'] as const)
  const variant = 'variant' in c ? r.enumOf(c.variant, `${path}.compute.variant`, RUN_VARIANTS) : undefined
  checkRunVariant(r, variant, scenario, `${path}.compute.variant`)
  const choices = r.arr(o.choices, `${path}.choices`, { min: 2, max: 12 }).map((x, i) => r.str(x, `${path}.choices[${i}]`, { max: 40 }))
  const seen = new Set<string>()
  choices.forEach((x, i) => {
    if (seen.has(x)) r.fail(`${path}.choices[${i}]`, `repeats ${show(x)}`)
    seen.add(x)
  })
  if (kind === 'next_path') {
    choices.forEach((x, i) => {
      if (x && !(MM_CID_PATHS as readonly string[]).includes(x)) r.fail(`${path}.choices[${i}]`, `must be an allocator path (${oneOf(MM_CID_PATHS)}), got ${show(x)}`)
    })
  } else {
    choices.forEach((x, i) => {
      if (x && !/^\d+$/.test(x)) r.fail(`${path}.choices[${i}]`, `must be a cid (a whole number as text), got ${show(x)}`)
    })
  }
  return {
    id: r.id(o.id, `${path}.id`),
    prompt: r.str(o.prompt, `${path}.prompt`, { max: 400 }),
    choices,
    compute: { kind, tid: r.int(c.tid, `${path}.compute.tid`, 0, 1 << 30), ...(variant ? { variant } : {}) },
    explain: r.str(o.explain, `${path}.explain`, { max: 2000 }),
  }
}

function readPublished(r: Reader, v: Json, path: string): LessonPublishedRef {
  const o = r.obj(v, path, ['entry', 'table', 'row']) ?? {}
  return { entry: r.str(o.entry, `${path}.entry`, { max: 100 }), table: r.str(o.table, `${path}.table`, { max: 100 }), row: r.str(o.row, `${path}.row`, { max: 100 }) }
}

const EXPECT_KEYS: Record<LessonExpect['kind'], readonly string[]> = {
  time: ['min_ms', 'max_ms'],
  cids: ['taken', 'free'],
  pcpu: ['cpu', 'cid', 'recent_cid'],
  record: ['path', 'tid', 'cid', 'at_ms', 'count'],
  mm: ['max_nr_cid', 'cids_in_use'],
  burst: ['tid', 'source'],
  cost_ratio: ['min', 'max'],
}
const BURST_SOURCES: readonly BurstSource[] = ['core', 'llc', 'same-llc-core', 'other-llc', 'other-socket', 'dram', 'unknown']

/** One claim of a step's "expect" list (lesson_expect.ts says what each kind checks). */
function readExpect(r: Reader, v: Json, path: string, scenario: LessonScenario): LessonExpect | null {
  const kind = r.enumOf(isObj(v) ? v.kind : v, `${path}.kind`, LESSON_EXPECT_KINDS)
  if (!isObj(v)) return null
  const withRun = kind === 'cost_ratio' ? [] : ['variant']
  const o = r.obj(v, path, ['kind', ...EXPECT_KEYS[kind], ...withRun])
  if (!o) return null
  const variant = 'variant' in o ? r.enumOf(o.variant, `${path}.variant`, RUN_VARIANTS) : undefined
  checkRunVariant(r, variant, scenario, `${path}.variant`)
  const run = variant ? { variant } : {}
  const opt = (k: string, read: (x: Json, at: string) => number) => (k in o ? { [k]: read(o[k], `${path}.${k}`) } : {})
  const int = (lo: number, hi: number) => (x: Json, at: string) => r.int(x, at, lo, hi)
  const cids = (k: string) => (k in o ? { [k]: r.arr(o[k], `${path}.${k}`, { min: 1, max: 4096 }).map((x, i) => r.int(x, `${path}.${k}[${i}]`, 0, 4095)) } : {})
  const need = (keys: string[]) => {
    if (!keys.some((k) => k in o)) r.fail(path, `a "${kind}" claim needs at least one of ${keys.join(', ')}`)
  }
  switch (kind) {
    case 'time': {
      const min = r.num(o.min_ms, `${path}.min_ms`, 0, 1e7)
      const max = r.num(o.max_ms, `${path}.max_ms`, 0, 1e7)
      if (max < min) r.fail(`${path}.max_ms`, `must be at least min_ms (${min}), got ${max}`)
      return { kind, min_ms: min, max_ms: max, ...run }
    }
    case 'cids':
      need(['taken', 'free'])
      return { kind, ...cids('taken'), ...cids('free'), ...run }
    case 'pcpu':
      need(['cid', 'recent_cid'])
      return { kind, cpu: r.int(o.cpu, `${path}.cpu`, 0, 4095), ...opt('cid', int(-1, 4095)), ...opt('recent_cid', int(-1, 4095)), ...run }
    case 'record':
      return {
        kind, path: r.enumOf(o.path, `${path}.path`, MM_CID_PATHS), ...opt('tid', int(0, 1 << 30)), ...opt('cid', int(-1, 4095)),
        ...opt('at_ms', int(0, 1e7)), ...opt('count', int(0, 100000)), ...run,
      }
    case 'mm':
      need(['max_nr_cid', 'cids_in_use'])
      return { kind, ...opt('max_nr_cid', int(-1, 4096)), ...opt('cids_in_use', int(0, 4096)), ...run }
    case 'burst':
      return { kind, ...opt('tid', int(0, 1 << 30)), source: r.enumOf(o.source, `${path}.source`, BURST_SOURCES), ...run }
    case 'cost_ratio':
      need(['min', 'max'])
      if (scenario.variant !== 'compare') r.fail(path, 'a "cost_ratio" claim needs a compare step (variant "compare")')
      return { kind, ...opt('min', (x, at) => r.num(x, at, 0, 1e6)), ...opt('max', (x, at) => r.num(x, at, 0, 1e6)) }
  }
}

const STEP_KEYS = ['id', 'title', 'scenario', 'at', 'views', 'narration', 'notes', 'quiz', 'toggles', 'published', 'expect'] as const

function readStep(r: Reader, v: Json, path: string, defaults: Record<string, Json>, toggleIds: readonly string[]): LessonStep {
  const o = r.obj(v, path, STEP_KEYS) ?? {}
  const scenario = readScenario(r, defaults, o.scenario, `${path}.scenario`, '$.defaults.scenario')
  const views = r.obj(o.views, `${path}.views`, ['show', 'highlight']) ?? {}
  const showList = r.arr(views.show, `${path}.views.show`, { min: 1, max: LESSON_VIEWS.length }).map((x, i) => r.enumOf(x, `${path}.views.show[${i}]`, LESSON_VIEWS))
  const highlight = views.highlight === undefined ? [] : r.arr(views.highlight, `${path}.views.highlight`).map((x, i) => r.enumOf(x, `${path}.views.highlight[${i}]`, LESSON_HIGHLIGHTS))
  const toggles = (o.toggles === undefined ? [] : r.arr(o.toggles, `${path}.toggles`)).map((x, i) => {
    const t = r.enumOf(x, `${path}.toggles[${i}]`, MM_CID_TOGGLES)
    if (typeof x === 'string' && !toggleIds.includes(x)) r.fail(`${path}.toggles[${i}]`, `${show(x)} is not declared in $.toggles`)
    return t
  })
  if (toggles.length && scenario.variant === 'v6.12') r.fail(`${path}.toggles`, 'toggles take parts of 7e019dc out of a 6.13+ run; this step runs only v6.12')
  const step: LessonStep = {
    id: r.id(o.id, `${path}.id`),
    title: r.str(o.title, `${path}.title`, { max: 120 }),
    scenario,
    at: o.at === undefined ? { step: 0 } : readAt(r, o.at, `${path}.at`, scenario),
    views: { show: showList, highlight },
    narration: r.str(o.narration, `${path}.narration`),
    notes: r.str(o.notes, `${path}.notes`),
    toggles,
    // What the narration claims of the state shown: required, so no step's words go unchecked.
    expect: r.arr(o.expect, `${path}.expect`, { min: 1, max: 40 }).flatMap((x, i) => readExpect(r, x, `${path}.expect[${i}]`, scenario) ?? []),
  }
  if (o.quiz !== undefined) step.quiz = readQuiz(r, o.quiz, `${path}.quiz`, scenario)
  if (o.published !== undefined) {
    step.published = readPublished(r, o.published, `${path}.published`)
    if (!showList.includes('published')) r.fail(`${path}.views.show`, 'must include "published" when the step has "published"')
  }
  if (showList.includes('published') && o.published === undefined) r.fail(`${path}.published`, 'is required when views.show includes "published"')
  return step
}

/** Validates a parsed lesson file; throws LessonDataError naming the file and every problem. */
export function validateLesson(data: Json, file: string): Lesson {
  const r = new Reader()
  if (isObj(data) && data.kscope_lesson !== LESSON_FORMAT_VERSION) {
    r.fail('$.kscope_lesson', `must be ${LESSON_FORMAT_VERSION} (this kscope reads lesson format ${LESSON_FORMAT_VERSION}), got ${show(data.kscope_lesson)}`)
    throw new LessonDataError(file, r.problems)
  }
  const o = r.obj(data, '$', ['kscope_lesson', 'id', 'title', 'summary', 'model', 'defaults', 'toggles', 'steps', '$schema']) ?? {}
  const defaults = o.defaults === undefined ? {} : (r.obj(o.defaults, '$.defaults', ['scenario']) ?? {})
  const defScenario = defaults.scenario === undefined ? {} : (r.obj(defaults.scenario, '$.defaults.scenario', SCENARIO_KEYS) ?? {})
  const toggles: LessonToggleDef[] = (o.toggles === undefined ? [] : r.arr(o.toggles, '$.toggles')).map((t, i) => {
    const p = `$.toggles[${i}]`
    const x = r.obj(t, p, ['id', 'label', 'description']) ?? {}
    return { id: r.enumOf(x.id, `${p}.id`, MM_CID_TOGGLES) as MmCidToggle, label: r.str(x.label, `${p}.label`, { max: 80 }), description: r.str(x.description, `${p}.description`) }
  })
  const toggleIds = toggles.map((t) => t.id)
  const steps = r.arr(o.steps, '$.steps', { min: 1, max: 200 }).map((s, i) => readStep(r, s, `$.steps[${i}]`, defScenario, toggleIds))
  const ids = new Map<string, number>()
  steps.forEach((s, i) => {
    if (ids.has(s.id)) r.fail(`$.steps[${i}].id`, `repeats the id of $.steps[${ids.get(s.id)}] (${show(s.id)})`)
    ids.set(s.id, i)
  })
  const quizIds = new Map<string, number>()
  steps.forEach((s, i) => {
    if (!s.quiz) return
    if (quizIds.has(s.quiz.id)) r.fail(`$.steps[${i}].quiz.id`, `repeats the quiz id of $.steps[${quizIds.get(s.quiz.id)}]`)
    quizIds.set(s.quiz.id, i)
  })
  const lesson: Lesson = {
    kscope_lesson: 1,
    id: r.id(o.id, '$.id'),
    title: r.str(o.title, '$.title', { max: 200 }),
    summary: r.str(o.summary, '$.summary'),
    model: r.enumOf(o.model, '$.model', ['mm_cid'] as const),
    toggles,
    steps,
  }
  if (r.problems.length) throw new LessonDataError(file, r.problems)
  return lesson
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
