/*
 * The published benchmark row beside the model's figures for the same
 * configuration, each column labelled as what it is: PUBLISHED (measured on a
 * real kernel, from published.json) or MODELLED (kscope's run on screen).
 * The model is never tuned to these numbers; the ratio is what to compare.
 */
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import type { LessonPublishedRef } from '../../core/lesson/lesson_types'
import { publishedRow } from '../../core/lesson/published'

const nsText = (ns: number | undefined) => (ns === undefined || !Number.isFinite(ns) ? '—' : `${Math.round(ns).toLocaleString('en-US')} ns`)
const ratioText = (r: number | undefined) => (r === undefined || !Number.isFinite(r) ? '—' : `${r.toFixed(1)}×`)

export function PublishedTable({ published, runs }: { published: LessonPublishedRef; runs: readonly LessonRunView[] }) {
  const row = publishedRow(published.entry, published.table, published.row)
  if ('missing' in row) return <p className="lp-problem" role="alert">{row.missing}</p>
  const mean = (v: string) => {
    const r = runs.find((x) => x.variant === v)
    return r && r.totals.measured ? r.totals.mean_ns : undefined
  }
  const m612 = mean('v6.12')
  const m613 = mean('v6.13')
  const bursts = runs.map((r) => `${r.variant}: ${r.totals.measured}`).join(', ')
  return (
    <section className="panel lp-published" aria-label="Published figures beside the model" data-testid="lp-published">
      <h2>
        Seed 000, {published.table.replace('delay_', '').replace('ms', ' ms')} between threads, {row.config}
      </h2>
      <table>
        <thead>
          <tr>
            <th scope="col">ns per 16 KiB burst</th>
            <th scope="col" className="num">
              <span className="published-tag">PUBLISHED</span> measured on a real kernel
            </th>
            <th scope="col" className="num">
              <span className="modelled-tag">MODELLED</span> kscope, this run
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">indexed by cpu id (baseline)</th>
            <td className="num">{nsText(row.values.per_cpu_ns)}</td>
            <td className="num">not modelled here</td>
          </tr>
          <tr data-testid="pub-v612">
            <th scope="row">mm_cid, v6.12 (before)</th>
            <td className="num">{nsText(row.values.mm_cid_ns)}</td>
            <td className="num" data-testid="pub-model-v612">{nsText(m612)}</td>
          </tr>
          <tr data-testid="pub-v613">
            <th scope="row">cache-local mm_cid, v6.13 (7e019dc)</th>
            <td className="num">{nsText(row.values.cache_local_ns)}</td>
            <td className="num" data-testid="pub-model-v613">{nsText(m613)}</td>
          </tr>
          <tr>
            <th scope="row">speed-up, v6.12 / v6.13</th>
            <td className="num">{ratioText(row.values.speedup)}</td>
            <td className="num" data-testid="pub-model-ratio">{ratioText(m612 !== undefined && m613 ? m612 / m613 : undefined)}</td>
          </tr>
        </tbody>
      </table>
      <p className="hint">
        Published: {row.machine}, mean of 5 runs ({row.source}). Modelled: kscope's cache model with its documented latency table, not tuned
        to these figures; measured bursts so far ({bursts}).
      </p>
    </section>
  )
}
