/*
 * The presenter's room panel (inside presenter mode): "Start room", then the
 * code in large type, the join URL and its QR code, the follower count, the
 * connection state, and the live histogram of the open quiz with Reveal.
 * Keyboard: the buttons are ordinary buttons (Tab / Enter).
 */
import type { PresenterRoom } from '../../core/use_room'
import { QrCode } from './QrCode'
import { QuizHistogram } from './QuizHistogram'
import './room.css'

export interface RoomPanelProps {
  room: PresenterRoom
  /** The quiz of the step on screen, with its model-computed answer when known (Reveal sends it). */
  stepQuiz?: { id: string; choices: string[]; answer: string | null } | null
}

const STATUS_TEXT = { connecting: 'connecting…', open: 'live', reconnecting: 'reconnecting…', closed: 'closed' } as const

export function RoomPanel({ room, stepQuiz }: RoomPanelProps) {
  if (!room.room) {
    return (
      <section className="room-panel" aria-label="Room" data-testid="room-panel">
        <button type="button" className="room-start" onClick={room.start} disabled={room.starting} data-testid="room-start">
          {room.starting ? 'Starting…' : 'Start room'}
        </button>
        <p className="room-hint">Students join by code on their own devices and follow your steps live.</p>
        {room.startError ? <p className="room-error" role="alert">Could not start a room: {room.startError}</p> : null}
      </section>
    )
  }
  const { code, joinUrl } = room.room
  const s = room.state
  const tally = s?.tally
  const quiz = stepQuiz ?? (s?.quiz ? { ...s.quiz, answer: null } : null)
  const revealed = s?.revealed && quiz && s.revealed.quizId === quiz.id ? s.revealed.answer : null
  return (
    <section className="room-panel" aria-label="Room" data-testid="room-panel">
      <div className="room-code-line">
        <span className="room-label">Room code</span>
        <strong className="room-code" data-testid="room-code">{code}</strong>
      </div>
      <QrCode text={joinUrl} />
      <p className="room-url">Join at <a href={joinUrl} data-testid="room-join-url">{joinUrl}</a></p>
      <p className="room-status" data-testid="room-status" data-status={s?.status ?? 'connecting'}>
        <span className={`room-dot room-dot-${s?.status ?? 'connecting'}`} aria-hidden="true" />
        {STATUS_TEXT[s?.status ?? 'connecting']} · <strong data-testid="room-followers">{s?.followers ?? 0}</strong>{' '}
        {(s?.followers ?? 0) === 1 ? 'follower' : 'followers'}
      </p>
      {s?.status === 'closed' && s.error ? <p className="room-error" role="alert">{s.error}</p> : null}
      {quiz ? (
        <>
          <QuizHistogram quizId={quiz.id} choices={quiz.choices}
                         counts={tally && tally.quizId === quiz.id ? tally.counts : {}} revealed={revealed} />
          {revealed ? (
            <p className="room-revealed" data-testid="room-revealed">Revealed: <strong>{revealed}</strong></p>
          ) : (
            <button type="button" data-testid="room-reveal" disabled={!stepQuiz?.answer}
                    title={stepQuiz?.answer ? 'Show every follower the answer the model computed' : 'The model has not computed this answer yet'}
                    onClick={() => stepQuiz?.answer && room.reveal(quiz.id, stepQuiz.answer)}>
              Reveal the answer
            </button>
          )}
        </>
      ) : (
        <p className="room-hint">No quiz on this step.</p>
      )}
      <button type="button" className="room-leave" onClick={room.leave}>Stop driving this room</button>
    </section>
  )
}
