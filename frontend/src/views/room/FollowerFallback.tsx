/*
 * A minimal follower view used until the lesson player is wired in: the step
 * number, the toggles on, and the room's quiz with one button per choice.
 * ← / → move on your own (which detaches from the presenter).
 */
import { useEffect } from 'react'
import type { LessonPosition } from '../../core/lesson_position'
import type { QuizBindingLike } from './quiz_binding'

export interface FollowerFallbackProps {
  position: LessonPosition
  onNavigate: (p: LessonPosition) => void
  quiz: QuizBindingLike
}

export function FollowerFallback({ position, onNavigate, quiz }: FollowerFallbackProps) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement) return
      if (e.key === 'ArrowRight') onNavigate({ ...position, step: position.step + 1 })
      if (e.key === 'ArrowLeft' && position.step > 0) onNavigate({ ...position, step: position.step - 1 })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [position, onNavigate])
  const on = Object.entries(position.toggles).filter(([, v]) => v).map(([k]) => k)
  return (
    <div className="follower-fallback" data-testid="follower-view" data-step={position.step}>
      <h2>{position.lesson}: step <span data-testid="follower-step">{position.step + 1}</span></h2>
      <p>Bug toggles on: {on.length ? on.join(', ') : 'none'}</p>
      {quiz.open ? (
        <div className="follower-quiz" data-testid="follower-quiz">
          <span>Quiz <code>{quiz.open.id}</code>:</span>
          {quiz.open.choices.map((c) => (
            <button key={c} type="button" aria-pressed={quiz.mine === c} onClick={() => quiz.answer?.(quiz.open!.id, c)}
                    disabled={!!quiz.revealed}>
              {c}
            </button>
          ))}
          {quiz.revealed ? <strong data-testid="follower-revealed">Answer: {quiz.revealed.answer}</strong> : null}
        </div>
      ) : null}
    </div>
  )
}
