/*
 * The app: one page per URL path (core/route.ts): "/" shows the machine's
 * topology, "/simulate" a modelled run on it, "/lesson/<model>" a model's
 * lesson page (models/registry.ts), "/traces" real kernel traces; the lesson player's
 * "/learn/<id>", "/present/<id>", "/notes/<id>", "/embed/<id>/<step>"; any other
 * path a "not found" page with links. Each page
 * owns its store.
 */
import { lazy, Suspense } from 'react'
import { appLocation, useRoute } from './core/shared/route'
import { roomRouteOf } from './core/rooms/room_route'
import { EmbedPage } from './pages/EmbedPage'
import { NotFoundPage } from './pages/Landing'
import { LearnPage } from './pages/LearnPage'
import { LessonPage } from './pages/LessonPage'
import { NotesPage } from './pages/NotesPage'
import { PresentPage } from './pages/PresentPage'
import { SimulatePage } from './pages/SimulatePage'
import { TopologyPage } from './pages/TopologyPage'

// The traces page (decoders' UI, timeline) loads on first visit: the lesson pages stay small.
const TracesPage = lazy(() => import('./pages/TracesPage').then((m) => ({ default: m.TracesPage })))
// The follower pages (rooms): phones load only what they need.
const JoinPage = lazy(() => import('./pages/JoinPage').then((m) => ({ default: m.JoinPage })))
const RoomPage = lazy(() => import('./pages/RoomPage').then((m) => ({ default: m.RoomPage })))

export default function App() {
  const { page, navigate } = useRoute()
  return (
    <div className={`app page-${page}`}>
      {page === 'join' || page === 'room' ? (
        <Suspense fallback={<p className="status" role="status">Loading the room…</p>}>
          {page === 'join' ? <JoinPage navigate={navigate} /> : <RoomPage code={roomCode()} navigate={navigate} />}
        </Suspense>
      ) : page === 'learn' ? (
        <LearnPage navigate={navigate} />
      ) : page === 'present' ? (
        <PresentPage />
      ) : page === 'notes' ? (
        <NotesPage />
      ) : page === 'embed' ? (
        <EmbedPage />
      ) : page === 'simulate' ? (
        <SimulatePage navigate={navigate} />
      ) : page === 'traces' ? (
        <Suspense fallback={<p className="status" role="status">Loading the traces page…</p>}>
          <TracesPage navigate={navigate} />
        </Suspense>
      ) : page === 'lesson' ? (
        <LessonPage navigate={navigate} />
      ) : page === 'notfound' ? (
        <NotFoundPage navigate={navigate} path={appLocation(window.location).pathname} />
      ) : (
        <TopologyPage navigate={navigate} />
      )}
    </div>
  )
}

function roomCode(): string {
  const route = roomRouteOf(window.location.pathname)
  return route && route.page === 'room' ? route.code : ''
}
