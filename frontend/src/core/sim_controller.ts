/*
 * The Simulate page's store: the SimState (pure actions in sim_state.ts), the
 * one Simulation the engine runs for it, and the playback clock.
 *
 *   action ──> new SimState ──> engine brought to it (new run / step / seek)
 *                                   │
 *   views <── { state, view } <─────┘ frame + recent events, read once
 *
 * Views subscribe (useSyncExternalStore) and call the actions; they never
 * touch the engine. While playing, each animation frame makes one advance and
 * one frame read (Simulation documents the call counts); the URL is written
 * when playback stops, not 60 times a second.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import { WorkloadError, eventTypeMask, type KscopeCore, type Simulation } from '../engine/wasm_bridge'
import { useKscopeCore } from './machine'
import { moveDurationMs, startClock, tick, type ClockState } from './playback'
import {
  arrive, followSimUrl, newRun, pause, play, runParams, sameRun, searchForSimState, seek, setAllLlcs, setRunTo,
  setSpeed, simStateFromSearch, step, stepBack, togglePlay, toggleLlc, type RunParams, type SimState,
} from './sim_state'
import type { UrlHost } from './state'
import type { EventType, PresetInfo, SimEvent, SimFrame, Topology } from './types'
import { CUSTOM_WORKLOAD, exampleWorkload } from './workloads'

/** Why there is no run on screen. */
export type SimProblem =
  | {
      kind: 'workload'
      /** "workload line 9, column 20, field "processes[0].threads": must be ..." */
      message: string
      line: number
      column: number
      field: string
      detail: string
    }
  | { kind: 'preset' | 'unknown-workload' | 'core'; message: string }

export interface SimView {
  /** The machine of the run (null until the core is loaded, or on error). */
  topology: Topology | null
  frame: SimFrame | null
  /** The frame before this change, when the change is small enough to animate (else null). */
  previous: SimFrame | null
  /** How long moves between CPUs should take, ms (0: jump). */
  moveMs: number
  /** The last events up to the frame, oldest first (the newest led to the frame). */
  events: readonly SimEvent[]
  problem: SimProblem | null
  /** A one-off message about the last action, e.g. that "run to next" reached the end. */
  notice: string | null
}

export interface SimSnapshot {
  state: SimState
  view: SimView
}

export interface SimActions {
  newRun(change: Partial<RunParams>): void
  step(): void
  stepBack(): void
  seek(n: number): void
  play(): void
  pause(): void
  togglePlay(): void
  setSpeed(eventsPerSecond: number): void
  setRunTo(type: EventType): void
  /** Runs to the next event of the selected type ("run to next"). */
  runToNext(): void
  toggleLlc(llc: number): void
  setAllLlcs(open: boolean): void
  /** Validates a workload with the C parser on the current machine: null if fine. */
  checkWorkload(json: string): SimProblem | null
}

/** The window, as far as the store needs it (a fake in tests). */
export interface SimHost extends UrlHost {
  requestAnimationFrame(cb: (ms: number) => void): number
  cancelAnimationFrame(id: number): void
  addEventListener(type: 'popstate', fn: () => void): void
  removeEventListener(type: 'popstate', fn: () => void): void
}

/** Steps between two frames beyond which moves are not animated (a jump, not a story). */
const MAX_ANIMATED_STEPS = 50

const emptyView: SimView = { topology: null, frame: null, previous: null, moveMs: 0, events: [], problem: null, notice: null }

type UrlWrite = 'push' | 'replace' | 'none'

function problemOf(err: unknown): SimProblem {
  if (err instanceof WorkloadError) {
    return { kind: 'workload', message: err.message, line: err.line, column: err.column, field: err.field, detail: err.detail }
  }
  const message = err instanceof Error ? err.message : String(err)
  return { kind: /^preset /.test(message) ? 'preset' : 'core', message }
}

/** The workload text a state names, or a problem. */
function workloadText(params: RunParams): { json: string } | { problem: SimProblem } {
  if (params.workload === CUSTOM_WORKLOAD) return { json: params.customJson ?? '' }
  const example = exampleWorkload(params.workload)
  if (example) return { json: example.json }
  return { problem: { kind: 'unknown-workload', message: `No example workload called "${params.workload}"` } }
}

export class SimController {
  private snapshot: SimSnapshot
  private readonly listeners = new Set<() => void>()
  private core: KscopeCore | null = null
  private sim: Simulation | null = null
  private simParams: RunParams | null = null
  private raf = 0
  private clock: ClockState = startClock()
  readonly actions: SimActions
  private readonly host: SimHost

  constructor(host: SimHost) {
    this.host = host
    this.snapshot = { state: simStateFromSearch(host.location.search), view: emptyView }
    const act = (f: (s: SimState) => SimState, url: UrlWrite = 'replace') => () => this.apply(f(this.snapshot.state), url)
    this.actions = {
      newRun: (change) => this.apply(newRun(this.snapshot.state, change), 'push'),
      step: act(step),
      stepBack: act(stepBack),
      seek: (n) => this.apply(seek(this.snapshot.state, n), 'replace'),
      play: act(play, 'none'),
      pause: act(pause),
      togglePlay: () => {
        const next = togglePlay(this.snapshot.state)
        this.apply(next, next.playing ? 'none' : 'replace')
      },
      setSpeed: (speed) => this.apply(setSpeed(this.snapshot.state, speed), 'none'),
      setRunTo: (type) => this.apply(setRunTo(this.snapshot.state, type), 'none'),
      runToNext: () => this.runToNext(),
      toggleLlc: (llc) => {
        const t = this.snapshot.view.topology
        if (t) this.apply(toggleLlc(this.snapshot.state, llc, t.cpus.length, llcIds(t)), 'replace')
      },
      setAllLlcs: (open) => {
        const t = this.snapshot.view.topology
        if (t) this.apply(setAllLlcs(this.snapshot.state, open, llcIds(t)), 'replace')
      },
      checkWorkload: (json) => this.checkWorkload(json),
    }
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = () => this.snapshot

  /** JS->wasm calls the current run has made (diagnostics; tests check the per-frame budget). */
  wasmCalls(): number {
    return this.sim?.wasmCalls() ?? 0
  }

  /** Connects the loaded core: builds the run the URL names. Returns the disconnect. */
  start(core: KscopeCore): () => void {
    this.core = core
    const onPopState = () => this.apply(followSimUrl(this.snapshot.state, this.host.location.search), 'none')
    this.host.addEventListener('popstate', onPopState)
    // First load: make the defaults explicit in the URL without adding a Back step.
    this.apply(this.snapshot.state, 'replace')
    return () => {
      this.host.removeEventListener('popstate', onPopState)
      this.stopClock()
      this.sim?.free()
      this.sim = null
      this.simParams = null
      this.core = null
    }
  }

  // ---- bringing the engine to the state -------------------------------------------

  private apply(wanted: SimState, url: UrlWrite, notice: string | null = null) {
    const before = this.snapshot
    if (wanted === before.state && !notice && this.sim) return
    let state = wanted
    let view: SimView = { ...before.view, notice }
    if (this.core) {
      const params = runParams(state)
      const fresh = !this.simParams || !sameRun(params, this.simParams)
      if (fresh) view = this.rebuild(params, notice)
      if (this.sim) {
        const from = this.sim.currentStep
        this.moveTo(state.step)
        state = arrive(state, this.sim.currentStep, this.sim.finished)
        const frame = this.sim.frame()
        const small = !fresh && Math.abs(frame.step - from) <= MAX_ANIMATED_STEPS && frame.step !== from
        view = {
          ...view,
          frame,
          previous: small ? before.view.frame : null,
          moveMs: small ? moveDurationMs(false, state.speed) : 0,
          events: this.sim.recentEvents(),
        }
      } else {
        state = arrive({ ...state, playing: false }, state.step, state.finished)
      }
    }
    this.publish({ state, view }, url)
  }

  /** A new Simulation for params (the old one freed), or a problem. */
  private rebuild(params: RunParams, notice: string | null): SimView {
    this.sim?.free()
    this.sim = null
    this.simParams = params
    const text = workloadText(params)
    if ('problem' in text) return { ...emptyView, problem: text.problem, notice }
    try {
      this.sim = this.core!.simulate({ preset: params.preset, workloadJson: text.json, seed: params.seed })
      return { ...emptyView, topology: this.sim.topology, notice }
    } catch (err) {
      return { ...emptyView, problem: problemOf(err), notice }
    }
  }

  private moveTo(target: number) {
    const sim = this.sim!
    const at = sim.currentStep
    if (target === at) return
    if (target === at + 1) sim.step()
    else if (target === at - 1) sim.stepBack()
    else sim.seek(target)
  }

  private runToNext() {
    const sim = this.sim
    if (!sim) return
    const state = pause(this.snapshot.state)
    const type = state.runTo
    const from = sim.currentStep
    const result = sim.runUntil({ typeMask: eventTypeMask([type]) })
    const notice = result.stoppedBy === 'end' ? `No ${type} before the run ended (${result.events} events later).` : null
    const frame = sim.frame()
    const small = result.events <= MAX_ANIMATED_STEPS
    const next = arrive({ ...state, step: sim.currentStep }, sim.currentStep, sim.finished)
    this.publish(
      {
        state: next,
        view: {
          ...this.snapshot.view,
          frame,
          previous: small && frame.step !== from ? this.snapshot.view.frame : null,
          moveMs: small ? moveDurationMs(false, state.speed) : 0,
          events: sim.recentEvents(),
          notice,
        },
      },
      'replace',
    )
  }

  private checkWorkload(json: string): SimProblem | null {
    if (!this.core) return { kind: 'core', message: 'The C core is not loaded yet' }
    const { preset, seed } = this.snapshot.state
    try {
      this.core.simulate({ preset, workloadJson: json, seed }).free()
      return null
    } catch (err) {
      return problemOf(err)
    }
  }

  // ---- playback --------------------------------------------------------------------

  private onFrame = (ms: number) => {
    this.raf = 0
    const { state, view } = this.snapshot
    const sim = this.sim
    if (!state.playing || !sim) return
    const { due, clock } = tick(this.clock, ms, state.speed)
    this.clock = clock
    if (due > 0) {
      sim.advance(due) // one wasm call (two when several events are due: see Simulation)
      const frame = sim.frame() // one wasm call
      const next = arrive({ ...state, step: sim.currentStep }, sim.currentStep, sim.finished)
      this.publish(
        {
          state: next,
          view: { ...view, frame, previous: view.frame, moveMs: moveDurationMs(true, state.speed), events: sim.recentEvents(), notice: null },
        },
        next.playing ? 'none' : 'replace',
      )
    } else {
      this.raf = this.host.requestAnimationFrame(this.onFrame)
    }
  }

  private stopClock() {
    if (this.raf) this.host.cancelAnimationFrame(this.raf)
    this.raf = 0
    this.clock = startClock()
  }

  private publish(snapshot: SimSnapshot, url: UrlWrite) {
    const wasPlaying = this.snapshot.state.playing
    this.snapshot = snapshot
    const { state } = snapshot
    if (state.playing && !this.raf) {
      if (!wasPlaying) this.clock = startClock()
      this.raf = this.host.requestAnimationFrame(this.onFrame)
    } else if (!state.playing) {
      this.stopClock()
    }
    if (url !== 'none') syncSimUrl(state, this.host, url)
    for (const listener of this.listeners) listener()
  }
}

/** The machine's L3 ids, ascending. */
export function llcIds(topology: Topology): number[] {
  return [...new Set(topology.cpus.map((c) => c.llc))].sort((a, b) => a - b)
}

/**
 * Writes the state into the URL if the URL says otherwise: a new history entry
 * for a new run (Back returns to the previous one), an edit of the current
 * entry for a step. Returns whether it wrote.
 */
export function syncSimUrl(state: SimState, host: UrlHost, mode: 'push' | 'replace'): boolean {
  const { search, pathname, hash } = host.location
  const wanted = searchForSimState(state, search)
  if (wanted === search) return false
  const url = `${pathname}${wanted}${hash}`
  if (mode === 'push') host.history.pushState(null, '', url)
  else host.history.replaceState(null, '', url)
  return true
}

export interface UseSimulation extends SimSnapshot {
  actions: SimActions
  presets: PresetInfo[]
  /** 'loading' until the C core is ready; 'error' if it failed to load (message in view.problem). */
  core: 'loading' | 'ready' | 'error'
  coreVersion: string
}

/** The Simulate page's store, for React: one controller per page visit. */
export function useSimulation(): UseSimulation {
  const core = useKscopeCore()
  const controller = useMemo(() => new SimController(window), [])
  useEffect(() => (core.status === 'ready' ? controller.start(core.core) : undefined), [core, controller])
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const view =
    core.status === 'error' ? { ...snapshot.view, problem: { kind: 'core' as const, message: core.message } } : snapshot.view
  return {
    ...snapshot,
    view,
    actions: controller.actions,
    presets: core.status === 'ready' ? core.presets : [],
    core: core.status,
    coreVersion: core.status === 'ready' ? core.version : '',
  }
}
