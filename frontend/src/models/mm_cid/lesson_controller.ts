/*
 * The mm_cid lesson's store (the descriptor's lesson.store: the lesson player
 * and LessonPage.tsx drive it): the LessonState (pure actions in lesson_state.ts),
 * one Simulation per kernel shown (two in compare mode), their scanned
 * timelines and the lesson clock (lesson_timeline.ts), on the shared playback
 * store (playback_controller.ts: snapshot, URL, Back/Forward, playback clock).
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
import { useMemo } from 'react'
import { WorkloadError } from '../../engine/core_errors'
import type { KscopeCore, Simulation } from '../../engine/wasm_bridge'
import {
  PlaybackController, usePlayback, type PlaybackActions, type PlaybackHost, type PlaybackSnapshot, type PlaybackStateFns,
  type UsePlayback,
} from '../../core/playback/playback_controller'
import {
  algoOf, arrive, followLessonUrl, lessonRunParams, lessonStateFromSearch, lessonWorkloadJson, newLessonRun, pause,
  sameLessonRun, searchForLessonState, seek, setRunTo, variantsOf, type LessonRun, type LessonRunParams, type LessonState, type RunTo,
} from './lesson_state'
import {
  buildClock, burstSource, lastStep, recordsAtStep, stepAtTime, timeOf,
  type BurstSource, type LessonClock,
} from '../../core/lesson/lesson_timeline'
import { nextRecordStep } from './run_to'
import { burstInfos, costTotals, narrateStep, type BurstInfo, type CostTotals, type NarrationLine } from './lesson_narrate'
import { quiz } from './quiz'
import { resolveAt, type QuizRun } from '../../core/lesson/lesson_quiz'
import type { LessonAt } from '../../core/lesson/lesson_types'
import type { BurstCost, CacheParams, RunTimeline, SimEvent, Topology } from '../../core/shared/types'
import type { MmCidRecord, MmCidView } from './types'

/** Events a run may have before the scan stops (a lesson run has a few hundred to a few thousand). */
export const MAX_SCAN_EVENTS = 200_000

export type LessonProblem = { kind: 'workload' | 'preset' | 'core'; message: string }

/** One kernel's run at the current step. */
export interface LessonRunView {
  variant: LessonRun
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

/** What prices the lesson's bursts, shown beside the cost breakdown (the lesson's machine is MODELLED). */
export interface LessonCostModel {
  /** The cost model of the runs (Simulation.costModel): the lesson uses v2. */
  model: 'v1' | 'v2'
  /** The background traffic, an explicit workload parameter (the scenario's cache mode). */
  background: CacheParams
  /** The core's part names in ks_cost_part order (KscopeCore.costPartNames). */
  partNames: string[]
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
  /** The cost model and its background traffic (null before a run is built). */
  cost: LessonCostModel | null
}

export type LessonSnapshot = PlaybackSnapshot<LessonState, LessonView>

/** The playback actions (speed in lesson steps per second), and the lesson's own. */
export interface LessonActions extends PlaybackActions<LessonRunParams> {
  setRunTo(what: RunTo): void
  /** Runs to the next step with an allocation-log entry of the chosen kind. */
  runToNext(): void
  /** Goes to the last step at or before a simulated time, ms. */
  goToTime(ms: number): void
  /** Goes to the last step. */
  runToEnd(): void
}

/** The window, as far as the store needs it (a fake in tests). */
export type LessonHost = PlaybackHost

/** LessonState's pure functions, for the playback store. */
const LESSON_STATE: PlaybackStateFns<LessonState, LessonRunParams> = {
  fromSearch: lessonStateFromSearch,
  searchFor: searchForLessonState,
  followUrl: followLessonUrl,
  newRun: newLessonRun,
  runParams: lessonRunParams,
  sameRun: sameLessonRun,
  arrive,
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

const emptyView: LessonView = { topology: null, runs: [], time_ns: 0, lastStep: 0, moveMs: 0, problem: null, notice: null, cost: null }

/**
 * The cost model the lesson's simulated machine uses: v2 (kscope/sim_cost.h), so each
 * burst's cost comes with its parts by mechanism (overlapped misses, C-state flushes,
 * first-touch faults, ...) and the narration can say why it cost what it did.
 */
export const LESSON_COST_MODEL = 'v2' as const

interface RunSlot {
  variant: LessonRun
  sim: Simulation
  timeline: RunTimeline<MmCidRecord>
  sources: BurstSource[]
  tgid: number
  /** The bursts read so far (a prefix of the run's list: the run is deterministic). */
  bursts: BurstCost[]
  /** The lesson view at the step shown. */
  view: MmCidView | null
}

function problemOf(err: unknown): LessonProblem {
  const message = err instanceof Error ? err.message : String(err)
  if (err instanceof WorkloadError) return { kind: 'workload', message }
  return { kind: /^preset /.test(message) ? 'preset' : 'core', message }
}

export class LessonController extends PlaybackController<LessonState, LessonView, LessonRunParams> {
  private runs: RunSlot[] = []
  private clock: LessonClock | null = null
  private topology: Topology | null = null
  private partNames: string[] = []
  private cost: LessonCostModel | null = null
  readonly actions: LessonActions

  constructor(host: LessonHost) {
    super(host, LESSON_STATE, emptyView)
    this.actions = {
      ...this.playbackActions(),
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

  /**
   * Shows one lesson step (the lesson player): builds the runs `params` names
   * (if they differ from those built) and goes to `at`. Returns why `at` could
   * not be reached exactly (e.g. the run has no such event), or null.
   */
  showStep(params: LessonRunParams, at: LessonAt): string | null {
    this.apply(newLessonRun(pause(this.snapshot.state), params), 'replace')
    if (!this.clock) return null
    const where = resolveAt(at, this.clock, this.quizRuns())
    this.apply(seek(this.snapshot.state, where.step), 'replace', where.problem)
    return where.problem
  }

  /** Each run's allocation log (the quizzes' and "run to event"'s input). */
  quizRuns(): QuizRun<MmCidRecord>[] {
    return this.runs.map((r) => ({ variant: r.variant, records: r.timeline.records, logEnd: r.timeline.logEnd, quiz }))
  }

  /** JS->wasm calls all runs have made (diagnostics; tests check the per-frame budget). */
  wasmCalls(): number {
    return this.runs.reduce((n, r) => n + r.sim.wasmCalls(), 0)
  }

  /** The engine-side objects, for tests (the Simulation of each run). */
  simulations(): Simulation[] {
    return this.runs.map((r) => r.sim)
  }

  // ---- bringing the engine to the state ------------------------------------------------

  protected hasRuns(): boolean {
    return this.clock !== null && this.runs.length > 0
  }

  protected freeRuns() {
    for (const r of this.runs) r.sim.free()
    this.runs = []
    this.clock = null
  }

  /** New Simulations for params, each scanned ahead; or a problem. */
  protected buildRuns(core: KscopeCore, params: LessonRunParams, notice: string | null): LessonView {
    this.topology = null
    try {
      const topology = core.topology(params.preset)
      this.topology = topology
      const workloadJson = lessonWorkloadJson(params.workload, topology)
      for (const variant of variantsOf(params.variant)) {
        const sim = core.simulate({
          preset: params.preset, workloadJson, seed: params.seed, algo: algoOf(variant, params.toggles), cache: cacheParamsOf(params.cache),
          costModel: LESSON_COST_MODEL,
        })
        this.runs.push({ variant, sim, timeline: null!, sources: [], tgid: -1, bursts: [], view: null })
        const slot = this.runs.at(-1)!
        slot.timeline = sim.timeline(MAX_SCAN_EVENTS)
        slot.sources = slot.timeline.burstLines.map(burstSource)
        slot.tgid = sim.frame().tasks[0]?.tgid ?? -1
      }
      this.clock = buildClock(this.runs.map((r) => r.timeline))
      this.partNames = core.costPartNames()
      this.cost = {
        model: this.runs[0]?.sim.costModel ?? LESSON_COST_MODEL,
        background: { ...core.cacheDefaults(), ...cacheParamsOf(params.cache) },
        partNames: this.partNames,
      }
      const truncated = this.clock.complete ? null : `The run is long: the lesson shows its first ${MAX_SCAN_EVENTS} events.`
      return { ...emptyView, topology, notice: notice ?? truncated, cost: this.cost }
    } catch (err) {
      this.freeRuns()
      return { ...emptyView, topology: this.topology, problem: problemOf(err), notice }
    }
  }

  /** Brings every run to the step (or to until_ms, once), in lockstep. */
  protected landRuns(wanted: LessonState, view: LessonView, before: LessonSnapshot, fresh: boolean): LessonSnapshot {
    const clock = this.clock!
    let target = wanted.step
    if (wanted.untilNs !== null) target = stepAtTime(clock, wanted.untilNs)
    target = Math.min(target, lastStep(clock))
    const oneForward = !fresh && target === before.state.step + 1
    const runs = this.moveTo(target, oneForward)
    const state = arrive(wanted, target, clock.complete && target >= lastStep(clock))
    return {
      state,
      view: {
        ...view,
        topology: this.topology,
        cost: this.cost,
        runs,
        time_ns: timeOf(clock, target),
        lastStep: lastStep(clock),
        moveMs: oneForward ? stepMoveMs(state.playing, state.speed) : 0,
      },
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
      const bursts = burstInfos(slot.bursts, slot.sources, { names: this.partNames, ns: slot.timeline.burstParts })
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
          topology: this.topology ?? undefined, warmupSweeps: this.builtFor?.workload.warmup,
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

  /** The due steps as one move (each run: at most one advance or seek, and one view read). */
  protected advanceRuns(due: number): LessonSnapshot {
    const { state } = this.snapshot
    return this.land({ ...state, step: Math.min(state.step + due, lastStep(this.clock!)) }, null)
  }
}

/** Bursts after a run's simulator step s (RunTimeline.burstEnd). */
function burstsAtStep(tl: RunTimeline, s: number): number {
  return s <= 0 ? 0 : tl.burstEnd[Math.min(s, tl.burstEnd.length) - 1]
}

export interface UseLesson extends UsePlayback<LessonState, LessonView, LessonActions> {
  /** The allocator's branches (name, help) from the core, in path order. */
  paths: { name: string; help: string }[]
  /** The core's default cache eviction (what 'busy' means). */
  cacheDefaults: CacheParams | null
}

/** The lesson page's store, for React: one controller per page visit. */
export function useLesson(): UseLesson {
  const [page, core] = usePlayback((host) => new LessonController(host))
  const ready = core.status === 'ready'
  const paths = useMemo(() => (ready ? core.core.mmCidPaths() : []), [core, ready])
  const cacheDefaults = useMemo(() => (ready ? core.core.cacheDefaults() : null), [core, ready])
  return { ...page, paths, cacheDefaults }
}
