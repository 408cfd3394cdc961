import { describe, expect, it } from 'vitest'
import { PART_WORDS, costBreakdown, explainCost, formatNs, partWords } from './cost_parts'

/** The core's part names in ks_cost_part order (kscope/cost.h), as ks_cost_part_name gives them. */
const NAMES = ['core', 'l2', 'llc', 'remote', 'dram', 'rfo', 'idle_flush', 'capacity', 'bandwidth', 'tlb',
  'cstate_exit', 'contention', 'lock_handoff', 'lock_spin', 'first_touch']
const parts = (set: Record<string, number>) => NAMES.map((n) => set[n] ?? 0)

describe('costBreakdown', () => {
  it('keeps the non-zero parts in the core order with their words and shares', () => {
    const b = costBreakdown(NAMES, parts({ first_touch: 1400, core: 600 }))!
    expect(b.total_ns).toBe(2000)
    expect(b.parts.map((p) => [p.name, p.label, p.shown_ns])).toEqual([['core', 'core work', 600], ['first_touch', 'first touch', 1400]])
    expect(b.parts[1].fraction).toBeCloseTo(0.7)
  })

  it('rounds every part so the shown parts add up to the shown total exactly', () => {
    // 3 x 100.4 = 301.2 -> 301; naive rounding shows 100 + 100 + 100 = 300.
    const b = costBreakdown(NAMES, parts({ core: 100.4, remote: 100.4, rfo: 100.4 }))!
    expect(b.shown_total_ns).toBe(301)
    expect(b.parts.reduce((s, p) => s + p.shown_ns, 0)).toBe(301)
    // 0.6 + 0.6 + 0.6 = 1.8 -> 2: two parts get 1 ns, the third 0
    const small = costBreakdown(NAMES, parts({ core: 0.6, l2: 0.6, tlb: 0.6 }))!
    expect(small.parts.map((p) => p.shown_ns)).toEqual([1, 1, 0])
  })

  it('adds up for many random breakdowns', () => {
    let seed = 7
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let k = 0; k < 200; k++) {
      const p = NAMES.map(() => (rnd() < 0.5 ? 0 : rnd() * 5000))
      p[0] = 1 + rnd() * 900
      const b = costBreakdown(NAMES, p)!
      expect(b.parts.reduce((s, x) => s + x.shown_ns, 0)).toBe(b.shown_total_ns)
      expect(Math.abs(b.shown_total_ns - p.reduce((s, x) => s + x, 0))).toBeLessThanOrEqual(0.5)
    }
  })

  it('is null with no parts (cost model v1 records none) and ignores negative or NaN entries', () => {
    expect(costBreakdown(NAMES, parts({}))).toBeNull()
    expect(costBreakdown(NAMES, [])).toBeNull()
    const b = costBreakdown(NAMES, parts({ core: 10, dram: -5, tlb: NaN }))!
    expect(b.parts.map((p) => p.name)).toEqual(['core'])
  })

  it('shows a part the table does not know under its C name, so nothing is dropped', () => {
    const b = costBreakdown([...NAMES, 'new_mechanism'], [...parts({ core: 5 }), 7])!
    expect(b.parts.map((p) => p.label)).toEqual(['core work', 'new mechanism'])
    expect(b.shown_total_ns).toBe(12)
  })

  it('has words for every part of the C enum', () => {
    for (const n of NAMES) expect(PART_WORDS[n]?.label, n).toBeTruthy()
    expect(partWords('idle_flush').label).toBe('idle flush')
  })
})

describe('explainCost', () => {
  it('names the largest parts and what they were spent on', () => {
    const text = explainCost(costBreakdown(NAMES, parts({ first_touch: 1400, core: 600 }))!)
    expect(text).toBe('2.000 µs: 1.400 µs first touch (page faults on the first write to each page); 600 ns core work (the sweep\'s own instructions, data in its own core\'s cache)')
  })

  it('says when the sweep\'s own work is nearly all of it', () => {
    const text = explainCost(costBreakdown(NAMES, parts({ core: 576, tlb: 20 }))!)
    expect(text).toMatch(/^596 ns: the sweep's own work \(576 ns\); .*hidden under that work$/)
  })

  it('names one part when no other reaches 15 %', () => {
    const text = explainCost(costBreakdown(NAMES, parts({ idle_flush: 9000, core: 600, tlb: 400 }))!)
    expect(text).toBe("10.000 µs: 9.000 µs idle flush (lines a deep C-state flushed out of an idle core's caches)")
  })
})

describe('formatNs', () => {
  it('prints whole ns with separators', () => {
    expect(formatNs(12345.6)).toBe('12,346 ns')
    expect(formatNs(0)).toBe('0 ns')
  })
})
