// A share link's token goes with its own trace's reads only (the client half of cross-trace
// isolation; the server checks it too: backend/tests/test_api_shares.py).
import { describe, expect, it } from 'vitest'
import { eventsUrl, receivedShareToken, requestHeaders, setShareToken } from './traces_api'

describe('share tokens in requests', () => {
  it('sends a trace\'s share token with that trace\'s reads and no other', () => {
    setShareToken('ab12', 'tok-ab12-aaaaaaaaaaaaaaaa')
    expect(receivedShareToken('ab12')).toBe('tok-ab12-aaaaaaaaaaaaaaaa')
    expect(requestHeaders(eventsUrl('ab12', { t0: 1, t1: 2 }))).toEqual({ 'X-Kscope-Share': 'tok-ab12-aaaaaaaaaaaaaaaa' })
    expect(requestHeaders(eventsUrl('cd34', { t0: 1, t1: 2 }))).toEqual({})
    expect(requestHeaders('/api/traces/ab12/summary?t0=1')).toEqual({ 'X-Kscope-Share': 'tok-ab12-aaaaaaaaaaaaaaaa' })
    setShareToken('ab12', '')
    expect(receivedShareToken('ab12')).toBe('')
    expect(requestHeaders(eventsUrl('ab12', {}))).toEqual({})
  })
})
