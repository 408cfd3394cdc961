/*
 * "Export window / whole trace" for a stored trace: the format (Perfetto / Chrome
 * JSON, or ftrace text) and two buttons. The server writes the file
 * (core/traces/trace_export.ts); a failure (too many events for one export, say) shows
 * the server's words.
 */
import { useState } from 'react'
import { downloadExport, EXPORT_FORMATS, type ExportFormat } from '../../core/traces/trace_export'
import { describeTraceError } from '../../core/traces/trace_session'

export function TraceExport({ traceId, currentWindow }: {
  traceId: string
  /** The time window on screen (ns of the trace's clock), null before the timeline reports one. */
  currentWindow(): { start: number; end: number } | null
}) {
  const [format, setFormat] = useState<ExportFormat>('chrome-json')
  const [state, setState] = useState<{ busy: boolean; note: string; error: string }>({ busy: false, note: '', error: '' })
  const run = (whole: boolean) => {
    const w = whole ? null : currentWindow()
    setState({ busy: true, note: '', error: '' })
    downloadExport(traceId, format, w ? { t0: w.start, t1: w.end } : null).then(
      (r) => setState({ busy: false, note: `saved ${r.name} (${r.bytes.toLocaleString('en')} bytes)`, error: '' }),
      (err) => setState({ busy: false, note: '', error: describeTraceError(err) }),
    )
  }
  return (
    <div className="trace-export" role="group" aria-label="Export" data-testid="trace-export">
      <label className="hint">
        Export as{' '}
        <select value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)} data-testid="export-format">
          {EXPORT_FORMATS.map((f) => <option key={f.id} value={f.id}>{f.label}</option>)}
        </select>
      </label>
      <button type="button" className="button" disabled={state.busy} onClick={() => run(false)} data-testid="export-window">
        Export window
      </button>
      <button type="button" className="button" disabled={state.busy} onClick={() => run(true)} data-testid="export-whole">
        Export whole trace
      </button>
      {state.busy && <span className="hint" role="status">exporting…</span>}
      {state.note && <span className="hint" role="status" data-testid="export-note">{state.note}</span>}
      {state.error && <p className="error-text" role="alert" data-testid="export-error">{state.error}</p>}
    </div>
  )
}
