// Types for check-model-names.mjs, so src/layering.test.ts can import the checker.
export interface Leak {
  /** Path relative to the checked root, '/' separators. */
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
export function checkModelNames(root: string, options?: { models?: string[] }): { files: number; models: string[]; leaks: Leak[] }
export function countByFile(leaks: Leak[]): Record<string, number>
