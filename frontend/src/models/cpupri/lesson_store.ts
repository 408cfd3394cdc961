/*
 * The cpupri lesson's store (the descriptor's lesson.store; the lesson player and
 * CpupriPage drive it). For each step it builds the scenario's runs (one kernel, or
 * global and pernode side by side for "compare"), scans each run once (event times and
 * the RT placements: every sched_wakeup and sched_migrate_task of an RT thread, the
 * quiz's records), and brings every run to the step's instant (ks_sim_seek), then reads
 * the model's view (cpupriView: one summary, the c2c rows, the levels, the mask lines'
 * places). Runs are cached by (preset, variant, toggles, seed): stepping through a
 * lesson rebuilds nothing it already built.
 */
import type { KscopeCore, Simulation } from '../../engine/wasm_bridge'
import type { CpupriView } from '../../engine/cpupri/cpupri_bridge'
import type { LessonRunParams, LessonState } from '../../core/lesson/lesson_state'
import { BENCHMARK_WORKLOAD, DEFAULT_SEED, DEFAULT_SPEED } from '../../core/lesson/lesson_state'
import type { LessonAt } from '../../core/lesson/lesson_types'
import type { Topology } from '../../core/shared/types'
import type { LessonHost, LessonStepSnapshot, LessonStepStore } from '../types'
import type { CpupriRecord } from './types'

export type { CpupriRecord }
import { algoOf, cleanToggles, lessonWorkloadJson, runsOf, type CpupriRun } from './runs'
import { quiz } from './quiz'

/** Events a run may have before the scan stops (the classroom workload has ~7,000 in its 20 ms). */
export const MAX_SCAN_EVENTS = 100_000

export interface CpupriRunView {
  variant: CpupriRun
  algo: string
  view: CpupriView
  /** The view at the lesson's previous step, when it showed this run (for the motion); else null. */
  previous: CpupriView | null
  /** The placements up to this instant, newest last (at most 12). */
  recent: CpupriRecord[]
}

export interface CpupriLessonView {
  topology: Topology | null
  runs: CpupriRunView[]
  time_ns: number
  problem: { kind: string; message: string } | null
  notice: string | null
}

interface BuiltRun {
  variant: CpupriRun
  algo: string
  sim: Simulation
  ts: Float64Array
  records: CpupriRecord[]
  logEnd: Float64Array
}

const EMPTY: CpupriLessonView = { topology: null, runs: [], time_ns: 0, problem: null, notice: null }

function stateOf(params: LessonRunParams, step: number, finished: boolean): LessonState {
  return {
    variant: params.variant, preset: params.preset, workload: params.workload ?? BENCHMARK_WORKLOAD, cache: params.cache,
    seed: params.seed ?? DEFAULT_SEED, toggles: cleanToggles(params.toggles), step, untilNs: null, playing: false,
    speed: DEFAULT_SPEED, runTo: 'entry', finished,
  }
}

/** Scans a run from step 0 to its end: event times and the RT placements. */
export function scanRun(sim: Simulation, variant: CpupriRun, algo: string): BuiltRun {
  const ts: number[] = []
  const logEnd: number[] = []
  const records: CpupriRecord[] = []
  for (let e = sim.step(); e && ts.length < MAX_SCAN_EVENTS; e = sim.step()) {
    ts.push(e.ts_ns)
    if ((e.type === 'sched_wakeup' || e.type === 'sched_wakeup_new') && e.target_prio < 99) {
      records.push({ seq: records.length, ts_ns: e.ts_ns, tid: e.target_pid, path: 'WAKEUP', comm: e.target_comm,
        prio: e.target_prio, cpu: e.target_cpu, from_cpu: e.cpu })
    } else if (e.type === 'sched_migrate_task' && e.target_prio < 99) {
      records.push({ seq: records.length, ts_ns: e.ts_ns, tid: e.target_pid, path: 'MIGRATE', comm: e.target_comm,
        prio: e.target_prio, cpu: e.dest_cpu, from_cpu: e.orig_cpu })
    }
    logEnd.push(records.length)
  }
  return { variant, algo, sim, ts: Float64Array.from(ts), records, logEnd: Float64Array.from(logEnd) }
}

/** The step (events done) a run shows at simulated time t: every event at or before t. */
export function stepAtTime(ts: Float64Array, tNs: number): number {
  let lo = 0
  let hi = ts.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ts[mid] <= tNs) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class CpupriLessonStore implements LessonStepStore {
  private core: KscopeCore | null = null
  private listeners = new Set<() => void>()
  private built = new Map<string, BuiltRun>()
  private shown: BuiltRun[] = []
  private pending: { params: LessonRunParams; at: LessonAt } | null = null
  private snapshot: LessonStepSnapshot
  private last = new Map<string, CpupriView>()

  constructor(_host?: LessonHost) {
    this.snapshot = { state: stateOf({ variant: 'global', preset: 'classroom-2s-16', workload: BENCHMARK_WORKLOAD, cache: 'idle', seed: 1 }, 0, false), view: EMPTY }
  }

  start(core: KscopeCore): () => void {
    this.core = core
    if (this.pending) this.showStep(this.pending.params, this.pending.at)
    return () => {
      for (const r of this.built.values()) r.sim.free()
      this.built.clear()
      this.shown = []
      this.core = null
    }
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  getSnapshot = (): LessonStepSnapshot => this.snapshot

  private run(variant: CpupriRun, params: LessonRunParams): BuiltRun {
    const algo = algoOf(variant, params.toggles)
    const seed = params.seed ?? DEFAULT_SEED
    const key = `${params.preset}|${algo}|${seed}`
    let r = this.built.get(key)
    if (!r) {
      const sim = this.core!.simulate({ preset: params.preset, workloadJson: lessonWorkloadJson(), seed, algo })
      r = scanRun(sim, variant, algo)
      this.built.set(key, r)
    }
    return r
  }

  showStep(params: LessonRunParams, at: LessonAt): string | null {
    if (!this.core) {
      this.pending = { params, at }
      return null
    }
    this.pending = null
    let runs: BuiltRun[]
    try {
      runs = runsOf(params.variant).map((v) => this.run(v, params))
    } catch (err) {
      this.publish(params, 0, false, { ...EMPTY, problem: { kind: 'core', message: String((err as Error).message ?? err) } })
      return String((err as Error).message ?? err)
    }
    this.shown = runs
    const first = runs[0]
    const endNs = first.ts.length ? first.ts[first.ts.length - 1] : 0
    let problem: string | null = null
    let tNs: number
    if ('time_ms' in at) tNs = at.time_ms * 1e6
    else if ('end' in at) tNs = endNs
    else if ('step' in at) tNs = at.step > 0 ? first.ts[Math.min(at.step, first.ts.length) - 1] ?? 0 : 0
    else {
      const r = quiz.findEvent({ variant: first.variant, records: first.records, logEnd: first.logEnd }, at.event) as CpupriRecord | null
      if (r) tNs = r.ts_ns
      else {
        tNs = endNs
        problem = `This run has no ${at.event.path} #${at.event.nth}: showing its end.`
      }
    }
    if (tNs > endNs) {
      problem = `The run ends at ${(endNs / 1e6).toFixed(2)} ms: showing its end.`
      tNs = endNs
    }
    const views = runs.map((r) => {
      const step = stepAtTime(r.ts, tNs)
      r.sim.seek(step)
      const view = r.sim.cpupriView()
      const end = r.logEnd[step - 1] ?? 0
      const previous = this.last.get(r.algo) ?? null
      this.last.set(r.algo, view)
      return { variant: r.variant, algo: r.algo, view, previous, recent: r.records.slice(Math.max(0, end - 12), end) }
    })
    const step = stepAtTime(first.ts, tNs)
    this.publish(params, step, step >= first.ts.length, {
      topology: first.sim.topology, runs: views, time_ns: tNs,
      problem: problem ? { kind: 'at', message: problem } : null, notice: null,
    })
    return problem
  }

  quizRuns() {
    return this.shown.map((r) => ({ variant: r.variant, records: r.records, logEnd: r.logEnd, quiz }))
  }

  private publish(params: LessonRunParams, step: number, finished: boolean, view: CpupriLessonView): void {
    this.snapshot = { state: stateOf(params, step, finished), view }
    for (const l of this.listeners) l()
  }
}
