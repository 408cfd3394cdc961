/* The lesson a page names, loaded and validated once (or the error naming file and path). */
import { useMemo } from 'react'
import { loadLesson } from '../../core/lesson/lesson_data'
import type { Lesson } from '../../core/lesson/lesson_types'

export function useLessonData(id: string): { lesson: Lesson; error?: undefined } | { lesson?: undefined; error: string } {
  return useMemo(() => {
    try {
      return { lesson: loadLesson(id) }
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) }
    }
  }, [id])
}
