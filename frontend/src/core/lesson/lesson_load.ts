/*
 * A lesson for a page, loaded with its validator on demand: the ajv-compiled
 * validator (lesson_validate.ts, "virtual:lesson-validators", about 115 kB)
 * is a chunk of its own that only a page opening a lesson fetches; "/" and
 * the other pages never do. Import this, not lesson_data.ts, from pages.
 */
import type { Lesson } from './lesson_types'

/** The lesson `id`, validated; rejects with LessonDataError (bad file or unknown id). */
export async function loadLessonLazily(id: string): Promise<Lesson> {
  const { loadLesson } = await import('./lesson_data')
  return loadLesson(id)
}
