/*
 * Text panels beside the timeline: the selected slice or event, and the
 * machine at the cursor (who runs on each CPU, who waits). Every value from
 * the trace is rendered as React text (escaped), never as HTML.
 */
import { useMemo, type ReactNode } from 'react'
import type { Selection } from '../../core/traces/trace_session'
import {
  EVENT_TYPES, isRunnableState, runnableAt, runningAt, sliceAt, type TraceStore,
} from '../../core/traces/trace_store'
import { formatDuration } from '../../core/shared/units'

/** Time since the trace's first event, ms with µs precision. */
export function rel(s: TraceStore, t: number): string {
  return `${((t - s.t0) / 1e6).toFixed(3)} ms`
}

/** The kernel's one-letter prev_state ("R", "R+", "S", "D", ...). */
export function stateLetter(state: number): string {
  if (isRunnableState(state)) return state & 0x100 ? 'R+ (preempted)' : 'R (runnable)'
  const letters: [number, string][] = [[1, 'S (sleeping)'], [2, 'D (uninterruptible)'], [4, 'T (stopped)'], [8, 't (traced)'],
    [16, 'X (dead)'], [32, 'Z (zombie)'], [64, 'P (parked)'], [128, 'I (idle)']]
  return letters.filter(([bit]) => state & bit).map(([, l]) => l).join('|') || String(state)
}

/** name=value pairs of an event row, for the details list. */
export function eventFields(s: TraceStore, row: number): [string, string][] {
  const c = s.columns
  const str = (id: number) => (id >= 0 ? c.strings[id] : '')
  switch (EVENT_TYPES[c.type[row]]) {
    case 'sched_switch':
      return [['prev_comm', str(c.s1[row])], ['prev_pid', String(c.f0[row])], ['prev_prio', String(c.f1[row])],
        ['prev_state', stateLetter(c.f2[row])], ['next_comm', str(c.s2[row])], ['next_pid', String(c.f3[row])],
        ['next_prio', String(c.f4[row])]]
    case 'sched_waking': case 'sched_wakeup': case 'sched_wakeup_new':
      return [['comm', str(c.s1[row])], ['pid', String(c.f0[row])], ['prio', String(c.f1[row])], ['target_cpu', String(c.f2[row])]]
    case 'sched_migrate_task':
      return [['comm', str(c.s1[row])], ['pid', String(c.f0[row])], ['prio', String(c.f1[row])],
        ['orig_cpu', String(c.f2[row])], ['dest_cpu', String(c.f3[row])]]
    case 'sched_process_fork':
      return [['comm', str(c.s1[row])], ['pid', String(c.f0[row])], ['child_comm', str(c.s2[row])], ['child_pid', String(c.f3[row])]]
    case 'sched_process_exit': case 'sched_process_free':
      return [['comm', str(c.s1[row])], ['pid', String(c.f0[row])], ['prio', String(c.f1[row])]]
    case 'rseq_update':
      return [['cpu_id', String(c.f0[row])], ['node_id', String(c.f1[row])], ['mm_cid', String(c.f2[row])]]
    case 'kmem_cache_alloc':
      return [['name', str(c.s1[row])], ['ptr', str(c.s2[row])], ['bytes_req', String(c.f0[row] >>> 0)],
        ['bytes_alloc', String(c.f1[row] >>> 0)], ['gfp_flags', '0x' + (c.f2[row] >>> 0).toString(16)],
        ['node', String(c.f3[row])], ['accounted', c.f4[row] < 0 ? '-' : c.f4[row] ? 'true' : 'false']]
    case 'kmem_cache_free':
      return [['name', str(c.s1[row])], ['ptr', str(c.s2[row])]]
    case 'sheaf_refill': case 'sheaf_flush': case 'barn_get': case 'barn_put':
      return [['name', str(c.s1[row])], ['objects', String(c.f0[row])], ['size', String(c.f1[row])],
        ['full', String(c.f2[row])], ['barn_full', String(c.f3[row])], ['barn_empty', String(c.f4[row])]]
    default:
      return [['event', str(c.s1[row])], ['fields', str(c.s2[row])]]
  }
}

/** children: more about the selection from elsewhere (e.g. the model's disagreement at this rseq_update). */
export function SelectionPanel({ store, selection, children }: { store: TraceStore; selection: Selection; children?: ReactNode }) {
  if (!selection) {
    return (
      <section className="panel" data-testid="details">
        <h2>Details</h2>
        <p className="hint">Click a slice in a lane (or Shift+→ to step to the next event) to see it here.</p>
      </section>
    )
  }
  if (selection.kind === 'slice') {
    const sl = sliceAt(store, selection.cpu, selection.index)
    const raw = store.slices.get(selection.cpu)!
    const endRow = raw.toRow[selection.index]
    return (
      <section className="panel" data-testid="details">
        <h2>{sl.pid === 0 ? 'Idle' : 'Run slice'} on CPU {sl.cpu}</h2>
        <dl className="kv">
          <dt>task</dt><dd data-testid="detail-comm">{sl.pid === 0 ? `the idle task (${sl.comm})` : sl.comm}</dd>
          <dt>pid (tid)</dt><dd>{sl.pid}</dd>
          <dt>process (tgid)</dt><dd>{sl.tgid >= 0 ? sl.tgid : 'not in the trace'}</dd>
          <dt>start</dt><dd>{rel(store, sl.start)}{sl.cutStart ? (store.loaded ? ' (began before the loaded window of events)' : ' (running when the capture began)') : ''}
            {sl.inferred ? ' (inferred: the switch to it is missing from the trace; this is its first event seen here)' : ''}</dd>
          <dt>end</dt><dd>{rel(store, sl.end)}{sl.cutEnd ? (store.loaded && store.loaded.t1 <= store.lastTs ? ' (runs on past the loaded window of events)' : ' (still running when it stopped)') : ''}</dd>
          <dt>{sl.pid === 0 ? 'idle for' : 'ran for'}</dt><dd>{formatDuration(sl.end - sl.start)}</dd>
          {endRow >= 0 && (
            <>
              <dt>left the CPU as</dt><dd>{stateLetter(store.columns.f2[endRow])}</dd>
            </>
          )}
        </dl>
      </section>
    )
  }
  const c = store.columns
  const row = selection.row
  const type = EVENT_TYPES[c.type[row]]
  return (
    <section className="panel" data-testid="details">
      <h2>{type === 'generic' ? c.strings[c.s1[row]] : type}</h2>
      <dl className="kv">
        <dt>time</dt><dd>{rel(store, c.ts[row])}</dd>
        <dt>CPU</dt><dd>{c.cpu[row]}</dd>
        <dt>current task</dt><dd data-testid="detail-comm">{c.strings[c.comm[row]]} ({c.pid[row]})</dd>
        {eventFields(store, row).map(([k, v]) => (
          <FieldRow key={k} name={k} value={v} />
        ))}
      </dl>
      {children}
    </section>
  )
}

function FieldRow({ name, value }: { name: string; value: string }) {
  return (
    <>
      <dt>{name}</dt>
      <dd className="field-value">{value}</dd>
    </>
  )
}

/** Who runs on each CPU at the cursor and who waits, rebuilt from the trace (MEASURED). */
export function CursorPanel({ store, cursor, maxCpus = 24 }: { store: TraceStore; cursor: number | null; maxCpus?: number }) {
  // Replaying the trace up to the cursor is O(events): only when the cursor moves, not on every zoom frame.
  const waiting = useMemo(() => (cursor === null ? null : runnableAt(store, cursor)), [store, cursor])
  if (cursor === null || !waiting) {
    return (
      <section className="panel" data-testid="at-cursor">
        <h2>At the cursor</h2>
        <p className="hint">Click the timeline to put the cursor down.</p>
      </section>
    )
  }
  const cpus = store.cpus.slice(0, maxCpus)
  return (
    <section className="panel" data-testid="at-cursor">
      <h2>At {rel(store, cursor)}</h2>
      <table className="cursor-table">
        <thead>
          <tr><th scope="col">CPU</th><th scope="col">running</th><th scope="col">waiting (longest first)</th></tr>
        </thead>
        <tbody>
          {cpus.map((cpu) => {
            const run = runningAt(store, cpu, cursor)
            const q = waiting.get(cpu) ?? []
            return (
              <tr key={cpu}>
                <td>{cpu}</td>
                <td>{run ? (run.pid === 0 ? 'idle' : `${run.comm} ${run.pid}`) : '—'}</td>
                <td>{q.length ? q.map((w) => `${w.comm} ${w.pid} (${formatDuration(cursor - w.since)})`).join(', ') : '—'}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
      {store.cpus.length > maxCpus && <p className="hint">First {maxCpus} of {store.cpus.length} CPUs.</p>}
      <RecentMigrations store={store} cursor={cursor} />
      <p className="hint">Waiting order is how long each task has waited; the kernel’s pick order (EEVDF deadlines) is not in the trace.</p>
      {store.loaded && (
        <p className="hint">Stored trace: running tasks from the switches before the cursor; waiting tasks rebuilt from the loaded window’s events only (from {rel(store, store.loaded.t0)}).</p>
      )}
    </section>
  )
}

/** Index of the first row in `rows` (time order) later than t. */
function firstAfter(rows: Int32Array, ts: Float64Array, t: number): number {
  let lo = 0, hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ts[rows[mid]] <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The last few sched_migrate_task events at or before the cursor (from the loaded events for a stored trace). */
function RecentMigrations({ store, cursor, count = 5 }: { store: TraceStore; cursor: number; count?: number }) {
  const c = store.columns
  const m = store.migrations
  const end = firstAfter(m, c.ts, cursor)
  const rows = Array.from(m.subarray(Math.max(0, end - count), end)).reverse()
  return (
    <div data-testid="recent-migrations">
      <h3 className="subhead">Recent migrations</h3>
      {rows.length ? (
        <ul className="plain-list">
          {rows.map((r) => (
            <li key={r}>
              {c.strings[c.s1[r]] ?? ''} {c.f0[r]}: CPU {c.f2[r]} → CPU {c.f3[r]}, {formatDuration(cursor - c.ts[r])} before
            </li>
          ))}
        </ul>
      ) : <p className="hint">None before the cursor{store.loaded ? ' in the loaded window' : ''}.</p>}
    </div>
  )
}
