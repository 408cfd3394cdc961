// cpupri's cross-field lesson checks: a claim or quiz naming a run the step does not make,
// and a cycles_ratio claim off a compare step, are reported at their paths.
import { describe, expect, it } from 'vitest'
import { checkLessonStep } from './lesson_checks'

function problems(step: Record<string, unknown>, variant: string | null): string[] {
  const out: string[] = []
  checkLessonStep({ path: '$.steps[2]', step, variant, fail: (p, m) => out.push(`${p}: ${m}`) })
  return out
}

describe('checkLessonStep', () => {
  it('accepts runs of the scenario', () => {
    expect(problems({ expect: [{ kind: 'mask_line', lines: 2, variant: 'pernode' }, { kind: 'cycles_ratio', min: 1 }] }, 'compare')).toEqual([])
  })
  it('reports a run the step does not make and a ratio off a compare step', () => {
    expect(problems({ expect: [{ kind: 'mask_line', lines: 2, variant: 'pernode' }, { kind: 'cycles_ratio', min: 1 }],
      quiz: { compute: { kind: 'next_cpu', tid: 1, variant: 'pernode' } } }, 'global')).toEqual([
      '$.steps[2].expect[0].variant: must be a run of this step\'s scenario (global), got "pernode"',
      '$.steps[2].expect[1].kind: "cycles_ratio" compares global with pernode: the step\'s scenario variant must be "compare", got "global"',
      '$.steps[2].quiz.compute.variant: must be a run of this step\'s scenario (global), got "pernode"',
    ])
  })
})
