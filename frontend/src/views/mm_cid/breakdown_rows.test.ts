import { describe, expect, it } from 'vitest'
import { breakdownRows, maxBack } from './breakdown_rows'
import type { LessonRunView } from '../../models/mm_cid/lesson_controller'
import type { BurstInfo } from '../../models/mm_cid/lesson_narrate'

const burst = (n: number, ts_ns: number): BurstInfo => ({
  n, ts_ns, tid: 1000 + n, cpu: n, index: n, cost_ns: 100, warmup: false, source: 'core', fromCpu: null, breakdown: null,
})
const run = (bursts: BurstInfo[], stepBursts: BurstInfo[]) => ({ variant: 'v6.13', bursts, stepBursts }) as unknown as LessonRunView

describe('breakdownRows', () => {
  const bs = [burst(0, 1e6), burst(1, 2e6), burst(2, 3e6)]
  it("shows the step's burst, or else the latest", () => {
    expect(breakdownRows([run(bs, [bs[2]])])[0].title).toBe('v6.13 · burst 2: thread 1002, CPU 2, area[2], at this step')
    expect(breakdownRows([run(bs, [])])[0].title).toBe('v6.13 · burst 2: thread 1002, CPU 2, area[2], at t=3.000 ms, the latest')
  })
  it('browses back from the latest, and says which burst it shows', () => {
    expect(breakdownRows([run(bs, [bs[2]])], 2)[0].title).toBe('v6.13 · burst 0: thread 1000, CPU 0, area[0], at t=1.000 ms')
    expect(maxBack([run(bs, [])])).toBe(2)
    expect(breakdownRows([run([], [])])[0]).toMatchObject({ breakdown: null, empty: 'No burst yet.' })
  })
})
