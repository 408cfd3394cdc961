/*
 * The Simulate page's store: the SimState (pure actions in sim_state.ts) and
 * the one Simulation the engine runs for it, on the shared playback store
 * (playback_controller.ts: snapshot, URL, Back/Forward, the playback clock).
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
import { WorkloadError } from '../../engine/core_errors'
import { eventTypeMask } from '../../engine/sim_records'
import type { KscopeCore, Simulation } from '../../engine/wasm_bridge'
import { moveDurationMs } from '../playback/playback'
import {
  PlaybackController, usePlayback, type PlaybackActions, type PlaybackHost, type PlaybackSnapshot, type PlaybackStateFns,
  type UsePlayback,
} from '../playback/playback_controller'
import {
  arrive, followSimUrl, newRun, pause, runParams, sameRun, searchForSimState, setAllLlcs, setRunTo, simStateFromSearch,
  toggleLlc, type RunParams, type SimState,
} from './sim_state'
import type { EventType, SimEvent, SimFrame, Topology } from '../shared/types'
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
  /**
   * The kernel model the run uses (SIM_ALGO resolved by the core): "mm_cid:v6.18" when a
   * process of the workload registers rseq, "none" when none does; null before a run.
   */
  algo: string | null
}

/**
 * The /simulate page's algorithm: what a current kernel runs. Every kernel since 6.3 with
 * CONFIG_SCHED_MM_CID gives rseq threads a concurrency id, so "auto" runs the 6.18 mm_cid
 * model where a process registers rseq (else none: no rseq_update, no cid to show).
 */
export const SIM_ALGO = 'auto'

export type SimSnapshot = PlaybackSnapshot<SimState, SimView>

/** The playback actions (speed in events per second), and the Simulate page's own. */
export interface SimActions extends PlaybackActions<RunParams> {
  setRunTo(type: EventType): void
  /** Runs to the next event of the selected type ("run to next"). */
  runToNext(): void
  toggleLlc(llc: number): void
  setAllLlcs(open: boolean): void
  /** Validates a workload with the C parser on the current machine: null if fine. */
  checkWorkload(json: string): SimProblem | null
}

/** The window, as far as the store needs it (a fake in tests). */
export type SimHost = PlaybackHost

/** SimState's pure functions, for the playback store. */
const SIM_STATE: PlaybackStateFns<SimState, RunParams> = {
  fromSearch: simStateFromSearch,
  searchFor: searchForSimState,
  followUrl: followSimUrl,
  newRun,
  runParams,
  sameRun,
  arrive,
}

/** Steps between two frames beyond which moves are not animated (a jump, not a story). */
const MAX_ANIMATED_STEPS = 50

const emptyView: SimView = { topology: null, frame: null, previous: null, moveMs: 0, events: [], problem: null, notice: null, algo: null }

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

export class SimController extends PlaybackController<SimState, SimView, RunParams> {
  private sim: Simulation | null = null
  readonly actions: SimActions

  constructor(host: SimHost) {
    super(host, SIM_STATE, emptyView)
    this.actions = {
      ...this.playbackActions(),
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

  /** JS->wasm calls the current run has made (diagnostics; tests check the per-frame budget). */
  wasmCalls(): number {
    return this.sim?.wasmCalls() ?? 0
  }

  // ---- bringing the engine to the state -------------------------------------------

  protected hasRuns(): boolean {
    return this.sim !== null
  }

  protected freeRuns() {
    this.sim?.free()
    this.sim = null
  }

  /** A new Simulation for params, or a problem. */
  protected buildRuns(core: KscopeCore, params: RunParams, notice: string | null): SimView {
    const text = workloadText(params)
    if ('problem' in text) return { ...emptyView, problem: text.problem, notice }
    try {
      this.sim = core.simulate({ preset: params.preset, workloadJson: text.json, seed: params.seed, algo: SIM_ALGO })
      return { ...emptyView, topology: this.sim.topology, notice, algo: this.sim.algo }
    } catch (err) {
      return { ...emptyView, problem: problemOf(err), notice }
    }
  }

  protected landRuns(wanted: SimState, view: SimView, before: SimSnapshot, fresh: boolean): SimSnapshot {
    const sim = this.sim!
    const from = sim.currentStep
    this.moveTo(wanted.step)
    const state = arrive(wanted, sim.currentStep, sim.finished)
    const frame = sim.frame()
    const small = !fresh && Math.abs(frame.step - from) <= MAX_ANIMATED_STEPS && frame.step !== from
    return {
      state,
      view: {
        ...view,
        frame,
        previous: small ? before.view.frame : null,
        moveMs: small ? moveDurationMs(false, state.speed) : 0,
        events: sim.recentEvents(),
      },
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
      this.core.simulate({ preset, workloadJson: json, seed, algo: SIM_ALGO }).free()
      return null
    } catch (err) {
      return problemOf(err)
    }
  }

  // ---- playback --------------------------------------------------------------------

  /** All due events in one go: one advance and one frame read (Simulation documents the call counts). */
  protected advanceRuns(due: number): SimSnapshot {
    const { state, view } = this.snapshot
    const sim = this.sim!
    sim.advance(due) // one wasm call (two when several events are due: see Simulation)
    const frame = sim.frame() // one wasm call
    return {
      state: arrive({ ...state, step: sim.currentStep }, sim.currentStep, sim.finished),
      view: { ...view, frame, previous: view.frame, moveMs: moveDurationMs(true, state.speed), events: sim.recentEvents(), notice: null },
    }
  }
}

/** The machine's L3 ids, ascending. */
export function llcIds(topology: Topology): number[] {
  return [...new Set(topology.cpus.map((c) => c.llc))].sort((a, b) => a - b)
}

export type UseSimulation = UsePlayback<SimState, SimView, SimActions>

/** The Simulate page's store, for React: one controller per page visit. */
export function useSimulation(): UseSimulation {
  return usePlayback((host) => new SimController(host))[0]
}
