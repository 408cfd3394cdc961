// The layering checker (scripts/check-imports.mjs) on a tiny tree it must reject,
// on import syntaxes it must see, and on this package, which must pass.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { checkImports, findImports } from '../scripts/check-imports.mjs'

const script = fileURLToPath(new URL('../scripts/check-imports.mjs', import.meta.url))
const packageRoot = fileURLToPath(new URL('..', import.meta.url))

const tmp = mkdtempSync(path.join(tmpdir(), 'kscope-layering-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmp, 'tree-'))
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    writeFileSync(path.join(root, rel), text)
  }
  return root
}

const bad = {
  'src/engine/wasm_bridge.ts': "import create from '../../../wasm-core/build/wasm/kscope_core.mjs'\nexport const x = create\n",
  'src/core/store.ts': "import { x } from '../engine/wasm_bridge'\nexport const y = x\n",
  'src/views/topology/index.tsx':
    "// a comment mentioning import '../../engine/wasm_bridge' is not an import\n" +
    "import { y } from '../../core/store'\n" +
    "import type {\n  KscopeCore,\n} from '../../engine/wasm_bridge'\n" +
    'export const z = y\n',
  'src/views/other.ts': "export const load = () => import('../engine/kscope_core.mjs')\n",
}

describe('check-imports', () => {
  it('reports a view importing the engine and a non-engine file importing the Emscripten module', () => {
    const { files, violations } = checkImports(tree(bad))
    expect(files).toBe(4)
    expect(violations.map((v) => `${v.file}:${v.line}`)).toEqual([
      'src/views/other.ts:1', // kscope_core outside engine
      'src/views/other.ts:1', // ... and a view importing engine/
      'src/views/topology/index.tsx:3',
    ])
    expect(violations[0].message).toMatch(/Emscripten module/)
    expect(violations[2].message).toMatch(/views get data through props/)
  })

  it('accepts engine <- core <- views', () => {
    const { violations } = checkImports(tree({ ...bad, 'src/views/topology/index.tsx': "import { y } from '../../core/store'\n", 'src/views/other.ts': '' }))
    expect(violations).toEqual([])
  })

  it('finds every import form, with line numbers, and ignores comments', () => {
    const text = [
      "import a from 'a'",
      "import type { B } from 'b'",
      "export * from 'c'",
      "export { d } from 'd'",
      "import 'e.css'",
      "const f = await import('f')",
      '/* import g from "g" */',
      "import {\n  h,\n} from 'h'",
      "export const i = 1\nimport j from 'j'",
      'const s = "import k from \'k\'" + `import(\'l\')`',
    ].join('\n')
    expect(findImports(text)).toEqual([
      { specifier: 'a', line: 1 },
      { specifier: 'b', line: 2 },
      { specifier: 'c', line: 3 },
      { specifier: 'd', line: 4 },
      { specifier: 'e.css', line: 5 },
      { specifier: 'f', line: 6 },
      { specifier: 'h', line: 8 },
      { specifier: 'j', line: 12 },
    ])
  })

  it('the CLI prints file:line: message lines and exits 1', () => {
    let out = ''
    let code = 0
    try {
      execFileSync(process.execPath, [script, tree(bad)], { encoding: 'utf8' })
    } catch (e) {
      const err = e as { status: number; stdout: string }
      code = err.status
      out = err.stdout
    }
    expect(code).toBe(1)
    expect(out).toMatch(/^src\/views\/topology\/index\.tsx:3: view imports from src\/engine\//m)
    expect(out.trim().split('\n').at(-1)).toBe('check-imports: 4 files, 3 violations')
  })

  it('this package follows the rule', () => {
    const out = execFileSync(process.execPath, [script, packageRoot], { encoding: 'utf8' })
    expect(out).toMatch(/^check-imports: \d+ files, 0 violations$/m)
  })
})
