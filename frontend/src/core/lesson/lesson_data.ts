/*
 * The lessons the app ships: every frontend/src/lessons/<id>.lesson.json,
 * bundled at build time (so an exported static lesson needs no fetch), each
 * validated on first use (lesson_validate.ts). A bad file is an error naming
 * the file, the JSON path and the problem; the other lessons still load.
 */
import { LessonDataError, validateLesson } from './lesson_validate'
import type { Lesson } from './lesson_types'

const FILES = import.meta.glob('../../lessons/*.lesson.json', { eager: true, import: 'default' }) as Record<string, unknown>

const fileOf = (path: string) => path.slice(path.lastIndexOf('/') + 1)
const idOf = (path: string) => fileOf(path).replace(/\.lesson\.json$/, '')

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
  cache.set(id, lesson)
  return lesson
}
