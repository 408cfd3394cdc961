/*
 * The lesson's controls: which run (kernel or compare, machine, workload, cache,
 * seed) and how to move through it (back, play, step, next allocation, speed,
 * go to a time), with the keyboard shortcuts printed beside them.
 */
import { useState } from 'react'
import {
  LESSON_VARIANTS, RUN_TO, SPEEDS, formatPlacement,
  type LessonRunParams, type LessonState, type LessonVariant, type RunTo,
} from '../../core/lesson_state'
import type { PresetInfo } from '../../core/types'

const VARIANT_TEXT: Record<LessonVariant, string> = {
  'v6.12': 'v6.12 (before 7e019dc)',
  'v6.13': 'v6.13 (after: 7e019dc)',
  'v6.18': 'v6.18 (6.13 + 02d954c0)',
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
  const knownPreset = presets.some((p) => p.name === state.preset)
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
  onStepBack: () => void
  onTogglePlay: () => void
  onStep: () => void
  onRunToNext: () => void
  onRunTo: (what: RunTo) => void
  onSpeed: (stepsPerSecond: number) => void
  onGoToTime: (ms: number) => void
}

export function LessonPlayback(p: LessonPlaybackProps) {
  const { state, disabled } = p
  const [timeDraft, setTimeDraft] = useState('')
  const go = () => {
    const ms = Number(timeDraft.trim())
    if (timeDraft.trim() !== '' && Number.isFinite(ms) && ms >= 0) p.onGoToTime(ms)
  }
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
      <span className="run-to">
        <button type="button" onClick={p.onRunToNext} disabled={disabled || state.finished} data-testid="run-to-next" aria-keyshortcuts="N">
          Next allocation <kbd>N</kbd>
        </button>
        <select aria-label="What 'next allocation' stops at" data-testid="run-to-select" value={state.runTo} onChange={(e) => p.onRunTo(e.target.value as RunTo)}>
          {RUN_TO.map((r) => (
            <option key={r} value={r}>
              {RUN_TO_TEXT[r]}
            </option>
          ))}
        </select>
      </span>
      <label>
        <span>Speed</span>
        <select data-testid="speed-select" value={state.speed} onChange={(e) => p.onSpeed(Number(e.target.value))}>
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {s} step{s === 1 ? '' : 's'}/s
            </option>
          ))}
        </select>
      </label>
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
    </div>
  )
}
