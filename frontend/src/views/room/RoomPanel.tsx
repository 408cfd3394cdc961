/*
 * The presenter's room strip (under the stage in presenter mode): the code in
 * large type, the join URL and its QR code, the connection and the follower
 * count (words and a shaped dot, not colour alone), and the live histogram of
 * the step's quiz. The answer is revealed from the quiz itself ("Reveal the
 * model's answer": the model computes it in this browser), which sends it to
 * every follower; the histogram then marks it "✓ … answer".
 */
import { useState } from 'react'
import type { PresenterRoom } from '../../core/use_room'
import { QrCode } from './QrCode'
import { QuizHistogram } from './QuizHistogram'
import './room.css'

export interface RoomPanelProps {
  room: PresenterRoom
  /** The quiz of the step on screen. */
  stepQuiz: { id: string; choices: string[] } | null
}

const STATUS_TEXT = { connecting: 'connecting…', open: 'live', reconnecting: 'reconnecting…', closed: 'closed' } as const

export function RoomPanel({ room, stepQuiz }: RoomPanelProps) {
  const [hidden, setHidden] = useState(false)
  if (!room.room) {
    return (
      <section className="room-panel" aria-label="Room" data-testid="room-panel">
        {room.startError ? <p className="room-error" role="alert">Could not start a room: {room.startError}</p> : null}
      </section>
    )
  }
  const { code, joinUrl } = room.room
  const s = room.state
  const status = s?.status ?? 'connecting'
  const followers = s?.followers ?? 0
  const tally = s?.tally && stepQuiz && s.tally.quizId === stepQuiz.id ? s.tally.counts : {}
  const revealed = s?.revealed && stepQuiz && s.revealed.quizId === stepQuiz.id ? s.revealed.answer : null
  if (hidden) {
    return (
      <section className="room-panel room-panel-hidden" aria-label="Room" data-testid="room-panel">
        <button type="button" onClick={() => setHidden(false)} data-testid="room-show" aria-expanded="false">
          Show the room panel (code {code}, {followers} {followers === 1 ? 'follower' : 'followers'})
        </button>
      </section>
    )
  }
  return (
    <section className="room-panel" aria-label="Room" data-testid="room-panel">
      <div className="room-join">
        <span className="room-label">Join with code</span>
        <strong className="room-code" data-testid="room-code">{code}</strong>
        <span className="room-url">or open <a href={joinUrl} data-testid="room-join-url">{joinUrl}</a></span>
        <span className="room-status" data-testid="room-status" data-status={status}>
          <span className={`room-dot room-dot-${status}`} aria-hidden="true" />
          {STATUS_TEXT[status]} · <strong data-testid="room-followers">{followers}</strong> {followers === 1 ? 'follower' : 'followers'}
        </span>
        {status === 'closed' && s?.error ? <span className="room-error" role="alert">{s.error}</span> : null}
        <button type="button" onClick={() => setHidden(true)} data-testid="room-hide" aria-expanded="true">
          Hide this panel
        </button>
        <button type="button" className="room-leave" onClick={room.leave}>Stop driving this room</button>
      </div>
      <QrCode text={joinUrl} size={150} />
      <div className="room-quiz">
        {stepQuiz ? (
          <>
            <QuizHistogram quizId={stepQuiz.id} choices={stepQuiz.choices} counts={tally} revealed={revealed} width={420} />
            <p className="room-hint" data-testid="room-revealed">
              {revealed ? <>Revealed to the room: <strong>{revealed}</strong></> : "Reveal with the quiz's “Reveal the model's answer”."}
            </p>
          </>
        ) : (
          <p className="room-hint">No quiz on this step.</p>
        )}
      </div>
    </section>
  )
}
