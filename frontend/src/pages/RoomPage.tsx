/*
 * /room/<CODE>: a follower's view of a room: the lesson player (mode
 * 'follower') at the presenter's position, received over the room's
 * WebSocket. Moving on your own (← → space, digits, t, the player's buttons)
 * detaches; Re-sync (R) jumps back to the presenter's latest position. Quiz
 * answers go to the presenter's histogram; the reveal comes back. A dropped
 * connection reconnects and catches up by itself (core/room_client.ts).
 * A room whose lesson this build does not ship shows the step number only.
 */
import { DEFAULT_LESSON } from '../core/shared/route'
import { useCallback, useEffect, useMemo, useRef } from 'react'
import type { LessonPosition } from '../core/lesson/lesson_position'
import { followerClientId } from '../core/rooms/rooms_api'
import { useRoomClient } from '../core/rooms/use_room'
import { LessonPlayer } from '../views/lesson/LessonPlayer'
import { isForeignKey, stepKeyCommand, type DigitBuffer } from '../views/lesson/keys'
import { FollowBanner } from '../views/room/FollowBanner'
import { FollowerFallback } from '../views/room/FollowerFallback'
import { useLessonData } from './lesson/useLessonData'
import '../views/room/room.css'

export function RoomPage({ code }: { code: string; navigate: (href: string) => void }) {
  const clientId = useMemo(() => followerClientId(), [])
  const { client, state } = useRoomClient({ code, role: 'follower', clientId })
  const data = useLessonData(state?.lesson ?? state?.latest?.lesson ?? DEFAULT_LESSON)
  const onNavigate = useCallback((p: LessonPosition) => client?.explore({ ...p, pointer: null }), [client])
  const onResync = useCallback(() => client?.resync(), [client])
  const digits = useRef<DigitBuffer>({ text: '', at: 0 })
  const applied = state?.applied ?? null
  const lesson = data.lesson

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isForeignKey(e)) return
      if (e.key === 'r' || e.key === 'R') {
        e.preventDefault()
        onResync()
        return
      }
      if (!lesson || !applied) return
      const cmd = stepKeyCommand(e.key, applied, lesson.steps, digits)
      if (cmd.kind === 'move') {
        e.preventDefault()
        onNavigate(cmd.position)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [lesson, applied, onNavigate, onResync])

  if (!client || !state) return null
  const quiz = {
    answer: (quizId: string, choice: string) => client.answer(quizId, choice),
    revealed: state.revealed,
  }
  const fallbackQuiz = {
    ...quiz, open: state.quiz, mine: state.quiz ? state.answers[state.quiz.id] ?? null : null,
    revealed: state.revealed && state.quiz && state.revealed.quizId === state.quiz.id ? state.revealed : null,
  }
  return (
    <div className="room-page" data-testid="room-page">
      <FollowBanner state={state} onResync={onResync} />
      <main className="room-page-main">
        {!applied ? (
          <p className="status">{state.status === 'closed' ? 'This room is closed.' : 'Waiting for the presenter…'}</p>
        ) : lesson ? (
          <LessonPlayer lesson={lesson} position={applied} onNavigate={onNavigate} mode="follower" quiz={quiz} />
        ) : data.loading ? (
          <p className="status" role="status" data-testid="lesson-loading">Loading the lesson…</p>
        ) : (
          <>
            <p className="room-error" role="alert">{data.error}</p>
            <FollowerFallback position={applied} onNavigate={onNavigate} quiz={fallbackQuiz} />
          </>
        )}
      </main>
    </div>
  )
}
