/*
 * A predict-next quiz: the prompt, the choices, and after the reveal the
 * answer the model computed (the decision it was read from: time, CPU, branch).
 * Solo: pick, then reveal locally. Presenter: the room's tally per choice (bars
 * with counts: numbers, not colour) and a Reveal that tells the room
 * (QuizBinding.reveal). Follower: a pick is sent (QuizBinding.answer); the
 * reveal comes from the presenter. Right/wrong is said in words and marks
 * (✓ / ✗), never by colour alone.
 */
import { useState } from 'react'
import type { QuizAnswer } from '../../core/lesson/lesson_quiz'
import type { LessonQuiz } from '../../core/lesson/lesson_types'
import type { LessonPlayerMode, QuizBinding } from './LessonPlayer'

export interface QuizPanelProps {
  quiz: LessonQuiz
  answer: QuizAnswer | null
  ready: boolean
  mode: LessonPlayerMode
  binding?: QuizBinding
  revealedLocal: string | null
  onRevealLocal: (answer: string) => void
}


export function QuizPanel({ quiz, answer, ready, mode, binding, revealedLocal, onRevealLocal }: QuizPanelProps) {
  const [picked, setPicked] = useState<{ quiz: string; choice: string } | null>(null)
  const mine = picked?.quiz === quiz.id ? picked.choice : null
  const roomReveal = binding?.revealed?.quizId === quiz.id ? binding.revealed.answer : null
  const shown = roomReveal ?? revealedLocal
  const tally = mode === 'presenter' ? binding?.tally : undefined
  const total = tally ? Object.values(tally).reduce((a, b) => a + b, 0) : 0

  const pick = (choice: string) => {
    if (shown !== null && mode !== 'presenter') return
    setPicked({ quiz: quiz.id, choice })
    if (mode === 'follower') binding?.answer?.(quiz.id, choice)
  }
  const reveal = () => {
    if (!answer) return
    onRevealLocal(answer.answer)
    binding?.reveal?.(quiz.id, answer.answer)
  }

  return (
    <section className="lp-quiz" aria-label="Predict what happens next" data-testid="lp-quiz" data-quiz={quiz.id}>
      <h3>Predict</h3>
      <p className="lp-quiz-prompt">{quiz.prompt}</p>
      <ol className={`lp-choices${quiz.choices.some((c) => c.length > 6) ? ' long' : ''}`}>
        {quiz.choices.map((c) => {
          const right = shown !== null && c === shown
          const wrongPick = shown !== null && c === mine && c !== shown
          const n = tally?.[c] ?? 0
          return (
            <li key={c}>
              <button type="button" className={`lp-choice${c === mine ? ' picked' : ''}${right ? ' right' : ''}${wrongPick ? ' wrong' : ''}`}
                aria-pressed={c === mine} onClick={() => pick(c)} data-testid={`lp-choice-${c}`} data-choice={c}>
                <span className="lp-choice-mark" aria-hidden="true">{right ? '✓' : wrongPick ? '✗' : c === mine ? '●' : '○'}</span>
                <span className="lp-choice-text">{c}</span>
                {tally && (
                  <span className="lp-tally" data-testid={`lp-tally-${c}`}>
                    <span className="lp-tally-bar" style={{ width: `${total ? (100 * n) / total : 0}%` }} />
                    <span className="lp-tally-n">{n}</span>
                  </span>
                )}
              </button>
            </li>
          )
        })}
      </ol>
      {tally && <p className="hint" data-testid="lp-tally-total">{total} answer{total === 1 ? '' : 's'} from the room</p>}
      {shown === null && mode !== 'follower' && (
        <button type="button" className="lp-reveal" onClick={reveal} disabled={!ready || !answer} data-testid="lp-reveal">
          Reveal the model's answer
        </button>
      )}
      {shown === null && mode === 'follower' && <p className="hint">{mine ? `You answered ${mine}. Waiting for the presenter to reveal…` : 'Pick an answer.'}</p>}
      {ready && !answer && <p className="hint">The model finds no further decision for thread {quiz.compute.tid} in this run.</p>}
      {shown !== null && (
        <div className="lp-answer" role="status" data-testid="lp-answer" data-answer={shown}>
          <p>
            <strong>The model says: {shown}</strong>
            {mine !== null && <span> · you said {mine}: {mine === shown ? '✓ right' : '✗ not this time'}</span>}
          </p>
          {answer && answer.answer === shown && (
            <p className="hint" data-testid="lp-answer-source">
              Computed, not stored: {answer.variant} {answer.source}
              {!answer.inChoices && ' (Not one of the choices: the lesson\'s choices miss it.)'}
            </p>
          )}
          <p>{quiz.explain}</p>
        </div>
      )}
    </section>
  )
}
