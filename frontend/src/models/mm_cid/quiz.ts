/*
 * mm_cid's predict-next quizzes and "run to event" targets, over one run's
 * allocation log (the quiz engine, core/lesson_quiz.ts, asks the descriptor):
 *
 *   next_cid   the cid thread tid gets at its next allocation decision after the
 *              step's instant;
 *   next_path  which allocator branch decides it (a path name, e.g. "RECENT_CID").
 *
 * The lesson file never holds an answer: change the scenario (seed, variant, a
 * toggle) and the answer changes with it (core/lesson_quiz.test.ts proves it).
 */
import type { MmCidPath, MmCidRecord } from '../../core/shared/types'
import type { ModelDescriptor, ModelQuizAnswer, ModelRun } from '../types'

export const QUIZ_KINDS = ['next_cid', 'next_path'] as const

/** Allocator records that decide the cid a thread runs with (it is switched in, or moved with its cid). */
export const DECISION_PATHS: readonly MmCidPath[] = ['KEEP_PCPU_CID', 'RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'MIGRATE_TAKEN_FROM_SRC']

const recordsOf = (run: ModelRun) => run.records as readonly MmCidRecord[]

/** The answer of a next_cid / next_path quiz at simulated time nowNs, or null if the thread decides nothing more. */
export function quizAnswer(compute: { kind: string; tid: number }, run: ModelRun, nowNs: number): ModelQuizAnswer<MmCidRecord> | null {
  const next = recordsOf(run).find((r) => r.ts_ns > nowNs && r.tid === compute.tid && DECISION_PATHS.includes(r.path) && r.cid >= 0)
  if (!next) return null
  const source = `ran forward to thread ${next.tid}'s next allocation at ${(next.ts_ns / 1e6).toFixed(1)} ms on CPU ${next.cpu}: branch ${next.path}, cid ${next.cid}.`
  return { answer: compute.kind === 'next_cid' ? String(next.cid) : next.path, record: next, source }
}

/** The nth (1-based) record of a path in the run, optionally for one thread, after a time; null when there is none. */
export function findEvent(run: ModelRun, e: { path: string; tid?: number; after_ms?: number; nth: number }): MmCidRecord | null {
  const after = (e.after_ms ?? -1) * 1e6
  let seen = 0
  for (const r of recordsOf(run)) {
    if (r.path !== e.path || r.ts_ns < after || (e.tid !== undefined && r.tid !== e.tid)) continue
    if (++seen === e.nth) return r
  }
  return null
}

/** The descriptor's quiz field (also attached to each run the lesson controller builds: core/lesson/lesson_quiz.ts). */
export const quiz: ModelDescriptor['quiz'] = { kinds: QUIZ_KINDS, answer: quizAnswer, findEvent }
