/*
 * Presenter mode with a room (issue 8): PresentView (lessons layer) plus the
 * rooms layer: "Start room" in the bar, then the room strip in its corner (code,
 * followers; QR and the live quiz histogram on demand: issue 13 gave the stage
 * back to the picture), and the QuizBinding through which the
 * quiz panel shows the room's tally and reveals the model's answer to every
 * follower. Each position the presenter moves to is published to the room;
 * pointer-only moves at most every POINTER_MS. Without a backend (an exported
 * static lesson: hash routing) there are no rooms and the page is PresentView.
 */
import { useMemo } from 'react'
import type { LessonPosition } from '../core/lesson/lesson_position'
import type { Lesson } from '../core/lesson/lesson_types'
import { hashRouting } from '../core/shared/route'
import { usePresenterRoom } from '../core/rooms/use_room'
import { RoomStrip } from '../views/room/RoomStrip'
import { PresentView } from './PresentPage'

export interface PresentRoomProps {
  lesson: Lesson
  position: LessonPosition
  onNavigate: (p: LessonPosition) => void
}

export function PresentWithRoom(props: PresentRoomProps) {
  if (hashRouting(window.location)) return <PresentView {...props} />
  return <RoomPresentView {...props} />
}

function RoomPresentView({ lesson, position, onNavigate }: PresentRoomProps) {
  const step = lesson.steps[Math.min(Math.max(0, position.step), lesson.steps.length - 1)]
  const stepQuiz = useMemo(() => (step.quiz ? { id: step.quiz.id, choices: step.quiz.choices } : null), [step])
  const room = usePresenterRoom(lesson.id, position, stepQuiz)
  const s = room.state
  const quiz = room.room
    ? {
        tally: s?.tally && stepQuiz && s.tally.quizId === stepQuiz.id ? s.tally.counts : stepQuiz ? {} : undefined,
        revealed: s?.revealed ?? null,
        reveal: room.reveal,
      }
    : undefined
  const bar = room.room ? (
    <RoomStrip room={room} stepQuiz={stepQuiz} />
  ) : (
    <>
      <RoomStrip room={room} stepQuiz={stepQuiz} />
      <button type="button" onClick={room.start} disabled={room.starting} data-testid="room-start">
        {room.starting ? 'Starting…' : 'Start room'}
      </button>
    </>
  )
  return <PresentView lesson={lesson} position={position} onNavigate={onNavigate} quiz={quiz} bar={bar} />
}
