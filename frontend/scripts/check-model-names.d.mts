// Types for check-model-names.mjs, so src/layering.test.ts can import the checker.
export interface Leak {
  /** Path relative to the checked root, '/' separators (e2e files: ../e2e/<path>). */
  file: string
  /** 1-based line naming the model; 0 when the path itself names it. */
  line: number
  model: string
  text: string
}
export const REGISTRY_FILES: string[]
export const MODEL_LAYERS: string[]
export function modelIds(root: string, extra?: string[]): string[]
export function spellings(id: string): RegExp
/** The C core's event header, relative to the package root. */
export const EVENT_HEADER: string
/** The event model's field names: members of the header's ks_ev_* structs. */
export function eventFields(headerText: string): string[]
/** The forms in which a field is written as an event-model field (global regexp). */
export function fieldUses(field: string): RegExp
/** The end-to-end specs' folder relative to the package root (its own specs: <E2E_DIR>/specs/<id>/). */
export const E2E_DIR: string
/** options.e2e: the e2e folder to check as well (default <root>/E2E_DIR if it holds playwright.config.ts; null: none). */
export function checkModelNames(root: string, options?: { models?: string[]; eventFields?: string[]; e2e?: string | null }): { files: number; models: string[]; leaks: Leak[] }
export function countByFile(leaks: Leak[]): Record<string, number>
