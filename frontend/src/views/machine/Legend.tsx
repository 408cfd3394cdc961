/* What the marks of the machine view mean, in one line under it (colour never alone: each mark has words too). */
import { PROCESS_COLOURS } from './summary'

export function MachineLegend() {
  return (
    <p className="machine-legend" aria-label="Legend">
      <span>
        <span className="legend-chip" style={{ background: PROCESS_COLOURS[0].fill }}>comm pid</span> running, colour = process
      </span>
      <span>
        <span className="legend-chip small" style={{ background: PROCESS_COLOURS[1].fill }}>1004</span> waiting (tid)
      </span>
      <span>
        <span className="legend-idle">idle</span> nothing to run
      </span>
      <span>
        <strong>rq N</strong> runqueue depth
      </span>
      <span>
        <strong>▸ ▾</strong> L3 closed / open: click or Enter
      </span>
    </p>
  )
}
