/*
 * The follower view of a room whose lesson this build does not ship (no data
 * for the lesson player): the step number, the toggles on, and the room's quiz
 * with one button per choice. ← / → are the page's (they detach).
 */
import type { LessonPosition } from '../../core/lesson/lesson_position'
import type { QuizBindingLike } from './quiz_binding'

export interface FollowerFallbackProps {
  position: LessonPosition
  onNavigate: (p: LessonPosition) => void
  quiz: QuizBindingLike
}

export function FollowerFallback({ position, quiz }: FollowerFallbackProps) {
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
