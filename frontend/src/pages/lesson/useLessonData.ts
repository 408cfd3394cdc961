/*
 * The lesson a page names, loaded and validated once (or the error naming file and path).
 * The validator comes with the first lesson (lesson_load.ts): until it has, the page
 * gets { loading: true } and shows LessonLoading.
 */
import { useEffect, useState } from 'react'
import { loadLessonLazily } from '../../core/lesson/lesson_load'
import type { Lesson } from '../../core/lesson/lesson_types'

export type LessonData =
  | { lesson: Lesson; error?: undefined; loading?: undefined }
  | { lesson?: undefined; error: string; loading?: undefined }
  | { lesson?: undefined; error?: undefined; loading: true }

export function useLessonData(id: string): LessonData {
  const [state, setState] = useState<{ id: string; data: LessonData } | null>(null)
  useEffect(() => {
    let live = true
    loadLessonLazily(id).then(
      (lesson) => live && setState({ id, data: { lesson } }),
      (err: unknown) => live && setState({ id, data: { error: err instanceof Error ? err.message : String(err) } }),
    )
    return () => {
      live = false
    }
  }, [id])
  // A state for another id (the URL changed) is not this lesson's: loading again.
  return state && state.id === id ? state.data : { loading: true }
}
