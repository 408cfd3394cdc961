// Reading SQL answers for the page: a row's time, and an answer as a track (or a clear error).
import { describe, expect, it } from 'vitest'
import { TRACK_MAX_ROWS, TrackError, canTrack, queryTrack, rowTime } from './trace_sql'

const A = { columns: ['TS', 'dur', 'cpu', 'name'], rows: [[300, 50, 1, 'b'], [100, 20, 0, 'a'], [200, null, null, null]], truncated: false }

describe('SQL answers on the page', () => {
  it('reads a row\'s time from ts or ts_ns', () => {
    expect(rowTime(A, 1)).toBe(100)
    expect(rowTime({ columns: ['ts_ns', 'x'], rows: [[7, 1]], truncated: false }, 0)).toBe(7)
    expect(rowTime({ columns: ['count'], rows: [[7]], truncated: false }, 0)).toBeNull()
    expect(rowTime({ columns: ['ts'], rows: [['soon']], truncated: false }, 0)).toBeNull()
    expect(canTrack(A)).toBe(true)
    expect(canTrack({ columns: ['type', 'n'], rows: [], truncated: false })).toBe(false)
  })

  it('turns ts, dur, cpu and name into a track in time order; empty dur and cpu mean an instant on every lane', () => {
    const t = queryTrack(A)
    expect(Array.from(t.ts)).toEqual([100, 200, 300])
    expect(Array.from(t.dur)).toEqual([20, 0, 50])
    expect(Array.from(t.cpu)).toEqual([0, -1, 1])
    expect(t.label).toEqual(['a', '', 'b'])
    expect(t.cut).toBe(false)
  })

  it('names the column and row of a bad value', () => {
    expect(() => queryTrack({ columns: ['n'], rows: [[1]], truncated: false })).toThrow(/needs a ts \(or ts_ns\) column; this answer has n/)
    expect(() => queryTrack({ columns: ['ts', 'dur'], rows: [[1, 2], [3, 'x']], truncated: false })).toThrow(/row 2: dur is "x", not a number/)
    expect(() => queryTrack({ columns: ['ts', 'dur'], rows: [[1, -2]], truncated: false })).toThrow(TrackError)
    expect(() => queryTrack({ columns: ['ts'], rows: [[null]], truncated: false })).toThrow(/row 1: ts is empty/)
  })

  it('cuts a long answer and says so', () => {
    const rows = Array.from({ length: TRACK_MAX_ROWS + 5 }, (_, k) => [k])
    const t = queryTrack({ columns: ['ts'], rows, truncated: false })
    expect(t.ts.length).toBe(TRACK_MAX_ROWS)
    expect(t.cut).toBe(true)
  })
})
