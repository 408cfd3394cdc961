/*
 * The shipped lessons (lesson_files.ts), each validated on first use
 * (lesson_validate.ts). A bad file is an error naming the file, the JSON path
 * and the problem; the other lessons still load.
 *
 * This module brings the ajv-compiled lesson validator with it: the pages load
 * it on demand (lesson_load.ts), never from the app's first script.
 */
import { LessonDataError, validateLesson } from './lesson_validate'
import { folderProblem, lessonFile, lessonIds } from './lesson_files'
import type { Lesson } from './lesson_types'

export { folderProblem, lessonFileOf, lessonIds } from './lesson_files'

const cache = new Map<string, Lesson>()

/** The lesson `id`, validated; throws LessonDataError (bad file or unknown id). */
export function loadLesson(id: string): Lesson {
  const hit = cache.get(id)
  if (hit) return hit
  const found = lessonFile(id)
  if (!found) {
    throw new LessonDataError(`${id}.lesson.json`, [{ path: '$', message: `no such lesson (shipped: ${lessonIds().join(', ') || 'none'})` }])
  }
  const { path, file, data } = found
  const lesson = validateLesson(data, file)
  if (lesson.id !== id) throw new LessonDataError(file, [{ path: '$.id', message: `must be "${id}" (the file name), got "${lesson.id}"` }])
  const misplaced = folderProblem(path, lesson.model)
  if (misplaced) throw new LessonDataError(file, [{ path: '$.model', message: misplaced }])
  cache.set(id, lesson)
  return lesson
}
