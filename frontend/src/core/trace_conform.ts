/*
 * "Does the model agree with what the kernel did?" on the Traces page.
 *
 * GET /api/traces/{id}/conform?algo=mm_cid (the `conform` helper's route,
 * /work/briefs/traces-contract.md) replays the stored trace's scheduling
 * events through the mm_cid model of the trace's kernel version and compares
 * the model's cid with every rseq_update the kernel recorded:
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

export interface ConformResult {
  kernel: string
  variant: string
  rseq_updates: number
  agree: number
  agreement: number
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
  const agreement = field<number>(o, 'agreement', 'number', '')
  if (agreement < 0 || agreement > 1) throw new ConformShapeError(`agreement: expected 0..1, got ${agreement}`)
  const disagreements = list('disagreements').sort((a, b) => a.ts - b.ts)
  return {
    kernel: field(o, 'kernel', 'string', ''), variant: field(o, 'variant', 'string', ''),
    rseq_updates: field(o, 'rseq_updates', 'number', ''), agree: field(o, 'agree', 'number', ''), agreement,
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
    `At ${at} on CPU ${d.cpu}, the kernel wrote mm_cid ${d.kernel_cid} into thread ${d.tid}'s rseq area (MEASURED: the trace's rseq_update).`,
    `The ${r.variant} model, replaying the same switches, migrations, forks and exits, gave cid ${d.model_cid} (MODELLED).`,
    `Why: ${d.why}.`,
  ]
}

/** "97.3 %" with the counts, for the result line. */
export function agreementText(r: ConformResult): string {
  return `${(r.agreement * 100).toFixed(1)} % (${r.agree.toLocaleString('en')} of ${r.rseq_updates.toLocaleString('en')} rseq updates)`
}
