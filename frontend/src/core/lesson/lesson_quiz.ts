/*
 * What a lesson step's data asks of the model, computed from the runs the step
 * builds (pure functions over the scanned RunTimelines and the lesson clock):
 *
 *   resolveAt      where the step stands: a lesson step, a time, the nth
 *                  allocator record of a path ("run to event"), or the end;
 *   quizAnswer     a predict-next quiz's answer: run the scenario forward from
 *                  the step's instant to thread tid's next allocation decision
 *                  and read its cid (next_cid) or its branch (next_path).
 *
 * The lesson file never holds an answer: change the scenario (seed, variant, a
 * toggle) and the answer changes with it (lesson_quiz.test.ts proves it).
 */
import { lastStep, stepAtTime, stepShowingRecord, timeOf, type LessonClock } from './lesson_timeline'
import type { LessonAt, LessonEventTarget, LessonQuiz } from './lesson_types'
import type { MmCidPath, MmCidRecord, RunTimeline } from '../shared/types'

/** Allocator records that decide the cid a thread runs with (it is switched in, or moved with its cid). */
export const DECISION_PATHS: readonly MmCidPath[] = ['KEEP_PCPU_CID', 'RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'MIGRATE_TAKEN_FROM_SRC']

/** One run as the quiz and "run to event" read it. */
export interface QuizRun {
  variant: 'v6.12' | 'v6.13' | 'v6.18'
  records: readonly MmCidRecord[]
  /** The log's end after each simulator step (RunTimeline.logEnd): when each record becomes visible. */
  logEnd: RunTimeline['logEnd']
}

/** The run a step-local reference means: the named variant, else the first run. */
function runOf(runs: readonly QuizRun[], variant: string | undefined): QuizRun | null {
  return (variant ? runs.find((r) => r.variant === variant) : runs[0]) ?? null
}

/** The record an event target names, or null when the run has none. */
export function findEvent(runs: readonly QuizRun[], e: LessonEventTarget): MmCidRecord | null {
  const run = runOf(runs, e.variant)
  if (!run) return null
  const after = (e.after_ms ?? -1) * 1e6
  let seen = 0
  for (const r of run.records) {
    if (r.path !== e.path || r.ts_ns < after || (e.tid !== undefined && r.tid !== e.tid)) continue
    if (++seen === e.nth) return r
  }
  return null
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
  /** The decision the answer was read from. */
  record: MmCidRecord
  variant: string
}

/** The answer of a predict-next quiz at simulated time nowNs, or null if the thread decides nothing more. */
export function quizAnswer(quiz: LessonQuiz, runs: readonly QuizRun[], nowNs: number): QuizAnswer | null {
  const run = runOf(runs, quiz.compute.variant)
  if (!run) return null
  const tid = quiz.compute.tid
  const next = run.records.find((r) => r.ts_ns > nowNs && r.tid === tid && DECISION_PATHS.includes(r.path) && r.cid >= 0)
  if (!next) return null
  const answer = quiz.compute.kind === 'next_cid' ? String(next.cid) : next.path
  return { quizId: quiz.id, answer, inChoices: quiz.choices.includes(answer), record: next, variant: run.variant }
}

/** The time a lesson step shows, ns (re-exported for the player). */
export { timeOf }
