/*
 * Which burst the lesson's cost breakdown shows for each kernel's run: the last burst
 * that started at the step shown, or else the run's latest burst so far (or, browsing, the
 * burst `back` places before the latest), titled with its
 * thread, CPU, area and time (views/cost/CostBreakdownPanel.tsx draws it).
 */
import type { BreakdownRow } from '../cost/CostBreakdownPanel'
import type { LessonRunView } from '../../models/mm_cid/lesson_controller'
import { formatT } from '../../core/shared/units'

export function breakdownRows(runs: readonly LessonRunView[], back = 0): BreakdownRow[] {
  return runs.map((r) => {
    const b = back > 0 ? r.bursts.at(-1 - back) : r.stepBursts.at(-1) ?? r.bursts.at(-1)
    if (!b) return { key: r.variant, title: r.variant, breakdown: null, empty: 'No burst yet.' }
    const what = b.warmup ? 'warm-up (not measured)' : `burst ${b.n}`
    const when = r.stepBursts.includes(b) ? 'at this step' : `at ${formatT(b.ts_ns)}${b === r.bursts.at(-1) ? ', the latest' : ''}`
    return {
      key: r.variant,
      title: `${r.variant} · ${what}: thread ${b.tid}, CPU ${b.cpu}, area[${b.index}], ${when}`,
      breakdown: b.breakdown ?? null,
      empty: 'This run has no per-mechanism parts (cost model v1).',
    }
  })
}

/** How far back the breakdown can browse: the longest run's bursts so far, less one. */
export function maxBack(runs: readonly LessonRunView[]): number {
  return Math.max(0, ...runs.map((r) => r.bursts.length - 1))
}
