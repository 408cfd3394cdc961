/*
 * "Check against model": the conformance of a stored trace with the mm_cid
 * model (core/trace_conform.ts), as a side panel: the agreement figure with
 * both sources labelled (the model is MODELLED, the kernel's cids MEASURED),
 * the kinds of disagreement, what the trace cannot show, and the narration
 * of the selected disagreement. The timeline draws each disagreement as a
 * diamond on its CPU lane; ] and [ (or the buttons) step between them.
 */
import type { ConformMarks, ConformResult } from '../../core/trace_conform'
import { agreementText, narrateDisagreement } from '../../core/trace_conform'

export type ConformState =
  | { status: 'idle' }
  | { status: 'running' }
  | { status: 'error'; message: string }
  | { status: 'done'; result: ConformResult; marks: ConformMarks }

export interface ConformPanelProps {
  state: ConformState
  /** Why the check cannot run on this trace ('' when it can). */
  unavailable: string
  /** Index into marks of the selected disagreement, -1 for none. */
  selected: number
  t0: number
  onRun(): void
  onStep(dir: 1 | -1): void
}

export function ConformPanel({ state, unavailable, selected, t0, onRun, onStep }: ConformPanelProps) {
  return (
    <section className="panel conform" data-testid="conform" aria-label="Check against the model">
      <h2>Model vs measured kernel</h2>
      {state.status !== 'done' && (
        <>
          {!unavailable && (
            <p className="hint">
              Replays this trace’s switches, migrations, forks and exits through the mm_cid model of its kernel version
              and compares each cid the model gives with the one the kernel recorded (rseq_update).
            </p>
          )}
          <button type="button" className="button" onClick={onRun} disabled={!!unavailable || state.status === 'running'}
            data-testid="conform-run">
            {state.status === 'running' ? 'Checking…' : 'Check against model'}
          </button>
          {unavailable && <p className="hint" data-testid="conform-unavailable">{unavailable}</p>}
          {state.status === 'error' && <p className="error-text" role="alert" data-testid="conform-error">{state.message}</p>}
        </>
      )}
      {state.status === 'done' && <ConformResultView result={state.result} marks={state.marks} selected={selected} t0={t0} onStep={onStep} />}
    </section>
  )
}

function ConformResultView({ result, marks, selected, t0, onStep }: {
  result: ConformResult; marks: ConformMarks; selected: number; t0: number; onStep(dir: 1 | -1): void
}) {
  const d = selected >= 0 ? result.disagreements[marks.index[selected]] : null
  const causes = Object.entries(result.causes).sort((a, b) => b[1] - a[1])
  return (
    <>
      <p className="conform-figure">
        agreement <strong data-testid="conform-agreement">{agreementText(result)}</strong>
      </p>
      <p className="hint">
        <span className="modelled">MODELLED</span> mm_cid model {result.variant} vs <span className="measured">MEASURED</span>
        {' '}Linux {result.kernel || '(kernel not in the trace)'}: each rseq_update’s cid compared.
      </p>
      {causes.length > 0 && (
        <ul className="conform-causes" aria-label="Kinds of disagreement">
          {causes.map(([k, n]) => <li key={k}>{k.replaceAll('_', ' ')}: {n.toLocaleString('en')}</li>)}
        </ul>
      )}
      {result.notes.length > 0 && (
        <ul className="conform-notes" aria-label="What the trace cannot show">
          {result.notes.map((n) => <li key={n}>{n}</li>)}
        </ul>
      )}
      {result.disagreements_truncated && <p className="hint">Marks for the first {result.disagreements.length.toLocaleString('en')} disagreements only.</p>}
      {marks.outside > 0 && <p className="hint">{marks.outside} disagreements lie outside the trace’s time range: not drawn.</p>}
      {marks.ts.length > 0 ? (
        <div className="conform-step">
          <button type="button" className="button" onClick={() => onStep(-1)} data-testid="conform-prev" aria-keyshortcuts="[">◆ previous</button>
          <button type="button" className="button" onClick={() => onStep(1)} data-testid="conform-next" aria-keyshortcuts="]">next ◆</button>
          <span className="hint">{selected >= 0 ? `${selected + 1} of ${marks.ts.length}` : `${marks.ts.length} marked`} · keys [ ]</span>
        </div>
      ) : <p className="hint">No disagreement: the model gave the kernel’s cid every time.</p>}
      {d && (
        <div className="narration conform-narration" data-testid="conform-narration" aria-live="polite">
          {narrateDisagreement(d, result, t0).map((line) => <p key={line}>{line}</p>)}
          <dl className="kv">
            <dt>kernel’s cid (measured)</dt><dd data-testid="conform-kernel-cid">{d.kernel_cid}</dd>
            <dt>model’s cid (modelled)</dt><dd data-testid="conform-model-cid">{d.model_cid}</dd>
            <dt>thread</dt><dd>{d.tid}</dd>
            <dt>CPU</dt><dd>{d.cpu}</dd>
          </dl>
        </div>
      )}
    </>
  )
}
