/*
 * The Simulate page's controls: which run (machine, workload, seed) and how to
 * move through it (back, play/pause, step, speed, run to the next event of a
 * type: the shared playback controls, views/playback), with the keyboard
 * shortcuts printed beside them.
 */
import { useEffect, useState } from 'react'
import { SPEEDS, type SimState } from '../../core/sim/sim_state'
import { CUSTOM_WORKLOAD, type ExampleWorkload } from '../../core/sim/workloads'
import { EVENT_TYPES, type EventType, type PresetInfo } from '../../core/shared/types'
import { MachineSelect, PlaybackControls, RunToNext, SpeedSelect, type PlaybackControlActions, type RunToChoices } from '../playback'

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
  const current = workloads.find((w) => w.name === state.workload)
  return (
    <div className="run-controls" role="group" aria-label="Which run">
      <MachineSelect preset={state.preset} presets={presets} disabled={disabled} onSelect={(preset) => onRun({ preset })} />
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

export interface SimPlaybackProps {
  state: SimState
  disabled: boolean
  /** The store's actions (core/sim_controller.ts): setSpeed in events per second, setRunTo an event type. */
  actions: PlaybackControlActions<EventType>
}

/** "Run to next" stops at an event of a type (generic records are never simulated). */
const RUN_TO: RunToChoices<EventType> = {
  label: 'Run to next',
  selectLabel: 'Event type to run to',
  options: EVENT_TYPES.filter((t) => t !== 'generic').map((t) => ({ value: t, text: t })),
}

/** Back, play, step, the speed in events per second, and "run to next" event of a type. */
export function SimPlayback({ state, disabled, actions }: SimPlaybackProps) {
  return (
    <PlaybackControls state={state} disabled={disabled} actions={actions}>
      <SpeedSelect speed={state.speed} speeds={SPEEDS} unit="event" onSpeed={actions.setSpeed} />
      <RunToNext state={state} choices={RUN_TO} disabled={disabled} actions={actions} />
    </PlaybackControls>
  )
}
