/*
 * The cpupri model's kernels and its bug toggle, as the C core names them
 * (wasm-core/include/kscope/cpupri/cpupri.h): "cpupri:<variant>[+unordered_set]".
 *
 *   global          v6.12 stock: one bitmap and one count per level (before)
 *   pernode         seed 001 (Pan Deng v2 4/4): one bitmap per (level, node) (after)
 *   pernode-kscope  kscope's 6.12 patch (kernel-patches/cpupri-per-node): one block per node
 *   compare         a scenario variant: global and pernode side by side
 *
 * The lessons run the classroom workload (wasm-core/workloads/rt-instances-classroom-2s-16.json)
 * whatever the scenario's rseq-benchmark fields say: SIMPLIFICATION, the generic lesson
 * scenario describes seed 000's benchmark only, so the cpupri lesson keeps its one workload here.
 */
import { CPUPRI_VARIANTS } from '../../engine/cpupri/cpupri_records'
import { EXAMPLE_WORKLOADS } from '../../core/sim/workloads'

export const RUNS = CPUPRI_VARIANTS
export type CpupriRun = (typeof RUNS)[number]
export const SCENARIO_VARIANTS = [...RUNS, 'compare'] as const

/** The bug toggle: cpupri_set's barrier order dropped (new bit and counts made visible in any order). */
export const CPUPRI_TOGGLES = ['unordered_set'] as const

/** The workload every cpupri lesson run uses. */
export const LESSON_WORKLOAD = 'rt-instances-classroom-2s-16'

export function lessonWorkloadJson(): string {
  const w = EXAMPLE_WORKLOADS.find((e) => e.name === LESSON_WORKLOAD)
  if (!w) throw new Error(`the cpupri lesson's workload ${LESSON_WORKLOAD}.json is not shipped (wasm-core/workloads/)`)
  return w.json
}

/** A scenario variant as the runs it makes ("compare": before and after). */
export function runsOf(variant: string): CpupriRun[] {
  if (variant === 'compare') return ['global', 'pernode']
  return (RUNS as readonly string[]).includes(variant) ? [variant as CpupriRun] : ['global']
}

export function cleanToggles(list: readonly string[] | undefined): string[] {
  return [...new Set((list ?? []).filter((t) => (CPUPRI_TOGGLES as readonly string[]).includes(t)))].sort()
}

export function algoOf(variant: string, toggles: readonly string[] = []): string {
  return `cpupri:${variant}${cleanToggles(toggles).map((t) => `+${t}`).join('')}`
}

/** Display names and colours (the app's colour-blind-safe pair; the name is always written too). */
export const VARIANT_LOOK: Readonly<Record<string, { name: string; colour: string }>> = {
  global: { name: 'before: global mask (v6.12)', colour: '#d55e00' },
  pernode: { name: 'after: per-node masks (seed 001)', colour: '#0072b2' },
  'pernode-kscope': { name: "kscope's per-node blocks (6.12 patch)", colour: '#009e73' },
}
