/*
 * The Simulate page's state and the named actions that change it.
 *
 * What is on screen is defined by (preset, workload, seed, step): the C core is
 * deterministic, so these four reproduce the exact frame. They live in the URL
 *
 *     /simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=120
 *
 * (plus the JSON of a custom workload, and which L3 boxes are open), so a link
 * shows another screen the same machine at the same moment. Each action is a
 * pure function (state, args) -> new state; sim_controller.ts then brings the
 * engine to the state and reports where it actually landed (arrive()), since
 * only the engine knows where a run ends.
 */
import { CUSTOM_WORKLOAD, DEFAULT_WORKLOAD } from './workloads'
import { cleanStep, type PlaybackState } from '../playback/playback_state'
import { DEFAULT_PRESET } from '../machine/state'
import type { EventType } from '../shared/types'

// The playback actions (step, stepBack, seek, play, pause, togglePlay, setSpeed) are every page's.
export { pause, play, seek, setSpeed, step, stepBack, togglePlay } from '../playback/playback_state'

export const DEFAULT_SEED = 1
/** Playback speeds offered, in events per second. */
export const SPEEDS = [1, 5, 20, 100, 1000] as const
export const DEFAULT_SPEED = 5
/** "Run to next" starts with the event that shows placement best. */
export const DEFAULT_RUN_TO: EventType = 'sched_switch'
/** Machines up to this many CPUs open every L3 box by default; bigger ones start collapsed. */
export const EXPAND_ALL_UP_TO_CPUS = 32

export interface SimState extends PlaybackState {
  readonly preset: string
  /** An example's name, or CUSTOM_WORKLOAD. */
  readonly workload: string
  /** The custom workload's JSON (null unless workload is CUSTOM_WORKLOAD). */
  readonly customJson: string | null
  readonly seed: number
  /** Events produced: the frame on screen is the machine after this many. */
  readonly step: number
  /** Playback speed, events per second. */
  readonly speed: number
  /** The event type "run to next" stops at. */
  readonly runTo: EventType
  /** L3 ids shown open; null: the machine's default (all open when small, all closed when big). */
  readonly openLlcs: readonly number[] | null
}

export function initialSimState(): SimState {
  return {
    preset: DEFAULT_PRESET,
    workload: DEFAULT_WORKLOAD,
    customJson: null,
    seed: DEFAULT_SEED,
    step: 0,
    playing: false,
    speed: DEFAULT_SPEED,
    runTo: DEFAULT_RUN_TO,
    openLlcs: null,
    finished: false,
  }
}

/** What defines a run: changing any of these starts a new one. */
export interface RunParams {
  preset: string
  workload: string
  customJson: string | null
  seed: number
}

export const runParams = (s: SimState): RunParams => ({
  preset: s.preset, workload: s.workload, customJson: s.customJson, seed: s.seed,
})

export const sameRun = (a: RunParams, b: RunParams) =>
  a.preset === b.preset && a.workload === b.workload && a.customJson === b.customJson && a.seed === b.seed

/** A seed as the core takes it: a non-negative safe integer (anything else: the default). */
export function cleanSeed(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim())
  return Number.isSafeInteger(n) && n >= 0 ? n : DEFAULT_SEED
}

// ---- actions ---------------------------------------------------------------------

/**
 * Action: start a run with some of (preset, workload, seed, custom JSON)
 * changed, from step 0, paused. Choosing another machine closes the L3 boxes
 * it opened (they were the old machine's).
 */
export function newRun(state: SimState, change: Partial<RunParams>): SimState {
  const next: RunParams = { ...runParams(state), ...change }
  if (next.workload !== CUSTOM_WORKLOAD) next.customJson = null
  next.seed = cleanSeed(next.seed)
  if (sameRun(next, runParams(state)) && state.step === 0 && !state.playing) return state
  return {
    ...state,
    ...next,
    step: 0,
    playing: false,
    finished: false,
    openLlcs: next.preset === state.preset ? state.openLlcs : null,
  }
}

export function setRunTo(state: SimState, runTo: EventType): SimState {
  return runTo === state.runTo ? state : { ...state, runTo }
}

/** The L3 boxes open in this state on a machine of `nrCpus` CPUs and `llcs` L3 ids. */
export function openLlcSet(state: SimState, nrCpus: number, llcs: readonly number[]): Set<number> {
  if (state.openLlcs) return new Set(state.openLlcs)
  return new Set(nrCpus <= EXPAND_ALL_UP_TO_CPUS ? llcs : [])
}

/** Action: open or close one L3 box (drill down into it, or back to its summary row). */
export function toggleLlc(state: SimState, llc: number, nrCpus: number, llcs: readonly number[]): SimState {
  const open = openLlcSet(state, nrCpus, llcs)
  if (open.has(llc)) open.delete(llc)
  else open.add(llc)
  return { ...state, openLlcs: [...open].sort((a, b) => a - b) }
}

/** Action: open (true) or close every L3 box. */
export function setAllLlcs(state: SimState, openAll: boolean, llcs: readonly number[]): SimState {
  return { ...state, openLlcs: openAll ? [...llcs] : [] }
}

/**
 * Where the engine actually is after an action: the step it reached and
 * whether the run is over (which stops playback).
 */
export function arrive(state: SimState, reached: number, finished: boolean): SimState {
  const playing = state.playing && !finished
  if (reached === state.step && finished === state.finished && playing === state.playing) return state
  return { ...state, step: reached, finished, playing }
}

// ---- URL -------------------------------------------------------------------------

export const SIM_PARAMS = {
  preset: 'preset',
  workload: 'workload',
  seed: 'seed',
  step: 'step',
  json: 'json',
  llcs: 'llc',
} as const

/** State described by a query string; defaults for what it lacks. Paused, at the named step. */
export function simStateFromSearch(search: string): SimState {
  const q = new URLSearchParams(search)
  const base = initialSimState()
  const workload = q.get(SIM_PARAMS.workload)?.trim() || base.workload
  const customJson = workload === CUSTOM_WORKLOAD ? q.get(SIM_PARAMS.json) ?? '' : null
  const llcs = q.get(SIM_PARAMS.llcs)
  return {
    ...base,
    preset: q.get(SIM_PARAMS.preset)?.trim() || base.preset,
    workload,
    customJson,
    seed: q.has(SIM_PARAMS.seed) ? cleanSeed(q.get(SIM_PARAMS.seed)) : base.seed,
    step: cleanStep(Number(q.get(SIM_PARAMS.step) ?? 0)),
    openLlcs: llcs === null ? null : llcs.split(',').filter((x) => /^\d+$/.test(x)).map(Number),
  }
}

/** The query string for a state, keeping any unrelated parameters of `search`. */
export function searchForSimState(state: SimState, search = ''): string {
  const q = new URLSearchParams(search)
  q.set(SIM_PARAMS.preset, state.preset)
  q.set(SIM_PARAMS.workload, state.workload)
  q.set(SIM_PARAMS.seed, String(state.seed))
  q.set(SIM_PARAMS.step, String(state.step))
  if (state.customJson !== null) q.set(SIM_PARAMS.json, state.customJson)
  else q.delete(SIM_PARAMS.json)
  if (state.openLlcs !== null) q.set(SIM_PARAMS.llcs, state.openLlcs.join(','))
  else q.delete(SIM_PARAMS.llcs)
  return `?${q.toString()}`
}

/**
 * Action: the URL changed under us (Back/Forward): adopt the run and step it
 * describes; playback stops, speed and the run-to choice stay.
 */
export function followSimUrl(state: SimState, search: string): SimState {
  const u = simStateFromSearch(search)
  const next: SimState = { ...state, ...runParams(u), step: u.step, openLlcs: u.openLlcs, playing: false }
  const sameOpen = (next.openLlcs ?? []).join() === (state.openLlcs ?? []).join() && (next.openLlcs === null) === (state.openLlcs === null)
  const same = sameRun(runParams(next), runParams(state)) && next.step === state.step && sameOpen
  if (same && !state.playing) return state
  return sameRun(runParams(next), runParams(state)) ? next : { ...next, finished: false }
}
