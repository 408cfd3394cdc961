/*
 * SQL in the page: one read-only SELECT over the stored trace's `events` view, the same
 * POST /api/traces/{id}/sql the API serves (bounded there in time, rows and memory). The
 * answer as a table (a row with a ts jumps the cursor there), "Show as track" for answers
 * with ts [dur] [cpu] [name] (core/traces/trace_sql.ts), and saved queries (in the URL).
 * Every value is rendered as React text. The server's refusals are shown in its words.
 */
import { useState, type KeyboardEvent } from 'react'
import { runSql } from '../../core/traces/traces_api'
import { describeTraceError } from '../../core/traces/trace_session'
import { SQL_MAX_CHARS, SQL_MAX_SAVED, TrackError, canTrack, queryTrack, rowTime, type QueryTrack, type SqlAnswer } from '../../core/traces/trace_sql'

export interface SqlConsoleProps {
  /** The stored trace; null for a local one (the console then says why it cannot run). */
  traceId: string | null
  saved: readonly string[]
  onSaved(q: string[]): void
  onJump(ts: number): void
  onTrack(t: QueryTrack | null, label: string): void
  trackShown: boolean
}

export const EXAMPLE_SQL = "SELECT ts_ns AS ts, 20000 AS dur, cpu, task_comm AS name FROM events WHERE type = 'sched_waking' LIMIT 500"
const SHOWN_ROWS = 200

export function SqlConsole({ traceId, saved, onSaved, onJump, onTrack, trackShown }: SqlConsoleProps) {
  const [sql, setSql] = useState(saved[0] ?? EXAMPLE_SQL)
  const [state, setState] = useState<{ busy: boolean; answer: SqlAnswer | null; error: string; query: string }>(
    { busy: false, answer: null, error: '', query: '' })
  if (!traceId) {
    return (
      <section className="panel workbench-panel" data-testid="sql" aria-label="SQL">
        <h2>SQL</h2>
        <p className="hint">SQL runs on the server over a stored trace: upload this file to query it.</p>
      </section>
    )
  }
  const run = (text = sql) => {
    setState({ busy: true, answer: null, error: '', query: text })
    runSql(traceId, text).then(
      (answer) => setState({ busy: false, answer, error: '', query: text }),
      (err) => setState({ busy: false, answer: null, error: describeTraceError(err), query: text }),
    )
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      run()
    }
  }
  const a = state.answer
  const showTrack = () => {
    if (!a) return
    try {
      onTrack(queryTrack(a), state.query)
    } catch (err) {
      setState({ ...state, error: err instanceof TrackError ? err.message : describeTraceError(err) })
    }
  }
  const save = () => {
    const q = sql.trim()
    if (!q || saved.includes(q)) return
    onSaved([...saved, q].slice(-SQL_MAX_SAVED))
  }
  return (
    <section className="panel workbench-panel" data-testid="sql" aria-label="SQL">
      <h2>SQL</h2>
      <p className="hint">One read-only SELECT over <code>events</code> (its columns: ts_ns, cpu, type, pid, comm, prev_*, next_*, task_*, …). Ctrl+Enter runs it.</p>
      <textarea className="sql-input" value={sql} maxLength={SQL_MAX_CHARS} rows={4} onChange={(e) => setSql(e.target.value)}
        onKeyDown={onKeyDown} aria-label="SQL query" data-testid="sql-input" spellCheck={false} />
      <div className="wakeup-actions">
        <button type="button" className="button" disabled={state.busy || !sql.trim()} onClick={() => run()} data-testid="sql-run"
          aria-keyshortcuts="Control+Enter">{state.busy ? 'Running…' : 'Run'}</button>
        <button type="button" className="button" disabled={!a || !canTrack(a)} onClick={showTrack} data-testid="sql-track"
          title="Needs ts (or ts_ns); dur, cpu and name are used when present">Show as track</button>
        {trackShown && <button type="button" className="button" onClick={() => onTrack(null, '')} data-testid="sql-track-clear">Hide the track</button>}
        <button type="button" className="button" disabled={!sql.trim() || saved.includes(sql.trim())} onClick={save} data-testid="sql-save">Save</button>
      </div>
      {saved.length > 0 && (
        <ul className="plain-list sql-saved" data-testid="sql-saved" aria-label="Saved queries">
          {saved.map((q) => (
            <li key={q}>
              <button type="button" className="link-button" onClick={() => { setSql(q); run(q) }} title={q}>{q.length > 60 ? `${q.slice(0, 59)}…` : q}</button>
              {' '}<button type="button" className="link-button" aria-label={`Forget: ${q.slice(0, 40)}`} onClick={() => onSaved(saved.filter((x) => x !== q))}>(forget)</button>
            </li>
          ))}
        </ul>
      )}
      {state.error && <p className="sql-error" role="alert" data-testid="sql-error">{state.error}</p>}
      {a && (
        <div data-testid="sql-result">
          <p className="hint" data-testid="sql-count">
            {a.rows.length.toLocaleString('en')} row{a.rows.length === 1 ? '' : 's'}{a.truncated ? ' (the server’s limit: the first ones)' : ''}
            {a.rows.length > SHOWN_ROWS ? `; the first ${SHOWN_ROWS} below` : ''}{canTrack(a) ? '; click a row to move the cursor to its ts' : ''}
          </p>
          <div className="sql-table-box">
            <table className="area-table sql-table">
              <thead><tr>{a.columns.map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
              <tbody>
                {a.rows.slice(0, SHOWN_ROWS).map((r, k) => {
                  const ts = rowTime(a, k)
                  return (
                    <tr key={k} data-testid="sql-row" className={ts !== null ? 'jump' : undefined}
                      tabIndex={ts !== null ? 0 : undefined} onClick={() => ts !== null && onJump(ts)}
                      onKeyDown={(e) => { if (ts !== null && e.key === 'Enter') onJump(ts) }}>
                      {r.map((v, i) => <td key={i} className="clip">{v === null ? '∅' : String(v)}</td>)}
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </section>
  )
}
