/*
 * The lessons the app ships: every frontend/src/lessons/<model>/<id>.lesson.json
 * (one folder per model; a lesson's "model" must be its folder's name), bundled at build time (so an exported static lesson needs no fetch), each
 * validated on first use (lesson_validate.ts). A bad file is an error naming
 * the file, the JSON path and the problem; the other lessons still load.
 */
import { LessonDataError, validateLesson } from './lesson_validate'
import type { Lesson } from './lesson_types'

const FILES = import.meta.glob('../../lessons/*/*.lesson.json', { eager: true, import: 'default' }) as Record<string, unknown>

const fileOf = (path: string) => path.slice(path.lastIndexOf('/') + 1)
/** The model folder a lesson file sits in (lessons/<model>/). */
const folderOf = (path: string) => path.split('/').at(-2) ?? ''
const idOf = (path: string) => fileOf(path).replace(/\.lesson\.json$/, '')

/** Why a lesson of `model` may not sit at `path` (its folder must be the model's), or null. */
export function folderProblem(path: string, model: string): string | null {
  const folder = folderOf(path)
  return folder === model ? null : `must be "${folder}" (the folder lessons/${folder}/ it is in), got "${model}"`
}

/** Where lesson `id` is, relative to src/lessons/ ("<model>/<id>.lesson.json"), or null. */
export function lessonFileOf(id: string): string | null {
  const path = Object.keys(FILES).find((p) => idOf(p) === id)
  return path ? `${folderOf(path)}/${fileOf(path)}` : null
}

/** The ids of the shipped lessons, sorted. */
export function lessonIds(): string[] {
  return Object.keys(FILES).map(idOf).sort()
}

const cache = new Map<string, Lesson>()

/** The lesson `id`, validated; throws LessonDataError (bad file or unknown id). */
export function loadLesson(id: string): Lesson {
  const hit = cache.get(id)
  if (hit) return hit
  const path = Object.keys(FILES).find((p) => idOf(p) === id)
  if (!path) {
    throw new LessonDataError(`${id}.lesson.json`, [{ path: '$', message: `no such lesson (shipped: ${lessonIds().join(', ') || 'none'})` }])
  }
  const lesson = validateLesson(FILES[path], fileOf(path))
  if (lesson.id !== id) throw new LessonDataError(fileOf(path), [{ path: '$.id', message: `must be "${id}" (the file name), got "${lesson.id}"` }])
  const misplaced = folderProblem(path, lesson.model)
  if (misplaced) throw new LessonDataError(fileOf(path), [{ path: '$.model', message: misplaced }])
  cache.set(id, lesson)
  return lesson
}
