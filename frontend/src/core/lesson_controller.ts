/*
 * The mm_cid lesson's store: the LessonState (pure actions in lesson_state.ts),
 * one Simulation per kernel shown (two in compare mode), their scanned
 * timelines and the lesson clock (lesson_timeline.ts), the playback clock.
 *
 *   action ──> new LessonState ──> each run brought to clock.stepAt[run][step]
 *                                     │ (advance or seek: 1 wasm call)
 *   views <── { state, view } <───────┘ mmCidView: 1 wasm call per run
 *
 * Per animation frame that moves the lesson: 2 wasm calls per run that moves (at
 * most 4 in compare mode; a run with nothing at the new instant makes none),
 * whatever the speed: the move (ks_sim_step / ks_sim_run_until_tail, or a seek:
 * ks_sim_seek + a replay of the last events) and the lesson view (ks_mm_cid_lesson_get: frame, per-mm state, masks,
 * per-CPU table, area places, and the log's and bursts' new entries read
 * through typed arrays). Frames where no step is due make no call. Building a
 * run scans it once ahead (Simulation.timeline, ~4 calls per event) so that
 * lockstep, "run to next allocation" and each burst's data source are known.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import { WorkloadError, type KscopeCore, type Simulation } from '../engine/wasm_bridge'
import { useKscopeCore } from './machine'
import { startClock, tick, type ClockState } from './playback'
import {
  arrive, followLessonUrl, lessonRunParams, lessonStateFromSearch, lessonWorkloadJson, newLessonRun, pause, play,
  sameLessonRun, searchForLessonState, seek, setRunTo, setSpeed, step, stepBack, togglePlay, variantsOf,
  type LessonRunParams, type LessonState, type RunTo,
} from './lesson_state'
import {
  buildClock, burstSource, lastStep, recordsAtStep, stepAtTime, timeOf, nextRecordStep,
  type BurstSource, type LessonClock,
} from './lesson_timeline'
import { burstInfos, costTotals, narrateStep, type BurstInfo, type CostTotals, type NarrationLine } from './lesson_narrate'
import type { UrlHost } from './state'
import type { BurstCost, CacheParams, MmCidRecord, MmCidView, PresetInfo, RunTimeline, SimEvent, Topology } from './types'

/** Events a run may have before the scan stops (a lesson run has a few hundred to a few thousand). */
export const MAX_SCAN_EVENTS = 200_000

export type LessonProblem = { kind: 'workload' | 'preset' | 'core'; message: string }

/** One kernel's run at the current step. */
export interface LessonRunView {
  variant: 'v6.12' | 'v6.13' | 'v6.18'
  view: MmCidView
  /** The view one step before, when the change is one step forward (for the motion); else null. */
  previous: MmCidView | null
  /** Records the allocator logged at this step. */
  records: MmCidRecord[]
  /** Records logged up to this step. */
  history: MmCidRecord[]
  /** Every burst so far, with where its data came from. */
  bursts: BurstInfo[]
  /** Bursts that started at this step. */
  stepBursts: BurstInfo[]
  /** This run's scheduler events at this instant (none: nothing happened in it). */
  events: SimEvent[]
  narration: NarrationLine[]
  totals: CostTotals
  /** The run's whole timeline ended within the lesson (its last instant is on the clock). */
  ended: boolean
}

export interface LessonView {
  topology: Topology | null
  runs: LessonRunView[]
  /** Simulated time of the step, ns. */
  time_ns: number
  /** The last lesson step (the runs' end, or as far as they were scanned). */
  lastStep: number
  /** How long the motion of a step takes, ms (0: jump). */
  moveMs: number
  problem: LessonProblem | null
  notice: string | null
}

export interface LessonSnapshot {
  state: LessonState
  view: LessonView
}

export interface LessonActions {
  newRun(change: Partial<LessonRunParams>): void
  step(): void
  stepBack(): void
  seek(n: number): void
  play(): void
  pause(): void
  togglePlay(): void
  setSpeed(stepsPerSecond: number): void
  setRunTo(what: RunTo): void
  /** Runs to the next step with an allocation-log entry of the chosen kind. */
  runToNext(): void
  /** Goes to the last step at or before a simulated time, ms. */
  goToTime(ms: number): void
  /** Goes to the last step. */
  runToEnd(): void
}

export interface LessonHost extends UrlHost {
  requestAnimationFrame(cb: (ms: number) => void): number
  cancelAnimationFrame(id: number): void
  addEventListener(type: 'popstate', fn: () => void): void
  removeEventListener(type: 'popstate', fn: () => void): void
}

/** The 'idle' cache: no background traffic evicts anything (lesson_state.ts explains why). */
export function cacheParamsOf(mode: 'idle' | 'busy'): Partial<CacheParams> {
  return mode === 'idle' ? { privateBackgroundBytesPerUs: 0, llcBackgroundBytesPerUs: 0 } : {}
}

/** How long a step's motion takes: 700 ms when stepping, shorter when playing fast, none beyond the eye. */
export function stepMoveMs(playing: boolean, stepsPerSecond: number): number {
  if (!playing) return 700
  const d = Math.min(700, (1000 / stepsPerSecond) * 0.75)
  return d < 80 ? 0 : Math.round(d)
}

const emptyView: LessonView = { topology: null, runs: [], time_ns: 0, lastStep: 0, moveMs: 0, problem: null, notice: null }

interface RunSlot {
  variant: 'v6.12' | 'v6.13' | 'v6.18'
  sim: Simulation
  timeline: RunTimeline
  sources: BurstSource[]
  tgid: number
  /** The bursts read so far (a prefix of the run's list: the run is deterministic). */
  bursts: BurstCost[]
  /** The lesson view at the step shown. */
  view: MmCidView | null
}

type UrlWrite = 'push' | 'replace' | 'none'

function problemOf(err: unknown): LessonProblem {
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof WorkloadError) return { kind: 'workload', message }
  return { kind: /^preset /.test(message) ? 'preset' : 'core', message }
}

export class LessonController {
  private snapshot: LessonSnapshot
  private readonly listeners = new Set<() => void>()
  private core: KscopeCore | null = null
  private runs: RunSlot[] = []
  private clock: LessonClock | null = null
  private topology: Topology | null = null
  private params: LessonRunParams | null = null
  private raf = 0
  private playClock: ClockState = startClock()
  readonly actions: LessonActions
  private readonly host: LessonHost

  constructor(host: LessonHost) {
    this.host = host
    this.snapshot = { state: lessonStateFromSearch(host.location.search), view: emptyView }
    const act = (f: (s: LessonState) => LessonState, url: UrlWrite = 'replace') => () => this.apply(f(this.snapshot.state), url)
    this.actions = {
      newRun: (change) => this.apply(newLessonRun(this.snapshot.state, change), 'push'),
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
      setRunTo: (what) => this.apply(setRunTo(this.snapshot.state, what), 'none'),
      runToNext: () => this.runToNext(),
      goToTime: (ms) => {
        if (this.clock && Number.isFinite(ms)) this.apply(seek(pause(this.snapshot.state), stepAtTime(this.clock, ms * 1e6)), 'replace')
      },
      runToEnd: () => {
        if (this.clock) this.apply(seek(pause(this.snapshot.state), lastStep(this.clock)), 'replace')
      },
    }
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = () => this.snapshot

  /** JS->wasm calls all runs have made (diagnostics; tests check the per-frame budget). */
  wasmCalls(): number {
    return this.runs.reduce((n, r) => n + r.sim.wasmCalls(), 0)
  }

  /** The engine-side objects, for tests (the Simulation of each run). */
  simulations(): Simulation[] {
    return this.runs.map((r) => r.sim)
  }

  start(core: KscopeCore): () => void {
    this.core = core
    const onPopState = () => this.apply(followLessonUrl(this.snapshot.state, this.host.location.search), 'none')
    this.host.addEventListener('popstate', onPopState)
    this.apply(this.snapshot.state, 'replace')
    return () => {
      this.host.removeEventListener('popstate', onPopState)
      this.stopClock()
      this.freeRuns()
      this.core = null
      this.params = null
    }
  }

  // ---- bringing the engine to the state ------------------------------------------------

  private apply(wanted: LessonState, url: UrlWrite, notice: string | null = null) {
    const before = this.snapshot
    if (wanted === before.state && !notice && this.runs.length) return
    let state = wanted
    let view: LessonView = { ...before.view, notice }
    if (this.core) {
      const params = lessonRunParams(state)
      const fresh = !this.params || !sameLessonRun(params, this.params)
      if (fresh) view = this.rebuild(params, notice)
      const clock = this.clock
      if (clock && this.runs.length) {
        let target = state.step
        if (state.untilNs !== null) target = stepAtTime(clock, state.untilNs)
        target = Math.min(target, lastStep(clock))
        const from = before.state.step
        const oneForward = !fresh && target === from + 1
        const moved = this.moveTo(target, oneForward)
        state = arrive(state, target, clock.complete && target >= lastStep(clock))
        view = {
          ...view,
          topology: this.topology,
          runs: moved,
          time_ns: timeOf(clock, target),
          lastStep: lastStep(clock),
          moveMs: oneForward ? stepMoveMs(state.playing, state.speed) : 0,
        }
      } else {
        state = arrive({ ...state, playing: false }, state.step, state.finished)
      }
    }
    this.publish({ state, view }, url)
  }

  private freeRuns() {
    for (const r of this.runs) r.sim.free()
    this.runs = []
    this.clock = null
  }

  /** New Simulations for params (the old ones freed), each scanned ahead; or a problem. */
  private rebuild(params: LessonRunParams, notice: string | null): LessonView {
    this.freeRuns()
    this.params = params
    this.topology = null
    const core = this.core!
    try {
      const topology = core.topology(params.preset)
      this.topology = topology
      const workloadJson = lessonWorkloadJson(params.workload, topology)
      for (const variant of variantsOf(params.variant)) {
        const sim = core.simulate({ preset: params.preset, workloadJson, seed: params.seed, algo: `mm_cid:${variant}`, cache: cacheParamsOf(params.cache) })
        this.runs.push({ variant, sim, timeline: null!, sources: [], tgid: -1, bursts: [], view: null })
        const slot = this.runs.at(-1)!
        slot.timeline = sim.timeline(MAX_SCAN_EVENTS)
        slot.sources = slot.timeline.burstLines.map(burstSource)
        slot.tgid = sim.frame().tasks[0]?.tgid ?? -1
      }
      this.clock = buildClock(this.runs.map((r) => r.timeline))
      const truncated = this.clock.complete ? null : `The run is long: the lesson shows its first ${MAX_SCAN_EVENTS} events.`
      return { ...emptyView, topology, notice: notice ?? truncated }
    } catch (err) {
      this.freeRuns()
      return { ...emptyView, topology: this.topology, problem: problemOf(err), notice }
    }
  }

  /** Brings every run to lesson step k; returns what each shows. */
  private moveTo(k: number, oneForward: boolean): LessonRunView[] {
    const clock = this.clock!
    const time = timeOf(clock, k)
    return this.runs.map((slot, r) => {
      const target = clock.stepAt[r][k]
      const sim = slot.sim
      const at = sim.currentStep
      if (target > at && target - at <= 4096) sim.advance(target - at)
      else if (target !== at) sim.seek(target)
      const previous = slot.view
      // A run with nothing at this instant is where it was: its view stands (no call). Else
      // only what is new since the last read is decoded: the burst list is a prefix that
      // stays valid (the run is deterministic), cut when the step goes back.
      let view: MmCidView
      if (previous && target === at) {
        view = previous
      } else {
        view = sim.mmCidView(slot.tgid, { logFrom: previous?.logEnd ?? 0, burstsFrom: slot.bursts.length })
        slot.bursts.length = Math.min(slot.bursts.length, view.burstCount)
        slot.bursts.push(...view.bursts)
      }
      slot.view = view
      const bursts = burstInfos(slot.bursts, slot.sources)
      const prevBursts = k > 0 ? burstsAtStep(slot.timeline, clock.stepAt[r][k - 1]) : 0
      const stepBursts = bursts.slice(prevBursts)
      const records = recordsAtStep(slot.timeline, clock.stepAt[r], k)
      const history = slot.timeline.records.filter((x) => x.seq < view.logEnd)
      const events = sim.recentEvents().filter((e) => e.ts_ns === time && k > 0)
      return {
        variant: slot.variant,
        view,
        previous: oneForward ? previous : null,
        records,
        history,
        bursts,
        stepBursts,
        events,
        narration: narrateStep({
          variant: slot.variant, time_ns: time, records, history, bursts: stepBursts, events,
          topology: this.topology ?? undefined, warmupSweeps: this.params?.workload.warmup,
        }),
        totals: costTotals(bursts),
        ended: slot.timeline.finished && target >= slot.timeline.ts.length,
      }
    })
  }

  private runToNext() {
    const clock = this.clock
    if (!clock) return
    const state = pause(this.snapshot.state)
    const next = nextRecordStep(clock, this.runs.map((r) => r.timeline), state.step, state.runTo)
    if (next === null) {
      const what = { entry: 'allocator decision', 'new-cid': 'cid handed out', scan: 'scan' }[state.runTo]
      this.apply({ ...state, step: lastStep(clock) }, 'replace', `No further ${what} before the run ends: this is its last step.`)
      return
    }
    this.apply({ ...state, step: next }, 'replace')
  }

  // ---- playback ---------------------------------------------------------------------------

  private onFrame = (ms: number) => {
    this.raf = 0
    const { state } = this.snapshot
    if (!state.playing || !this.clock) return
    const { due, clock } = tick(this.playClock, ms, state.speed)
    this.playClock = clock
    if (due > 0) this.apply({ ...state, step: Math.min(state.step + due, lastStep(this.clock)) }, 'none')
    else this.raf = this.host.requestAnimationFrame(this.onFrame)
  }

  private stopClock() {
    if (this.raf) this.host.cancelAnimationFrame(this.raf)
    this.raf = 0
    this.playClock = startClock()
  }

  private publish(snapshot: LessonSnapshot, url: UrlWrite) {
    const wasPlaying = this.snapshot.state.playing
    this.snapshot = snapshot
    const { state } = snapshot
    if (state.playing) {
      if (!wasPlaying) this.playClock = startClock()
      if (!this.raf) this.raf = this.host.requestAnimationFrame(this.onFrame)
    } else {
      this.stopClock()
    }
    if (url !== 'none' || (wasPlaying && !state.playing)) syncLessonUrl(state, this.host, url === 'push' ? 'push' : 'replace')
    for (const listener of this.listeners) listener()
  }
}

/** Bursts after a run's simulator step s (RunTimeline.burstEnd). */
function burstsAtStep(tl: RunTimeline, s: number): number {
  return s <= 0 ? 0 : tl.burstEnd[Math.min(s, tl.burstEnd.length) - 1]
}

/** Writes the state into the URL if it says otherwise; returns whether it wrote. */
export function syncLessonUrl(state: LessonState, host: UrlHost, mode: 'push' | 'replace'): boolean {
  const { search, pathname, hash } = host.location
  const wanted = searchForLessonState(state, search)
  if (wanted === search) return false
  const url = `${pathname}${wanted}${hash}`
  if (mode === 'push') host.history.pushState(null, '', url)
  else host.history.replaceState(null, '', url)
  return true
}

export interface UseLesson extends LessonSnapshot {
  actions: LessonActions
  presets: PresetInfo[]
  core: 'loading' | 'ready' | 'error'
  coreVersion: string
  /** The allocator's branches (name, help) from the core, in path order. */
  paths: { name: string; help: string }[]
  /** The core's default cache eviction (what 'busy' means). */
  cacheDefaults: CacheParams | null
}

/** The lesson page's store, for React: one controller per page visit. */
export function useLesson(): UseLesson {
  const core = useKscopeCore()
  const controller = useMemo(() => new LessonController(window), [])
  useEffect(() => (core.status === 'ready' ? controller.start(core.core) : undefined), [core, controller])
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const ready = core.status === 'ready'
  const paths = useMemo(() => (ready ? core.core.mmCidPaths() : []), [core, ready])
  const cacheDefaults = useMemo(() => (ready ? core.core.cacheDefaults() : null), [core, ready])
  const view = core.status === 'error' ? { ...snapshot.view, problem: { kind: 'core' as const, message: core.message } } : snapshot.view
  return {
    ...snapshot,
    view,
    actions: controller.actions,
    presets: ready ? core.presets : [],
    core: core.status,
    coreVersion: ready ? core.version : '',
    paths,
    cacheDefaults,
  }
}
