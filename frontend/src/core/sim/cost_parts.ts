/*
 * A burst's cost by mechanism, for people: the cost model v2's parts (kscope/cost.h,
 * ks_cost_part; names from the core's ks_cost_part_name, KscopeCore.costPartNames())
 * turned into labelled, rounded figures that add up to the total shown, and a sentence
 * that says which mechanism the time went to.
 *
 *   parts_ns [15 doubles] + names ──> costBreakdown() ──> { total, parts[label, ns] }
 *                                                           │ the rounded ns add up exactly
 *   explainCost(breakdown) ──> "2.000 µs: first touch (page faults ...) 1.4 µs of it"
 *
 * Pure: no DOM, no wasm; names no model (the words describe the machine's mechanisms).
 * A part name this table does not know (a part added to the C enum later) is shown
 * under its C name, never dropped, so the figures still add up.
 */
import { formatDuration } from '../shared/units'

/** How a view and a sentence name a part of ks_cost_part (by its C name). */
export interface PartWords {
  /** Short label for the bar and the list, e.g. "first touch". */
  label: string
  /** What the time was spent on, for a sentence: "page faults on the first write to each page". */
  why: string
}

export const PART_WORDS: Readonly<Record<string, PartWords>> = {
  core: { label: 'core work', why: "the sweep's own instructions, data in its own core's cache" },
  l2: { label: 'L2', why: "lines found in the core's own L2" },
  llc: { label: 'LLC', why: 'lines fetched from the own L3' },
  remote: { label: 'remote', why: "lines pulled from another core's or L3's cache" },
  dram: { label: 'DRAM', why: 'lines read from memory' },
  rfo: { label: 'RFO', why: 'ownership trips (read-for-ownership) for lines another core held' },
  idle_flush: { label: 'idle flush', why: "lines a deep C-state flushed out of an idle core's caches" },
  capacity: { label: 'capacity', why: 'lines the background traffic had evicted' },
  bandwidth: { label: 'bandwidth', why: 'waiting for a saturated link or DRAM' },
  tlb: { label: 'TLB', why: 'page walks' },
  cstate_exit: { label: 'C-state exit', why: 'waking the core from its idle state' },
  contention: { label: 'contention', why: 'waiting behind other accessors of the same line' },
  lock_handoff: { label: 'lock hand-off', why: 'a queued lock passed to this waiter' },
  lock_spin: { label: 'lock spin', why: 'spinning while the waiters ahead took their turns' },
  first_touch: { label: 'first touch', why: 'page faults on the first write to each page' },
}

/** Words for a part: the table's, or its C name for a part the table does not know. */
export function partWords(name: string): PartWords {
  return PART_WORDS[name] ?? { label: name.replace(/_/g, ' '), why: name.replace(/_/g, ' ') }
}

export interface BreakdownPart {
  /** The C name (ks_cost_part_name). */
  name: string
  label: string
  why: string
  /** The model's figure, ns (unrounded). */
  ns: number
  /** The figure shown, whole ns: the shown parts add up to the shown total exactly. */
  shown_ns: number
  /** Share of the total, 0..1. */
  fraction: number
}

export interface CostBreakdown {
  /** The sum of the parts, ns (unrounded). */
  total_ns: number
  /** The total shown, whole ns. */
  shown_total_ns: number
  /** The non-zero parts, in the core's part order. */
  parts: BreakdownPart[]
}

/**
 * The non-zero parts of one burst with whole-ns figures that add up to the rounded total
 * (largest remainder: each part is floored, and the ns left go to the largest fractions).
 * Null when there are no parts to show (cost model v1 records none: all zero).
 */
export function costBreakdown(names: readonly string[], partsNs: readonly number[]): CostBreakdown | null {
  const raw = partsNs
    .map((ns, i) => ({ name: names[i] ?? `part ${i}`, ns: Number.isFinite(ns) && ns > 0 ? ns : 0 }))
    .filter((p) => p.ns > 0)
  const total = raw.reduce((s, p) => s + p.ns, 0)
  if (!(total > 0)) return null
  const shownTotal = Math.round(total)
  const floors = raw.map((p) => Math.floor(p.ns))
  let left = shownTotal - floors.reduce((s, n) => s + n, 0)
  const order = raw.map((_, i) => i).sort((a, b) => (raw[b].ns - floors[b]) - (raw[a].ns - floors[a]) || a - b)
  const shown = [...floors]   // the floors add up to at most round(total): only ns to hand out
  for (let k = 0; left > 0 && k < order.length; k++, left--) shown[order[k]]++
  return {
    total_ns: total,
    shown_total_ns: shownTotal,
    parts: raw.map((p, i) => ({ ...p, ...partWords(p.name), shown_ns: shown[i], fraction: p.ns / total })),
  }
}

/** "1,234 ns": whole ns with thousands separators (the panel's figures, which add up). */
export function formatNs(ns: number): string {
  return `${Math.round(ns).toLocaleString('en-US')} ns`
}

/** Parts at least this share of the total are named in the sentence. */
const NAMED_SHARE = 0.15

/**
 * Why the burst cost what it did, from its parts: the total, then the largest parts
 * (each at least NAMED_SHARE of it, at most two) with what they were spent on. When the
 * core's own work is nearly all of it, says so: any memory time was hidden under it.
 */
export function explainCost(b: CostBreakdown): string {
  const total = formatDuration(b.total_ns)
  const sorted = [...b.parts].sort((x, y) => y.ns - x.ns)
  const top = sorted[0]
  if (top.name === 'core' && top.fraction >= 0.9) {
    return `${total}: the sweep's own work (${formatDuration(top.ns)}); its data was in its own core's cache, or its misses were hidden under that work`
  }
  const named = sorted.filter((p) => p.fraction >= NAMED_SHARE).slice(0, 2)
  const phrases = (named.length ? named : [top]).map((p) => `${formatDuration(p.ns)} ${p.label} (${p.why})`)
  return `${total}: ${phrases.join('; ')}`
}
