#!/usr/bin/env node
/*
 * The frontend's layering rule, checked by a script rather than by goodwill
 * (STYLE.md habit 7; after Perfetto's tools/check_imports.py):
 *
 *     engine  <-  core  <-  views
 *
 *   1. Only files under src/engine/ may import the Emscripten module
 *      (any specifier naming kscope_core: the .mjs, its .wasm, ...).
 *   2. Nothing under src/views/ may import from src/engine/: views get their
 *      data through props and core/.
 *
 * findCycles() lists the import cycles among src/'s files (strongly connected
 * components of the relative-import graph, type-only imports included, as
 * madge --circular counts them); src/layering.test.ts keeps src/engine/ free
 * of them and the rest to a known, shrinking list.
 *
 * Reads import ... from, export ... from, side-effect imports and dynamic
 * import() in .ts/.tsx files (comments and string contents are masked first,
 * keeping offsets and line numbers). Node built-ins only.
 *
 * Usage: node scripts/check-imports.mjs [frontend-dir]   (default: this package)
 * Prints "file:line: message" per violation and a closing
 * "check-imports: N files, N violations"; exits 1 on any violation.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const SOURCE_EXT = /\.(ts|tsx|mts|cts)$/
const SKIP_DIRS = new Set(['node_modules', 'dist'])

/**
 * Blanks comments and the insides of string literals with spaces (newlines and
 * quote marks kept), so offsets and line numbers stay those of the source and
 * import-looking text inside strings or comments cannot match. (A regex
 * literal containing a quote would confuse it; none of our sources has one.)
 */
export function maskSource(text) {
  let out = ''
  let i = 0
  const blank = (ch) => (ch === '\n' ? '\n' : ' ')
  while (i < text.length) {
    const ch = text[i]
    const next = text[i + 1]
    if (ch === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') out += blank(text[i++])
    } else if (ch === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end === -1 ? text.length : end + 2
      while (i < stop) out += blank(text[i++])
    } else if (ch === '"' || ch === "'" || ch === '`') {
      out += text[i++]
      while (i < text.length && text[i] !== ch) {
        if (text[i] === '\\') out += blank(text[i++])
        if (i < text.length) out += blank(text[i++])
      }
      if (i < text.length) out += text[i++]
    } else {
      out += text[i++]
    }
  }
  return out
}

// On masked text a string literal is its quotes around spaces, so these match
// only real import syntax; the specifier is then read from the source:
// `import x from 'm'`, `import type {A} from "m"`, `export * from 'm'`,
// `export {a} from 'm'` (clauses may span lines), `import 'm'`, `import('m')`.
const STATIC_FROM = /\b(?:import|export)\s+(?:type\s+)?[\w$\s{},*]*?\bfrom\s*(['"])[^'"]*\1/g
const SIDE_EFFECT = /\bimport\s*(['"])[^'"]*\1/g
const DYNAMIC = /\bimport\s*\(\s*(['"`])[^'"`]*\1\s*\)/g

/** The module specifiers a source file imports, with 1-based line numbers. */
export function findImports(text) {
  const code = maskSource(text)
  const lineAt = (offset) => code.slice(0, offset).split('\n').length
  const found = new Map() // offset of the specifier -> {specifier, line}
  for (const re of [STATIC_FROM, SIDE_EFFECT, DYNAMIC]) {
    for (const m of code.matchAll(re)) {
      const close = m.index + m[0].lastIndexOf(m[1])
      const open = code.lastIndexOf(m[1], close - 1)
      found.set(open, { specifier: text.slice(open + 1, close), line: lineAt(m.index) })
    }
  }
  return [...found.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)
}

function listSources(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listSources(full))
    else if (SOURCE_EXT.test(entry.name)) out.push(full)
  }
  return out.sort()
}

/** Which layer a path (relative to the package root, '/' separators) belongs to. */
function layerOf(rel) {
  const m = /^src\/(engine|core|views)\//.exec(rel)
  return m ? m[1] : null
}

/**
 * Checks every .ts/.tsx file under <root>/src. Returns
 * { files, violations: [{ file, line, message }] } with file relative to root.
 */
export function checkImports(root) {
  const src = path.join(root, 'src')
  const files = listSources(src)
  const violations = []
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/')
    const layer = layerOf(rel)
    for (const { specifier, line } of findImports(readFileSync(file, 'utf8'))) {
      const isEmscripten = /(^|[/\\])kscope_core(\.|$)/.test(specifier)
      if (isEmscripten && layer !== 'engine') {
        violations.push({
          file: rel,
          line,
          message: `imports the Emscripten module ('${specifier}'); only src/engine/ may (use engine/wasm_bridge.ts via core/)`,
        })
      }
      if (layer === 'views' && specifier.startsWith('.')) {
        const target = path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/')
        if (layerOf(`${target}/`) === 'engine' || target === 'src/engine') {
          violations.push({
            file: rel,
            line,
            message: `view imports from src/engine/ ('${specifier}'); views get data through props and src/core/`,
          })
        }
      }
    }
  }
  return { files: files.length, violations }
}

const RESOLVE_EXT = ['', '.ts', '.tsx', '.mts', '/index.ts', '/index.tsx']

/** The source file a relative specifier names (query stripped), or null. */
function resolveSource(fromFile, specifier, known) {
  const bare = specifier.replace(/\?.*$/, '')
  const base = path.resolve(path.dirname(fromFile), bare)
  for (const ext of RESOLVE_EXT) if (known.has(base + ext)) return base + ext
  return null
}

/**
 * The import cycles among <root>/src's .ts/.tsx files: each a sorted list of
 * paths relative to root (one strongly connected component with more than one
 * file, or a file importing itself), the list sorted by its first path.
 */
export function findCycles(root) {
  root = path.resolve(root)
  const files = listSources(path.join(root, 'src'))
  const known = new Set(files)
  const edges = new Map()
  for (const file of files) {
    const out = new Set()
    for (const { specifier } of findImports(readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue
      const target = resolveSource(file, specifier, known)
      if (target) out.add(target)
    }
    edges.set(file, [...out])
  }
  // Tarjan's strongly connected components, iteratively (no deep recursion).
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  for (const start of files) {
    if (index.has(start)) continue
    const work = [[start, 0]]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length) {
      const frame = work[work.length - 1]
      const [v, i] = frame
      const next = edges.get(v)
      if (i < next.length) {
        frame[1]++
        const w = next[i]
        if (!index.has(w)) {
          index.set(w, counter)
          low.set(w, counter++)
          stack.push(w)
          onStack.add(w)
          work.push([w, 0])
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)))
        continue
      }
      work.pop()
      if (work.length) {
        const parent = work[work.length - 1][0]
        low.set(parent, Math.min(low.get(parent), low.get(v)))
      }
      if (low.get(v) === index.get(v)) {
        const scc = []
        let w
        do {
          w = stack.pop()
          onStack.delete(w)
          scc.push(w)
        } while (w !== v)
        if (scc.length > 1 || edges.get(v).includes(v)) {
          cycles.push(scc.map((f) => path.relative(root, f).split(path.sep).join('/')).sort())
        }
      }
    }
  }
  return cycles.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
}

function main() {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const root = path.resolve(process.argv[2] ?? path.join(here, '..'))
  const { files, violations } = checkImports(root)
  for (const v of violations) console.log(`${v.file}:${v.line}: ${v.message}`)
  console.log(`check-imports: ${files} files, ${violations.length} violations`)
  process.exitCode = violations.length ? 1 : 0
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
