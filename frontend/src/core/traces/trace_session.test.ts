// The traces page's intents as a pure reducer.
import { describe, expect, it } from 'vitest'
import { EMPTY_SESSION, queryFilter, traceReducer, type TraceSessionState } from './trace_session'

const empty: TraceSessionState = EMPTY_SESSION

describe('trace session reducer', () => {
  it('tracks opening progress and failure', () => {
    const s1 = traceReducer(empty, { type: 'opening', name: 'a.txt', phase: 'decode', fraction: 0.5, events: 10 })
    expect(s1.open).toEqual({ status: 'opening', name: 'a.txt', phase: 'decode', fraction: 0.5, events: 10 })
    const s2 = traceReducer(s1, { type: 'failed', name: 'a.txt', message: 'a.txt: line 3: bad' })
    expect(s2.open).toMatchObject({ status: 'error', message: 'a.txt: line 3: bad' })
  })

  it('changes the view without touching the trace, and toggles groups', () => {
    let s = traceReducer(empty, { type: 'zoom', zoom: { k: 4, x: -100 } })
    s = traceReducer(s, { type: 'cursor', t: 123 })
    s = traceReducer(s, { type: 'toggleGroup', key: 'n0-l1' })
    expect(s.view).toMatchObject({ zoom: { k: 4, x: -100 }, cursor: 123, expanded: ['n0-l1'] })
    s = traceReducer(s, { type: 'toggleGroup', key: 'n0-l1' })
    expect(s.view.expanded).toEqual([])
    expect(s.open).toBe(empty.open)
    expect(traceReducer(s, { type: 'close' })).toEqual(empty)
  })

  it('turns the filter fields into a query filter', () => {
    expect(queryFilter({ comm: ' python ', pid: '42', types: [1] })).toEqual({ comm: 'python', pid: 42, types: new Set([1]) })
    expect(queryFilter({ comm: '', pid: 'x', types: [] })).toEqual({ comm: undefined, pid: undefined, types: undefined })
  })
})
