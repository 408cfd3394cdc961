/*
 * A burst's cost by mechanism (the cost model v2's parts, core/sim/cost_parts.ts): per
 * row, a horizontal stacked bar and the list of its parts with their ns, which add up to
 * the total shown. Nothing is said by colour alone: each bar segment carries its number
 * (and its name where it fits), and the list below names every part with its number, ns
 * and share. Colours: Okabe–Ito (views/palette.ts), solid or hatched per mechanism.
 *
 * Generic: names no model. The caller gives each row's title, the cost model's name and
 * the background traffic (an explicit workload parameter, shown as one).
 */
import type { CostBreakdown } from '../../core/sim/cost_parts'
import { formatNs } from '../../core/sim/cost_parts'
import { formatDuration } from '../../core/shared/units'
import { OKABE_ITO } from '../palette'

export interface BreakdownRow {
  key: string
  /** What the row is about, e.g. "v6.13 · burst 12: thread 1002 on CPU 2 at 400.1 ms". */
  title: string
  breakdown: CostBreakdown | null
  /** Said instead of the bar when there is no breakdown (no burst yet, or cost model v1). */
  empty: string
}

export interface BackgroundTraffic {
  /** Bytes per µs each core streams through its own caches while it runs. */
  perCoreBytesPerUs: number
  /** Bytes per µs all cores of an LLC stream through it. */
  perLlcBytesPerUs: number
}

/**
 * Each mechanism's fill, by the core's part name: solid Okabe–Ito hues for the parts a
 * sweep usually has, hatched hues for the rest (a part the table does not know: grey,
 * hatched). The number and the list carry the meaning; the fill only helps the eye.
 */
const O = OKABE_ITO
const hatch = (c: string) => `repeating-linear-gradient(45deg, ${c} 0 6px, #ffffff 6px 9px)`
const FILLS: Readonly<Record<string, string>> = {
  core: O.skyBlue, first_touch: O.vermillion, remote: O.orange, rfo: O.reddishPurple, idle_flush: O.blue,
  dram: O.yellow, tlb: O.bluishGreen,
  l2: hatch(O.skyBlue), llc: hatch(O.bluishGreen), capacity: hatch(O.orange), bandwidth: hatch(O.yellow),
  cstate_exit: hatch(O.blue), contention: hatch(O.reddishPurple), lock_handoff: hatch(O.vermillion), lock_spin: hatch('#888888'),
}

/** The segment style of a part (by its core name). */
export function partFill(name: string): string {
  return FILLS[name] ?? hatch('#aaaaaa')
}

/** A segment wide enough for its name (share of the bar). */
const NAME_FITS = 0.2

/** "97 %", and "<1 %" for a part that rounds to nothing but is not nothing. */
function shareText(fraction: number): string {
  const pct = Math.round(fraction * 100)
  return pct === 0 && fraction > 0 ? '<1 %' : `${pct} %`
}

function rate(bytesPerUs: number): string {
  if (bytesPerUs <= 0) return '0 (none)'
  return bytesPerUs >= 1000 ? `${(bytesPerUs / 1000).toLocaleString('en-US')} GB/s` : `${bytesPerUs} MB/s`
}

/** Browsing the bursts: which one is shown, and the buttons' actions (absent: no buttons). */
export interface BreakdownBrowse {
  /** e.g. "the step's burst" / "3 bursts before the latest". */
  label: string
  earlier: (() => void) | null
  later: (() => void) | null
}

export function CostBreakdownPanel({ rows, model, background, browse }: {
  rows: readonly BreakdownRow[]
  browse?: BreakdownBrowse
  /** The cost model's name, e.g. "v2". */
  model: string
  background: BackgroundTraffic
}) {
  return (
    <section className="panel cost-breakdown" aria-label="Burst cost by mechanism" data-testid="cost-breakdown">
      <h2>
        Burst cost by mechanism <span className="modelled-tag">MODELLED</span>
      </h2>
      <p className="cost-model-note" data-testid="cost-model-note">
        cost model {model} · background traffic (a workload parameter): {rate(background.perCoreBytesPerUs)} per core,{' '}
        {rate(background.perLlcBytesPerUs)} per L3
      </p>
      {browse && (
        <div className="cost-browse" data-testid="cost-browse">
          <button type="button" onClick={browse.earlier ?? undefined} disabled={!browse.earlier} data-testid="cost-earlier">‹ earlier burst</button>
          <span className="cost-browse-label" data-testid="cost-browse-label">{browse.label}</span>
          <button type="button" onClick={browse.later ?? undefined} disabled={!browse.later} data-testid="cost-later">later burst ›</button>
        </div>
      )}
      {rows.map((row) => (
        <div key={row.key} className="cost-breakdown-row" data-testid={`cost-breakdown-${row.key}`}
          data-total-ns={row.breakdown?.shown_total_ns}>
          <h3>
            <span className="cost-breakdown-title">{row.title}</span>
            {row.breakdown && <span className="cost-breakdown-total"> = {formatNs(row.breakdown.shown_total_ns)}</span>}
          </h3>
          {row.breakdown ? <Bar b={row.breakdown} /> : <p className="hint">{row.empty}</p>}
        </div>
      ))}
    </section>
  )
}

function Bar({ b }: { b: CostBreakdown }) {
  const fill = partFill
  const said = b.parts.map((p, i) => `${i + 1} ${p.label} ${formatNs(p.shown_ns)}`).join(', ')
  return (
    <>
      <div className="cost-bar" role="img" aria-label={`${formatDuration(b.total_ns)}: ${said}`} data-testid="cost-bar">
        {b.parts.map((p, i) => (
          <div key={p.name} className="cost-seg" style={{ flexGrow: p.fraction, flexBasis: 0, background: fill(p.name) }}
            data-part={p.name} title={`${p.label}: ${formatNs(p.shown_ns)} — ${p.why}`}>
            <span className="cost-seg-label">{i + 1}{p.fraction >= NAME_FITS ? ` ${p.label}` : ''}</span>
          </div>
        ))}
      </div>
      <ol className="cost-parts">
        {b.parts.map((p, i) => (
          <li key={p.name} data-part={p.name} data-ns={p.shown_ns}>
            <span className="cost-swatch" style={{ background: fill(p.name) }} aria-hidden="true" />
            <span className="cost-part-no">{i + 1}</span>
            <span className="cost-part-label">{p.label}</span>
            <span className="cost-part-ns">{formatNs(p.shown_ns)}</span>
            <span className="cost-part-share">{shareText(p.fraction)}</span>
          </li>
        ))}
      </ol>
    </>
  )
}
