/*
 * The part of a playback page's state every page shares, and the named
 * actions on it. Simulate moves through a run one event at a time, a model's
 * lesson one instant at a time. Each page's state (sim_state.ts, lesson_state.ts)
 * extends PlaybackState with what defines its runs, and re-exports these
 * actions; each is a pure function (state, args) -> new state, and returns the
 * same object when nothing changes (so the store can tell a no-op).
 *
 * `finished` is learned from the engine (the page's arrive()): only the engine
 * knows where a run ends, so seek() may overshoot and the store clamps it.
 */

export interface PlaybackState {
  /** Steps done: the screen shows the run after this many (0: before anything). */
  readonly step: number
  readonly playing: boolean
  /** Playback speed, steps per second (the page says what a step is). */
  readonly speed: number
  /** The run has no further steps (learned from the engine). */
  readonly finished: boolean
}

/** A step number from a link or a field: a non-negative integer (anything else: 0). */
export const cleanStep = (n: number) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0)

/** Action: one step forward (no-op at the end of the run). */
export function step<S extends PlaybackState>(state: S): S {
  if (state.finished) return state.playing ? { ...state, playing: false } : state
  return { ...state, step: state.step + 1, playing: false }
}

/** Action: one step back (no-op at step 0). */
export function stepBack<S extends PlaybackState>(state: S): S {
  if (state.step === 0) return state.playing ? { ...state, playing: false } : state
  return { ...state, step: state.step - 1, playing: false, finished: false }
}

/** Action: go to step n (the engine clamps it to the run's end). */
export function seek<S extends PlaybackState>(state: S, n: number): S {
  const target = cleanStep(n)
  if (target === state.step) return state
  return { ...state, step: target, finished: target < state.step ? false : state.finished }
}

/** Action: start playing (at the end of the run: nothing to play). */
export function play<S extends PlaybackState>(state: S): S {
  if (state.playing || state.finished) return state
  return { ...state, playing: true }
}

export function pause<S extends PlaybackState>(state: S): S {
  return state.playing ? { ...state, playing: false } : state
}

export function togglePlay<S extends PlaybackState>(state: S): S {
  return state.playing ? pause(state) : play(state)
}

/** Action: playback speed in steps per second (any positive number; pages offer a few). */
export function setSpeed<S extends PlaybackState>(state: S, speed: number): S {
  if (!(speed > 0) || speed === state.speed) return state
  return { ...state, speed }
}
