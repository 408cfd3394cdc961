/*
 * The lesson's controls: which run (kernel or compare, machine, workload, cache,
 * seed) and how to move through it (back, play, step, next allocation, speed,
 * go to a time: the shared playback controls, views/playback), with the
 * keyboard shortcuts printed beside them.
 */
import { useState } from 'react'
import {
  LESSON_VARIANTS, RUN_TO, SPEEDS, formatPlacement,
  type LessonRunParams, type LessonState, type LessonVariant, type RunTo,
} from '../../models/mm_cid/lesson_state'
import type { PresetInfo } from '../../core/shared/types'
import { MachineSelect, PlaybackControls, RunToNext, SpeedSelect, type PlaybackControlActions, type RunToChoices } from '../playback'

const VARIANT_TEXT: Record<LessonVariant, string> = {
  'v6.12': 'v6.12 (before 7e019dc)',
  'v6.13': 'v6.13 (after: 7e019dc)',
  'v6.18': 'v6.18 (6.13 + 02d954c0)',
  'v6.19': 'v6.19 / 7.x (ownership modes)',
  compare: 'compare v6.12 vs v6.13',
}

const RUN_TO_TEXT: Record<RunTo, string> = {
  entry: 'any allocator decision',
  'new-cid': 'a cid handed out',
  scan: 'a scan',
}

export interface LessonRunControlsProps {
  state: LessonState
  presets: PresetInfo[]
  disabled: boolean
  editorOpen: boolean
  onRun: (change: Partial<LessonRunParams>) => void
  onToggleEditor: () => void
}

/** "8 threads · CPUs 0-7 · 200 ms" */
export function workloadSummary(state: LessonState): string {
  const w = state.workload
  const where = w.placement.kind === 'pinned' ? `CPUs ${formatPlacement(w.placement).slice(5)}` : w.placement.kind === 'any' ? 'any CPU' : `any CPU of L3 #${w.placement.llc}`
  return `${w.threads} thread${w.threads === 1 ? '' : 's'}, ${where}, ${w.delayMs} ms`
}

export function LessonRunControls({ state, presets, disabled, editorOpen, onRun, onToggleEditor }: LessonRunControlsProps) {
  return (
    <div className="run-controls" role="group" aria-label="Which run">
      <label>
        <span>Kernel</span>
        <select data-testid="variant-select" value={state.variant} disabled={disabled} onChange={(e) => onRun({ variant: e.target.value as LessonVariant })}>
          {LESSON_VARIANTS.map((v) => (
            <option key={v} value={v}>
              {VARIANT_TEXT[v]}
            </option>
          ))}
        </select>
      </label>
      <MachineSelect preset={state.preset} presets={presets} disabled={disabled} onSelect={(preset) => onRun({ preset })} />
      <button type="button" className="workload-button" onClick={onToggleEditor} aria-pressed={editorOpen} aria-expanded={editorOpen} data-testid="edit-workload" disabled={disabled}>
        Workload: {workloadSummary(state)} · {state.cache} cache · seed {state.seed} {editorOpen ? '▴' : '▾'}
      </button>
    </div>
  )
}

export interface LessonPlaybackProps {
  state: LessonState
  lastStep: number
  disabled: boolean
  /** The store's actions (models/mm_cid/lesson_controller.ts): setSpeed in lesson steps per second. */
  actions: PlaybackControlActions<RunTo> & { goToTime(ms: number): void }
}

/** "Next allocation" stops at an allocator log entry of a kind. */
const NEXT_ALLOCATION: RunToChoices<RunTo> = {
  label: 'Next allocation',
  selectLabel: "What 'next allocation' stops at",
  options: RUN_TO.map((r) => ({ value: r, text: RUN_TO_TEXT[r] })),
}

/** Back, play, step, "next allocation" of a kind, the speed in lesson steps per second, and "go to" a time. */
export function LessonPlayback({ state, disabled, actions }: LessonPlaybackProps) {
  const [timeDraft, setTimeDraft] = useState('')
  const go = () => {
    const ms = Number(timeDraft.trim())
    if (timeDraft.trim() !== '' && Number.isFinite(ms) && ms >= 0) actions.goToTime(ms)
  }
  return (
    <PlaybackControls state={state} disabled={disabled} actions={actions}>
      <RunToNext state={state} choices={NEXT_ALLOCATION} disabled={disabled} actions={actions} />
      <SpeedSelect speed={state.speed} speeds={SPEEDS} unit="step" onSpeed={actions.setSpeed} />
      <span className="go-to">
        <label>
          <span>Go to</span>
          <input
            data-testid="goto-ms"
            className="ms"
            inputMode="decimal"
            placeholder="ms"
            value={timeDraft}
            disabled={disabled}
            onChange={(e) => setTimeDraft(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && go()}
          />
          <span>ms</span>
        </label>
        <button type="button" onClick={go} disabled={disabled} data-testid="goto-button">
          Go
        </button>
      </span>
    </PlaybackControls>
  )
}
