/*
 * A lesson as data (format version 1): what frontend/src/lessons/<id>.lesson.json
 * holds once lesson_validate.ts has checked it. docs/lessons.md explains every
 * field for lesson authors; lessons/lesson.schema.json is the same format as a
 * JSON Schema (for editors).
 *
 *   Lesson ─ defaults.scenario ─┐ (each step's scenario overrides these fields)
 *          ├ toggles[]          │  bug-injection toggles a step may offer
 *          └ steps[] ── scenario + at (step | time_ms | event) ─> what the model shows
 *                    ├─ views {show, highlight}, narration, notes
 *                    └─ quiz? (what to compute, never the answer), toggles?, published?
 */
import type { CacheMode, LessonVariant, LessonWorkload, MmCidToggle } from './lesson_state'
import type { MmCidPath } from '../shared/types'
import type { LessonExpect } from './lesson_expect'

export const LESSON_FORMAT_VERSION = 1

/** View ids a step may show or highlight (LessonPlayer draws them in this order). */
export const LESSON_VIEWS = ['picture', 'legend', 'narration', 'costs', 'numbers', 'pcpu', 'chart', 'published'] as const
export type LessonViewId = (typeof LESSON_VIEWS)[number]

/** Parts of the picture a step can highlight besides whole views. */
export const LESSON_HIGHLIGHTS = [...LESSON_VIEWS, 'cidmask', 'cpus', 'areas', 'recent_cid'] as const
export type LessonHighlight = (typeof LESSON_HIGHLIGHTS)[number]

/** The run a step shows: the same parameters as the /lesson/mm_cid page's URL. */
export interface LessonScenario {
  preset: string
  variant: LessonVariant
  workload: LessonWorkload
  cache: CacheMode
  seed: number
}

/** An allocator log entry to run to: the nth (1-based) record of a path, optionally for one thread, after a time. */
export interface LessonEventTarget {
  path: MmCidPath
  tid?: number
  after_ms?: number
  nth: number
  /** Which run of a compare step to search (default: the first). */
  variant?: 'v6.12' | 'v6.13' | 'v6.18'
}

/** Where in the run the step stands. */
export type LessonAt = { step: number } | { time_ms: number } | { event: LessonEventTarget } | { end: true }

/** What a predict-next quiz asks the model (the answer is computed when the step is shown). */
export type LessonQuizCompute =
  /** The cid thread tid gets at its next allocation decision after the step's instant. */
  | { kind: 'next_cid'; tid: number; variant?: 'v6.12' | 'v6.13' | 'v6.18' }
  /** Which allocator branch decides thread tid's next cid (a path name, e.g. "RECENT_CID"). */
  | { kind: 'next_path'; tid: number; variant?: 'v6.12' | 'v6.13' | 'v6.18' }

export interface LessonQuiz {
  /** Step-local id, e.g. "s5-which-cid". */
  id: string
  prompt: string
  choices: string[]
  compute: LessonQuizCompute
  /** Shown after the reveal, beside the computed answer. */
  explain: string
}

export interface LessonToggleDef {
  id: MmCidToggle
  label: string
  /** What the toggle takes out of the model, in plain words. */
  description: string
}

/** A published table beside the model's figures (backend/kscope/data/published.json). */
export interface LessonPublishedRef {
  /** Entry key in published.json, e.g. "mm_cid_7e019dc". */
  entry: string
  /** The table (an array of rows) in that entry, e.g. "delay_200ms". */
  table: string
  /** The row's "config" value, e.g. "8-core/1-L3". */
  row: string
}

export interface LessonStep {
  id: string
  title: string
  scenario: LessonScenario
  at: LessonAt
  views: { show: LessonViewId[]; highlight: LessonHighlight[] }
  narration: string
  notes: string
  quiz?: LessonQuiz
  /** Toggle ids (from the lesson's toggles) offered at this step. */
  toggles: MmCidToggle[]
  published?: LessonPublishedRef
  /** What the narration claims of the state the step shows, checked against the model (lesson_expect.ts). */
  expect: LessonExpect[]
}

export interface Lesson {
  kscope_lesson: 1
  id: string
  title: string
  summary: string
  /** Which C model the scenarios run ("mm_cid" for now). */
  model: 'mm_cid'
  toggles: LessonToggleDef[]
  steps: LessonStep[]
}
