// Types for check-imports.mjs, so src/layering.test.ts can import the checker.
export interface Violation {
  /** Path relative to the checked root, '/' separators. */
  file: string
  /** 1-based line of the import. */
  line: number
  message: string
}
export function checkImports(root: string): { files: number; violations: Violation[] }
export function findImports(text: string): { specifier: string; line: number }[]
export function maskSource(text: string): string
export function findCycles(root: string): string[][]
