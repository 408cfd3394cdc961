/*
 * The playback controls every playback page shares (Simulate, the mm_cid
 * lesson, the lessons to come): back, play/pause, step, the speed, and "run to
 * next", each with its keyboard shortcut printed beside it (keys.ts binds
 * them), and the machine picker every page's "which run" group starts with.
 * They show a PlaybackState and call the store's named actions; the page puts
 * its own pieces (what "run to next" stops at, a speed unit, "go to") inside.
 *
 *   ◀ Back ←   ▶ Play Space   Step ▶ →   [page's children: speed, run to next, ...]
 */
import type { ReactNode } from 'react'
import type { PlaybackActions } from '../../core/playback/playback_controller'
import type { PlaybackState } from '../../core/playback/playback_state'
import type { PresetInfo } from '../../core/shared/types'

/** The store's actions the shared controls call: the playback ones, and the page's "run to next". */
export interface PlaybackControlActions<R extends string> extends Pick<PlaybackActions<unknown>, 'stepBack' | 'togglePlay' | 'step' | 'setSpeed'> {
  runToNext(): void
  setRunTo(what: R): void
}

export interface PlaybackControlsProps {
  state: PlaybackState
  /** No run to move through (still loading, or a problem). */
  disabled: boolean
  actions: Pick<PlaybackControlActions<string>, 'stepBack' | 'togglePlay' | 'step'>
  /** The page's further controls, after the step buttons. */
  children?: ReactNode
}

export function PlaybackControls({ state, disabled, actions, children }: PlaybackControlsProps) {
  return (
    <div className="playback-controls" role="group" aria-label="Playback">
      <button type="button" onClick={actions.stepBack} disabled={disabled || state.step === 0} data-testid="step-back" aria-keyshortcuts="ArrowLeft">
        ◀ Back <kbd>←</kbd>
      </button>
      <button type="button" className="primary" onClick={actions.togglePlay} disabled={disabled || (state.finished && !state.playing)} data-testid="play" aria-keyshortcuts="Space">
        {state.playing ? '❚❚ Pause' : '▶ Play'} <kbd>Space</kbd>
      </button>
      <button type="button" onClick={actions.step} disabled={disabled || state.finished} data-testid="step-forward" aria-keyshortcuts="ArrowRight">
        Step ▶ <kbd>→</kbd>
      </button>
      {children}
    </div>
  )
}

export interface SpeedSelectProps {
  /** Steps per second. */
  speed: number
  /** The speeds offered. */
  speeds: readonly number[]
  /** What a step is, singular: "event", "step". */
  unit: string
  onSpeed: (stepsPerSecond: number) => void
}

/** The playback speed; a speed not offered (set some other way) is shown as it is. */
export function SpeedSelect({ speed, speeds, unit, onSpeed }: SpeedSelectProps) {
  return (
    <label>
      <span>Speed</span>
      <select data-testid="speed-select" value={speed} onChange={(e) => onSpeed(Number(e.target.value))}>
        {speeds.includes(speed) ? null : <option value={speed}>{speed} {unit}s/s</option>}
        {speeds.map((s) => (
          <option key={s} value={s}>
            {s} {unit}{s === 1 ? '' : 's'}/s
          </option>
        ))}
      </select>
    </label>
  )
}

/** What a page's "run to next" stops at, and how it says so. */
export interface RunToChoices<R extends string> {
  /** The button's text: "Run to next", "Next allocation". */
  label: string
  /** The select's accessible name (what the button stops at). */
  selectLabel: string
  options: readonly { value: R; text: string }[]
}

export interface RunToNextProps<R extends string> {
  state: PlaybackState & { readonly runTo: R }
  choices: RunToChoices<R>
  disabled: boolean
  actions: Pick<PlaybackControlActions<R>, 'runToNext' | 'setRunTo'>
}

/** "Run to next <what>" (key N), and the choice of what it stops at. */
export function RunToNext<R extends string>({ state, choices, disabled, actions }: RunToNextProps<R>) {
  return (
    <span className="run-to">
      <button type="button" onClick={actions.runToNext} disabled={disabled || state.finished} data-testid="run-to-next" aria-keyshortcuts="N">
        {choices.label} <kbd>N</kbd>
      </button>
      <select aria-label={choices.selectLabel} data-testid="run-to-select" value={state.runTo} onChange={(e) => actions.setRunTo(e.target.value as R)}>
        {choices.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.text}
          </option>
        ))}
      </select>
    </span>
  )
}

export interface MachineSelectProps {
  preset: string
  presets: readonly PresetInfo[]
  disabled: boolean
  onSelect: (preset: string) => void
}

/** The machine (topology preset) of the run; a name the core does not know is kept, as it is. */
export function MachineSelect({ preset, presets, disabled, onSelect }: MachineSelectProps) {
  const known = presets.some((p) => p.name === preset)
  return (
    <label>
      <span>Machine</span>
      <select data-testid="preset-select" value={preset} disabled={disabled} onChange={(e) => onSelect(e.target.value)}>
        {!known && <option value={preset}>{preset}</option>}
        {presets.map((p) => (
          <option key={p.name} value={p.name} title={p.description}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  )
}
