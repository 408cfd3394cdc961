/*
 * The lesson player's store: the model's lesson store (its descriptor's
 * lesson.store, the /lesson/<model> page's engine store) driven by a lesson
 * position instead of the address bar. Each
 * step names a scenario and a place in it (lesson_types.ts); the player builds
 * those runs (toggles applied), goes there, and computes the step's quiz answer
 * from the model.
 *
 *   LessonPosition {step, toggles} ──> step's scenario + toggles on ──> controller.showStep
 *   views <── {state, view, quiz answer} <── snapshot
 *
 * The controller's URL writes go to an in-memory location (memoryHost): the
 * page's own URL says ?step=N and is the page's business (route.ts).
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react'
import type { LessonHost, LessonPlayerModel, LessonStepSnapshot } from '../../models/types'
import type { LessonRunParams } from './lesson_state'
import type { LessonPosition } from './lesson_position'
import { quizAnswer, type QuizAnswer } from './lesson_quiz'
import type { Lesson, LessonStep } from './lesson_types'
import { useKscopeCore } from '../machine/machine'

/** A window stand-in whose location and history live in memory (animation frames are the real ones). */
export function memoryHost(): LessonHost {
  const location = { search: '', pathname: '/lesson-player', hash: '' }
  const setUrl = (url: string) => {
    const q = url.indexOf('?')
    location.search = q >= 0 ? url.slice(q) : ''
  }
  return {
    location,
    history: { pushState: (_d, _u, url) => setUrl(url), replaceState: (_d, _u, url) => setUrl(url) },
    requestAnimationFrame: (cb) => (typeof window !== 'undefined' ? window.requestAnimationFrame(cb) : 0),
    cancelAnimationFrame: (id) => (typeof window !== 'undefined' ? window.cancelAnimationFrame(id) : undefined),
    addEventListener: () => {},
    removeEventListener: () => {},
  }
}

/** A step index inside the lesson. */
export function clampStep(lesson: Lesson, step: number): number {
  return Number.isFinite(step) ? Math.min(lesson.steps.length - 1, Math.max(0, Math.floor(step))) : 0
}

/** The toggles on at a step: those the step offers (the validator checked they are the model's) and the position turns on; each once, sorted. */
export function togglesOn(step: LessonStep, toggles: Record<string, boolean>): string[] {
  return [...new Set(step.toggles.filter((t) => toggles[t] === true))].sort()
}

/** The run parameters a step shows with some toggles on. */
export function runParamsOf(step: LessonStep, toggles: readonly string[]): LessonRunParams {
  const s = step.scenario
  return { variant: s.variant, preset: s.preset, workload: s.workload, cache: s.cache, seed: s.seed, toggles: [...toggles] }
}

export interface UseLessonPlayer {
  snapshot: LessonStepSnapshot
  step: LessonStep
  index: number
  toggles: string[]
  core: 'loading' | 'ready' | 'error'
  coreError: string
  /** The step's quiz answer as the model computes it (null: no quiz, not ready, or the thread decides nothing more). */
  answer: QuizAnswer | null
  paths: { name: string; help: string }[]
}

export function useLessonPlayer(lesson: Lesson, position: LessonPosition, model: LessonPlayerModel): UseLessonPlayer {
  const core = useKscopeCore()
  // One store per lesson player (a lesson's model does not change under it: the page keys the player by lesson).
  const controller = useMemo(() => model.store(memoryHost()), [model])
  useEffect(() => (core.status === 'ready' ? controller.start(core.core) : undefined), [core, controller])
  const snapshot = useSyncExternalStore(controller.subscribe, controller.getSnapshot)
  const index = clampStep(lesson, position.step)
  const step = lesson.steps[index]
  const toggles = togglesOn(step, position.toggles)
  const key = `${lesson.id}|${index}|${toggles.join('+')}`
  useEffect(() => {
    if (core.status === 'ready') controller.showStep(runParamsOf(step, toggles), step.at)
    // key names the step and its toggles
  }, [core, controller, key])
  const answer = useMemo(
    () => (step.quiz && snapshot.view.runs.length ? quizAnswer(step.quiz, controller.quizRuns(), snapshot.view.time_ns) : null),
    [step, snapshot, controller],
  )
  const paths = useMemo(() => (core.status === 'ready' ? model.paths(core.core) : []), [core, model])
  return {
    snapshot, step, index, toggles, answer, paths,
    core: core.status,
    coreError: core.status === 'error' ? core.message : '',
  }
}
