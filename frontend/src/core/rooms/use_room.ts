/*
 * React glue for rooms: a RoomClient for the component's lifetime, its state as
 * a React store, and the presenter's side (start a room, publish each position,
 * open the step's quiz).
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { LessonPosition } from '../lesson/lesson_position'
import { pageWsOrigin, RoomClient, type RoomClientOptions } from './room_client'
import { publishDelay, structuralKey, type LastSent } from './room_publish'
import type { RoomQuiz, RoomState } from './room_state'
import { createRoom, presenterToken, rememberPresenterToken, type RoomCreated } from './rooms_api'

/** A connected RoomClient while `opts` is non-null (a new one when code/role/token/client change). */
export function useRoomClient(opts: Omit<RoomClientOptions, 'wsOrigin'> | null): { client: RoomClient | null; state: RoomState | null } {
  const key = opts ? `${opts.code}|${opts.role}|${opts.token ?? ''}|${opts.clientId ?? ''}` : ''
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const client = useMemo(() => (opts ? new RoomClient({ ...opts, wsOrigin: pageWsOrigin(window.location) }) : null), [key])
  useEffect(() => {
    if (!client) return
    client.connect()
    if (import.meta.env.DEV || navigator.webdriver) (window as unknown as { __kscopeRoom?: RoomClient }).__kscopeRoom = client
    return () => client.close()
  }, [client])
  const subscribe = useCallback((fn: () => void) => (client ? client.subscribe(fn) : () => {}), [client])
  const state = useSyncExternalStore(subscribe, () => (client ? client.getState() : null))
  return { client, state }
}

/** A room this tab started for a lesson (kept in sessionStorage so a reload keeps driving it). */
export interface StartedRoom {
  code: string
  joinUrl: string
  expiresAt: number
  token: string
}

const startedKey = (lesson: string) => `kscope.present.${lesson}.room`

function loadStarted(lesson: string): StartedRoom | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(startedKey(lesson)) ?? 'null') as Omit<StartedRoom, 'token'> | null
    const token = saved && presenterToken(saved.code)
    // No expiry check here: presenter activity pushes the expiry back; a room that did expire
    // answers 4404 and the panel says so.
    return saved && token ? { ...saved, token } : null
  } catch {
    return null
  }
}

export interface PresenterRoom {
  room: StartedRoom | null
  state: RoomState | null
  starting: boolean
  startError: string | null
  start: () => void
  /** Stop driving the room from this tab (the room itself expires on its own). */
  leave: () => void
  reveal: (quizId: string, answer: string) => void
}

/**
 * The presenter's room for `lesson`: publishes every `position` and opens the
 * quiz of the step on screen (`quiz`), once a room is started.
 */
export function usePresenterRoom(lesson: string, position: LessonPosition, quiz: RoomQuiz | null): PresenterRoom {
  const [room, setRoom] = useState<StartedRoom | null>(() => loadStarted(lesson))
  const [starting, setStarting] = useState(false)
  const [startError, setStartError] = useState<string | null>(null)
  const { client, state } = useRoomClient(room ? { code: room.code, role: 'presenter', token: room.token } : null)

  const start = useCallback(() => {
    setStarting(true)
    setStartError(null)
    createRoom(lesson)
      .then((created: RoomCreated) => {
        rememberPresenterToken(created.code, created.presenter_token)
        const started = { code: created.code, joinUrl: created.join_url, expiresAt: created.expires_at, token: created.presenter_token }
        const saved = { code: started.code, joinUrl: started.joinUrl, expiresAt: started.expiresAt }
        sessionStorage.setItem(startedKey(lesson), JSON.stringify(saved))
        setRoom(started)
      })
      .catch((err: Error) => setStartError(err.message))
      .finally(() => setStarting(false))
  }, [lesson])

  const leave = useCallback(() => {
    sessionStorage.removeItem(startedKey(lesson))
    setRoom(null)
  }, [lesson])

  // Publish each position: steps/toggles at once, pointer-only moves throttled (room_publish.ts).
  const latest = useRef(position)
  latest.current = position
  const lastSent = useRef<LastSent | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  useEffect(() => {
    lastSent.current = null // a new room gets the position at once
    return () => {
      if (timer.current !== null) clearTimeout(timer.current)
      timer.current = null
    }
  }, [client])
  const positionKey = JSON.stringify(position)
  useEffect(() => {
    if (!client) return
    const send = () => {
      if (timer.current !== null) clearTimeout(timer.current)
      timer.current = null
      client.publish(latest.current)
      lastSent.current = { key: structuralKey(latest.current), at: performance.now() }
    }
    const wait = publishDelay(lastSent.current, position, performance.now())
    if (wait === 0) send()
    else if (timer.current === null) timer.current = setTimeout(send, wait)
  }, [client, positionKey]) // eslint-disable-line react-hooks/exhaustive-deps

  const quizKey = quiz ? JSON.stringify(quiz) : ''
  useEffect(() => {
    if (client && quiz) client.openQuiz(quiz)
  }, [client, quizKey]) // eslint-disable-line react-hooks/exhaustive-deps

  const reveal = useCallback((quizId: string, answer: string) => client?.reveal(quizId, answer), [client])
  return { room, state, starting, startError, start, leave, reveal }
}
