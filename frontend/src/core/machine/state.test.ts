import { describe, expect, it } from 'vitest'
import {
  DEFAULT_PRESET, focusCpu, followUrl, reduce, searchForState, selectPreset, stateFromSearch, syncUrl,
  type UrlHost,
} from './state'

/** A fake window: records history writes ("push url" / "replace url") and applies them to location. */
function fakeHost(search: string): UrlHost & { writes: string[] } {
  const write = (kind: string, url: string) => {
    host.writes.push(`${kind} ${url}`)
    host.location.search = url.slice(url.indexOf('?'))
  }
  const host = {
    writes: [] as string[],
    location: { search, pathname: '/', hash: '' },
    history: {
      pushState: (_data: unknown, _unused: string, url: string) => write('push', url),
      replaceState: (_data: unknown, _unused: string, url: string) => write('replace', url),
    },
  }
  return host
}

describe('URL state', () => {
  it('defaults to the classroom machine', () => {
    expect(stateFromSearch('')).toEqual({ preset: DEFAULT_PRESET, focusedCpu: null })
    expect(DEFAULT_PRESET).toBe('classroom-8')
    expect(stateFromSearch('?preset=').preset).toBe('classroom-8')
  })

  it('reads the preset from ?preset=', () => {
    expect(stateFromSearch('?preset=epyc-9654-2s').preset).toBe('epyc-9654-2s')
  })

  it('selectPreset returns new state, clears the focused CPU and leaves the old state alone', () => {
    const before = focusCpu(stateFromSearch(''), 5)
    const after = selectPreset(before, 'epyc-9654-2s')
    expect(after).toEqual({ preset: 'epyc-9654-2s', focusedCpu: null })
    expect(before).toEqual({ preset: 'classroom-8', focusedCpu: 5 })
    expect(selectPreset(after, 'epyc-9654-2s')).toBe(after)
  })

  it('a selected preset round-trips through the URL', () => {
    const state = selectPreset(stateFromSearch(''), 'epyc-9654-2s')
    const search = searchForState(state, '?lesson=llc&preset=classroom-8')
    expect(new URLSearchParams(search).get('preset')).toBe('epyc-9654-2s')
    expect(new URLSearchParams(search).get('lesson')).toBe('llc')
    expect(stateFromSearch(search).preset).toBe('epyc-9654-2s')
  })

  it('syncUrl pushes one history entry per change, none when the URL already agrees', () => {
    const host = fakeHost('')
    let state = stateFromSearch(host.location.search)
    // First load makes the default explicit (the link is shareable) without adding a Back step.
    expect(syncUrl(state, host, { replace: true })).toBe(true)
    state = reduce(state, { type: 'selectPreset', preset: 'epyc-9654-2s' })
    expect(syncUrl(state, host)).toBe(true)
    expect(syncUrl(state, host)).toBe(false)
    expect(host.writes).toEqual(['replace /?preset=classroom-8', 'push /?preset=epyc-9654-2s'])
  })

  it('followUrl adopts the preset of a URL reached with Back', () => {
    const state = reduce(stateFromSearch('?preset=epyc-9654-2s'), { type: 'focusCpu', cpu: 197 })
    expect(followUrl(state, '?preset=classroom-8')).toEqual({ preset: 'classroom-8', focusedCpu: null })
    expect(reduce(state, { type: 'followUrl', search: '?preset=epyc-9654-2s' })).toBe(state)
  })
})
