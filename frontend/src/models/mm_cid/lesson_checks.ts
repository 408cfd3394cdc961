/*
 * What mm_cid's part of the lesson format (lesson.schema.json beside this
 * file) cannot say, checked on each step by the lesson validator
 * (core/lesson/lesson_validate.ts asks the descriptor): the bug-injection toggles
 * take parts of 7e019dc out of a 6.13+ run, so a step running only v6.12 may
 * not offer them; a "cost_ratio" claim compares v6.12 with v6.13, so it needs
 * a compare step.
 */
import type { LessonStepContext } from '../types'

export function checkLessonStep({ path, step, variant, fail }: LessonStepContext): void {
  if (Array.isArray(step.toggles) && step.toggles.length > 0 && variant === 'v6.12') {
    fail(`${path}.toggles`, 'toggles take parts of 7e019dc out of a 6.13+ run; this step runs only v6.12')
  }
  if (!Array.isArray(step.expect)) return
  step.expect.forEach((c, i) => {
    const kind = typeof c === 'object' && c !== null ? (c as { kind?: unknown }).kind : undefined
    if (kind === 'cost_ratio' && variant !== 'compare') fail(`${path}.expect[${i}]`, 'a "cost_ratio" claim needs a compare step (variant "compare")')
  })
}
