/*
 * The models kscope teaches: one line per model (its folder's descriptor).
 * Adding an algorithm adds its folder under models/ and a line here; the
 * routes, lesson pages, player, quiz engine and lesson validator read this list.
 */
import { mmCid } from './mm_cid'
import type { ModelDescriptor } from './types'

export const MODELS: readonly ModelDescriptor[] = [mmCid]

/** The model with this id, or null. */
export function modelOf(id: string): ModelDescriptor | null {
  return MODELS.find((m) => m.id === id) ?? null
}
