/*
 * The quiz histogram's geometry (D3 computes, React renders): one horizontal
 * bar per choice in the quiz's order, the count and share written beside each
 * bar, and the revealed answer marked with a tick and the word "answer" (not
 * by colour alone).
 */
import { scaleBand, scaleLinear } from 'd3'

export interface HistogramBar {
  choice: string
  count: number
  /** 0..100, rounded; 0 when nobody answered. */
  percent: number
  y: number
  height: number
  width: number
  correct: boolean
  /** "12 (40 %)", the text beside the bar. */
  label: string
}

export interface HistogramLayout {
  bars: HistogramBar[]
  total: number
  labelWidth: number
  plotWidth: number
  height: number
}

/** Room for "12 (40 %) — answer" right of the longest bar, px at 15 px type. */
export const COUNT_TEXT_PX = 150

/** Rows of 32 px, 24 px past four choices (the strip stays short); labels as wide as the longest choice. */
export function histogramLayout(choices: string[], counts: Record<string, number>, width: number,
                                revealed: string | null): HistogramLayout {
  const rowHeight = choices.length > 4 ? 24 : 32
  const labelWidth = Math.min(220, 28 + 9 * Math.max(1, ...choices.map((c) => c.length)))
  const total = choices.reduce((sum, c) => sum + (counts[c] ?? 0), 0)
  const height = Math.max(1, choices.length) * rowHeight
  const plotWidth = Math.max(40, width - labelWidth - COUNT_TEXT_PX)
  const y = scaleBand<string>().domain(choices).range([0, height]).paddingInner(0.25).paddingOuter(0.1)
  const x = scaleLinear().domain([0, Math.max(1, ...choices.map((c) => counts[c] ?? 0))]).range([0, plotWidth])
  const bars = choices.map((choice) => {
    const count = counts[choice] ?? 0
    const percent = total ? Math.round((100 * count) / total) : 0
    return {
      choice, count, percent, y: y(choice) ?? 0, height: y.bandwidth(), width: x(count), correct: choice === revealed,
      label: `${count} (${percent} %)`,
    }
  })
  return { bars, total, labelWidth, plotWidth, height }
}
