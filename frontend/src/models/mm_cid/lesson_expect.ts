/*
 * What a lesson step's narration claims about the state it shows, as data the
 * model is checked against (a step's "expect" list in the lesson file).
 *
 * A narration says "at 200 ms thread 1007 keeps cid 7" or "the scan at 204 ms
 * frees cids 0 to 6"; nothing ties those words to the picture the step draws.
 * Each step therefore carries machine-checkable claims, read by
 * lesson_validate.ts, and checkExpect() compares them with the LessonView the
 * controller built for the step (the real C model: lesson_expect.test.ts walks
 * every step). A claim that fails names the step, the claim and what the model
 * showed instead.
 *
 *   time        the instant shown, ms (min_ms <= t <= max_ms)
 *   cids        mm->cidmask: these cids taken, these free
 *   pcpu        one CPU's row of the per-CPU table: its cid, its recent_cid (-1: none)
 *   record      the allocator logged, at this step, a record of this branch (path),
 *               optionally for one thread, with one cid, at one ms, exactly count times
 *   mm          per-mm numbers: max_nr_cid, cids in use (cidmask weight)
 *   burst       a burst that started at this step: its thread, where its data came from
 *   cost_ratio  compare steps: mean modelled ns per measured burst, v6.12 over v6.13
 *
 * Every claim but cost_ratio may name the run ("variant") of a compare step; default:
 * the first run. Pure functions: no DOM, no wasm.
 */
import type { BurstSource } from '../../core/lesson/lesson_timeline'
import type { LessonRunView, LessonView } from './lesson_controller'
import type { MmCidPath } from './types'
import type { LessonClaim } from '../../core/lesson/lesson_types'

type Run = { variant?: 'v6.12' | 'v6.13' | 'v6.18' | 'v6.19' }

export type LessonExpect =
  | ({ kind: 'time'; min_ms: number; max_ms: number } & Run)
  | ({ kind: 'cids'; taken?: number[]; free?: number[] } & Run)
  | ({ kind: 'pcpu'; cpu: number; cid?: number; recent_cid?: number } & Run)
  | ({ kind: 'record'; path: MmCidPath; tid?: number; cid?: number; at_ms?: number; count?: number } & Run)
  | ({ kind: 'mm'; max_nr_cid?: number; cids_in_use?: number } & Run)
  | ({ kind: 'burst'; tid?: number; source: BurstSource } & Run)
  | { kind: 'cost_ratio'; min?: number; max?: number }

export const LESSON_EXPECT_KINDS = ['time', 'cids', 'pcpu', 'record', 'mm', 'burst', 'cost_ratio'] as const

/** The claim in a few words (for failure messages). */
export function describeExpect(e: LessonExpect): string {
  const { kind, ...rest } = e
  return `${kind} ${JSON.stringify(rest)}`
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100

function runOf(view: LessonView, variant: string | undefined): LessonRunView | null {
  return (variant ? view.runs.find((r) => r.variant === variant) : view.runs[0]) ?? null
}

function meanOf(run: LessonRunView | null): number {
  return run && run.totals.measured > 0 ? run.totals.mean_ns : NaN
}

/** Why the claim does not hold of the view, or null when it holds. */
export function checkOne(e: LessonExpect, view: LessonView): string | null {
  if (e.kind === 'time') {
    const t = view.time_ns / 1e6
    return t >= e.min_ms && t <= e.max_ms ? null : `shows t = ${ms(view.time_ns)} ms, not within ${e.min_ms}–${e.max_ms} ms`
  }
  if (e.kind === 'cost_ratio') {
    const ratio = meanOf(runOf(view, 'v6.12')) / meanOf(runOf(view, 'v6.13'))
    if (!Number.isFinite(ratio)) return 'has no v6.12 and v6.13 measured bursts to compare'
    if (e.min !== undefined && ratio < e.min) return `mean cost ratio v6.12/v6.13 is ${ratio.toFixed(2)}, below ${e.min}`
    if (e.max !== undefined && ratio > e.max) return `mean cost ratio v6.12/v6.13 is ${ratio.toFixed(2)}, above ${e.max}`
    return null
  }
  const run = runOf(view, e.variant)
  if (!run) return `has no ${e.variant ?? ''} run`
  const v = run.view
  if (e.kind === 'cids') {
    const wrong = [
      ...(e.taken ?? []).filter((c) => !v.cidmask[c]).map((c) => `cid ${c} is free`),
      ...(e.free ?? []).filter((c) => v.cidmask[c]).map((c) => `cid ${c} is taken`),
    ]
    return wrong.length ? `${run.variant} at ${ms(view.time_ns)} ms: ${wrong.join(', ')}` : null
  }
  if (e.kind === 'pcpu') {
    const row = v.pcpu[e.cpu]
    if (!row) return `${run.variant} has no CPU ${e.cpu}`
    const wrong = [
      ...(e.cid !== undefined && row.cid !== e.cid ? [`cid ${row.cid}`] : []),
      ...(e.recent_cid !== undefined && row.recent_cid !== e.recent_cid ? [`recent_cid ${row.recent_cid}`] : []),
    ]
    return wrong.length ? `${run.variant} CPU ${e.cpu} shows ${wrong.join(', ')}` : null
  }
  if (e.kind === 'mm') {
    if (!v.mm) return `${run.variant} shows no live mm`
    const wrong = [
      ...(e.max_nr_cid !== undefined && v.mm.max_nr_cid !== e.max_nr_cid ? [`max_nr_cid ${v.mm.max_nr_cid}`] : []),
      ...(e.cids_in_use !== undefined && v.mm.cidmask_weight !== e.cids_in_use ? [`${v.mm.cidmask_weight} cids in use`] : []),
    ]
    return wrong.length ? `${run.variant} shows ${wrong.join(', ')}` : null
  }
  if (e.kind === 'burst') {
    const hit = run.stepBursts.some((b) => (e.tid === undefined || b.tid === e.tid) && b.source === e.source)
    const seen = run.stepBursts.map((b) => `${b.tid}:${b.source}`).join(', ') || 'none'
    return hit ? null : `${run.variant}: no burst${e.tid !== undefined ? ` of thread ${e.tid}` : ''} from ${e.source} at this step (bursts: ${seen})`
  }
  const matching = run.records.filter((r) =>
    r.path === e.path && (e.tid === undefined || r.tid === e.tid) && (e.cid === undefined || r.cid === e.cid)
    && (e.at_ms === undefined || Math.floor(r.ts_ns / 1e6) === e.at_ms))
  const ok = e.count === undefined ? matching.length > 0 : matching.length === e.count
  if (ok) return null
  const logged = run.records.map((r) => `${r.path}(tid ${r.tid}, cid ${r.cid}, ${ms(r.ts_ns)} ms)`).join(', ') || 'nothing'
  return `${run.variant} at ${ms(view.time_ns)} ms: ${matching.length} matching records${e.count !== undefined ? `, not ${e.count}` : ''}; logged: ${logged}`
}

/** Every claim that fails, as "claim: why" (claims as a validated lesson holds them: this model's kinds). */
export function checkExpect(list: readonly LessonClaim[], view: LessonView): string[] {
  return (list as readonly LessonExpect[]).flatMap((e) => {
    const why = checkOne(e, view)
    return why ? [`${describeExpect(e)}: ${why}`] : []
  })
}
