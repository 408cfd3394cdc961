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
