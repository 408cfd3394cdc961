/*
 * The custom workload editor: the JSON in a textarea, checked by the C core's
 * own parser as you type (the same one that runs it), its complaint shown
 * inline with the line, column and field path, and the offending line quoted.
 */
import { useEffect, useMemo, useState } from 'react'
import type { SimProblem } from '../../core/sim/sim_controller'

export interface WorkloadEditorProps {
  /** The text to start from (the current workload's JSON). */
  initial: string
  /** Validates with the C parser; null when the workload is fine. */
  check: (json: string) => SimProblem | null
  onRun: (json: string) => void
  onClose: () => void
}

const CHECK_DELAY_MS = 250

export function WorkloadEditor({ initial, check, onRun, onClose }: WorkloadEditorProps) {
  const [text, setText] = useState(initial)
  const [checked, setChecked] = useState<{ text: string; problem: SimProblem | null } | null>(null)
  useEffect(() => {
    const id = setTimeout(() => setChecked({ text, problem: check(text) }), CHECK_DELAY_MS)
    return () => clearTimeout(id)
  }, [text, check])
  const current = checked?.text === text ? checked : null
  const problem = current?.problem ?? null
  const quoted = useMemo(() => {
    if (problem?.kind !== 'workload' || problem.line < 1) return null
    const line = text.split('\n')[problem.line - 1] ?? ''
    return { line, caret: problem.column > 0 ? `${' '.repeat(problem.column - 1)}^` : '' }
  }, [problem, text])

  return (
    <section className="panel workload-editor" aria-label="Custom workload" data-testid="workload-editor">
      <div className="editor-head">
        <h2>Custom workload (JSON)</h2>
        <p className="hint">
          Schema: <code>wasm-core/src/sched/workload.c</code> — kinds <code>intermittent</code>, <code>periodic_rt</code>,{' '}
          <code>pipe_pairs</code>, <code>fork_churn</code>. Checked by the C core as you type.
        </p>
      </div>
      <textarea
        data-testid="workload-json"
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby="workload-check"
        rows={14}
        wrap="off"
      />
      <div id="workload-check" className={`editor-check ${problem ? 'bad' : current ? 'good' : ''}`} data-testid="workload-check" role="status">
        {!current && 'Checking…'}
        {current && !problem && '✓ The C parser accepts this workload.'}
        {problem?.kind === 'workload' && (
          <>
            <strong>
              ✗ {problem.line > 0 ? `Line ${problem.line}${problem.column > 0 ? `, column ${problem.column}` : ''}` : 'Workload'}
              {problem.field ? ` — ${problem.field}` : ''}:
            </strong>{' '}
            {problem.detail}
            {quoted && (
              <pre className="quoted" aria-label={`line ${problem.line}`}>
                {`${String(problem.line).padStart(3)} | ${quoted.line}\n    | ${quoted.caret}`}
              </pre>
            )}
          </>
        )}
        {problem && problem.kind !== 'workload' && <strong>✗ {problem.message}</strong>}
      </div>
      <div className="editor-actions">
        <button type="button" className="primary" disabled={!current || problem !== null} onClick={() => onRun(text)} data-testid="run-workload">
          Run this workload
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  )
}
