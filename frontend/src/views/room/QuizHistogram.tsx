/*
 * Live answers to the open quiz: one bar per choice, the count and share as
 * text beside it, the revealed answer marked "✓ answer" and drawn with a
 * thicker outline (never colour alone).
 */
import { histogramLayout } from './histogram'
import { OKABE_ITO } from '../palette'

export interface QuizHistogramProps {
  quizId: string
  choices: string[]
  counts: Record<string, number>
  revealed: string | null
  width?: number
}

export function QuizHistogram({ quizId, choices, counts, revealed, width = 340 }: QuizHistogramProps) {
  const h = histogramLayout(choices, counts, width, revealed)
  return (
    <figure className="quiz-histogram" data-testid="quiz-histogram" data-quiz={quizId}>
      <figcaption>
        Answers to <code>{quizId}</code>: <strong data-testid="quiz-total">{h.total}</strong> {h.total === 1 ? 'answer' : 'answers'}
      </figcaption>
      <svg width={width} height={h.height} role="img" aria-label={h.bars.map((b) => `${b.choice}: ${b.label}`).join('; ')}>
        {h.bars.map((b) => (
          <g key={b.choice} transform={`translate(0,${b.y})`} data-testid="quiz-bar" data-choice={b.choice} data-count={b.count}>
            <text x={h.labelWidth - 8} y={b.height / 2} dy="0.35em" textAnchor="end" className="quiz-choice">
              {b.correct ? '✓ ' : ''}{b.choice}
            </text>
            <rect x={h.labelWidth} y={0} width={h.plotWidth} height={b.height} fill="#f2f2f2" />
            <rect x={h.labelWidth} y={0} width={b.width} height={b.height}
                  fill={b.correct ? OKABE_ITO.bluishGreen : OKABE_ITO.blue}
                  stroke={b.correct ? '#000' : 'none'} strokeWidth={b.correct ? 3 : 0} />
            <text x={h.labelWidth + b.width + 6} y={b.height / 2} dy="0.35em" className="quiz-count">
              {b.label}{b.correct ? ' — answer' : ''}
            </text>
          </g>
        ))}
      </svg>
    </figure>
  )
}
