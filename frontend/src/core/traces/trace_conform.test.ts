// The conformance answer on the Traces page, against a fixture of exactly the
// contract's shape (/work/briefs/traces-contract.md) built from `kscope conform`
// on traces/intermittent8-linux6.12-vm16.txt (ts converted to ns as the route gives).
import { describe, expect, it } from 'vitest'
import fixture from './conform_fixture.json'
import { wantsExactEvents } from './trace_window'
import {
  ConformShapeError, agreementText, conformMarks, narrateDisagreement, parseConformResult, stepMark, variantSource, windowForMark,
} from './trace_conform'

const T0 = 7_000_000_000
const T1 = 9_000_000_000

describe('conformance answer', () => {
  const r = parseConformResult(fixture)

  it('reads the contract shape and keeps the disagreements in time order', () => {
    expect(r.variant).toBe('v6.12')
    expect(r.disagreements).toHaveLength(fixture.disagreements.length)
    expect([...r.disagreements.map((d) => d.ts)]).toEqual([...fixture.disagreements.map((d) => d.ts)].sort((a, b) => a - b))
    expect(agreementText(r)).toBe('48.5 % (165 of 340 rseq updates compared)')
  })

  it('names the field when the answer is not the contract', () => {
    expect(() => parseConformResult({ ...fixture, agreement: '0.9' })).toThrow(/agreement: expected a number/)
    expect(() => parseConformResult({ ...fixture, agreement: 1.5 })).toThrow(/agreement: expected 0\.\.1/)
    const bad = { ...fixture, disagreements: [{ ...fixture.disagreements[0], model_cid: null }] }
    expect(() => parseConformResult(bad)).toThrow(ConformShapeError)
    expect(() => parseConformResult(bad)).toThrow(/disagreements\[0\]\.model_cid/)
    expect(() => parseConformResult(null)).toThrow(/JSON object/)
  })

  it('places marks inside the trace and counts those outside it', () => {
    const m = conformMarks(r, { t0: T0, t1: T1 })
    expect(m.ts.length + m.outside).toBe(r.disagreements.length)
    expect(m.outside).toBe(0)
    expect(Array.from(m.cpu.slice(0, 2))).toEqual([2, 7])
    const late = conformMarks(r, { t0: 8_122_800_000, t1: T1 })
    expect(late.outside).toBeGreaterThan(0)
    expect(late.ts[0]).toBeGreaterThanOrEqual(8_122_800_000)
  })

  it('steps to the next and previous disagreement from the cursor or the selected one', () => {
    const m = conformMarks(r, { t0: T0, t1: T1 })
    expect(stepMark(m, -1, T0, 1)).toBe(0)
    expect(stepMark(m, -1, 8_000_000_000, 1)).toBe(1)
    expect(stepMark(m, -1, 8_000_000_000, -1)).toBe(0)
    expect(stepMark(m, 0, 0, -1)).toBe(-1)
    expect(stepMark(m, 0, 0, 1)).toBe(1)
    expect(stepMark(m, m.ts.length - 1, 0, 1)).toBe(-1)
  })

  it('narrates one with both cids, each with its source, and the replay’s why', () => {
    const text = narrateDisagreement(r.disagreements[0], r, T0).join(' ')
    expect(text).toContain('At 500.323 ms on CPU 2')
    expect(text).toContain('the kernel wrote mm_cid=9 into thread')
    expect(text).toContain('MEASURED')
    expect(text).toContain('v6.12 model')
    expect(text).toContain('cid 7 (MODELLED)')
    expect(text).toContain('Why: model FIRST_FREE cid 7')
  })

  // Issue 13 item 7: a trace whose header names no kernel made the page hang on "Checking…"
  // (ConformShapeError: kernel: expected a string, got null, thrown inside the fetch's then).
  it('reads an answer for a trace without a kernel release: inferred variant, every variant\'s figures', () => {
    const inferred = parseConformResult({
      ...fixture, kernel: null, variant: 'v6.12', variant_from: 'inferred', compared: 340,
      variant_label: 'inferred from the trace (kernel version unknown)',
      variants: [
        { variant: 'v6.12', scan_at: 'return', compared: 340, agree: 340, agreement: 1, best: true },
        { variant: 'v6.13', scan_at: 'return', compared: 340, agree: 190, agreement: 190 / 340, best: false },
        { variant: 'v6.18', scan_at: 'tick', compared: 0, agree: 0, agreement: null, best: false },
      ],
    })
    expect(inferred.kernel).toBe('')
    expect(inferred.variant_from).toBe('inferred')
    expect(variantSource(inferred)).toBe('inferred from the trace (kernel version unknown)')
    expect(inferred.variants?.map((v) => [v.variant, v.agreement, v.best])).toEqual([
      ['v6.12', 1, true], ['v6.13', 190 / 340, false], ['v6.18', null, false]])
    expect(agreementText(inferred.variants![2])).toBe('n/a (no rseq update could be compared)')
    expect(agreementText({ agreement: null, agree: 0, compared: 0 })).toMatch(/^n\/a/)
  })

  it('names the field of a bad variants list', () => {
    expect(() => parseConformResult({ ...fixture, variants: {} })).toThrow(/variants: expected a list or null/)
    expect(() => parseConformResult({ ...fixture, variants: [{ variant: 'v6.12', scan_at: 'return', compared: 1, agree: 1, agreement: 2 }] }))
      .toThrow(/variants\[0\]\.agreement: expected 0\.\.1/)
    expect(() => parseConformResult({ ...fixture, kernel: 7 })).toThrow(/kernel: expected a string, got 7/)
    expect(() => parseConformResult({ ...fixture, agreement: null })).not.toThrow()
  })

  // Issue 13 item 9: ] / [ moved the cursor but kept a zoomed-out view, so no exact events loaded there.
  it('zooms to a disagreement far enough that the timeline loads its exact events', () => {
    const trace = { t0: T0, t1: T1, totalEvents: 1713 }
    const ts = 8_000_000_000
    const w = windowForMark(ts, { start: T0, end: T1 }, 1000, trace)
    expect(w.start).toBeLessThan(ts)
    expect(w.end).toBeGreaterThan(ts)
    expect((w.start + w.end) / 2).toBeCloseTo(ts, 0)
    expect(wantsExactEvents(w.start, w.end, 1000 - 200, trace)).toBe(true)
    // Already zoomed in further: that span is kept, centred on the mark.
    const near = windowForMark(ts, { start: T0, end: T0 + 2_000_000 }, 1000, trace)
    expect(near.end - near.start).toBe(2_000_000)
    // A dense trace: the event rate bounds the span too.
    const dense = { t0: T0, t1: T1, totalEvents: 50_000_000 }
    const d = windowForMark(ts, null, 1000, dense)
    expect(wantsExactEvents(d.start, d.end, 800, dense)).toBe(true)
  })
})
