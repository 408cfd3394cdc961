/*
 * A lesson position in the address bar: /learn/<id>?step=3&toggles=<toggle>
 * (step is 0-based, as in LessonPosition). Pure parse/format, and the hook the
 * lesson pages use to read and change it (a replaced history entry per move,
 * so Back leaves the lesson rather than stepping through it).
 */
import { useCallback, useMemo } from 'react'
import type { LessonPosition } from './lesson_position'
import { navigateTo, useAppLocation } from '../shared/route'

/** The position a query string names (unknown parameters ignored; a bad step is step 0). */
export function positionFromSearch(lesson: string, search: string): LessonPosition {
  const q = new URLSearchParams(search)
  const n = Number(q.get('step') ?? 0)
  const toggles: Record<string, boolean> = {}
  for (const t of (q.get('toggles') ?? '').split(',')) if (/^[a-z0-9_]+$/.test(t)) toggles[t] = true
  const view = q.get('view')
  return { lesson, step: Number.isInteger(n) && n >= 0 ? n : 0, toggles, ...(view ? { view } : {}) }
}

/** The query string of a position (toggles that are on, sorted; the pointer never goes in the URL). */
export function searchForPosition(p: LessonPosition): string {
  const q = new URLSearchParams()
  q.set('step', String(p.step))
  const on = Object.keys(p.toggles).filter((t) => p.toggles[t]).sort()
  if (on.length) q.set('toggles', on.join(','))
  if (p.view) q.set('view', p.view)
  return `?${q.toString().replace(/%2C/g, ',')}`
}

/** Two positions show the same step with the same toggles (pointer and view aside). */
export function sameStep(a: LessonPosition, b: LessonPosition): boolean {
  return a.lesson === b.lesson && a.step === b.step && searchForPosition({ ...a, view: undefined }) === searchForPosition({ ...b, view: undefined })
}

/** The page's lesson position from the URL, and a setter that writes it back. */
export function useUrlPosition(page: 'learn' | 'present', lesson: string): [LessonPosition, (p: LessonPosition) => void] {
  const { search } = useAppLocation()
  const position = useMemo(() => positionFromSearch(lesson, search), [lesson, search])
  const set = useCallback(
    (p: LessonPosition) => {
      const next = `/${page}/${lesson}${searchForPosition({ ...p, view: undefined })}`
      navigateTo(next, { replace: true })
    },
    [page, lesson],
  )
  return [position, set]
}
