/*
 * One room connection that survives drops: a WebSocket to
 * /api/rooms/<CODE>/ws (protocol: backend/kscope/rooms/protocol.py), reopened
 * with exponential backoff (250 ms doubling to 8 s, with jitter so a room's
 * followers do not all return in the same instant) after any close that is
 * not final. Each open sends `hello since <seq>`, and the server answers with
 * whatever was missed (the latest state, the quiz, the reveal), so a follower
 * catches up without a reload.
 *
 * Final closes (no retry): 4400 bad request, 4403 wrong presenter token,
 * 4404 no such room / expired. 4408 (fell behind) and 4429 (room full) retry.
 *
 * Sends made while the socket is down are not lost: the presenter's last
 * state, quiz and reveal, and the follower's answers, wait and go out on the
 * next open (latest per kind; older states are superseded anyway).
 *
 * The socket and the timers are injected (SocketFactory, Timers) so the tests
 * drive a fake socket and a fake clock.
 */
import type { LessonPosition } from '../lesson/lesson_position'
import {
  applyFrame, explore as exploreState, initialRoomState, resync as resyncState, type RoomQuiz, type RoomRole, type RoomState,
} from './room_state'

/** The part of the browser's WebSocket this client uses. */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((ev: unknown) => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: ((ev: { code: number; reason: string }) => void) | null
  onerror: ((ev: unknown) => void) | null
}

export type SocketFactory = (url: string) => SocketLike

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export interface RoomClientOptions {
  /** ws:// or wss:// origin of the backend, e.g. "ws://127.0.0.1:8000". */
  wsOrigin: string
  code: string
  role: RoomRole
  /** Presenter only: the token POST /api/rooms returned. */
  token?: string
  /** Follower only: a stable id for this browser (answers are deduplicated by it). */
  clientId?: string
  socket?: SocketFactory
  timers?: Timers
  random?: () => number
}

const OPEN = 1
export const BACKOFF_INITIAL_MS = 250
export const BACKOFF_MAX_MS = 8000
const FINAL_CLOSES = new Set([4400, 4403, 4404])

/** The wait before reconnect attempt `attempt` (0-based): doubling, capped, 50-100 % jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** attempt)
  return Math.round(ceiling * (0.5 + 0.5 * random()))
}

export function roomSocketUrl(opts: Pick<RoomClientOptions, 'wsOrigin' | 'code' | 'role' | 'token' | 'clientId'>): string {
  const query = opts.role === 'presenter'
    ? `role=presenter&token=${encodeURIComponent(opts.token ?? '')}`
    : `role=follower&client=${encodeURIComponent(opts.clientId ?? '')}`
  return `${opts.wsOrigin}/api/rooms/${encodeURIComponent(opts.code)}/ws?${query}`
}

/** The ws:// origin of the page's own backend. */
export function pageWsOrigin(location: { protocol: string; host: string }): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`
}

export class RoomClient {
  private state: RoomState
  private listeners = new Set<() => void>()
  private socket: SocketLike | null = null
  private retry: unknown = null
  private stopped = false
  /** Frames to send on the next open, by kind (latest wins) and answers by quiz id. */
  private pending = new Map<string, string>()
  private readonly makeSocket: SocketFactory
  private readonly timers: Timers
  private readonly random: () => number
  private readonly opts: RoomClientOptions

  constructor(opts: RoomClientOptions) {
    this.opts = opts
    this.state = initialRoomState(opts.role, opts.code)
    this.makeSocket = opts.socket ?? ((url) => new WebSocket(url) as unknown as SocketLike)
    this.timers = opts.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as number) }
    this.random = opts.random ?? Math.random
  }

  getState = (): RoomState => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  connect(): void {
    this.stopped = false
    this.open()
  }

  /** Closes for good (the page went away). */
  close(): void {
    this.stopped = true
    if (this.retry !== null) this.timers.clearTimeout(this.retry)
    this.retry = null
    const socket = this.socket
    this.socket = null
    if (socket) {
      socket.onclose = null
      socket.close(1000, 'left the room')
    }
    this.set({ ...this.state, status: 'closed' })
  }

  /** Test hook and "kill the socket": drops the current socket as a network failure would. */
  dropSocket(): void {
    this.socket?.close(4000, 'dropped by the client')
  }

  // --- follower intents ---
  explore(position: LessonPosition): void {
    this.set(exploreState(this.state, position))
  }

  resync(): void {
    this.set(resyncState(this.state))
  }

  answer(quizId: string, choice: string): void {
    this.set({ ...this.state, answers: { ...this.state.answers, [quizId]: choice } })
    this.send(`answer:${quizId}`, { type: 'answer', quiz_id: quizId, choice })
  }

  // --- presenter intents ---
  publish(position: LessonPosition): void {
    this.send('state', { type: 'state', state: position })
  }

  openQuiz(quiz: RoomQuiz): void {
    if (this.state.quiz?.id === quiz.id && sameChoices(this.state.quiz.choices, quiz.choices)) return
    this.set({ ...this.state, quiz })
    this.send('quiz_open', { type: 'quiz_open', quiz })
  }

  reveal(quizId: string, answer: string): void {
    this.send('reveal', { type: 'reveal', quiz_id: quizId, answer })
  }

  private send(kind: string, frame: Record<string, unknown>): void {
    const text = JSON.stringify(frame)
    if (this.socket && this.socket.readyState === OPEN) {
      this.socket.send(text)
    } else {
      this.pending.set(kind, text)
    }
  }

  private open(): void {
    if (this.stopped) return
    this.retry = null
    const socket = this.makeSocket(roomSocketUrl(this.opts))
    this.socket = socket
    socket.onopen = () => {
      if (this.socket !== socket) return
      socket.send(JSON.stringify({ type: 'hello', since: this.state.seq }))
      for (const text of this.pending.values()) socket.send(text)
      this.pending.clear()
      this.set({ ...this.state, status: 'open', attempts: 0, error: null })
    }
    socket.onmessage = (ev) => {
      if (this.socket !== socket || typeof ev.data !== 'string') return
      let frame: unknown
      try {
        frame = JSON.parse(ev.data)
      } catch {
        return // the server sends JSON only; ignore anything else
      }
      if (!frame || typeof frame !== 'object') return
      const f = frame as Record<string, unknown>
      this.set(applyFrame(this.state, f))
      // The server counts one vote per open socket and drops it when the socket closes, so a
      // follower whose socket was replaced (Wi-Fi, a sleeping phone) answers the open quiz again
      // when the catch-up names it (the same answer twice on one socket counts once).
      const quiz = f.type === 'quiz' ? (f.quiz as { id?: unknown } | undefined) : undefined
      const mine = typeof quiz?.id === 'string' ? this.state.answers[quiz.id] : undefined
      if (this.opts.role === 'follower' && typeof quiz?.id === 'string' && mine !== undefined) {
        this.send(`answer:${quiz.id}`, { type: 'answer', quiz_id: quiz.id, choice: mine })
      }
    }
    socket.onerror = () => { /* onclose follows and decides */ }
    socket.onclose = (ev) => {
      if (this.socket !== socket) return
      this.socket = null
      if (this.stopped) return
      if (FINAL_CLOSES.has(ev.code)) {
        this.set({ ...this.state, status: 'closed', error: this.state.error ?? (ev.reason || `closed (${ev.code})`) })
        return
      }
      const wait = backoffMs(this.state.attempts, this.random)
      this.set({ ...this.state, status: 'reconnecting', attempts: this.state.attempts + 1 })
      this.retry = this.timers.setTimeout(() => this.open(), wait)
    }
  }

  private set(next: RoomState): void {
    if (next === this.state) return
    this.state = next
    for (const listener of this.listeners) listener()
  }
}

function sameChoices(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i])
}
