/*
 * cpupri's cross-field lesson checks (what the schema cannot say), on each step: a claim
 * or quiz that names a run names one the step's scenario makes, and a cycles_ratio claim
 * sits on a compare step (it divides global by pernode).
 */
import type { LessonStepContext } from '../types'
import { runsOf } from './runs'

export function checkLessonStep(ctx: LessonStepContext): void {
  const { step, path, variant, fail } = ctx
  if (variant === null) return
  const runs: string[] = runsOf(variant)
  const claims = Array.isArray(step.expect) ? (step.expect as Record<string, unknown>[]) : []
  claims.forEach((c, i) => {
    if (!c || typeof c !== 'object') return
    if (typeof c.variant === 'string' && !runs.includes(c.variant)) {
      fail(`${path}.expect[${i}].variant`, `must be a run of this step's scenario (${runs.join(', ')}), got "${c.variant}"`)
    }
    if (c.kind === 'cycles_ratio' && variant !== 'compare') {
      fail(`${path}.expect[${i}].kind`, `"cycles_ratio" compares global with pernode: the step's scenario variant must be "compare", got "${variant}"`)
    }
  })
  const quiz = step.quiz as { compute?: { variant?: unknown } } | undefined
  const qv = quiz?.compute?.variant
  if (typeof qv === 'string' && !runs.includes(qv)) {
    fail(`${path}.quiz.compute.variant`, `must be a run of this step's scenario (${runs.join(', ')}), got "${qv}"`)
  }
}
