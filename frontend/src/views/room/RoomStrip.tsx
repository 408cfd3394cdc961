/*
 * The presenter's room, as a compact strip in the corner of presenter mode's
 * top bar (issue 13: a panel under the stage took half a 1280x720 projector):
 * the code in large type, the connection and the follower count (words and a
 * shaped dot, not colour alone), and on demand, as a window over the stage,
 * the QR code with the join URL ("QR") and the live histogram of the step's
 * quiz ("Answers"). The quiz panel beside the stage shows the room's tally on
 * each choice anyway. The answer is revealed from the quiz itself ("Reveal the
 * model's answer"), which sends it to every follower; the strip then says so.
 */
import { useEffect, useState } from 'react'
import type { PresenterRoom } from '../../core/rooms/use_room'
import { QrCode } from './QrCode'
import { QuizHistogram } from './QuizHistogram'
import './room.css'

export interface RoomStripProps {
  room: PresenterRoom
  /** The quiz of the step on screen. */
  stepQuiz: { id: string; choices: string[] } | null
}

const STATUS_TEXT = { connecting: 'connecting…', open: 'live', reconnecting: 'reconnecting…', closed: 'closed' } as const

type Window = 'qr' | 'answers' | null

export function RoomStrip({ room, stepQuiz }: RoomStripProps) {
  const [open, setOpen] = useState<Window>(null)
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        setOpen(null)
      }
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [open])
  if (!room.room) {
    return room.startError ? <p className="room-error" role="alert" data-testid="room-error">Could not start a room: {room.startError}</p> : null
  }
  const { code, joinUrl } = room.room
  const s = room.state
  const status = s?.status ?? 'connecting'
  const followers = s?.followers ?? 0
  const tally = s?.tally && stepQuiz && s.tally.quizId === stepQuiz.id ? s.tally.counts : {}
  const answers = Object.values(tally).reduce((a, b) => a + b, 0)
  const revealed = s?.revealed && stepQuiz && s.revealed.quizId === stepQuiz.id ? s.revealed.answer : null
  const toggle = (w: Exclude<Window, null>) => () => setOpen((o) => (o === w ? null : w))
  return (
    <>
      <section className="room-strip" aria-label="Room" data-testid="room-panel">
        <span className="room-badge" data-testid="room-badge">
          Room <strong className="room-code" data-testid="room-code">{code}</strong>
        </span>
        <span className="room-status" data-testid="room-status" data-status={status} title={`Followers join at ${joinUrl}`}>
          <span className={`room-dot room-dot-${status}`} aria-hidden="true" />
          {STATUS_TEXT[status]} · <strong data-testid="room-followers">{followers}</strong> following
        </span>
        {revealed && <span className="room-revealed" data-testid="room-revealed">revealed: <strong>{revealed}</strong></span>}
        {status === 'closed' && s?.error ? <span className="room-error" role="alert">{s.error}</span> : null}
        <button type="button" onClick={toggle('qr')} aria-expanded={open === 'qr'} data-testid="room-qr-open">QR</button>
        {stepQuiz && (
          <button type="button" onClick={toggle('answers')} aria-expanded={open === 'answers'} data-testid="room-answers-open">
            Answers ({answers})
          </button>
        )}
        <button type="button" className="room-leave" onClick={room.leave} title="Stop driving this room from this tab">Stop</button>
      </section>
      {open && (
        <div className="room-window" role="dialog" aria-modal="true" aria-label={open === 'qr' ? 'Join the room' : 'Answers from the room'}
          data-testid={open === 'qr' ? 'room-qr-window' : 'room-answers-window'} onClick={() => setOpen(null)}>
          <div onClick={(e) => e.stopPropagation()}>
            {open === 'qr' ? (
              <div className="room-join">
                <QrCode text={joinUrl} size={300} />
                <p>Join with code <strong className="room-code-big">{code}</strong></p>
                <p>or open <a href={joinUrl} data-testid="room-join-url">{joinUrl}</a></p>
              </div>
            ) : stepQuiz ? (
              <QuizHistogram quizId={stepQuiz.id} choices={stepQuiz.choices} counts={tally} revealed={revealed} width={560} />
            ) : null}
            <p className="room-hint">
              {open === 'answers' && (revealed ? <>Revealed to the room: <strong>{revealed}</strong>. </> : "Reveal with the quiz's “Reveal the model's answer”. ")}
              Esc or a click outside closes this.
            </p>
            <button type="button" onClick={() => setOpen(null)} data-testid="room-window-close">Close</button>
          </div>
        </div>
      )}
    </>
  )
}
