/*
 * The cpupri model's views on the lesson player's stage (models/cpupri's descriptor:
 * views.Stage), one column per kernel (before and after side by side in "compare"):
 *
 *   cpus       the CPUs grouped by socket, each with its cpupri level in text (RT 99, no RT)
 *   line       the hot priority bitmap's cache line(s): 8 words x (loads, stores, local
 *              HITM, remote HITM), cycles per load, and the socket that owns the line now
 *              (the marker slides to the new socket when ownership moves)
 *   numbers    cpupri_find / cpupri_set counts and the modelled access time
 *   measured   the seed's MEASURED figures beside this run's MODELLED ones
 *   narration  the model's state and the latest RT placements in words
 *
 * Everything here is MODELLED (the C model on the cost model) except the measured panel's
 * left column, which is MEASURED on the seed's machine; both are labelled.
 */
import type { ReactNode } from 'react'
import type { Topology } from '../../core/shared/types'
import { levelLabel } from '../../models/cpupri/types'
import type { CpupriLessonView, CpupriRunView } from '../../models/cpupri/lesson_store'
import { narrateRecord, narrateRun } from '../../models/cpupri/narrate'
import { VARIANT_LOOK } from '../../models/cpupri/runs'
import type { ModelStageProps } from '../../models/types'
import { cpusBySocket, maskLines, type MaskLine } from './mask_line'
import { PublishedFigures } from './PublishedFigures'
import './cpupri.css'

export const VIEW_NAMES: Record<string, string> = {
  cpus: 'CPUs by socket with their RT priority',
  line: 'the priority mask cache line',
  numbers: 'cpupri_find / cpupri_set counts',
  measured: 'MEASURED (seed) vs MODELLED',
  narration: 'what the model did',
}

export const TAB_NAMES: Record<string, string> = {
  cpus: 'CPUs', line: 'mask line', numbers: 'counts', measured: 'measured', narration: 'narration',
}

export const VIEW_IDS = ['cpus', 'line', 'numbers', 'measured', 'narration'] as const

function Part({ id, highlight, focused, children }: { id: string; highlight: boolean; focused: boolean; children: ReactNode }) {
  return (
    <div className={`lp-part lp-part-${id} cp-part${highlight ? ' lp-highlight' : ''}${focused ? ' lp-focused' : ''}`} data-view={id}
      data-highlight={highlight ? 'yes' : undefined} data-focused={focused ? 'yes' : undefined}>
      {highlight && <span className="lp-look" aria-hidden="true">◆ look here</span>}
      {children}
    </div>
  )
}

function RunTitle({ run, toggles }: { run: CpupriRunView; toggles: readonly string[] }) {
  const look = VARIANT_LOOK[run.variant]
  return (
    <h3 className="cp-run-title" style={{ borderLeftColor: look?.colour }}>
      {look?.name ?? run.variant}
      {toggles.length > 0 && <span className="cp-bug"> · bug injected: {toggles.join(', ')}</span>}
    </h3>
  )
}

export function CpuGrid({ run, topology }: { run: CpupriRunView; topology: Topology }) {
  const placedNow = new Set(run.recent.filter((r) => r.ts_ns === run.recent.at(-1)?.ts_ns).map((r) => r.cpu))
  return (
    <div className="cp-sockets" data-testid={`cp-cpus-${run.variant}`}>
      {cpusBySocket(topology).map(({ socket, cpus }) => (
        <section key={socket} className="cp-socket" aria-label={`socket ${socket}`}>
          <h4>socket {socket}</h4>
          <ol className="cp-cpu-list">
            {cpus.map((cpu) => {
              const level = run.view.levels[cpu] ?? -1
              const rt = level >= 1 && level < 100
              return (
                <li key={cpu} className={`cp-cpu${rt ? ' cp-rt' : ''}${placedNow.has(cpu) ? ' cp-placed' : ''}`} data-level={level}>
                  <span className="cp-cpu-name">CPU {cpu}</span>
                  <span className="cp-cpu-level">{levelLabel(level)}</span>
                  {placedNow.has(cpu) && <span className="cp-cpu-mark">◀ placed</span>}
                </li>
              )
            })}
          </ol>
        </section>
      ))}
    </div>
  )
}

const COUNTERS = [['loads', 'loads'], ['stores', 'stores'], ['local_hitm', 'local HITM'], ['remote_hitm', 'remote HITM']] as const

function OwnerTrack({ line, sockets, previous }: { line: MaskLine; sockets: number[]; previous: number | null }) {
  const at = line.ownerSocket === null ? -1 : sockets.indexOf(line.ownerSocket)
  const moved = previous !== null && line.ownerSocket !== null && previous !== line.ownerSocket
  return (
    <div className="cp-owner" data-owner={line.ownerSocket ?? 'none'} data-moved={moved ? 'yes' : undefined}>
      <div className="cp-owner-track" aria-label={line.ownerSocket === null ? 'not cached yet' : `owner: socket ${line.ownerSocket}`}>
        {sockets.map((s) => <span key={s} className="cp-owner-slot">socket {s}</span>)}
        {at >= 0 && (
          <span className="cp-owner-marker" style={{ transform: `translateX(${at * 100}%)`, width: `${100 / sockets.length}%` }}>
            socket {line.ownerSocket}: owner
          </span>
        )}
      </div>
      {moved && <p className="cp-owner-text"><strong>moved from socket {previous}</strong></p>}
    </div>
  )
}

export function MaskLineTable({ run, topology }: { run: CpupriRunView; topology: Topology }) {
  const lines = maskLines(run.view, topology)
  const before = run.previous ? maskLines(run.previous, topology) : []
  const sockets = cpusBySocket(topology).map((s) => s.socket)
  if (!lines.length) return <p className="cp-empty">No priority bitmap touched yet.</p>
  return (
    <div className="cp-lines" data-testid={`cp-line-${run.variant}`}>
      {lines.map((line) => (
        <figure key={line.object} className="cp-line">
          <figcaption>
            <code title={`${levelLabel(line.level)}${line.node >= 0 ? `, node ${line.node}'s CPUs` : ', all CPUs'}`}>{line.object}</code> ·{' '}
            <strong>{Math.round(line.cyclesPerLoad)} cycles/load</strong>
          </figcaption>
          <OwnerTrack line={line} sockets={sockets} previous={before.find((b) => b.object === line.object)?.ownerSocket ?? null} />
          <table className="cp-words">
            <thead>
              <tr><th scope="col">word</th>{line.words.map((_, i) => <th key={i} scope="col" title={`offset 0x${(i * 8).toString(16)}`}>{i}</th>)}</tr>
            </thead>
            <tbody>
              {COUNTERS.map(([k, name]) => (
                <tr key={k}>
                  <th scope="row">{name}</th>
                  {line.words.map((w, i) => <td key={i} className={`${w.loads + w.stores ? 'cp-used' : 'cp-unused'}${k === 'remote_hitm' && w[k] ? ' cp-remote' : ''}`}>{w[k]}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </figure>
      ))}
    </div>
  )
}

function Numbers({ run }: { run: CpupriRunView }) {
  const s = run.view.summary
  return (
    <dl className="cp-numbers">
      <dt>cpupri_find calls</dt><dd>{s.finds} ({s.finds_found} found a CPU)</dd>
      <dt>bitmaps loaded</dt><dd>{s.nodes_scanned}</dd>
      <dt>cpupri_set level changes</dt><dd>{s.sets}</dd>
      <dt>answers changed by an in-flight cpupri_set</dt><dd>{s.finds_changed_by_inflight}</dd>
      <dt>modelled time in these accesses</dt><dd>{(s.access_ns / 1000).toFixed(1)} µs ({(s.wait_ns / 1000).toFixed(1)} µs waiting for the line)</dd>
    </dl>
  )
}

export function CpupriStage(props: ModelStageProps) {
  const { shows, highlight, focused, toggles } = props
  const view = (props.snapshot as { view: CpupriLessonView }).view
  const { topology, runs } = view
  if (!topology || runs.length === 0) return null
  // Before and after stay side by side, in presenter mode too (the comparison is the point).
  const shown = runs
  const columns = (id: string, body: (r: CpupriRunView) => ReactNode) => (
    <Part id={id} highlight={highlight(id) || (id === 'line' && highlight('owner'))} focused={focused === id}>
      <div className={`cp-columns${shown.length > 1 ? ' cp-compare' : ''}`}>
        {shown.map((r) => (
          <div key={r.algo} className="cp-column" data-testid={`cp-col-${id}-${r.variant}`}>
            <RunTitle run={r} toggles={toggles} />
            {body(r)}
          </div>
        ))}
      </div>
    </Part>
  )
  return (
    <div className="cp-stage" data-testid="cp-stage">
      <p className="cp-time" title="workload rt-instances-classroom-2s-16; counts since the run began; cycles/load: perf c2c's sampled loads (>= 30 cycles)">
        <span className="cp-tag">MODELLED</span> t = {(view.time_ns / 1e6).toFixed(3)} ms · {topology.name} · counts since t = 0
      </p>
      {shows('cpus') && columns('cpus', (r) => <CpuGrid run={r} topology={topology} />)}
      {shows('line') && columns('line', (r) => <MaskLineTable run={r} topology={topology} />)}
      {shows('numbers') && columns('numbers', (r) => <Numbers run={r} />)}
      {shows('measured') && (
        <Part id="measured" highlight={highlight('measured')} focused={focused === 'measured'}>
          <PublishedFigures runs={runs} topology={topology} />
        </Part>
      )}
      {shows('narration') && (
        <Part id="narration" highlight={highlight('narration')} focused={focused === 'narration'}>
          <ul className="cp-narration">
            {runs.flatMap((r) => narrateRun(r, topology)).map((line, i) => <li key={i}>{line}</li>)}
            {(runs[0].recent.slice(-2)).map((r) => <li key={`p${r.seq}`}>{narrateRecord(r)}</li>)}
          </ul>
        </Part>
      )}
    </div>
  )
}
