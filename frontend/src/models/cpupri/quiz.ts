/*
 * cpupri's predict-next quiz and "run to event" targets, over one run's RT placements
 * (lesson_store.ts scans them from the run's own sched_wakeup / sched_migrate_task
 * events, which the model's select_task_rq_rt / find_lowest_rq / push_rt_task decide):
 *
 *   next_cpu   the CPU RT thread tid is next placed on (woken or pushed) after the step's instant.
 *
 * The lesson never holds the answer: change the variant, a toggle or the seed and it follows the model.
 */
import type { ModelDescriptor, ModelQuizAnswer, ModelRun } from '../types'
import type { CpupriRecord } from './types'

export const QUIZ_KINDS = ['next_cpu'] as const
export const PATHS = ['WAKEUP', 'MIGRATE'] as const

const recordsOf = (run: ModelRun) => run.records as readonly CpupriRecord[]

export function quizAnswer(compute: { kind: string; tid: number }, run: ModelRun, nowNs: number): ModelQuizAnswer<CpupriRecord> | null {
  if (compute.kind !== 'next_cpu') return null
  const next = recordsOf(run).find((r) => r.ts_ns > nowNs && r.tid === compute.tid)
  if (!next) return null
  const how = next.path === 'WAKEUP' ? `woken onto CPU ${next.cpu}` : `pushed from CPU ${next.from_cpu} to CPU ${next.cpu}`
  return { answer: String(next.cpu), record: next, source: `ran forward to thread ${next.tid} (${next.comm}) at ${(next.ts_ns / 1e6).toFixed(3)} ms: ${how}.` }
}

/** The nth (1-based) placement of a path, optionally of one thread, after a time; null when there is none. */
export function findEvent(run: ModelRun, e: { path: string; tid?: number; after_ms?: number; nth: number }): CpupriRecord | null {
  const after = (e.after_ms ?? -1) * 1e6
  let seen = 0
  for (const r of recordsOf(run)) {
    if (r.path !== e.path || r.ts_ns < after || (e.tid !== undefined && r.tid !== e.tid)) continue
    if (++seen === e.nth) return r
  }
  return null
}

export const quiz: ModelDescriptor['quiz'] = { kinds: QUIZ_KINDS, answer: quizAnswer, findEvent }
