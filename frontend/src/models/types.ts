/*
 * What a model (one kernel algorithm kscope teaches) gives the generic app:
 * one ModelDescriptor, exported by models/<id>/index.ts and listed in
 * models/registry.ts. The lesson pages, the lesson player, the quiz engine,
 * the lesson validator and the routes read the model from here; nothing
 * generic names a model.
 *
 *   id          the model's name in lessons, URLs and the C core's algo strings
 *   variants    the kernels it models, and the runs a "compare" scenario makes
 *   toggles     bug-injection toggles (take one part of a patch out of a run)
 *   decoder     reads the bytes the C core's model view exports into records
 *   narration   the model's words for its decision log (plain-words narration)
 *   quiz        the predict-next quiz kinds and how each answer is computed
 *   lesson      its JSON Schema fragment of the lesson format, plus cross-field checks
 *   page        its free-running lesson page (/lesson/<id>)
 *   views       the lesson player's views of this model, and their names
 */
import type { ComponentType } from 'react'
import type { LessonSchemaFragment } from '../core/lesson/lesson_schema'

/** A run as the quiz engine and "run to event" read it: the model's decision log of one kernel. */
export interface ModelRun<R = unknown> {
  variant: string
  records: readonly R[]
  /** The log's end after each simulator step (RunTimeline.logEnd): when each record becomes visible. */
  logEnd: ArrayLike<number>
}

/** A decision record as the generic code reads it: its place in the log, when, which thread, which branch decided. */
export interface ModelRecord {
  seq: number
  ts_ns: number
  tid: number
  /** The branch of the algorithm that made the decision (one of decoder.paths). */
  path: string
}

/** What a quiz's answer was read from. */
export interface ModelQuizAnswer<R = unknown> {
  answer: string
  record: R
  /** Where the answer was read, in words after the kernel's name ("ran forward to thread 1002's next allocation at ..."). */
  source: string
}

/** One step of a lesson file as the model's cross-field check sees it (raw JSON: may be malformed). */
export interface LessonStepContext {
  /** JSON path of the step, e.g. "$.steps[3]". */
  path: string
  step: Record<string, unknown>
  /** The step's scenario variant (its own or the default's), null when missing or not a string. */
  variant: string | null
  fail: (path: string, message: string) => void
}

/** What the lesson player gives a model's stage: the step's state and which views to draw. */
export interface ModelStageProps {
  /** The lesson controller's snapshot of the step (state, view: runs, topology, time). */
  snapshot: unknown
  /** The step being shown (its views, published table...). */
  step: unknown
  /** Whether the stage draws a view now (the step's list, the presenter's one view, or the embed's). */
  shows: (view: string) => boolean
  /** Whether the step highlights a view or a part of one. */
  highlight: (part: string) => boolean
  /** The presenter's focused view (framed), if any. */
  focused: string | undefined
  /** Bug-injection toggles on in this step. */
  toggles: readonly string[]
  /** The decision-log branches with their help text (from the core). */
  paths: readonly { name: string; help: string }[]
  mode: 'solo' | 'presenter' | 'follower' | 'embed'
  /** Presenter mode: the one view on the stage (else null). */
  stageView: string | null
  /** Presenter mode, two kernels on the main view: which one is shown. */
  kernelShown: number
}

export interface ModelDescriptor {
  /** The lesson's "model", its folder's name, the C core's algo prefix ("<id>:<variant>"). */
  id: string
  /** A short human title. */
  title: string
  variants: {
    /** Kernels a run can model, oldest first. */
    runs: readonly string[]
    /** A scenario's variant ("v6.13", or "compare") as the runs it makes. */
    runsOf: (scenarioVariant: string) => string[]
    /** Display names and colours of each kernel. */
    look: Readonly<Record<string, { name: string; colour: string }>>
  }
  /** Bug-injection toggles: ids, and the algo string of a run with some of them on. */
  toggles: {
    ids: readonly string[]
    clean: (list: readonly string[] | undefined) => string[]
    algoOf: (variant: string, toggles?: readonly string[]) => string
  }
  /** The model's decoder of the core's view bytes (what the C core exports for this model). */
  decoder: {
    /** Decision-log branch names (the records' "path"), in the C enum's order. */
    paths: readonly string[]
    [name: string]: unknown
  }
  /** The model's narration of its decision log, in plain words. */
  narration: {
    [name: string]: unknown
  }
  quiz: {
    /** compute.kind values a lesson's quiz may use. */
    kinds: readonly string[]
    /** The answer of a quiz ("compute" of the lesson) at simulated time nowNs, or null. */
    answer: (compute: { kind: string; tid: number; variant?: string }, run: ModelRun, nowNs: number) => ModelQuizAnswer | null
    /** The record an "at": {"event": ...} target names, or null (target as the lesson wrote it). */
    findEvent: (run: ModelRun, target: { path: string; tid?: number; after_ms?: number; nth: number }) => ModelRecord | null
  }
  lesson: {
    /** The model's $defs of the lesson format (models/<id>/lesson.schema.json). */
    schema: LessonSchemaFragment
    /** Cross-field checks the schema cannot say, on each step (fail(path, message) to report). */
    check: (ctx: LessonStepContext) => void
  }
  /** The model's own lesson page at /lesson/<id> (pages/LessonPage.tsx shows it). */
  page: ComponentType<{ navigate: (href: string) => void }>
  views: {
    /** Lesson view ids, in the order the player draws them. */
    ids: readonly string[]
    /** Human names (embed titles, tab tooltips). */
    names: Readonly<Record<string, string>>
    /** Presenter mode's short tab names. */
    tabs: Readonly<Record<string, string>>
    /** Presenter mode's default view, drawn large, one kernel at a time when comparing. */
    main: string
    /** The lesson player's stage: draws the views shows() asks for. */
    Stage: ComponentType<ModelStageProps>
  }
}
