/*
 * /embed/<id>/<step>?view=<viewId>&toggles=...: one view of one lesson step,
 * no chrome, for an iframe in slides. Nothing moves it: it shows that step.
 */
import { useMemo } from 'react'
import { positionFromSearch } from '../core/lesson/lesson_route'
import { lessonRouteOf, useAppLocation } from '../core/shared/route'
import { LessonPlayer, lessonModel } from '../views/lesson/LessonPlayer'
import { LessonError, LessonNotReady } from './lesson/LessonError'
import { useLessonData } from './lesson/useLessonData'

const ignore = () => {}

export function EmbedPage() {
  const loc = useAppLocation()
  const route = lessonRouteOf(loc.pathname)
  const id = route?.lesson ?? ''
  const data = useLessonData(id)
  const position = useMemo(() => ({ ...positionFromSearch(id, loc.search), step: route?.step ?? 0 }), [id, loc.search, route?.step])
  if (!data.lesson) return <LessonNotReady error={data.error} />
  if (position.step >= data.lesson.steps.length) {
    return <LessonError message={`${id}.lesson.json: step ${position.step} does not exist (steps 0-${data.lesson.steps.length - 1})`} />
  }
  const views = lessonModel(data.lesson).views.ids
  if (position.view && !views.includes(position.view)) {
    return <LessonError message={`view "${position.view}" is not a lesson view (one of: ${views.join(', ')})`} />
  }
  return <LessonPlayer lesson={data.lesson} position={position} onNavigate={ignore} mode="embed" />
}
