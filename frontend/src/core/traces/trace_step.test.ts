// Stepping through events: in a store holding the whole trace, in a loaded
// window (answered locally only when the window provably holds the answer),
// and the comm/pid match on server rows.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, type TraceInput } from './trace_store'
import { rowMatches, stepEvent } from './trace_step'

const ROWS: EventRow[] = [1000, 2000, 3000, 4000].map((ts, i) => ({
  ts_ns: ts, cpu: i % 2, type: 'sched_wakeup', pid: 1, tgid: 1, comm: 'a', task_pid: 10 + i, task_comm: i === 2 ? 'python3' : 'sh',
  prio: 120, target_cpu: 0,
}))
const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 4, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 2, uname: '', traceClock: '', firstError: null }

describe('step to the next / previous event', () => {
  const whole = openTraceStore({ name: 'w', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(ROWS), stats: STATS, header: [] })

  it('walks a whole trace both ways, with the filter', async () => {
    expect(await stepEvent(whole, 1000, {}, 1)).toMatchObject({ kind: 'row', ts: 2000 })
    expect(await stepEvent(whole, 2000, {}, -1)).toMatchObject({ kind: 'row', ts: 1000 })
    expect(await stepEvent(whole, 1000, { comm: 'PYTHON' }, 1)).toMatchObject({ kind: 'row', ts: 3000 })
    expect(await stepEvent(whole, 4000, {}, 1)).toBeNull()
    expect(await stepEvent(whole, 1000, {}, -1)).toBeNull()
  })

  it('answers from a loaded window only when the window holds the answer', async () => {
    // Events 2000 and 3000 loaded of a trace spanning 1000..4000; not a server trace, so no fetch either.
    const win = openTraceStore({ name: 'w', format: 'ftrace', origin: { kind: 'local' }, stats: STATS, header: [],
      columns: columnsFromRows(ROWS.slice(1, 3)),
      window: { extentT0: 1000, extentT1: 4000, cpus: [0, 1], totalEvents: 4, loaded: { t0: 1500, t1: 3500, truncated: false } } })
    expect(await stepEvent(win, 2000, {}, 1)).toMatchObject({ kind: 'row', ts: 3000 })
    expect(await stepEvent(win, 3000, {}, -1)).toMatchObject({ kind: 'row', ts: 2000 })
    // The next event after 3000 (4000) is outside the window: not answered from it.
    expect(await stepEvent(win, 3000, {}, 1)).toBeNull()
    expect(await stepEvent(win, 2000, {}, -1)).toBeNull()
  })

  it('matches server rows by any comm or pid they name', () => {
    expect(rowMatches(ROWS[2], { comm: 'thon' })).toBe(true)
    expect(rowMatches(ROWS[2], { pid: 12 })).toBe(true)
    expect(rowMatches(ROWS[2], { pid: 13 })).toBe(false)
    expect(rowMatches(ROWS[0], { comm: 'python' })).toBe(false)
  })

  describe('on a stored trace, the server pages by cursor', () => {
    afterEach(() => vi.unstubAllGlobals())

    // The server's pages of 2 rows (events at 5000, 5000, 5000, 6000: three share one ns),
    // each with the next page's cursor, as GET /events?format=json answers.
    const SERVER: EventRow[] = [5000, 5000, 5000, 6000].map((ts, i) => ({ ...ROWS[0], ts_ns: ts, task_pid: 20 + i, task_comm: i === 2 ? 'wanted' : 'sh' }))
    const pages: Record<string, { rows: EventRow[]; next: string | null }> = {
      '': { rows: SERVER.slice(0, 2), next: '5000.2' },
      '5000.2': { rows: SERVER.slice(2, 4), next: null },
    }
    const urls: string[] = []
    const fakeFetch = async (url: string) => {
      urls.push(url)
      const page = pages[new URL(url, 'http://x').searchParams.get('cursor') ?? '']
      return new Response(JSON.stringify(page.rows), {
        status: 200, headers: page.next ? { 'X-Kscope-Next-Cursor': page.next } : {} })
    }
    const server = () => openTraceStore({ name: 's', format: 'ftrace', origin: { kind: 'server', id: 'abc' }, stats: STATS,
      header: [], columns: columnsFromRows(ROWS.slice(0, 1)),
      window: { extentT0: 1000, extentT1: 6000, cpus: [0, 1], totalEvents: 5, loaded: { t0: 500, t1: 1500, truncated: false } } })

    it('follows X-Kscope-Next-Cursor forward: no row sharing a ns is skipped', async () => {
      urls.length = 0
      vi.stubGlobal('fetch', fakeFetch)
      expect(await stepEvent(server(), 1000, { comm: 'wanted' }, 1)).toMatchObject({ kind: 'time', ts: 5000 })
      expect(urls).toHaveLength(2)
      expect(urls[1]).toContain('cursor=5000.2')
    })

    it('ends when the last page has no cursor', async () => {
      urls.length = 0
      vi.stubGlobal('fetch', fakeFetch)
      expect(await stepEvent(server(), 1000, { comm: 'nobody' }, 1)).toBeNull()
      expect(urls).toHaveLength(2)
    })
  })
})
