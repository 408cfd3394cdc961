// The Simulate page's pure state: named actions and the URL that reproduces a view.
import { describe, expect, it } from 'vitest'
import {
  arrive, followSimUrl, initialSimState, newRun, openLlcSet, pause, play, searchForSimState, seek, setAllLlcs,
  setSpeed, simStateFromSearch, step, stepBack, toggleLlc,
} from './sim_state'

describe('simulation state: actions', () => {
  it('defaults to seed 000 on the classroom machine, step 0, paused', () => {
    expect(initialSimState()).toMatchObject({
      preset: 'classroom-8', workload: 'seed000-8core-200ms', seed: 1, step: 0, playing: false, speed: 5, customJson: null,
    })
  })

  it('step and stepBack move by one and stop playback; the ends are no-ops', () => {
    const s0 = initialSimState()
    expect(stepBack(s0)).toBe(s0)
    const s1 = step(play(s0))
    expect(s1).toMatchObject({ step: 1, playing: false })
    expect(stepBack(s1).step).toBe(0)
    const end = arrive({ ...s1, step: 50 }, 50, true)
    expect(end.finished).toBe(true)
    expect(step(end)).toBe(end)
    expect(play(end)).toBe(end)
    expect(stepBack(end)).toMatchObject({ step: 49, finished: false })
  })

  it('arrive records where the engine landed and stops playback at the end', () => {
    const playing = play(initialSimState())
    expect(arrive({ ...playing, step: 10 }, 10, false)).toMatchObject({ step: 10, playing: true })
    expect(arrive({ ...playing, step: 60 }, 50, true)).toMatchObject({ step: 50, playing: false, finished: true })
  })

  it('newRun starts over at step 0; a new machine closes the old one\'s L3 boxes', () => {
    const s = { ...initialSimState(), step: 40, openLlcs: [1] }
    expect(newRun(s, { seed: 2 })).toMatchObject({ seed: 2, step: 0, openLlcs: [1] })
    expect(newRun(s, { preset: 'epyc-9654-2s' })).toMatchObject({ preset: 'epyc-9654-2s', step: 0, openLlcs: null })
    expect(newRun(s, { seed: -3 }).seed).toBe(1)
    expect(newRun(s, { workload: 'hackbench-2g', customJson: '{}' }).customJson).toBeNull()
    expect(newRun(s, { workload: 'custom', customJson: '{}' }).customJson).toBe('{}')
    const fresh = initialSimState()
    expect(newRun(fresh, {})).toBe(fresh)
  })

  it('seek, speed and pause are plain updates', () => {
    const s = initialSimState()
    expect(seek(s, 120.7).step).toBe(120)
    expect(seek(s, -5).step).toBe(0)
    expect(setSpeed(s, 1000).speed).toBe(1000)
    expect(setSpeed(s, 0)).toBe(s)
    expect(pause(s)).toBe(s)
  })

  it('L3 boxes: all open on small machines, all closed on big ones, then toggled one by one', () => {
    const s = initialSimState()
    expect([...openLlcSet(s, 8, [0, 1])]).toEqual([0, 1])
    expect([...openLlcSet(s, 384, [0, 1, 2])]).toEqual([])
    const drilled = toggleLlc(s, 2, 384, [0, 1, 2])
    expect(drilled.openLlcs).toEqual([2])
    expect(toggleLlc(drilled, 2, 384, [0, 1, 2]).openLlcs).toEqual([])
    expect(toggleLlc(s, 0, 8, [0, 1]).openLlcs).toEqual([1])
    expect(setAllLlcs(s, true, [0, 1, 2]).openLlcs).toEqual([0, 1, 2])
  })
})

describe('simulation state: URL', () => {
  it('reads /simulate?preset=...&workload=...&seed=...&step=...', () => {
    const s = simStateFromSearch('?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=120')
    expect(s).toMatchObject({ preset: 'classroom-8', workload: 'seed000-8core-200ms', seed: 1, step: 120, playing: false, openLlcs: null })
    expect(simStateFromSearch('?step=abc&seed=x')).toMatchObject({ step: 0, seed: 1 })
    expect(simStateFromSearch('?llc=3,5,x').openLlcs).toEqual([3, 5])
  })

  it('round-trips every field that defines the view, keeping unrelated parameters', () => {
    const states = [
      { ...initialSimState(), preset: 'epyc-9654-2s', workload: 'hackbench-2g', seed: 42, step: 3000, openLlcs: [0, 7] },
      { ...initialSimState(), workload: 'custom', customJson: '{\n  "name": "x & y = z?"\n}', step: 7 },
      { ...initialSimState(), seed: 0 },
    ]
    for (const state of states) {
      const search = searchForSimState(state, '?lesson=mm_cid')
      expect(new URLSearchParams(search).get('lesson')).toBe('mm_cid')
      const back = simStateFromSearch(search)
      for (const key of ['preset', 'workload', 'seed', 'step', 'customJson', 'openLlcs'] as const) expect(back[key]).toEqual(state[key])
    }
    expect(searchForSimState(initialSimState())).toBe('?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=0')
  })

  it('followSimUrl adopts the run and step a Back/Forward URL names', () => {
    const playing = play({ ...initialSimState(), step: 30 })
    const back = followSimUrl(playing, '?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=12')
    expect(back).toMatchObject({ step: 12, playing: false })
    const same = pause(playing)
    expect(followSimUrl(same, searchForSimState(same))).toBe(same)
    expect(followSimUrl(same, '?preset=epyc-9654-2s&step=5')).toMatchObject({ preset: 'epyc-9654-2s', step: 5, finished: false })
  })
})
