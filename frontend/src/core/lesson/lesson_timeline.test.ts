// The lesson clock: instants, lockstep of two runs, run-to-next, burst sources.
import { describe, expect, it } from 'vitest'
import {
  buildClock, burstSource, instantsOf, lastStep, nextRecordStep, recordsAtStep, stepAtTime, timeOf, upperBound,
} from './lesson_timeline'
import type { MmCidPath, MmCidRecord } from '../shared/types'

const rec = (seq: number, path: MmCidPath, ts_ns = 0): MmCidRecord => ({
  seq, ts_ns, age_ns: 0, path, tgid: 1000, tid: 1000, cpu: 0, cid: 0, prev_cid: -1, recent_cid: -1, max_nr_cid: -1,
  bound: 8, mm_users: 8, other_cpu: -1, flags: 0,
})

describe('lesson clock', () => {
  it('groups events of one instant into one step', () => {
    expect(instantsOf([0, 0, 0, 5, 5, 9])).toEqual([0, 5, 9])
    const clock = buildClock([{ ts: Float64Array.from([0, 0, 0, 5, 5, 9]), finished: true }])
    expect(Array.from(clock.times)).toEqual([0, 5, 9])
    expect(Array.from(clock.stepAt[0])).toEqual([0, 3, 5, 6])
    expect(lastStep(clock)).toBe(3)
    expect(clock.complete).toBe(true)
  })

  it('lockstep: the union of both runs\u2019 instants, each run at its last event at or before T_k', () => {
    const a = { ts: Float64Array.from([0, 0, 10, 20, 20, 35]), finished: true }
    const b = { ts: Float64Array.from([0, 0, 12, 20, 30]), finished: true }
    const clock = buildClock([a, b])
    expect(Array.from(clock.times)).toEqual([0, 10, 12, 20, 30, 35])
    expect(Array.from(clock.stepAt[0])).toEqual([0, 2, 3, 3, 5, 5, 6])
    expect(Array.from(clock.stepAt[1])).toEqual([0, 2, 2, 3, 4, 5, 5])
    expect(timeOf(clock, 0)).toBe(0)
    expect(timeOf(clock, 3)).toBe(12)
    expect(stepAtTime(clock, 25)).toBe(4) // T_4 = 20
    expect(stepAtTime(clock, 1e9)).toBe(6)
  })

  it('stops at the horizon of a run scanned only part way', () => {
    const clock = buildClock([
      { ts: Float64Array.from([0, 10, 20, 30]), finished: true },
      { ts: Float64Array.from([0, 15]), finished: false },
    ])
    expect(Array.from(clock.times)).toEqual([0, 10, 15])
    expect(clock.complete).toBe(false)
  })

  it('upper bound', () => {
    expect(upperBound([1, 2, 2, 3], 2)).toBe(3)
    expect(upperBound([1, 2, 2, 3], 0)).toBe(0)
    expect(upperBound([], 5)).toBe(0)
  })
})

describe('run to next allocation', () => {
  // Run A: records 0-1 at its event 1, record 2 (a scan) at event 4, record 3 at event 5.
  const a = {
    ts: Float64Array.from([0, 10, 20, 30, 40]),
    logEnd: Float64Array.from([2, 2, 2, 3, 4]),
    records: [rec(0, 'EXPAND_MAX_NR_CID'), rec(1, 'EXPAND_MAX_NR_CID'), rec(2, 'SCAN', 28), rec(3, 'RECENT_CID', 40)],
    finished: true,
  }
  const b = { ts: Float64Array.from([0, 25]), logEnd: Float64Array.from([1, 2]), records: [rec(0, 'FIRST_FREE'), rec(1, 'FIRST_FREE', 25)], finished: true }

  it('finds the next step whose log grew, in either run', () => {
    const clock = buildClock([a, b]) // times 0 10 20 25 30 40
    expect(nextRecordStep(clock, [a, b], 0, 'entry')).toBe(1)
    expect(nextRecordStep(clock, [a, b], 1, 'entry')).toBe(4) // b's record 1 at t=25
    expect(nextRecordStep(clock, [a, b], 4, 'entry')).toBe(5) // a's scan shows with its event at t=30
    expect(nextRecordStep(clock, [a, b], 5, 'entry')).toBe(6)
    expect(nextRecordStep(clock, [a, b], 6, 'entry')).toBeNull()
  })

  it('filters by kind', () => {
    const clock = buildClock([a])
    expect(nextRecordStep(clock, [a], 1, 'scan')).toBe(4)
    expect(nextRecordStep(clock, [a], 1, 'new-cid')).toBe(5)
    expect(nextRecordStep(clock, [a], 0, 'new-cid')).toBe(1)
  })

  it('the records of a step are those that appeared with it', () => {
    const clock = buildClock([a])
    expect(recordsAtStep(a, clock.stepAt[0], 1).map((r) => r.seq)).toEqual([0, 1])
    expect(recordsAtStep(a, clock.stepAt[0], 2)).toEqual([])
    expect(recordsAtStep(a, clock.stepAt[0], 4).map((r) => r.path)).toEqual(['SCAN'])
  })
})

describe('where a burst\u2019s data came from', () => {
  // ks_cache_source order: L1, L2, LLC, same-LLC core, other LLC, other socket, DRAM local, DRAM remote.
  it('is the source that served most lines, L1 hits aside', () => {
    expect(burstSource([512, 0, 0, 0, 0, 0, 0, 0])).toBe('core')
    expect(burstSource([256, 256, 0, 0, 0, 0, 0, 0])).toBe('core')
    expect(burstSource([1280, 0, 0, 0, 0, 0, 256, 0])).toBe('dram')
    expect(burstSource([1024, 0, 0, 512, 0, 0, 0, 0])).toBe('same-llc-core')
    expect(burstSource([256, 0, 0, 0, 256, 0, 0, 0])).toBe('other-llc')
    expect(burstSource([256, 0, 0, 0, 0, 256, 0, 0])).toBe('other-socket')
    expect(burstSource([256, 0, 256, 0, 0, 0, 0, 0])).toBe('llc')
    expect(burstSource([256, 0, 0, 0, 0, 0, 0, 256])).toBe('dram')
    expect(burstSource(null)).toBe('unknown')
  })
})
