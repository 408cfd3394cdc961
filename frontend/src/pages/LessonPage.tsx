/*
 * /lesson/<model>: a model's own lesson page (its free-running explorer), the
 * model found in models/registry.ts; an unknown model is the not-found page.
 */
import { Suspense } from 'react'
import { appLocation, lessonModelOf } from '../core/shared/route'
import { modelOf } from '../models/registry'
import { NotFoundPage } from './Landing'

export function LessonPage({ navigate }: { navigate: (href: string) => void }) {
  const pathname = appLocation(window.location).pathname
  const model = modelOf(lessonModelOf(pathname) ?? '')
  if (!model) return <NotFoundPage navigate={navigate} path={pathname} />
  const Page = model.page
  return (
    <Suspense fallback={<p className="status" role="status">Loading the lesson page…</p>}>
      <Page navigate={navigate} />
    </Suspense>
  )
}
