/*
 * A lesson as data (format version 1): what frontend/src/lessons/<id>.lesson.json
 * holds once lesson_validate.ts has checked it. docs/lessons.md explains every
 * field for lesson authors; the format is JSON Schema: core/lesson_schema.json
 * with the lesson's model's fragment (models/<model>/lesson.schema.json), written
 * out composed for editors as lessons/lesson.schema.json. Values a model defines
 * (variants, toggles, views, event paths, quiz kinds) are strings here; the
 * model's schema says which.
 *
 *   Lesson ─ defaults.scenario ─┐ (each step's scenario overrides these fields)
 *          ├ toggles[]          │  bug-injection toggles a step may offer
 *          └ steps[] ── scenario + at (step | time_ms | event) ─> what the model shows
 *                    ├─ views {show, highlight}, narration, notes
 *                    └─ quiz? (what to compute, never the answer), toggles?, published?
 */
import type { CacheMode, LessonVariant, LessonWorkload } from './lesson_state'

export const LESSON_FORMAT_VERSION = 1

/**
 * What a step's narration claims of the state it shows, checked against the model: a
 * kind its model's schema defines (generic: time, burst), and the kind's fields; the
 * model checks them (e.g. lesson_expect.ts in the model's folder).
 */
export interface LessonClaim {
  kind: string
  /** Which run of a compare step the claim is about (default: the first). */
  variant?: string
  [field: string]: unknown
}

/** A view id a step may show (one of its model's views.ids: the player draws them in that order). */
export type LessonViewId = string

/** A view or a part of the picture a step can highlight (its model's schema lists them). */
export type LessonHighlight = string

/** The run a step shows: the same parameters as the model's lesson page URL (/lesson/<model>). */
export interface LessonScenario {
  preset: string
  variant: LessonVariant
  workload: LessonWorkload
  cache: CacheMode
  seed: number
}

/** A decision-log entry to run to: the nth (1-based) record of a path, optionally for one thread, after a time. */
export interface LessonEventTarget {
  /** A branch of the model's decision log (ModelDescriptor.decoder.paths). */
  path: string
  tid?: number
  after_ms?: number
  nth: number
  /** Which run of a compare step to search (default: the first). */
  variant?: string
}

/** Where in the run the step stands. */
export type LessonAt = { step: number } | { time_ms: number } | { event: LessonEventTarget } | { end: true }

/**
 * What a predict-next quiz asks the model (the answer is computed when the step is shown):
 * kind is one of a model's quiz kinds (ModelDescriptor.quiz).
 */
export interface LessonQuizCompute {
  kind: string
  tid: number
  /** Which run of a compare step (default: the first). */
  variant?: string
}

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
  /** One of the model's toggle ids. */
  id: string
  label: string
  /** What the toggle takes out of the model, in plain words. */
  description: string
}

/** A published table beside the model's figures (backend/kscope/data/published.json). */
export interface LessonPublishedRef {
  /** Entry key in published.json (backend/kscope/data/published.json). */
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
  toggles: string[]
  published?: LessonPublishedRef
  /** What the narration claims of the state the step shows, checked against the model. */
  expect: LessonClaim[]
}

export interface Lesson {
  kscope_lesson: 1
  id: string
  title: string
  summary: string
  /** Which model the scenarios run (an id in models/registry.ts). */
  model: string
  toggles: LessonToggleDef[]
  steps: LessonStep[]
}
