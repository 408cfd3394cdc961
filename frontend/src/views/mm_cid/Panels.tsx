/*
 * The lesson's HTML panels: narration (what the allocator did and why), the
 * cumulative cost of each kernel, the per-mm numbers in plain words, and the
 * per-CPU table (struct mm_cid). Text only from simulation state; symbols
 * always come with words.
 */
import { Fragment } from 'react'
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import { ratioText } from '../../models/mm_cid/lesson_narrate'
import { formatDuration, formatT } from '../../core/shared/units'
import type { Topology } from '../../core/shared/types'
import { VARIANT_LOOK } from './marks'

export function LessonNarration(props: {
  runs: readonly LessonRunView[]
  step: number
  lastStep: number
  timeNs: number
  finished: boolean
  notice: string | null
  paths: readonly { name: string; help: string }[]
  /** What a step is called in the heading (the lesson player says "Instant": its steps are the lesson's). */
  unit?: string
  /** Records shown per run before the rest are summed up (presenter mode: fewer, in projector type). */
  maxLines?: number
}) {
  const { runs, step, lastStep, timeNs, finished, notice, paths, unit = 'Step', maxLines = MAX_LINES } = props
  const helpOf = (name?: string) => paths.find((p) => p.name === name)?.help
  return (
    <section className="panel lesson-narration" aria-label="What the allocator did, and why" aria-live="polite" data-testid="lesson-narration">
      <h2>
        {unit} <span data-testid="lesson-step">{step}</span> of {lastStep}
        <span className="narration-time"> · {formatT(timeNs)}</span>
      </h2>
      {step === 0 && <p className="narration-text">Nothing has happened yet. Press <kbd>→</kbd> to step, <kbd>N</kbd> to run to the next allocation, or <kbd>Space</kbd> to play.</p>}
      {step > 0 &&
        runs.map((r) => (
          <div key={r.variant} className="narration-run" data-testid={`narration-${r.variant}`}>
            {runs.length > 1 && (
              <h3 style={{ borderColor: VARIANT_LOOK[r.variant].colour }}>
                {VARIANT_LOOK[r.variant].name}
              </h3>
            )}
            <NarrationLines run={r} helpOf={helpOf} max={maxLines} />
          </div>
        ))}
      {finished && <p className="hint strong" data-testid="lesson-finished">The run has ended: every thread made its measured bursts and exited.</p>}
      {notice && (
        <p className="notice" role="status" data-testid="lesson-notice">
          {notice}
        </p>
      )}
    </section>
  )
}

/** At most this many lines per run; the rest are summed up ("+ 6 more decisions"). */
const MAX_LINES = 5

/** The branch whose help sentence is shown: the first cid decision, else the first record. */
const MAIN_PATHS = ['RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'KEEP_PCPU_CID']

function NarrationLines({ run, helpOf, max }: { run: LessonRunView; helpOf: (name?: string) => string | undefined; max: number }) {
  const lines = run.narration
  const main = lines.find((l) => l.path && MAIN_PATHS.includes(l.path)) ?? lines.find((l) => l.path)
  const shown = lines.length > max ? [...lines.slice(0, Math.max(1, max - 2)), ...lines.slice(-1)] : lines
  const hidden = lines.length - shown.length
  return (
    <ul className="narration-lines">
      {shown.map((l, i) => (
        <Fragment key={i}>
          {hidden > 0 && i === shown.length - 1 && (
            <li className="more">… and {hidden} more decisions like these since the previous instant (see the table and the picture)</li>
          )}
          <li className={`line-${l.kind}`}>
            {l.path && (
              <span className="path-name" title={helpOf(l.path)}>
                {l.path}
              </span>
            )}
            {l.kind === 'burst' && <span className="path-name burst">BURST</span>}
            <span className="line-text">{l.kind === 'event' ? l.text : capitalise(l.text)}.</span>
            {l === main && helpOf(l.path) && <span className="path-help">{helpOf(l.path)}</span>}
          </li>
        </Fragment>
      ))}
    </ul>
  )
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** The cumulative cost of each kernel's measured bursts, side by side. */
export function CostSummary({ runs }: { runs: readonly LessonRunView[] }) {
  const [a, b] = runs
  return (
    <section className="panel cost-summary" aria-label="Cumulative burst cost" data-testid="cost-summary">
      <h2>
        Cumulative burst cost <span className="modelled-tag">MODELLED</span>
      </h2>
      <table>
        <thead>
          <tr>
            <th scope="col">kernel</th>
            <th scope="col" className="num">bursts</th>
            <th scope="col" className="num">total</th>
            <th scope="col" className="num" title="ns per 16 KiB burst">mean / burst</th>
            <th scope="col" className="num" title="Measured bursts whose lines came from another core's or another L3's cache">➜ cache</th>
            <th scope="col" className="num" title="Measured bursts whose lines were in no cache">DRAM</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.variant} data-testid={`cost-${r.variant}`} data-total-ns={r.totals.total_ns} data-mean-ns={r.totals.mean_ns}>
              <th scope="row">
                <span className="variant-swatch" style={{ borderColor: VARIANT_LOOK[r.variant].colour, background: VARIANT_LOOK[r.variant].hollow ? '#fff' : VARIANT_LOOK[r.variant].colour }} />
                {r.variant}
              </th>
              <td className="num">{r.totals.measured}</td>
              <td className="num" data-testid={`total-${r.variant}`}>{formatDuration(r.totals.total_ns)}</td>
              <td className="num" data-testid={`mean-${r.variant}`}>{r.totals.measured ? `${Math.round(r.totals.mean_ns)} ns` : '—'}</td>
              <td className="num">{r.totals.transfers}</td>
              <td className="num">{r.totals.dram}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {a && b && <p className="ratio" data-testid="cost-ratio">{ratioText(a.totals, b.totals, a.variant, b.variant) || 'No measured burst yet.'}</p>}
      <p className="hint">
        Measured bursts only (warm-ups are not measured, as in the benchmark); mean in ns per 16 KiB burst. ➜ cache: bursts whose lines came
        from another core's or L3's cache; DRAM: from no cache.
      </p>
    </section>
  )
}

/** max_nr_cid, nr_cpus_allowed, mm_users and the next scan, with their meaning in words. */
export function MmNumbers({ runs, timeNs }: { runs: readonly LessonRunView[]; timeNs: number }) {
  const rows: { name: string; meaning: string; value: (r: LessonRunView) => string }[] = [
    {
      name: 'mm_users',
      meaning: 'threads of the process: no more cids are needed at once',
      value: (r) => num(r.view.mm?.mm_users),
    },
    {
      name: 'nr_cpus_allowed',
      meaning: "CPUs any thread may use (6.13+: the bound on cids; 6.12 bounds them by nr_cpu_ids)",
      value: (r) => (r.view.mm ? (r.view.mm.nr_cpus_allowed < 0 ? '— *' : String(r.view.mm.nr_cpus_allowed)) : '—'),
    },
    {
      name: 'max_nr_cid',
      meaning: 'how far allocation has spread: fresh cids are handed out below min(nr_cpus_allowed, mm_users)',
      value: (r) => (r.view.mm ? (r.view.mm.max_nr_cid < 0 ? '— *' : String(r.view.mm.max_nr_cid)) : '—'),
    },
    {
      name: 'cids in use',
      meaning: 'bits set in the cidmask',
      value: (r) => num(r.view.mm?.cidmask_weight),
    },
    {
      name: 'next scan',
      meaning: 'the 100 ms scan takes back cids unused for 100 ms, from a tick after this time',
      value: (r) => (r.view.mm ? `${r.view.mm.next_scan_ns > timeNs ? 'in ' : ''}${formatDuration(Math.abs(r.view.mm.next_scan_ns - timeNs))}${r.view.mm.next_scan_ns > timeNs ? '' : ' ago (due)'}` : '—'),
    },
  ]
  return (
    <section className="panel mm-numbers" aria-label="The process's mm_cid numbers" data-testid="mm-numbers">
      <h2>The process's numbers</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">field</th>
            {runs.map((r) => (
              <th key={r.variant} scope="col">{r.variant}</th>
            ))}
            <th scope="col">meaning</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.name}>
              <th scope="row">
                <code>{row.name}</code>
              </th>
              {runs.map((r) => (
                <td key={r.variant} className="num" data-testid={`${row.name.replace(/ /g, '-')}-${r.variant}`}>
                  {row.value(r)}
                </td>
              ))}
              <td className="meaning">{row.meaning}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.some((r) => r.variant === 'v6.12') && (
        <p className="hint">* v6.12 has no such field: its cids go up to nr_cpu_ids ({runs[0].view.pcpu.length}), the machine's CPU count.</p>
      )}
      {runs.some((r) => !r.view.mm) && <p className="hint">— : the process has no live threads at this step.</p>}
    </section>
  )
}

const num = (n: number | undefined) => (n === undefined ? '—' : String(n))

/** The per-mm/cpu table (struct mm_cid): one row per shown CPU, both kernels in compare mode. */
export function PcpuTable({ runs, cpus, topology, timeNs }: { runs: readonly LessonRunView[]; cpus: readonly number[]; topology: Topology; timeNs: number }) {
  const compare = runs.length > 1
  const has613 = runs.some((r) => r.variant !== 'v6.12')
  return (
    <section className="panel pcpu-table" aria-label="Per-CPU cid table" data-testid="pcpu-table">
      <h2>
        Per-CPU table <span className="hint-inline">(mm_cid per CPU, for this process)</span>
      </h2>
      <div className="table-scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">CPU</th>
              <th scope="col">L3</th>
              <th scope="col">thread</th>
              {runs.map((r) => (
                <th key={`c${r.variant}`} scope="col">cid{compare ? ` ${r.variant}` : ''}</th>
              ))}
              {has613 &&
                runs.filter((r) => r.variant !== 'v6.12').map((r) => (
                  <th key={`r${r.variant}`} scope="col" title="6.13+: the cid this CPU used last (the hint 7e019dc tries first)">
                    recent_cid{compare ? ` ${r.variant}` : ''}
                  </th>
                ))}
              {runs.map((r) => (
                <th key={`t${r.variant}`} scope="col" title="Time since this CPU last used its cid (the scan drops it at 100 ms)">
                  unused (ms){compare ? ` ${r.variant}` : ''}
                </th>
              ))}
              <th scope="col" title="MM_CID_LAZY_PUT: a scan asked for the cid back while a thread ran there">lazy put</th>
            </tr>
          </thead>
          <tbody>
            {cpus.map((cpu) => {
              const rows = runs.map((r) => r.view.pcpu[cpu])
              const differs = compare && rows[0]?.cid !== rows[1]?.cid
              const tid = rows.find((x) => x && x.running_tid >= 0)?.running_tid ?? -1
              return (
                <tr key={cpu} className={differs ? 'differs' : undefined} data-cpu={cpu} data-differs={differs || undefined}>
                  <th scope="row">{differs ? '≠ ' : ''}{cpu}</th>
                  <td className="num">{topology.cpus[cpu]?.llc ?? '?'}</td>
                  <td className="num">{tid >= 0 ? tid : '—'}</td>
                  {rows.map((x, i) => (
                    <td key={`c${i}`} className="num strong">{x && x.cid >= 0 ? x.cid : '—'}</td>
                  ))}
                  {has613 &&
                    runs.map((r, i) =>
                      r.variant === 'v6.12' ? null : (
                        <td key={`r${i}`} className="num">{rows[i] && rows[i].recent_cid >= 0 ? rows[i].recent_cid : '—'}</td>
                      ),
                    )}
                  {rows.map((x, i) => (
                    <td key={`t${i}`} className="num">{x && x.time_ns > 0 && x.time_ns <= timeNs ? ((timeNs - x.time_ns) / 1e6).toFixed(1) : '—'}</td>
                  ))}
                  <td className="num">{rows.map((x) => (x?.lazy_put ? '✓' : '—')).join(compare ? ' / ' : '')}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {compare && <p className="hint">≠ : the two kernels give this CPU different cids.</p>}
    </section>
  )
}
