// The shared playback store with a fake page (a run is a counter to `length`)
// and a fake window: the URL policy, the animation-frame clock, Back/Forward.
// The pages' own tests (sim_controller, lesson_controller) run it on the C core.
import { describe, expect, it } from 'vitest'
import type { KscopeCore } from '../../engine/wasm_bridge'
import { PlaybackController, type PlaybackHost, type PlaybackSnapshot, type PlaybackStateFns } from './playback_controller'
import { cleanStep, type PlaybackState } from './playback_state'

interface CountState extends PlaybackState {
  readonly length: number
}
interface CountView {
  shown: number | null
  builds: number
  problem: null
  notice: string | null
}
type Params = { length: number }

const fromSearch = (search: string): CountState => {
  const q = new URLSearchParams(search)
  return { length: Number(q.get('length') ?? 10), step: cleanStep(Number(q.get('step') ?? 0)), playing: false, speed: 5, finished: false }
}
const COUNT_STATE: PlaybackStateFns<CountState, Params> = {
  fromSearch,
  searchFor: (s) => `?length=${s.length}&step=${s.step}`,
  followUrl: (s, search) => ({ ...s, ...fromSearch(search), speed: s.speed }),
  newRun: (s, change) => ({ ...s, ...change, step: 0, playing: false, finished: false }),
  runParams: (s) => ({ length: s.length }),
  sameRun: (a, b) => a.length === b.length,
  arrive: (s, reached, finished) => ({ ...s, step: reached, finished, playing: s.playing && !finished }),
}

class CountController extends PlaybackController<CountState, CountView, Params> {
  at: number | null = null
  builds = 0
  readonly actions = this.playbackActions()
  constructor(host: PlaybackHost) {
    super(host, COUNT_STATE, { shown: null, builds: 0, problem: null, notice: null })
  }
  protected hasRuns() {
    return this.at !== null
  }
  protected freeRuns() {
    this.at = null
  }
  protected buildRuns(): CountView {
    this.at = 0
    return { ...this.snapshot.view, builds: ++this.builds }
  }
  protected landRuns(wanted: CountState, view: CountView): PlaybackSnapshot<CountState, CountView> {
    this.at = Math.min(wanted.step, wanted.length)
    return { state: COUNT_STATE.arrive(wanted, this.at, this.at === wanted.length), view: { ...view, shown: this.at } }
  }
  protected advanceRuns(due: number) {
    const { state } = this.snapshot
    return this.land({ ...state, step: state.step + due }, null)
  }
}

function fakeHost(search: string) {
  const writes: string[] = []
  const frames = new Map<number, (ms: number) => void>()
  const pops = new Set<() => void>()
  let id = 0
  const host = {
    writes,
    location: { pathname: '/count', search, hash: '' },
    history: {
      pushState: (_d: unknown, _u: string, url: string) => void (writes.push(`push ${url}`), (host.location.search = url.slice(6))),
      replaceState: (_d: unknown, _u: string, url: string) => void (writes.push(`replace ${url}`), (host.location.search = url.slice(6))),
    },
    requestAnimationFrame: (cb: (ms: number) => void) => (frames.set(++id, cb), id),
    cancelAnimationFrame: (n: number) => void frames.delete(n),
    addEventListener: (_t: 'popstate', fn: () => void) => void pops.add(fn),
    removeEventListener: (_t: 'popstate', fn: () => void) => void pops.delete(fn),
    /** Runs the pending animation frame; false if none was pending. */
    frame(ms: number) {
      const pending = [...frames.values()]
      frames.clear()
      pending.forEach((cb) => cb(ms))
      return pending.length > 0
    },
    pop(to: string) {
      host.location.search = to
      pops.forEach((fn) => fn())
    },
  }
  return host satisfies PlaybackHost
}

function open(search: string) {
  const host = fakeHost(search)
  const c = new CountController(host)
  const stop = c.start({} as KscopeCore)
  return { host, c, stop, snap: () => c.getSnapshot() }
}

describe('PlaybackController', () => {
  it('writes the URL as each action says: replace on load and for moves, push for a new run, none for speed', () => {
    const { host, c, snap } = open('')
    expect(host.writes).toEqual(['replace /count?length=10&step=0'])
    c.actions.step()
    c.actions.seek(4)
    c.actions.setSpeed(30)
    expect(host.writes.slice(1)).toEqual(['replace /count?length=10&step=1', 'replace /count?length=10&step=4'])
    expect(snap().state.speed).toBe(30)
    c.actions.newRun({ length: 3 })
    expect(host.writes.at(-1)).toBe('push /count?length=3&step=0')
    expect(snap().view).toMatchObject({ shown: 0, builds: 2 })
    c.actions.seek(99)
    expect(snap().state).toMatchObject({ step: 3, finished: true })
  })

  it('plays on animation frames, writes the URL only when playback stops, and then asks for no more frames', () => {
    const { host, c, snap } = open('?length=6&step=0')
    c.actions.play()
    expect(host.frame(0)).toBe(true) // the first frame shows one step at once
    expect(snap().state.step).toBe(1)
    expect(host.frame(100)).toBe(true) // 100 ms at 5 steps/s: 0.5 due, nothing shown
    expect(snap().state.step).toBe(1)
    expect(host.frame(200)).toBe(true)
    expect(snap().state.step).toBe(2)
    expect(host.writes).toEqual([]) // the link was explicit already, and playing writes nothing
    c.actions.setSpeed(1000)
    host.frame(300)
    expect(snap().state).toMatchObject({ step: 6, playing: false, finished: true })
    expect(host.writes.at(-1)).toBe('replace /count?length=6&step=6')
    expect(host.frame(400)).toBe(false)
  })

  it('never writes its state into another page\'s URL (a link followed before the core was ready)', () => {
    const host = fakeHost('')
    const c = new CountController(host)
    host.location.pathname = '/learn' // the user left; this page's first build lands afterwards
    c.start({} as KscopeCore)
    c.actions.step()
    expect(host.writes).toEqual([])
    expect(host.location.search).toBe('')
  })

  it('follows Back/Forward (stopping playback) without writing the URL, and frees the runs on disconnect', () => {
    const { host, c, snap, stop } = open('?length=8&step=2')
    c.actions.play()
    host.frame(0)
    const written = host.writes.length
    host.pop('?length=8&step=5')
    expect(snap().state).toMatchObject({ step: 5, playing: false })
    expect(snap().view.builds).toBe(1)
    expect(host.writes.length).toBe(written)
    expect(host.frame(50)).toBe(false)
    stop()
    expect(c.at).toBeNull()
  })
})
