/*
 * Which page the URL path names: "/" the landing page (what kscope is, where to
 * start, and the machine's topology), "/simulate" the simulation, "/lesson/<model>" a model's lesson page, "/traces"
 * real kernel traces. The backend serves index.html for every
 * non-/api path, so a link straight to /simulate?... works. Navigation pushes
 * a history entry; Back/Forward (popstate) switch pages too. The lesson player
 * adds /learn/<id>, /present/<id>, /notes/<id> and /embed/<id>/<step>; an
 * exported lesson (kscope export-lesson) routes by hash: index.html#/learn/<id>.
 * Any other path is "notfound": a page that says so and links to the pages.
 */
import { MODEL_IDS } from 'virtual:models'
import { useCallback, useSyncExternalStore } from 'react'
import { roomRouteOf, type RoomPageName } from '../rooms/room_route'

export type PageName = 'topology' | 'simulate' | 'lesson' | 'traces' | 'notfound' | LessonPageName | RoomPageName

/** The lesson player's pages (lesson_route.ts): /learn/<id>, /present/<id>, /notes/<id>, /embed/<id>/<step>. */
export type LessonPageName = 'learn' | 'present' | 'notes' | 'embed'
export const LESSON_PAGES: readonly LessonPageName[] = ['learn', 'present', 'notes', 'embed']

/** The model and lesson the header's links open: the first model (models/order.json), and its lesson (named after it). */
const FIRST = MODEL_IDS[0]

/** The lesson a lesson page opens when its URL names none: the first model's (lessons are named after their model). */
export const DEFAULT_LESSON = FIRST

export const PAGE_PATHS: Record<PageName, string> = {
  topology: '/', simulate: '/simulate', lesson: `/lesson/${FIRST}`, traces: '/traces',
  learn: `/learn/${FIRST}`, present: `/present/${FIRST}`, notes: `/notes/${FIRST}`, embed: `/embed/${FIRST}/0`,
  join: '/join', room: '/join', notfound: '/',
}

/** The model a /lesson/<model> path names (any id-like name: pageOf and the page check it is a model), else null. */
export function lessonModelOf(pathname: string): string | null {
  return /^\/lesson\/([a-z0-9][a-z0-9_-]*)\/?$/.exec(pathname)?.[1] ?? null
}

/** A lesson page's route: which page, which lesson, and (embed) which step. Null for other paths. */
export function lessonRouteOf(pathname: string): { page: LessonPageName; lesson: string; step: number | null } | null {
  const m = /^\/(learn|present|notes)\/([a-z0-9][a-z0-9_-]*)\/?$/.exec(pathname)
  if (m) return { page: m[1] as LessonPageName, lesson: m[2], step: null }
  const e = /^\/embed\/([a-z0-9][a-z0-9_-]*)\/(\d+)\/?$/.exec(pathname)
  return e ? { page: 'embed', lesson: e[1], step: Number(e[2]) } : null
}

/**
 * Where the app is: path and query. From the hash when it holds a route
 * ("#/present/<id>?step=3"): an exported lesson opened from file:// or a
 * static host without fallback routing uses hash routes.
 */
export function appLocation(loc: { pathname: string; search: string; hash: string }): { pathname: string; search: string } {
  if (loc.hash.startsWith('#/')) {
    const h = loc.hash.slice(1)
    const q = h.indexOf('?')
    return q < 0 ? { pathname: h, search: '' } : { pathname: h.slice(0, q), search: h.slice(q) }
  }
  return { pathname: loc.pathname, search: loc.search }
}

/** Whether the app routes by hash (see appLocation). */
export const hashRouting = (loc: { hash: string; protocol?: string }) => loc.hash.startsWith('#/') || loc.protocol === 'file:'

export function pageOf(pathname: string): PageName {
  const lessonRoute = lessonRouteOf(pathname)
  if (lessonRoute) return lessonRoute.page
  const roomRoute = roomRouteOf(pathname)
  if (roomRoute) return roomRoute.page
  const path = pathname.replace(/\/+$/, '')
  if (path === PAGE_PATHS.simulate) return 'simulate'
  if (MODEL_IDS.includes(lessonModelOf(path) ?? '')) return 'lesson'
  if (path === PAGE_PATHS.traces) return 'traces'
  if (path === '' || path === '/index.html') return 'topology'
  return 'notfound'
}

/** The URL of a page, carrying the machine over when one is on screen. */
export function hrefFor(page: PageName, preset?: string): string {
  return preset ? `${PAGE_PATHS[page]}?preset=${encodeURIComponent(preset)}` : PAGE_PATHS[page]
}

const NAVIGATE = 'kscope:navigate'

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange)
  window.addEventListener('hashchange', onChange)
  window.addEventListener(NAVIGATE, onChange)
  return () => {
    window.removeEventListener('popstate', onChange)
    window.removeEventListener('hashchange', onChange)
    window.removeEventListener(NAVIGATE, onChange)
  }
}

/** An in-app URL as a link's href: "/notes/<id>", or "index.html#/notes/<id>" under hash routing. */
export function appHref(href: string): string {
  return hashRouting(window.location) ? `${window.location.pathname}#${href}` : href
}

/** Goes to an in-app URL ("/learn/<id>?step=2"): a history entry, or the hash under hash routing. */
export function navigateTo(href: string, { replace = false } = {}) {
  if (hashRouting(window.location)) {
    const url = `${window.location.pathname}${window.location.search}#${href}`
    if (replace) window.history.replaceState(null, '', url)
    else window.history.pushState(null, '', url)
  } else if (replace) {
    window.history.replaceState(null, '', href)
  } else {
    window.history.pushState(null, '', href)
  }
  window.dispatchEvent(new Event(NAVIGATE))
}

/** The app's path and query now (hash routes included), re-rendering on navigation. */
export function useAppLocation(): { pathname: string; search: string } {
  const key = useSyncExternalStore(subscribe, () => {
    const l = appLocation(window.location)
    return `${l.pathname}${l.search}`
  }, () => '/')
  const q = key.indexOf('?')
  return q < 0 ? { pathname: key, search: '' } : { pathname: key.slice(0, q), search: key.slice(q) }
}

/** The current page, and a function to go to a URL inside the app without reloading. */
export function useRoute(): { page: PageName; navigate: (href: string) => void } {
  const page = useSyncExternalStore(subscribe, () => pageOf(appLocation(window.location).pathname), () => 'topology' as const)
  const navigate = useCallback((href: string) => navigateTo(href), [])
  return { page, navigate }
}
