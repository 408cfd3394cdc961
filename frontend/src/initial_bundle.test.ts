// The app's first script (index.html's src/main.tsx and everything it imports statically)
// carries no lesson validator: ajv's compiled code ("virtual:lesson-validators", ~115 kB)
// comes in a chunk of its own, fetched by the pages that open a lesson (core/lesson/lesson_load.ts).
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { maskSource } from '../scripts/check-imports.mjs'

const src = fileURLToPath(new URL('.', import.meta.url))
const RESOLVE_EXT = ['', '.ts', '.tsx', '/index.ts', '/index.tsx']
/** Static value imports and re-exports (not `import type`, not import()). */
const STATIC = /\b(?:import|export)\s+(?!type\b)[\w$\s{},*]*?\bfrom\s*(['"])([^'"]*)\1|\bimport\s*(['"])([^'"]*)\3/g

/** Every module reached from `entry` through static imports: source files (relative to src/) and bare/virtual specifiers. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set<string>()
  const todo = [path.join(src, entry)]
  while (todo.length) {
    const file = todo.pop()!
    const rel = path.relative(src, file).split(path.sep).join('/')
    if (seen.has(rel)) continue
    seen.add(rel)
    const text = maskSource(readFileSync(file, 'utf8'))
    const raw = readFileSync(file, 'utf8')
    for (const m of text.matchAll(STATIC)) {
      // maskSource blanks string contents: read the specifier from the original text at the same offsets.
      const quote = m[1] ?? m[3]
      const close = m.index + m[0].lastIndexOf(quote)
      const open = raw.lastIndexOf(quote, close - 1)
      const spec = raw.slice(open + 1, close).replace(/\?.*$/, '')
      if (!spec.startsWith('.')) {
        seen.add(spec)
        continue
      }
      const base = path.resolve(path.dirname(file), spec)
      const hit = RESOLVE_EXT.map((e) => base + e).find((f) => existsSync(f) && /\.(ts|tsx)$/.test(f))
      if (hit) todo.push(hit)
    }
  }
  return seen
}

describe('the initial bundle', () => {
  it('reaches no lesson validator from src/main.tsx through static imports', () => {
    const first = staticClosure('main.tsx')
    expect(first.has('App.tsx')).toBe(true)
    expect(first.has('pages/Landing.tsx')).toBe(true)
    expect(first.has('core/lesson/lesson_load.ts')).toBe(true)
    for (const heavy of ['virtual:lesson-validators', 'core/lesson/lesson_validate.ts', 'core/lesson/lesson_data.ts', 'ajv']) {
      expect(first.has(heavy), heavy).toBe(false)
    }
  })

  it('the lesson pages get it through lesson_load.ts\'s dynamic import', () => {
    expect(staticClosure('core/lesson/lesson_data.ts').has('virtual:lesson-validators')).toBe(true)
    expect(readFileSync(path.join(src, 'core/lesson/lesson_load.ts'), 'utf8')).toMatch(/await import\('\.\/lesson_data'\)/)
  })
})
