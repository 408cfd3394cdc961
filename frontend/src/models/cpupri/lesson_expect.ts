/*
 * Checks a cpupri lesson step's claims (its "expect") against the state the store shows:
 * what the narration says must be what the model computes (lesson_expect.test.ts runs
 * the shipped lesson through the real core).
 */
import type { CpupriLessonView } from './lesson_store'
import { maskLines } from '../../views/cpupri/mask_line'
import { modelledCyclesPerLoad } from '../../views/cpupri/PublishedFigures'

export type CpupriClaim =
  | { kind: 'time'; min_ms: number; max_ms: number; variant?: string }
  | { kind: 'level'; cpu: number; level: number; variant?: string }
  | { kind: 'mask_line'; lines?: number; min_remote_hitm?: number; variant?: string }
  | { kind: 'cycles_ratio'; min?: number; max?: number }
  | { kind: 'inflight'; min: number; variant?: string }

/** Each claim that does not hold, in words (empty: all hold). */
export function failedClaims(view: CpupriLessonView, claims: readonly CpupriClaim[]): string[] {
  const topology = view.topology
  if (!topology) return ['no run is shown']
  const runOf = (variant?: string) => (variant ? view.runs.find((r) => r.variant === variant) : view.runs[0])
  const out: string[] = []
  for (const c of claims) {
    const run = 'variant' in c ? runOf(c.variant) : view.runs[0]
    if (!run) {
      out.push(`${c.kind}: no run ${'variant' in c ? c.variant : ''}`)
      continue
    }
    switch (c.kind) {
      case 'time': {
        const ms = view.time_ns / 1e6
        if (ms < c.min_ms || ms > c.max_ms) out.push(`time: ${ms} ms is not in [${c.min_ms}, ${c.max_ms}]`)
        break
      }
      case 'level':
        if (run.view.levels[c.cpu] !== c.level) out.push(`level: CPU ${c.cpu} is at ${run.view.levels[c.cpu]}, not ${c.level} (${run.variant})`)
        break
      case 'mask_line': {
        const lines = maskLines(run.view, topology)
        if (c.lines !== undefined && lines.length !== c.lines) out.push(`mask_line: ${lines.length} lines, not ${c.lines} (${run.variant})`)
        const hitm = lines.reduce((n, l) => n + l.total.remote_hitm, 0)
        if (c.min_remote_hitm !== undefined && hitm < c.min_remote_hitm) out.push(`mask_line: ${hitm} remote HITM < ${c.min_remote_hitm} (${run.variant})`)
        break
      }
      case 'cycles_ratio': {
        const g = view.runs.find((r) => r.variant === 'global')
        const p = view.runs.find((r) => r.variant === 'pernode')
        const cg = g && modelledCyclesPerLoad(g, topology)
        const cp = p && modelledCyclesPerLoad(p, topology)
        if (!cg || !cp) {
          out.push('cycles_ratio: needs global and pernode runs with loads')
          break
        }
        const ratio = cg / cp
        if ((c.min !== undefined && ratio < c.min) || (c.max !== undefined && ratio > c.max)) {
          out.push(`cycles_ratio: ${ratio.toFixed(2)} is outside [${c.min ?? '-'}, ${c.max ?? '-'}]`)
        }
        break
      }
      case 'inflight':
        if (run.view.summary.finds_changed_by_inflight < c.min) {
          out.push(`inflight: ${run.view.summary.finds_changed_by_inflight} < ${c.min} (${run.variant})`)
        }
        break
    }
  }
  return out
}
