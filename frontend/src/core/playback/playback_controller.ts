/*
 * The store of a playback page: Simulate and every model's lesson. A page's
 * state S (pure actions in <page>_state.ts), the engine runs the page builds
 * for it, the playback clock.
 *
 *   action ──> new S ──> runs rebuilt if S names another run (buildRuns)
 *                          │ then brought to S.step (landRuns): the page's part
 *   views <── { state, view } <─┘ published once; the URL written as the action says
 *
 * A page subclasses PlaybackController and supplies only what differs: its
 * state's pure functions (PlaybackStateFns: URL in and out, what defines a run,
 * where the engine landed), how to build and free its runs, how to bring them
 * to a step, and how one animation frame advances them. This class owns the
 * rest: subscribe/getSnapshot (useSyncExternalStore), the named playback
 * actions, the URL writes, Back/Forward, and the requestAnimationFrame clock.
 *
 * URL writes: 'push' for a new run (Back returns to the previous one),
 * 'replace' for a move within it, 'none' for what the URL does not hold
 * (speed, what "run to next" stops at) and while playing: the URL is written
 * when playback stops, not 60 times a second. Views subscribe and call the
 * actions; they never touch the engine (STYLE.md habit 5). Keys are the
 * page's business (views/playback), not the store's.
 *
 * A new lesson: <lesson>_state.ts (its state extends PlaybackState, re-exports
 * the playback actions, and supplies PlaybackStateFns), <lesson>_controller.ts
 * (a subclass with the five engine methods below, plus its own actions, e.g.
 * "run to next"), and a page that puts views/playback's controls in its toolbar
 * and calls usePlaybackKeys.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import type { KscopeCore } from '../../engine/wasm_bridge'
import { useKscopeCore, type CoreState } from '../machine/machine'
import { startClock, tick, type ClockState } from './playback'
import { pause, play, seek, setSpeed, step, stepBack, togglePlay, type PlaybackState } from './playback_state'
import type { UrlHost } from '../machine/state'
import type { PresetInfo } from '../shared/types'

/** How an action writes the URL: a new history entry, an edit of the current one, or not at all. */
export type UrlWrite = 'push' | 'replace' | 'none'

/** What every page's view has: why nothing is shown, and a one-off message about the last action. */
export interface PlaybackView {
  problem: { kind: string; message: string } | null
  notice: string | null
}

export interface PlaybackSnapshot<S, V> {
  state: S
  view: V
}

/** The actions every playback page offers (bound to the controller: safe to pass as callbacks). */
export interface PlaybackActions<P> {
  /** Starts a run with some of its parameters changed, from step 0, paused (a new history entry). */
  newRun(change: Partial<P>): void
  step(): void
  stepBack(): void
  seek(n: number): void
  play(): void
  pause(): void
  togglePlay(): void
  setSpeed(stepsPerSecond: number): void
}

/** A page state's pure functions the store needs (all in <page>_state.ts). */
export interface PlaybackStateFns<S extends PlaybackState, P> {
  /** State described by a query string (first load). */
  fromSearch(search: string): S
  /** The query string for a state, keeping unrelated parameters of `search`. */
  searchFor(state: S, search: string): string
  /** Action: Back/Forward changed the URL under us. */
  followUrl(state: S, search: string): S
  /** Action: a new run (see PlaybackActions.newRun). */
  newRun(state: S, change: Partial<P>): S
  /** What defines a run: when it changes, the runs are built anew. */
  runParams(state: S): P
  sameRun(a: P, b: P): boolean
  /** Where the engine landed: the step reached and whether the run is over (which stops playback). */
  arrive(state: S, reached: number, finished: boolean): S
}

/** The window, as far as the store needs it (a fake in tests). */
export interface PlaybackHost extends UrlHost {
  requestAnimationFrame(cb: (ms: number) => void): number
  cancelAnimationFrame(id: number): void
  addEventListener(type: 'popstate', fn: () => void): void
  removeEventListener(type: 'popstate', fn: () => void): void
}

export abstract class PlaybackController<S extends PlaybackState, V extends PlaybackView, P> {
  protected snapshot: PlaybackSnapshot<S, V>
  protected core: KscopeCore | null = null
  /** The parameters the current runs were built for (null: none built yet). */
  protected builtFor: P | null = null
  protected readonly host: PlaybackHost
  /** The pathname this controller's page lives at (writeUrl leaves other pages' URLs alone). */
  private readonly page: string
  private readonly fns: PlaybackStateFns<S, P>
  private readonly listeners = new Set<() => void>()
  private raf = 0
  private playClock: ClockState = startClock()

  constructor(host: PlaybackHost, fns: PlaybackStateFns<S, P>, emptyView: V) {
    this.host = host
    this.page = host.location.pathname
    this.fns = fns
    this.snapshot = { state: fns.fromSearch(host.location.search), view: emptyView }
  }

  // ---- what a page supplies ----------------------------------------------------------

  /** Whether runs are built and can be moved (false before the first build, or after a problem). */
  protected abstract hasRuns(): boolean
  /** Builds the runs for params (the old ones already freed): the fresh view, or one with a problem. */
  protected abstract buildRuns(core: KscopeCore, params: P, notice: string | null): V
  /** Frees the runs' engine objects. */
  protected abstract freeRuns(): void
  /**
   * Brings the runs to state.step: the state where they landed (arrive()) and what
   * they show. `fresh`: the runs were just built; `before`: the snapshot on screen.
   */
  protected abstract landRuns(state: S, view: V, before: PlaybackSnapshot<S, V>, fresh: boolean): PlaybackSnapshot<S, V>
  /** One animation frame's move while playing: `due` steps on (>= 1), as cheaply as the engine allows. */
  protected abstract advanceRuns(due: number): PlaybackSnapshot<S, V>

  // ---- the store ---------------------------------------------------------------------

  subscribe = (listener: () => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = () => this.snapshot

  /** Connects the loaded core: builds the runs the URL names. Returns the disconnect. */
  start(core: KscopeCore): () => void {
    this.core = core
    const onPopState = () => this.apply(this.fns.followUrl(this.snapshot.state, this.host.location.search), 'none')
    this.host.addEventListener('popstate', onPopState)
    // First load: make the defaults explicit in the URL without adding a Back step.
    this.apply(this.snapshot.state, 'replace')
    return () => {
      this.host.removeEventListener('popstate', onPopState)
      this.stopClock()
      this.freeRuns()
      this.builtFor = null
      this.core = null
    }
  }

  /** The playback actions, for the page's `actions` (each a pure state action, then apply). */
  protected playbackActions(): PlaybackActions<P> {
    const act = (f: (s: S) => S, url: UrlWrite) => () => this.apply(f(this.snapshot.state), url)
    return {
      newRun: (change) => this.apply(this.fns.newRun(this.snapshot.state, change), 'push'),
      step: act(step, 'replace'),
      stepBack: act(stepBack, 'replace'),
      seek: (n) => this.apply(seek(this.snapshot.state, n), 'replace'),
      play: act(play, 'none'),
      pause: act(pause, 'replace'),
      togglePlay: () => {
        const next = togglePlay(this.snapshot.state)
        this.apply(next, next.playing ? 'none' : 'replace')
      },
      setSpeed: (speed) => this.apply(setSpeed(this.snapshot.state, speed), 'none'),
    }
  }

  // ---- bringing the engine to the state ------------------------------------------------

  /** Brings the engine to `wanted` and publishes where it landed (nothing if nothing changes). */
  protected apply(wanted: S, url: UrlWrite, notice: string | null = null) {
    if (wanted === this.snapshot.state && !notice && this.hasRuns()) return
    this.publish(this.land(wanted, notice), url)
  }

  /** The snapshot once the engine is at `wanted` (runs rebuilt if it names another run). */
  protected land(wanted: S, notice: string | null): PlaybackSnapshot<S, V> {
    const before = this.snapshot
    const view: V = { ...before.view, notice }
    if (!this.core) return { state: wanted, view }
    const params = this.fns.runParams(wanted)
    const fresh = !this.builtFor || !this.fns.sameRun(params, this.builtFor)
    const built = fresh ? this.rebuild(this.core, params, notice) : view
    if (this.hasRuns()) return this.landRuns(wanted, built, before, fresh)
    return { state: this.fns.arrive({ ...wanted, playing: false }, wanted.step, wanted.finished), view: built }
  }

  private rebuild(core: KscopeCore, params: P, notice: string | null): V {
    this.freeRuns()
    this.builtFor = params
    return this.buildRuns(core, params, notice)
  }

  // ---- playback --------------------------------------------------------------------

  private onFrame = (ms: number) => {
    this.raf = 0
    const { state } = this.snapshot
    if (!state.playing || !this.hasRuns()) return
    const { due, clock } = tick(this.playClock, ms, state.speed)
    this.playClock = clock
    if (due > 0) {
      const next = this.advanceRuns(due)
      this.publish(next, next.state.playing ? 'none' : 'replace')
    } else {
      this.raf = this.host.requestAnimationFrame(this.onFrame)
    }
  }

  private stopClock() {
    if (this.raf) this.host.cancelAnimationFrame(this.raf)
    this.raf = 0
    this.playClock = startClock()
  }

  /** Shows a snapshot: starts or stops the clock, writes the URL, tells the views. */
  protected publish(snapshot: PlaybackSnapshot<S, V>, url: UrlWrite) {
    const wasPlaying = this.snapshot.state.playing
    this.snapshot = snapshot
    const { state } = snapshot
    if (state.playing) {
      if (!wasPlaying) this.playClock = startClock()
      if (!this.raf) this.raf = this.host.requestAnimationFrame(this.onFrame)
    } else {
      this.stopClock()
    }
    if (url !== 'none') this.writeUrl(state, url)
    for (const listener of this.listeners) listener()
  }

  /**
   * Writes the state into the URL if the URL says otherwise, and only while the URL is
   * still this controller's page: a page left for another (a link followed while the core
   * was loading, so its first build lands after the navigation) must not write its state
   * into the next page's URL.
   */
  private writeUrl(state: S, mode: 'push' | 'replace') {
    const { search, pathname, hash } = this.host.location
    if (pathname !== this.page) return
    const wanted = this.fns.searchFor(state, search)
    if (wanted === search) return
    const url = `${pathname}${wanted}${hash}`
    if (mode === 'push') this.host.history.pushState(null, '', url)
    else this.host.history.replaceState(null, '', url)
  }
}

/** A playback page's store as its React hook returns it. */
export interface UsePlayback<S, V, A> extends PlaybackSnapshot<S, V> {
  actions: A
  presets: PresetInfo[]
  /** 'loading' until the C core is ready; 'error' if it failed to load (message in view.problem). */
  core: 'loading' | 'ready' | 'error'
  coreVersion: string
}

/**
 * A playback page's store, for React: one controller per page visit, connected
 * once the C core is loaded. Returns the page's store and the core (for what
 * else the page asks of it).
 */
export function usePlayback<S extends PlaybackState, V extends PlaybackView, A>(
  create: (host: PlaybackHost) => PlaybackController<S, V, unknown> & { readonly actions: A },
): [UsePlayback<S, V, A>, CoreState] {
  const core = useKscopeCore()
  const controller = useMemo(() => create(window), [])
  useEffect(() => (core.status === 'ready' ? controller.start(core.core) : undefined), [core, controller])
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const view: V = core.status === 'error' ? { ...snapshot.view, problem: { kind: 'core', message: core.message } } : snapshot.view
  const page: UsePlayback<S, V, A> = {
    ...snapshot,
    view,
    actions: controller.actions,
    presets: core.status === 'ready' ? core.presets : [],
    core: core.status,
    coreVersion: core.status === 'ready' ? core.version : '',
  }
  return [page, core]
}
