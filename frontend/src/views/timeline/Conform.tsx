/*
 * "Check against model": the conformance of a stored trace with the mm_cid
 * model (core/trace_conform.ts), as a side panel: the agreement figure with
 * both sources labelled (the model is MODELLED, the kernel's cids MEASURED),
 * the kinds of disagreement, what the trace cannot show, and the narration
 * of the selected disagreement. The timeline draws each disagreement as a
 * diamond on its CPU lane; ] and [ (or the buttons) step between them.
 */
import type { ConformMarks, ConformResult, VariantFigures } from '../../core/traces/trace_conform'
import { agreementText, narrateDisagreement, variantSource } from '../../core/traces/trace_conform'

export const MODEL_VARIANTS = ['v6.12', 'v6.13', 'v6.18'] as const

export type ConformState =
  | { status: 'idle' }
  | { status: 'running'; variant: string }
  | { status: 'error'; message: string; variant: string }
  /** figures: every variant's agreement from the inferring run (kept when the user picks another variant). */
  | { status: 'done'; result: ConformResult; marks: ConformMarks; figures: VariantFigures[] | null }

export interface ConformPanelProps {
  state: ConformState
  /** Why the check cannot run on this trace ('' when it can). */
  unavailable: string
  /** Index into marks of the selected disagreement, -1 for none. */
  selected: number
  t0: number
  /** Runs the check with this variant ('auto': the trace's kernel release, or inferred without one). */
  onRun(variant: string): void
  onStep(dir: 1 | -1): void
}

export function ConformPanel({ state, unavailable, selected, t0, onRun, onStep }: ConformPanelProps) {
  const running = state.status === 'running' ? state.variant : null
  return (
    <section className="panel conform" data-testid="conform" aria-label="Check against the model">
      <h2>Model vs measured kernel</h2>
      {state.status !== 'done' && (
        <>
          {!unavailable && (
            <p className="hint">
              Replays this trace’s switches, migrations, forks and exits through the mm_cid model of its kernel version
              and compares each cid the model gives with the one the kernel recorded (rseq_update). A trace that names
              no kernel version is replayed with every variant, and the one that agrees best is shown (labelled so).
            </p>
          )}
          <button type="button" className="button" onClick={() => onRun('auto')} disabled={!!unavailable || running !== null}
            data-testid="conform-run">
            {running !== null ? 'Checking…' : state.status === 'error' ? 'Check again' : 'Check against model'}
          </button>
          {unavailable && <p className="hint" data-testid="conform-unavailable">{unavailable}</p>}
          {state.status === 'error' && <p className="error-text" role="alert" data-testid="conform-error">{state.message}</p>}
        </>
      )}
      {state.status === 'done' && (
        <ConformResultView result={state.result} marks={state.marks} figures={state.figures} selected={selected} t0={t0}
          onStep={onStep} onRun={onRun} />
      )}
    </section>
  )
}

function ConformResultView({ result, marks, figures, selected, t0, onStep, onRun }: {
  result: ConformResult; marks: ConformMarks; figures: VariantFigures[] | null; selected: number; t0: number
  onStep(dir: 1 | -1): void; onRun(variant: string): void
}) {
  const d = selected >= 0 ? result.disagreements[marks.index[selected]] : null
  const causes = Object.entries(result.causes).sort((a, b) => b[1] - a[1])
  return (
    <>
      <p className="conform-figure">
        agreement <strong data-testid="conform-agreement">{agreementText(result)}</strong>
      </p>
      <p className="hint">
        <span className="modelled">MODELLED</span> mm_cid model <strong data-testid="conform-variant">{result.variant}</strong>
        {' '}(<span data-testid="conform-variant-source">{variantSource(result)}</span>) vs <span className="measured">MEASURED</span>
        {' '}Linux {result.kernel || '(kernel version not in the trace)'}: each rseq_update’s cid compared.
      </p>
      {figures && <VariantTable figures={figures} shown={result.variant} />}
      <label className="conform-variant-pick">
        Replay with another variant{' '}
        <select value={result.variant_from === 'option' ? result.variant : 'auto'} data-testid="conform-variant-choose"
          onChange={(e) => onRun(e.target.value)}>
          <option value="auto">auto ({result.kernel ? 'from the kernel release' : 'best agreement'})</option>
          {MODEL_VARIANTS.map((v) => <option key={v} value={v}>{v}</option>)}
        </select>
      </label>
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

/** Each variant's agreement when the trace names no kernel release: the choice is the reader's to question. */
function VariantTable({ figures, shown }: { figures: VariantFigures[]; shown: string }) {
  return (
    <table className="conform-variants" data-testid="conform-variants" aria-label="Agreement of each model variant">
      <caption className="hint">No kernel version in the trace: every variant replayed (MODELLED) against the same cids (MEASURED)</caption>
      <thead><tr><th scope="col">variant</th><th scope="col">agreement</th><th scope="col">scan at</th></tr></thead>
      <tbody>
        {figures.map((f) => (
          <tr key={f.variant} data-testid="conform-variant-row" aria-current={f.variant === shown ? 'true' : undefined}>
            <th scope="row">{f.variant}{f.variant === shown ? ' (shown)' : ''}{f.best ? ' ★ best' : ''}</th>
            <td>{agreementText(f)}</td>
            <td>{f.scan_at === 'return' ? 'return to user' : 'modelled tick'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
