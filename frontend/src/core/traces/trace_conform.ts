/*
 * "Does the model agree with what the kernel did?" on the Traces page.
 *
 * GET /api/traces/{id}/conform?algo=<model> (the `conform` helper's route,
 * /work/briefs/traces-contract.md; the model: models/registry.ts conformModel)
 * replays the stored trace's scheduling events through the model of the
 * trace's kernel version and compares the model's cid with every
 * rseq_update the kernel recorded:
 *
 *     {kernel, variant, rseq_updates, agree, agreement,
 *      first_disagreements[], disagreements[{ts, tid, cpu, kernel_cid, model_cid, why}],
 *      disagreements_truncated, causes{id: n}, notes[]}
 *
 * This file checks that answer's shape (a clear error naming the field when it
 * is not what the contract says), indexes the disagreements by time for the
 * timeline's marks and for stepping between them, and words one for the
 * narration panel. Two sources, labelled as such everywhere: the kernel's cid
 * is MEASURED (the trace), the model's is MODELLED.
 */
import type { TraceStore } from './trace_store'
import { SLICE_NS_PER_PX, WINDOW_EVENT_LIMIT, wantsExactEvents } from './trace_window'

export interface Disagreement {
  /** Trace clock, ns (the events' ts_ns). */
  ts: number
  tid: number
  cpu: number
  kernel_cid: number
  model_cid: number
  /** Plain words from the replay: which model path chose the cid and why the kernel's differs. */
  why: string
}

/** One variant's figures when the variant was inferred (the trace names no kernel release). */
export interface VariantFigures {
  variant: string
  compared: number
  agree: number
  /** null when nothing could be compared. */
  agreement: number | null
  /** Where the replay ran the 100 ms scan for its best figure: 'return' (a real kernel) or 'tick' (a simulation). */
  scan_at: string
  /** Among the best (ties are possible: few CPUs cannot tell the variants apart). */
  best: boolean
}

export interface ConformResult {
  /** The kernel release the trace names; '' when it names none. */
  kernel: string
  variant: string
  /** What chose the variant: 'header' (the kernel release), 'inferred' (best agreement), 'option', or a boot parameter. */
  variant_from: string
  /** The same in words, e.g. "inferred from the trace (kernel version unknown)". */
  variant_label: string
  /** Every variant's figures when the kernel release is unknown; null when the release decided. */
  variants: VariantFigures[] | null
  rseq_updates: number
  compared: number
  agree: number
  /** null when no rseq_update could be compared. */
  agreement: number | null
  first_disagreements: Disagreement[]
  disagreements: Disagreement[]
  disagreements_truncated: boolean
  causes: Record<string, number>
  notes: string[]
}

export class ConformShapeError extends Error {
  constructor(message: string) {
    super(`conformance answer: ${message}`)
    this.name = 'ConformShapeError'
  }
}

function field<T>(o: Record<string, unknown>, key: string, type: 'number' | 'string' | 'boolean', where: string): T {
  const v = o[key]
  if (typeof v !== type || (type === 'number' && !Number.isFinite(v))) {
    throw new ConformShapeError(`${where}${key}: expected a ${type}, got ${v === undefined ? 'nothing' : JSON.stringify(v)}`)
  }
  return v as T
}

function disagreement(v: unknown, where: string): Disagreement {
  if (!v || typeof v !== 'object') throw new ConformShapeError(`${where}: expected an object`)
  const o = v as Record<string, unknown>
  return {
    ts: field(o, 'ts', 'number', `${where}.`), tid: field(o, 'tid', 'number', `${where}.`),
    cpu: field(o, 'cpu', 'number', `${where}.`), kernel_cid: field(o, 'kernel_cid', 'number', `${where}.`),
    model_cid: field(o, 'model_cid', 'number', `${where}.`), why: field(o, 'why', 'string', `${where}.`),
  }
}

/** A number in 0..1, or null (nothing compared). */
function fraction(o: Record<string, unknown>, key: string, where: string): number | null {
  if (o[key] === null) return null
  const v = field<number>(o, key, 'number', where)
  if (v < 0 || v > 1) throw new ConformShapeError(`${where}${key}: expected 0..1, got ${v}`)
  return v
}

function variantList(v: unknown): VariantFigures[] | null {
  if (v === undefined || v === null) return null
  if (!Array.isArray(v)) throw new ConformShapeError('variants: expected a list or null')
  return v.map((x, i) => {
    const where = `variants[${i}].`
    if (!x || typeof x !== 'object') throw new ConformShapeError(`variants[${i}]: expected an object`)
    const r = x as Record<string, unknown>
    return {
      variant: field(r, 'variant', 'string', where), compared: field(r, 'compared', 'number', where),
      agree: field(r, 'agree', 'number', where), agreement: fraction(r, 'agreement', where),
      scan_at: field(r, 'scan_at', 'string', where), best: r.best === undefined ? false : field(r, 'best', 'boolean', where),
    }
  })
}

/** The route's JSON as a ConformResult, or a ConformShapeError naming the first field that is off. */
export function parseConformResult(json: unknown): ConformResult {
  if (!json || typeof json !== 'object') throw new ConformShapeError('expected a JSON object')
  const o = json as Record<string, unknown>
  const list = (key: string) => {
    if (!Array.isArray(o[key])) throw new ConformShapeError(`${key}: expected a list`)
    return (o[key] as unknown[]).map((d, i) => disagreement(d, `${key}[${i}]`))
  }
  const causes = o.causes ?? {}
  if (typeof causes !== 'object' || Array.isArray(causes)) throw new ConformShapeError('causes: expected an object')
  for (const [k, n] of Object.entries(causes)) {
    if (typeof n !== 'number') throw new ConformShapeError(`causes.${k}: expected a count`)
  }
  const notes = o.notes ?? []
  if (!Array.isArray(notes) || notes.some((n) => typeof n !== 'string')) throw new ConformShapeError('notes: expected a list of strings')
  const agreement = fraction(o, 'agreement', '')
  const disagreements = list('disagreements').sort((a, b) => a.ts - b.ts)
  const agree = field<number>(o, 'agree', 'number', '')
  const variantFrom = o.variant_from === undefined ? 'header' : field<string>(o, 'variant_from', 'string', '')
  return {
    kernel: o.kernel === null ? '' : field(o, 'kernel', 'string', ''), variant: field(o, 'variant', 'string', ''),
    variant_from: variantFrom,
    variant_label: o.variant_label === undefined ? '' : field(o, 'variant_label', 'string', ''),
    variants: variantList(o.variants),
    rseq_updates: field(o, 'rseq_updates', 'number', ''), agree,
    compared: o.compared === undefined ? field(o, 'rseq_updates', 'number', '') : field(o, 'compared', 'number', ''),
    agreement,
    first_disagreements: list('first_disagreements'), disagreements,
    disagreements_truncated: o.disagreements_truncated === undefined ? false : field(o, 'disagreements_truncated', 'boolean', ''),
    causes: causes as Record<string, number>, notes: notes as string[],
  }
}

/** Disagreements placed on a trace: their times, and how many fall outside it (cannot be drawn). */
export interface ConformMarks {
  /** Indices into result.disagreements in time order, inside the trace's time range. */
  index: Int32Array
  ts: Float64Array
  cpu: Int32Array
  outside: number
}

export function conformMarks(r: ConformResult, store: Pick<TraceStore, 't0' | 't1'>): ConformMarks {
  const keep: number[] = []
  r.disagreements.forEach((d, i) => { if (d.ts >= store.t0 && d.ts <= store.t1) keep.push(i) })
  return {
    index: Int32Array.from(keep), ts: Float64Array.from(keep, (i) => r.disagreements[i].ts),
    cpu: Int32Array.from(keep, (i) => r.disagreements[i].cpu), outside: r.disagreements.length - keep.length,
  }
}

/** The mark after (dir 1) or before (dir -1) time t; -1 when none. Ties step by position. */
export function stepMark(m: ConformMarks, current: number, t: number, dir: 1 | -1): number {
  if (!m.ts.length) return -1
  if (current >= 0) {
    const next = current + dir
    return next >= 0 && next < m.ts.length ? next : -1
  }
  if (dir > 0) {
    for (let k = 0; k < m.ts.length; k++) if (m.ts[k] > t) return k
    return -1
  }
  for (let k = m.ts.length - 1; k >= 0; k--) if (m.ts[k] < t) return k
  return -1
}

/** The narration of one disagreement: who, where, when, both cids with their sources, and the replay's why. */
export function narrateDisagreement(d: Disagreement, r: ConformResult, t0: number): string[] {
  const at = `${((d.ts - t0) / 1e6).toFixed(3)} ms`
  return [
    `At ${at} on CPU ${d.cpu}, the kernel wrote mm_cid=${d.kernel_cid} into thread ${d.tid}'s rseq area (MEASURED: the trace's rseq_update).`,
    `The ${r.variant} model, replaying the same switches, migrations, forks and exits, gave cid ${d.model_cid} (MODELLED).`,
    `Why: ${d.why}.`,
  ]
}

/** "97.3 %" with the counts, for the result line. */
export function agreementText(r: Pick<ConformResult, 'agreement' | 'agree' | 'compared'>): string {
  if (r.agreement === null) return 'n/a (no rseq update could be compared)'
  return `${(r.agreement * 100).toFixed(1)} % (${r.agree.toLocaleString('en')} of ${r.compared.toLocaleString('en')} rseq updates compared)`
}

/** Where the model's variant came from, in words for the result line. */
export function variantSource(r: ConformResult): string {
  if (r.variant_label) return r.variant_label
  return r.variant_from === 'inferred' ? 'inferred from the trace (kernel version unknown)' : `from ${r.variant_from}`
}

/**
 * The window to show a disagreement in: centred on it, zoomed in far enough that the timeline
 * loads the exact events there (trace_window.ts's wantsExactEvents), so its rseq_update can be
 * selected and "At the cursor" shows who ran. The current span is kept when it already is.
 * widthPx: the timeline's width (a little more than the plot's: the margin keeps it safely in).
 */
export function windowForMark(ts: number, current: { start: number; end: number } | null, widthPx: number,
  trace: { t0: number; t1: number; totalEvents: number }): { start: number; end: number } {
  const width = Math.max(1, widthPx)
  const currentSpan = current ? current.end - current.start : trace.t1 - trace.t0
  // Half the largest span that still draws exact events at this width and the trace's event rate.
  const rate = trace.totalEvents / Math.max(1, trace.t1 - trace.t0)
  const bySlices = SLICE_NS_PER_PX * width * 0.5
  const byRate = rate > 0 ? WINDOW_EVENT_LIMIT / (2 * rate) * 0.5 : bySlices
  let span = Math.max(1_000, Math.min(currentSpan, bySlices, byRate))
  if (!wantsExactEvents(ts - span / 2, ts + span / 2, width, trace)) span = Math.max(1_000, span / 4)
  return { start: ts - span / 2, end: ts + span / 2 }
}
