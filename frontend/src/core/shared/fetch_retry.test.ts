// 429 answers are retried after their Retry-After, a bounded number of times.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fetchRetrying } from './fetch_retry'

describe('fetchRetrying', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('retries a 429 after Retry-After, then returns the answer', async () => {
    const answers = [new Response('busy', { status: 429, headers: { 'Retry-After': '2' } }), new Response('ok')]
    vi.stubGlobal('fetch', async () => answers.shift()!)
    const waits: number[] = []
    const res = await fetchRetrying('/x', {}, 3, async (ms) => { waits.push(ms) })
    expect(await res.text()).toBe('ok')
    expect(waits).toEqual([2000])
  })

  it('gives up after `tries` retries and returns the last 429', async () => {
    vi.stubGlobal('fetch', async () => new Response('busy', { status: 429 }))
    const waits: number[] = []
    const res = await fetchRetrying('/x', {}, 2, async (ms) => { waits.push(ms) })
    expect(res.status).toBe(429)
    expect(waits).toEqual([1000, 1000])
  })
})
