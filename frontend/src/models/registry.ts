/*
 * The models kscope teaches: one line per model (its folder's descriptor).
 * Adding an algorithm adds its folder under models/ and a line here; the
 * routes, lesson pages, player, quiz engine and lesson validator read this list.
 */
import { cpupri } from './cpupri'
import { mmCid } from './mm_cid'
import type { ModelDescriptor, RunCaption } from './types'

export const MODELS: readonly ModelDescriptor[] = [mmCid, cpupri]

/**
 * The Simulate page's caption of a run's kernel model (its algo string, from
 * the core): the model whose algo it is says what the run means; "none" (or
 * an algo no model claims) gets the models' reasons for not running.
 */
export function runCaption(algo: string): RunCaption {
  for (const m of MODELS) {
    const said = m.simulate.caption(algo)
    if (said) return said
  }
  return {
    label: MODELS.map((m) => m.simulate.absent.label).join('; ') || 'none',
    title: MODELS.map((m) => m.simulate.absent.title).join(' ') || `The run models no kernel algorithm (algo "${algo}")`,
  }
}

/** The model the Traces page checks a real trace against (the first with a conform check), or null. */
export function conformModel(): ModelDescriptor | null {
  return MODELS.find((m) => m.conform) ?? null
}

/** The model with this id, or null. */
export function modelOf(id: string): ModelDescriptor | null {
  return MODELS.find((m) => m.id === id) ?? null
}
