/*
 * The Simulate page's controls: which run (machine, workload, seed) and how to
 * move through it (back, play/pause, step, speed, run to the next event of a
 * type), with the keyboard shortcuts printed beside them.
 */
import { useEffect, useState } from 'react'
import { SPEEDS, type SimState } from '../../core/sim_state'
import { CUSTOM_WORKLOAD, type ExampleWorkload } from '../../core/workloads'
import { EVENT_TYPES, type EventType, type PresetInfo } from '../../core/types'

export interface RunControlsProps {
  state: SimState
  presets: PresetInfo[]
  workloads: readonly ExampleWorkload[]
  disabled: boolean
  editorOpen: boolean
  onRun: (change: { preset?: string; workload?: string; seed?: number }) => void
  onToggleEditor: () => void
}

/** Machine, workload and seed: changing any starts a new run from step 0. */
export function RunControls({ state, presets, workloads, disabled, editorOpen, onRun, onToggleEditor }: RunControlsProps) {
  const [seedDraft, setSeedDraft] = useState(String(state.seed))
  useEffect(() => setSeedDraft(String(state.seed)), [state.seed])
  const commitSeed = () => {
    const n = Number(seedDraft.trim())
    if (Number.isSafeInteger(n) && n >= 0 && n !== state.seed) onRun({ seed: n })
    else setSeedDraft(String(state.seed))
  }
  const knownPreset = presets.some((p) => p.name === state.preset)
  const current = workloads.find((w) => w.name === state.workload)
  return (
    <div className="run-controls" role="group" aria-label="Which run">
      <label>
        <span>Machine</span>
        <select data-testid="preset-select" value={state.preset} disabled={disabled} onChange={(e) => onRun({ preset: e.target.value })}>
          {!knownPreset && <option value={state.preset}>{state.preset}</option>}
          {presets.map((p) => (
            <option key={p.name} value={p.name} title={p.description}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Workload</span>
        <select
          data-testid="workload-select"
          value={state.workload}
          disabled={disabled}
          title={current?.description}
          onChange={(e) => (e.target.value === CUSTOM_WORKLOAD ? onToggleEditor() : onRun({ workload: e.target.value }))}
        >
          {workloads.map((w) => (
            <option key={w.name} value={w.name} title={w.description}>
              {w.name}
            </option>
          ))}
          <option value={CUSTOM_WORKLOAD}>custom…</option>
          {!current && state.workload !== CUSTOM_WORKLOAD && <option value={state.workload}>{state.workload}</option>}
        </select>
      </label>
      <label>
        <span>Seed</span>
        <input
          data-testid="seed-input"
          className="seed"
          inputMode="numeric"
          value={seedDraft}
          disabled={disabled}
          onChange={(e) => setSeedDraft(e.target.value)}
          onBlur={commitSeed}
          onKeyDown={(e) => e.key === 'Enter' && commitSeed()}
          aria-describedby="seed-hint"
        />
      </label>
      <span id="seed-hint" className="visually-hidden">
        The same machine, workload and seed always give the same events.
      </span>
      <button type="button" onClick={onToggleEditor} aria-pressed={editorOpen} data-testid="edit-workload" disabled={disabled}>
        {editorOpen ? 'Close editor' : 'Edit workload…'}
      </button>
    </div>
  )
}

export interface PlaybackControlsProps {
  state: SimState
  disabled: boolean
  onStepBack: () => void
  onTogglePlay: () => void
  onStep: () => void
  onSpeed: (eventsPerSecond: number) => void
  onRunTo: (type: EventType) => void
  onRunToNext: () => void
}

/** The event types "run to next" can stop at (generic records are never simulated). */
const RUN_TO_TYPES = EVENT_TYPES.filter((t) => t !== 'generic')

export function PlaybackControls(p: PlaybackControlsProps) {
  const { state, disabled } = p
  return (
    <div className="playback-controls" role="group" aria-label="Playback">
      <button type="button" onClick={p.onStepBack} disabled={disabled || state.step === 0} data-testid="step-back" aria-keyshortcuts="ArrowLeft">
        ◀ Back <kbd>←</kbd>
      </button>
      <button type="button" className="primary" onClick={p.onTogglePlay} disabled={disabled || (state.finished && !state.playing)} data-testid="play" aria-keyshortcuts="Space">
        {state.playing ? '❚❚ Pause' : '▶ Play'} <kbd>Space</kbd>
      </button>
      <button type="button" onClick={p.onStep} disabled={disabled || state.finished} data-testid="step-forward" aria-keyshortcuts="ArrowRight">
        Step ▶ <kbd>→</kbd>
      </button>
      <label>
        <span>Speed</span>
        <select data-testid="speed-select" value={state.speed} onChange={(e) => p.onSpeed(Number(e.target.value))}>
          {(SPEEDS as readonly number[]).includes(state.speed) ? null : <option value={state.speed}>{state.speed} events/s</option>}
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s} event{s === 1 ? '' : 's'}/s
            </option>
          ))}
        </select>
      </label>
      <span className="run-to">
        <button type="button" onClick={p.onRunToNext} disabled={disabled || state.finished} data-testid="run-to-next" aria-keyshortcuts="N">
          Run to next <kbd>N</kbd>
        </button>
        <select aria-label="Event type to run to" data-testid="run-to-select" value={state.runTo} onChange={(e) => p.onRunTo(e.target.value as EventType)}>
          {RUN_TO_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </span>
    </div>
  )
}
