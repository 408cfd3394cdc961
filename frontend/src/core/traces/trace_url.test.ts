// The Traces page's view in its URL: round trip, and malformed parts dropped.
import { describe, expect, it } from 'vitest'
import { formatTraceUrl, parseTraceUrl } from './trace_url'

describe('trace URL state', () => {
  it('round-trips trace, compare, window, cursor, filter and expanded groups', () => {
    const s = { trace: 'ab12', vs: 'cd34', window: { start: 4_747_441_187_000, end: 4_747_442_000_000 },
      cursor: 4_747_441_500_123, filter: { comm: 'python3 x', pid: '25279', types: [1] }, expanded: ['n0-l1', 'all/3'] }
    const href = formatTraceUrl(s)
    expect(href.startsWith('/traces?trace=ab12&vs=cd34&from=4747441187000&to=4747442000000')).toBe(true)
    expect(href).toContain('type=sched_switch')
    expect(parseTraceUrl(href.slice('/traces'.length))).toEqual(s)
    expect(formatTraceUrl({ ...parseTraceUrl(''), trace: null })).toBe('/traces')
  })

  it('drops what is malformed instead of failing', () => {
    const u = parseTraceUrl('?trace=../../etc&from=10&to=5&cursor=x&pid=12a&type=nope&open=a,<b>')
    expect(u).toEqual({ trace: null, vs: null, window: null, cursor: null, filter: { comm: '', pid: '', types: [] }, expanded: ['a'] })
  })
})

describe('share tokens in the URL', () => {
  it('keeps a share link\'s tokens through parse and format, and drops malformed ones', () => {
    const href = '/traces?trace=ab12&vs=cd34&from=1&to=9&cursor=5&share=AbC_d-123456789012345&vsshare=Zz_9876543210abcdef'
    const u = parseTraceUrl(href.slice('/traces'.length))
    expect(u.share).toBe('AbC_d-123456789012345')
    expect(u.vsShare).toBe('Zz_9876543210abcdef')
    expect(formatTraceUrl(u)).toBe(href)
    expect(parseTraceUrl('?trace=ab12&share=no spaces<>').share).toBeUndefined()
    expect(parseTraceUrl('?trace=ab12&share=short').share).toBeUndefined()
  })
})

describe('area and markers in the URL', () => {
  it('round-trips an area (span x CPUs) and two markers', () => {
    const href = '/traces?trace=ab12&from=1&to=9&area=100-900%3A0-3%2C8&marks=150%2C-'
    const u = parseTraceUrl(href.slice('/traces'.length))
    expect(u.area).toEqual({ start: 100, end: 900, cpus: [0, 1, 2, 3, 8] })
    expect(u.markers).toEqual([150, null])
    expect(formatTraceUrl(u)).toBe(href)
    expect(parseTraceUrl('?marks=5,7').markers).toEqual([5, 7])
  })

  it('drops a malformed area or markers', () => {
    for (const bad of ['area=9-1:0', 'area=1-9:', 'area=1-9:x', 'area=a-b:0', 'area=1-9:5-2']) expect(parseTraceUrl(`?${bad}`).area).toBeUndefined()
    for (const bad of ['marks=1', 'marks=-,-', 'marks=1,2,3', 'marks=x,1']) expect(parseTraceUrl(`?${bad}`).markers).toBeUndefined()
  })
})

describe('saved SQL queries in the URL', () => {
  it('round-trips several, and drops empty, long or extra ones', () => {
    const queries = ["SELECT ts_ns AS ts, cpu FROM events WHERE type = 'sched_waking'", 'SELECT count(*) FROM events']
    const href = formatTraceUrl({ ...parseTraceUrl('?trace=ab12'), queries })
    expect(parseTraceUrl(href.slice('/traces'.length)).queries).toEqual(queries)
    const many = Array.from({ length: 9 }, (_, k) => `sql=SELECT+${k}`).join('&')
    expect(parseTraceUrl(`?${many}`).queries).toHaveLength(5)
    expect(parseTraceUrl(`?sql=&sql=${'x'.repeat(2001)}`).queries).toBeUndefined()
  })
})
