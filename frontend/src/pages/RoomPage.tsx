/*
 * /room/<CODE>: a follower's view of a room. The lesson follows the
 * presenter's position (LessonPosition over the room's WebSocket); moving on
 * your own detaches, Re-sync (R) jumps back. A dropped connection reconnects
 * and catches up by itself (core/room_client.ts).
 */
import { useCallback, useEffect, useMemo } from 'react'
import { followerClientId } from '../core/rooms_api'
import { useRoomClient } from '../core/use_room'
import type { LessonPosition } from '../core/lesson_position'
import { FollowBanner } from '../views/room/FollowBanner'
import { FollowerFallback } from '../views/room/FollowerFallback'
import '../views/room/room.css'

export function RoomPage({ code }: { code: string; navigate: (href: string) => void }) {
  const clientId = useMemo(() => followerClientId(), [])
  const { client, state } = useRoomClient({ code, role: 'follower', clientId })
  const onNavigate = useCallback((p: LessonPosition) => client?.explore(p), [client])
  const onResync = useCallback(() => client?.resync(), [client])
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.metaKey || e.ctrlKey || e.altKey) return
      if (e.key === 'r' || e.key === 'R') onResync()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onResync])
  if (!client || !state) return null
  const quiz = {
    open: state.quiz,
    mine: state.quiz ? state.answers[state.quiz.id] ?? null : null,
    answer: (quizId: string, choice: string) => client.answer(quizId, choice),
    revealed: state.revealed && state.quiz && state.revealed.quizId === state.quiz.id ? state.revealed : null,
  }
  return (
    <div className="room-page" data-testid="room-page">
      <FollowBanner state={state} onResync={onResync} />
      <main className="room-page-main">
        {state.applied ? (
          <FollowerFallback position={state.applied} onNavigate={onNavigate} quiz={quiz} />
        ) : (
          <p className="status">{state.status === 'closed' ? 'This room is closed.' : 'Waiting for the presenter…'}</p>
        )}
      </main>
    </div>
  )
}
