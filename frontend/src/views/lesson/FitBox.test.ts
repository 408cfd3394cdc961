import { describe, expect, it } from 'vitest'
import { largestFittingScale } from './FitBox'

describe('largestFittingScale', () => {
  it('keeps 1 when the content fits unscaled, and never scales up', () => {
    const tried: number[] = []
    expect(largestFittingScale(0.5, (s) => (tried.push(s), true))).toBe(1)
    expect(tried).toEqual([1])
  })

  it('finds the largest fitting scale within 1% by bisection (a layout that fits below 0.62)', () => {
    const s = largestFittingScale(0.45, (t) => t <= 0.62)
    expect(s).toBeLessThanOrEqual(0.62)
    expect(s).toBeGreaterThan(0.61)
  })

  it('returns the minimum when even that does not fit (the box then scrolls, and the e2e check fails)', () => {
    expect(largestFittingScale(0.7, () => false)).toBe(0.7)
  })

  it('scales up to max when asked (the presenter stage: one view grows to fill it)', () => {
    expect(largestFittingScale(0.45, () => true, 9, 2.5)).toBe(2.5)
    const s = largestFittingScale(0.45, (t) => t <= 1.7, 9, 2.5)
    expect(s).toBeLessThanOrEqual(1.7)
    expect(s).toBeGreaterThan(1.69)
  })
})
