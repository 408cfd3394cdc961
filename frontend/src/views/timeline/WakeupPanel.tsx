/*
 * "Who woke this task and how long did it wait": the selected run slice's
 * wakeup (core/traces/trace_latency.ts), the slice's end (preempted, slept),
 * and the tasks it woke while it ran. Every name is the trace's, rendered as
 * React text. MEASURED: read from the trace's own events.
 */
import type { Selection } from '../../core/traces/trace_session'
import { sliceEnd, waitBefore, wakerHandler, wakerOf, wokenDuring, type SliceEnd } from '../../core/traces/trace_latency'
import { sliceIndexAt, type TraceStore } from '../../core/traces/trace_store'
import { formatDuration } from '../../core/shared/units'
import { rel, stateLetter } from './Details'

export interface WakeupPanelProps {
  store: TraceStore
  selection: Selection
  onSelect(s: Selection): void
  /** Show [start, end] (ns) on the timeline, with the cursor at `cursor`. */
  onShow(start: number, end: number, cursor: number): void
}

function endText(e: SliceEnd): string {
  const next = e.nextPid < 0 ? '' : e.nextPid === 0 ? '; the CPU went idle' : `; next: ${e.nextComm} ${e.nextPid}`
  switch (e.kind) {
    case 'preempted': return `preempted (${stateLetter(e.state)}) by ${e.nextPid === 0 ? 'the idle task' : `${e.nextComm} ${e.nextPid}`}`
    case 'sleep': return `went to sleep (S)${next}`
    case 'blocked': return `blocked (D, uninterruptible)${next}`
    case 'exited': return `exited (${stateLetter(e.state)})${next}`
    case 'other': return `left the CPU as ${stateLetter(e.state)}${next}`
    default: return 'still running when the events end'
  }
}

export function WakeupPanel({ store, selection, onSelect, onShow }: WakeupPanelProps) {
  if (!selection || selection.kind !== 'slice') return null
  const sl = store.slices.get(selection.cpu)
  if (!sl || sl.pid[selection.index] === 0) return null
  const c = store.columns
  const w = waitBefore(store, selection.cpu, selection.index)
  const waker = w ? wakerOf(store, w) : null
  const handler = waker ? wakerHandler(store, waker) : null
  const end = sliceEnd(store, selection.cpu, selection.index)
  const woke = wokenDuring(store, selection.cpu, selection.index, 6)
  const selectAt = (cpu: number, t: number) => {
    const index = sliceIndexAt(store, cpu, t)
    if (index >= 0) onSelect({ kind: 'slice', cpu, index })
  }
  const pad = (a: number, b: number) => Math.max(2000, (b - a) * 0.3)
  return (
    <section className="panel workbench-panel" data-testid="wakeup" aria-label="Wakeup and wait">
      <h2>Wakeup and wait</h2>
      {!w && <p data-testid="wakeup-why">The switch to it is not in the loaded events: its wait is not known.</p>}
      {w && w.why === 'unknown' && (
        <p data-testid="wakeup-why">Runnable since before the events begin (no wakeup or preemption of it recorded): its wait is not known.</p>
      )}
      {w && w.why !== 'unknown' && (
        <dl className="kv">
          <dt>{w.why === 'preempted' ? 'runnable since' : 'woken by'}</dt>
          <dd data-testid="wakeup-waker">
            {w.why === 'preempted' ? `it was preempted on CPU ${c.cpu[w.preemptRow]} at ${rel(store, w.runnableAt)}`
              : waker ? (waker.pid === 0 ? `an interrupt on CPU ${waker.cpu} (the idle task was current)` : `${waker.comm} ${waker.pid} on CPU ${waker.cpu}`)
                : 'not recorded'}
          </dd>
          {handler && w.why !== 'preempted' && (
            <><dt>in</dt><dd data-testid="wakeup-handler">{handler} (an interrupt handler{waker && waker.pid !== 0 ? `, while ${waker.comm} ran` : ''})</dd></>
          )}
          {w.why !== 'preempted' && (
            <>
              <dt>{w.wakingRow >= 0 ? 'sched_waking' : 'sched_wakeup'}</dt><dd>{rel(store, w.runnableAt)}</dd>
              {w.wakingRow >= 0 && w.wakeupRow >= 0 && (
                <><dt>sched_wakeup</dt><dd>+{formatDuration(c.ts[w.wakeupRow] - w.runnableAt)}, target CPU {c.f2[w.wakeupRow]}</dd></>
              )}
            </>
          )}
          <dt>ran</dt><dd>on CPU {w.cpu} at {rel(store, w.runAt)}</dd>
          <dt>waited</dt>
          <dd data-testid="wakeup-latency"><strong>{formatDuration(w.latency)}</strong>
            {w.why === 'preempted' ? ' (runnable → running)' : ` (${w.wakingRow >= 0 ? 'waking' : 'wakeup'} → running)`}</dd>
        </dl>
      )}
      <dl className="kv">
        <dt>ended</dt><dd data-testid="wakeup-end">{endText(end)}</dd>
      </dl>
      <div className="wakeup-actions">
        {w && Number.isFinite(w.latency) && (
          <button type="button" className="button" data-testid="wakeup-show"
            onClick={() => onShow(w.runnableAt - pad(w.runnableAt, w.runAt), w.runAt + pad(w.runnableAt, w.runAt), w.runAt)}>
            Show the wait
          </button>
        )}
        {waker && waker.pid !== 0 && w?.why !== 'preempted' && (
          <button type="button" className="button" data-testid="wakeup-select-waker" onClick={() => selectAt(waker.cpu, waker.ts)}>
            Select the waker’s slice
          </button>
        )}
      </div>
      {woke.length > 0 && (
        <>
          <h3 className="subhead">It woke, while it ran</h3>
          <ul className="plain-list" data-testid="wakeup-woke">
            {woke.map((o) => (
              <li key={o.wakingRow}>
                <button type="button" className="link-button" disabled={!o.wait}
                  onClick={() => o.wait && selectAt(o.wait.cpu, o.wait.runAt)}>
                  {c.strings[c.s1[o.wakingRow]]} {c.f0[o.wakingRow]}
                </button>
                {o.wait ? `: ran on CPU ${o.wait.cpu} after ${formatDuration(o.wait.latency)}` : ': its switch-in is not in the loaded events'}
              </li>
            ))}
          </ul>
        </>
      )}
      <p className="hint">The waker is the task current on its CPU at the sched_waking{handler ? '' : ' (a wakeup from an interrupt names the task it interrupted: record the irq and softirq presets to see the handler)'}.
        Arrows on the timeline: waker → woken (solid), the wait (dashed bracket on its lane), tasks it woke (dotted).</p>
    </section>
  )
}
