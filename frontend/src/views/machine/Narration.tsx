/* The narration panel: the current event in plain words, and where the run stands. */
import { narrate } from '../../core/sim/narrate'
import { formatT } from '../../core/shared/units'
import type { SimEvent, SimFrame, Topology } from '../../core/shared/types'

export interface NarrationProps {
  frame: SimFrame
  events: readonly SimEvent[]
  topology: Topology
  finished: boolean
  notice: string | null
}

export function Narration({ frame, events, topology, finished, notice }: NarrationProps) {
  const last = events.at(-1)
  // Events of one scheduler action share a timestamp; the picture shows the machine after all of them.
  const sameInstant = last ? events.filter((e) => e.ts_ns === last.ts_ns).length : 0
  return (
    <section className="panel narration" aria-label="What just happened" aria-live="polite">
      <h2>
        Step <span data-testid="step">{frame.step}</span>
        <span className="narration-time"> · {formatT(frame.now_ns)}</span>
      </h2>
      <p className="narration-text" data-testid="narration">
        {last ? narrate(last, topology) : `${formatT(0)}: nothing has happened yet. Press → to step, or Space to play.`}
      </p>
      {last && sameInstant > 1 && (
        <p className="hint">
          One of {sameInstant >= events.length ? `${sameInstant} or more` : sameInstant} events at this same instant (one scheduler
          action): the machine is drawn as it is after the whole action.
        </p>
      )}
      {finished && <p className="hint strong" data-testid="finished">The run has ended: the workload's duration is reached or nothing is left to run.</p>}
      {notice && (
        <p className="notice" role="status" data-testid="notice">
          {notice}
        </p>
      )}
    </section>
  )
}
