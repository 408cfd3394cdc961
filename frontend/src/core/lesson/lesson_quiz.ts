/*
 * What a lesson step's data asks of the model, computed from the runs the step
 * builds (pure functions over the scanned RunTimelines and the lesson clock):
 *
 *   resolveAt      where the step stands: a lesson step, a time, the nth
 *                  record of a path in the model's log ("run to event"), or the end;
 *   quizAnswer     a predict-next quiz's answer: the run's model
 *                  (ModelDescriptor.quiz, attached to each run) reads it after the step's
 *                  instant (e.g. thread tid's next decision, or the branch making it).
 *
 * The lesson file never holds an answer: change the scenario (seed, variant, a
 * toggle) and the answer changes with it (lesson_quiz.test.ts proves it).
 */
import { lastStep, stepAtTime, stepShowingRecord, timeOf, type LessonClock } from './lesson_timeline'
import type { LessonAt, LessonEventTarget, LessonQuiz } from './lesson_types'
import type { RunTimeline } from '../shared/types'
import type { ModelDescriptor, ModelRecord } from '../../models/types'

/** One run as the quiz and "run to event" read it (records: the model's decision log). */
export interface QuizRun<R extends ModelRecord = ModelRecord> {
  variant: string
  records: readonly R[]
  /** The log's end after each simulator step (RunTimeline.logEnd): when each record becomes visible. */
  logEnd: RunTimeline['logEnd']
  /** The run's model's quiz kinds and answers (its descriptor's quiz: the controller that built the run attaches it). */
  quiz: ModelDescriptor['quiz']
}

/** The run a step-local reference means: the named variant, else the first run. */
function runOf<R extends QuizRun<ModelRecord>>(runs: readonly R[], variant: string | undefined): R | null {
  return (variant ? runs.find((r) => r.variant === variant) : runs[0]) ?? null
}

/** The record an event target names (the run's model finds it in its log), or null when the run has none. */
export function findEvent<R extends ModelRecord>(runs: readonly QuizRun<R>[], e: LessonEventTarget): R | null {
  const run = runOf(runs, e.variant)
  return run ? (run.quiz.findEvent(run, e) as R | null) : null
}

export type ResolvedAt = { step: number; problem: null } | { step: number; problem: string }

/** The lesson step an `at` names (clamped to the run's last step; a missing event is a problem, shown). */
export function resolveAt(at: LessonAt, clock: LessonClock, runs: readonly QuizRun[]): ResolvedAt {
  const last = lastStep(clock)
  if ('step' in at) return { step: Math.min(at.step, last), problem: null }
  if ('time_ms' in at) return { step: stepAtTime(clock, at.time_ms * 1e6), problem: null }
  if ('end' in at) return { step: last, problem: null }
  const r = findEvent(runs, at.event)
  const run = runs.findIndex((x) => (at.event.variant ? x.variant === at.event.variant : true))
  // The first step that shows the record done, not the step at its time: a record logged
  // from a timer tick (the scan) is seen only with the next event (stepShowingRecord).
  const step = r && run >= 0 ? stepShowingRecord(clock, run, runs[run], r.seq) : null
  if (!r || step === null) {
    const who = at.event.tid !== undefined ? ` for thread ${at.event.tid}` : ''
    return { step: last, problem: `This run has no ${at.event.path} decision #${at.event.nth}${who}: showing its end.` }
  }
  return { step, problem: null }
}

export interface QuizAnswer {
  quizId: string
  /** The computed answer, as one of the quiz's choice strings (or the value when it is not among them). */
  answer: string
  /** Whether the answer is one of the choices (a lesson whose choices miss it is shown as such). */
  inChoices: boolean
  /** The decision the answer was read from (a record of the model's log). */
  record: ModelRecord
  variant: string
  /** Where the model read the answer, in words (after the kernel's name). */
  source: string
}

/** The answer of a predict-next quiz at simulated time nowNs (computed by the quiz kind's model), or null if there is none. */
export function quizAnswer(quiz: LessonQuiz, runs: readonly QuizRun[], nowNs: number): QuizAnswer | null {
  const run = runOf(runs, quiz.compute.variant)
  if (!run || !run.quiz.kinds.includes(quiz.compute.kind)) return null
  const got = run.quiz.answer(quiz.compute, run, nowNs)
  if (!got) return null
  return { quizId: quiz.id, answer: got.answer, inChoices: quiz.choices.includes(got.answer), record: got.record as ModelRecord, variant: run.variant, source: got.source }
}

/** The time a lesson step shows, ns (re-exported for the player). */
export { timeOf }
