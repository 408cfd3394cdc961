/*
 * The lesson player's store: one LessonController (the /lesson/<model> page's
 * engine store) driven by a lesson position instead of the address bar. Each
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
import { LessonController, type LessonHost, type LessonSnapshot } from './lesson_controller'
import { cleanToggles, type LessonRunParams } from './lesson_state'
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

/** The toggles on at a step: those the step offers and the position turns on. */
export function togglesOn(step: LessonStep, toggles: Record<string, boolean>): string[] {
  return cleanToggles(step.toggles.filter((t) => toggles[t]))
}

/** The run parameters a step shows with some toggles on. */
export function runParamsOf(step: LessonStep, toggles: readonly string[]): LessonRunParams {
  const s = step.scenario
  return { variant: s.variant, preset: s.preset, workload: s.workload, cache: s.cache, seed: s.seed, toggles: cleanToggles(toggles) }
}

export interface UseLessonPlayer {
  snapshot: LessonSnapshot
  step: LessonStep
  index: number
  toggles: string[]
  core: 'loading' | 'ready' | 'error'
  coreError: string
  /** The step's quiz answer as the model computes it (null: no quiz, not ready, or the thread decides nothing more). */
  answer: QuizAnswer | null
  paths: { name: string; help: string }[]
}

export function useLessonPlayer(lesson: Lesson, position: LessonPosition): UseLessonPlayer {
  const core = useKscopeCore()
  const controller = useMemo(() => new LessonController(memoryHost()), [])
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
  const paths = useMemo(() => (core.status === 'ready' ? core.core.mmCidPaths() : []), [core])
  return {
    snapshot, step, index, toggles, answer, paths,
    core: core.status,
    coreError: core.status === 'error' ? core.message : '',
  }
}
