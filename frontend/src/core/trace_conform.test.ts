// The conformance answer on the Traces page, against a fixture of exactly the
// contract's shape (/work/briefs/traces-contract.md) built from `kscope conform`
// on traces/intermittent8-linux6.12-vm16.txt (ts converted to ns as the route gives).
import { describe, expect, it } from 'vitest'
import fixture from './conform_fixture.json'
import {
  ConformShapeError, agreementText, conformMarks, narrateDisagreement, parseConformResult, stepMark,
} from './trace_conform'

const T0 = 7_000_000_000
const T1 = 9_000_000_000

describe('conformance answer', () => {
  const r = parseConformResult(fixture)

  it('reads the contract shape and keeps the disagreements in time order', () => {
    expect(r.variant).toBe('v6.12')
    expect(r.disagreements).toHaveLength(fixture.disagreements.length)
    expect([...r.disagreements.map((d) => d.ts)]).toEqual([...fixture.disagreements.map((d) => d.ts)].sort((a, b) => a - b))
    expect(agreementText(r)).toBe('48.5 % (165 of 340 rseq updates)')
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
    expect(text).toContain('mm_cid 9')
    expect(text).toContain('MEASURED')
    expect(text).toContain('v6.12 model')
    expect(text).toContain('cid 7 (MODELLED)')
    expect(text).toContain('Why: model FIRST_FREE cid 7')
  })
})
