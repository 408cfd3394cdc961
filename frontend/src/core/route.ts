/*
 * Which page the URL path names: "/" (and anything else) the topology page,
 * "/simulate" the simulation, "/lesson/mm_cid" the mm_cid lesson, "/traces"
 * real kernel traces. The backend serves index.html for every
 * non-/api path, so a link straight to /simulate?... works. Navigation pushes
 * a history entry; Back/Forward (popstate) switch pages too.
 */
import { useCallback, useSyncExternalStore } from 'react'
import { roomRouteOf, type RoomPageName } from './room_route'

export type PageName = 'topology' | 'simulate' | 'lesson' | 'traces' | RoomPageName

export const PAGE_PATHS: Record<PageName, string> = { topology: '/', simulate: '/simulate', lesson: '/lesson/mm_cid', traces: '/traces', join: '/join', room: '/join' }

export function pageOf(pathname: string): PageName {
  const roomRoute = roomRouteOf(pathname)
  if (roomRoute) return roomRoute.page
  const path = pathname.replace(/\/+$/, '')
  if (path === PAGE_PATHS.simulate) return 'simulate'
  if (path === PAGE_PATHS.lesson) return 'lesson'
  if (path === PAGE_PATHS.traces) return 'traces'
  return 'topology'
}

/** The URL of a page, carrying the machine over when one is on screen. */
export function hrefFor(page: PageName, preset?: string): string {
  return preset ? `${PAGE_PATHS[page]}?preset=${encodeURIComponent(preset)}` : PAGE_PATHS[page]
}

const NAVIGATE = 'kscope:navigate'

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange)
  window.addEventListener(NAVIGATE, onChange)
  return () => {
    window.removeEventListener('popstate', onChange)
    window.removeEventListener(NAVIGATE, onChange)
  }
}

/** The current page, and a function to go to a URL inside the app without reloading. */
export function useRoute(): { page: PageName; navigate: (href: string) => void } {
  const page = useSyncExternalStore(subscribe, () => pageOf(window.location.pathname), () => 'topology' as const)
  const navigate = useCallback((href: string) => {
    window.history.pushState(null, '', href)
    window.dispatchEvent(new Event(NAVIGATE))
  }, [])
  return { page, navigate }
}
