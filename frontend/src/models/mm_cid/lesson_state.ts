/*
 * The mm_cid lesson's state: the generic lesson state (core/lesson/lesson_state.ts:
 * workload, placement, URL, the playback actions) bound to this model's rules —
 * its scenario variants (the three kernels, and "compare": v6.12 beside v6.13)
 * and its bug-injection toggles (wasm-core/src/algo/mm_cid/mm_cid.c, "+flag" after the
 * variant) — plus the algo string the C core reads for one run.
 */
import { lessonStateRules } from '../../core/lesson/lesson_state'

export * from '../../core/lesson/lesson_state'

/** The kernels one run can model, oldest first. */
export const LESSON_RUNS = ['v6.12', 'v6.13', 'v6.18', 'v6.19'] as const
export type LessonRun = (typeof LESSON_RUNS)[number]
export const LESSON_VARIANTS = [...LESSON_RUNS, 'compare'] as const
export type LessonVariant = (typeof LESSON_VARIANTS)[number]
/** The kernels compare mode runs side by side: before and after 7e019dc. */
export const COMPARE_PAIR = ['v6.12', 'v6.13'] as const

/**
 * The C model's bug-injection toggles (wasm-core/src/algo/mm_cid/mm_cid.c, "+flag" after the
 * variant): take one part of 7e019dc out of a 6.13+ run to show what it fixes.
 */
export const MM_CID_TOGGLES = ['no_recent_cid', 'task_nr_cpus_allowed'] as const
export type MmCidToggle = (typeof MM_CID_TOGGLES)[number]

/** Known toggles, each once, sorted (anything else dropped). */
export function cleanToggles(list: readonly string[] | undefined): MmCidToggle[] {
  return MM_CID_TOGGLES.filter((t) => (list ?? []).includes(t))
}

/** The algo string of one run: "mm_cid:v6.13+no_recent_cid"; toggles only reach 6.13+ runs. */
export function algoOf(variant: LessonRun, toggles: readonly string[] = []): string {
  const flags = variant === 'v6.12' ? [] : cleanToggles(toggles)
  return `mm_cid:${variant}${flags.map((f) => `+${f}`).join('')}`
}

/** The kernels a variant runs, in display order (none for a variant this model does not have). */
export function variantsOf(variant: string): LessonRun[] {
  if (variant === 'compare') return [...COMPARE_PAIR]
  return (LESSON_RUNS as readonly string[]).includes(variant) ? [variant as LessonRun] : []
}

export const { initialLessonState, sameLessonRun, newLessonRun, lessonStateFromSearch, followLessonUrl } = lessonStateRules({
  variants: LESSON_VARIANTS,
  defaultVariant: 'compare',
  cleanToggles,
})
