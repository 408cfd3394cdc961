/*
 * What a room client knows, and how each server frame or user intent changes it
 * (pure functions, no sockets; room_client.ts drives them).
 *
 * The follower's detach/resync state machine:
 *
 *            presenter state (seq n)            explore(p): the student navigates
 *   ATTACHED ----------------------> ATTACHED   ATTACHED -----------------> DETACHED
 *   latest = applied = state n                  applied = p, latest keeps moving
 *
 *            presenter state (seq n)            resync()
 *   DETACHED ----------------------> DETACHED   DETACHED -----------------> ATTACHED
 *   latest = state n, applied unchanged         applied = latest
 *
 * A state frame is taken only if its seq is newer than the one held: catch-up
 * (`hello since`) and live delivery may both carry the same state, and a
 * reconnect may race a live frame.
 */
import type { LessonPosition } from '../lesson/lesson_position'

export type RoomRole = 'presenter' | 'follower'
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface RoomQuiz {
  id: string
  choices: string[]
}

export interface RoomState {
  role: RoomRole
  code: string
  lesson: string | null
  status: ConnectionStatus
  /** Why the connection closed for good (room expired, wrong token), or the last server error. */
  error: string | null
  /** Reconnect attempts since the last successful open. */
  attempts: number
  seq: number
  /** The presenter's latest position (what Re-sync jumps to). */
  latest: LessonPosition | null
  /** What this client's view shows: `latest` while attached, the student's own while detached. */
  applied: LessonPosition | null
  detached: boolean
  quiz: RoomQuiz | null
  /** This follower's answer per quiz id. */
  answers: Record<string, string>
  /** Presenter: live counts per choice of the open quiz. */
  tally: { quizId: string; counts: Record<string, number> } | null
  revealed: { quizId: string; answer: string } | null
  /** Presenter: followers connected (all backend processes). */
  followers: number
  /** sent_at_ms of the last applied state (server clock). */
  sentAtMs: number | null
}

export function initialRoomState(role: RoomRole, code: string): RoomState {
  return {
    role, code, lesson: null, status: 'connecting', error: null, attempts: 0, seq: 0, latest: null, applied: null,
    detached: false, quiz: null, answers: {}, tally: null, revealed: null, followers: 0, sentAtMs: null,
  }
}

/** One server frame, already parsed. Unknown frame types leave the state as it is. */
export function applyFrame(state: RoomState, frame: Record<string, unknown>): RoomState {
  switch (frame.type) {
    case 'welcome':
      return { ...state, lesson: typeof frame.lesson === 'string' ? frame.lesson : state.lesson }
    case 'state': {
      const seq = Number(frame.seq)
      if (!(seq > state.seq)) return state
      const position = frame.state as LessonPosition
      return {
        ...state, seq, latest: position, sentAtMs: Number(frame.sent_at_ms) || null,
        applied: state.detached ? state.applied : position,
      }
    }
    case 'quiz': {
      const quiz = frame.quiz as RoomQuiz
      const sameQuiz = state.quiz?.id === quiz.id
      return { ...state, quiz, revealed: sameQuiz ? state.revealed : null }
    }
    case 'tally':
      return { ...state, tally: { quizId: String(frame.quiz_id), counts: frame.counts as Record<string, number> } }
    case 'reveal':
      return { ...state, revealed: { quizId: String(frame.quiz_id), answer: String(frame.answer) } }
    case 'followers':
      return { ...state, followers: Number(frame.count) }
    case 'error':
      return { ...state, error: String(frame.message) }
    default:
      return state
  }
}

/** The student navigated on their own: stop applying the presenter's position. */
export function explore(state: RoomState, position: LessonPosition): RoomState {
  return { ...state, detached: true, applied: position }
}

/** Back to the presenter: jump to the latest position and follow again. */
export function resync(state: RoomState): RoomState {
  return { ...state, detached: false, applied: state.latest ?? state.applied }
}

/** How far the presenter is from what a detached student sees (steps), for the banner. */
export function stepsBehind(state: RoomState): number {
  if (!state.latest || !state.applied) return 0
  return state.latest.step - state.applied.step
}
