/*
 * "Add the machine's topology" for a stored trace without kscope's sysfs header
 * (plain tracefs text, perf script, trace.dat): its CPU lanes are flat until
 * the user gives an `lscpu -p` file or a sysfs tarball (PUT /api/traces/{id}/topology).
 * The server reads it with the same C importers as `kscope topology FILE` and
 * refuses a bad file (file, line, field) or one of another CPU count; the error
 * is shown here as the server words it.
 */
import { useState, type ChangeEvent } from 'react'
import { attachTopology } from '../../core/traces/traces_api'
import { describeTraceError } from '../../core/traces/trace_session'

/** What the file picker offers: lscpu text, sysfs dumps, tarballs (any compression the server reads). */
export const TOPOLOGY_ACCEPT = '.txt,.csv,.lscpu,.sysfs,.tar,.tgz,.gz,.xz,.zst,.tar.gz,.tar.xz,.tar.zst,text/plain,application/x-tar,application/gzip'

export function TopologyAttach({ traceId, hasTopology, onAttached }: {
  traceId: string; hasTopology: boolean; onAttached(): void
}) {
  const [state, setState] = useState<{ busy: boolean; error: string }>({ busy: false, error: '' })
  const onPick = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0]
    e.target.value = ''
    if (!file) return
    setState({ busy: true, error: '' })
    attachTopology(traceId, file).then(
      () => { setState({ busy: false, error: '' }); onAttached() },
      (err) => setState({ busy: false, error: describeTraceError(err) }),
    )
  }
  return (
    <div className="topology-attach" data-testid="topology-attach">
      {!hasTopology && (
        <span className="hint">CPU lanes are flat: this trace has no CPU topology (no kscope sysfs header).</span>
      )}
      <label className="button file-button">
        {state.busy ? 'Attaching…' : hasTopology ? 'Replace the topology…' : 'Add the machine’s topology…'}
        <input type="file" accept={TOPOLOGY_ACCEPT} onChange={onPick} disabled={state.busy}
          data-testid="topology-file" className="visually-hidden" />
      </label>
      {!hasTopology && <span className="hint"><code>lscpu -p</code> output or a tarball of <code>/sys/devices/system</code></span>}
      {state.error && <p className="error-text" role="alert" data-testid="topology-error">{state.error}</p>}
    </div>
  )
}

/** At upload: an optional topology file sent with the trace (one request; a bad one stores nothing). */
export function UploadTopologyPick({ file, onPick }: { file: File | null; onPick(f: File | null): void }) {
  return (
    <div className="library-buttons" data-testid="upload-topology">
      <label className="button file-button">
        {file ? 'Another topology…' : 'With a topology…'}
        <input type="file" accept={TOPOLOGY_ACCEPT} data-testid="upload-topology-file" className="visually-hidden"
          onChange={(e) => { const f = e.target.files?.[0] ?? null; e.target.value = ''; onPick(f) }} />
      </label>
      {file
        ? <span className="hint">next upload goes with <strong>{file.name}</strong>{' '}
          <button type="button" className="button" onClick={() => onPick(null)}>remove</button></span>
        : <span className="hint">optional, for a trace without kscope’s header: <code>lscpu -p</code> or a sysfs tarball
          (the CPU lanes are then grouped by NUMA node and LLC)</span>}
    </div>
  )
}
