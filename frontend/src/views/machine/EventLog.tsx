/* The last events, newest first, as text (task names are user data: never HTML). */
import { Fragment } from 'react'
import { eventDetail } from '../../core/sim/narrate'
import type { SimEvent } from '../../core/shared/types'

/** How many events the log lists. */
export const LOG_ROWS = 20

export function EventLog({ events }: { events: readonly SimEvent[] }) {
  const rows = events.slice(-LOG_ROWS).reverse()
  return (
    <section className="panel event-log" aria-label="Event log">
      <h2>Last events <span className="hint-inline">(newest first)</span></h2>
      {rows.length === 0 ? (
        <p className="hint">No events yet.</p>
      ) : (
        <table data-testid="event-log">
          <thead>
            <tr>
              <th scope="col">t (ms)</th>
              <th scope="col">CPU</th>
              <th scope="col">event</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((ev, i) => (
              <tr key={events.length - i} className={i === 0 ? 'current' : undefined}>
                <td className="num">{(ev.ts_ns / 1e6).toFixed(3)}</td>
                <td className="num">{ev.cpu}</td>
                <td>
                  <span className="ev-type">{ev.type.replace(/^sched_/, '')}</span> <Words text={eventDetail(ev)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** Text that wraps only between words: "rseq-bench/1006" never splits at its hyphen. */
function Words({ text }: { text: string }) {
  const words = text.split(' ')
  return (
    <>
      {words.map((w, i) => (
        <Fragment key={i}>
          {i > 0 && ' '}
          <span className="nowrap">{w}</span>
        </Fragment>
      ))}
    </>
  )
}
