/*
 * "Run to next" in the mm_cid lesson: which allocator log entries each choice
 * stops at (any entry, a cid handed out anew, a scan). The clock's generic
 * search (core/lesson/lesson_timeline.ts nextMatchingStep) asks recordMatches.
 */
import { nextMatchingStep, type LessonClock } from '../../core/lesson/lesson_timeline'
import type { RunTimeline } from '../../core/shared/types'
import type { MmCidPath, MmCidRecord } from './types'

/** Paths that hand out a cid the CPU did not already own. */
export const NEW_CID_PATHS: readonly MmCidPath[] = ['RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'MIGRATE_TAKEN_FROM_SRC']
export const SCAN_PATHS: readonly MmCidPath[] = ['SCAN', 'SCAN_DROPPED_OLD', 'COMPACT_DROPPED', 'MARKED_LAZY']

/** Whether a record is what "run to next" looks for. */
export function recordMatches(r: MmCidRecord, what: 'entry' | 'new-cid' | 'scan'): boolean {
  if (what === 'new-cid') return NEW_CID_PATHS.includes(r.path)
  if (what === 'scan') return SCAN_PATHS.includes(r.path)
  return true
}

/**
 * "Run to next allocation": the first lesson step after `from` at which any
 * run logs a record of the kind asked for; null if none on the clock.
 */
export function nextRecordStep(
  clock: LessonClock,
  runs: readonly Pick<RunTimeline<MmCidRecord>, 'logEnd' | 'records'>[],
  from: number,
  what: 'entry' | 'new-cid' | 'scan',
): number | null {
  return nextMatchingStep(clock, runs, from, (r) => recordMatches(r, what))
}
