// The layering checkers on tiny trees they must reject, and on this package:
// scripts/check-imports.mjs (engine <- core <- views; only the engine loads the
// Emscripten module) and scripts/check-model-names.mjs (no model named outside
// its own folders and the registry files).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { checkImports, findCycles, findImports } from '../scripts/check-imports.mjs'
import { checkModelNames, countByFile, EVENT_HEADER, eventFields, spellings, type Leak } from '../scripts/check-model-names.mjs'

const script = fileURLToPath(new URL('../scripts/check-imports.mjs', import.meta.url))
const namesScript = fileURLToPath(new URL('../scripts/check-model-names.mjs', import.meta.url))
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

/*
 * Files outside their model's folders that still name a model, with how many
 * lines do (0 = only the path). The list only shrinks: a file not in it, or
 * naming a model on more lines than listed, fails; so does an entry whose file
 * is now clean or gone (delete the entry). Issue 14 moves mm_cid's code into
 * src/models/mm_cid/ (+ views/, lessons/, engine/ folders) and makes the
 * pages, player and validator iterate src/models/registry.ts. It is empty now:
 * a file that starts naming a model outside its folders fails, with no entry to add.
 */
const NOT_YET_MOVED: Record<string, number> = {
}

/** mm_cid is named here until src/models/mm_cid/ exists; from then on the folder names it. */
const MODELS = ['mm_cid']

/** What is wrong with the package's leaks against the allow-list ([] = fine). */
function againstAllowList(leaks: Leak[], allow: Record<string, number>): string[] {
  const counts = countByFile(leaks)
  const problems: string[] = []
  for (const [file, n] of Object.entries(counts)) {
    const first = leaks.find((l) => l.file === file)!
    if (!(file in allow)) problems.push(`${file}:${first.line}: names model ${first.model} (new leak: move it into the model's folder or the registry)`)
    else if (n > allow[file]) problems.push(`${file}: names a model on ${n} lines, the allow-list says ${allow[file]}`)
  }
  for (const file of Object.keys(allow)) {
    if (!(file in counts)) problems.push(`${file}: names no model any more: delete its NOT_YET_MOVED entry`)
  }
  return problems
}

const modelTree = {
  'src/models/registry.ts': "import mmCid from './mm_cid'\nexport const MODELS = [mmCid]\n",
  'src/models/mm_cid/index.ts': "export default { id: 'mm_cid' }\n",
  'src/models/cpupri/index.ts': "export default { id: 'cpupri' }\n",
  'src/views/mm_cid/Panels.tsx': 'export const MmCidPanels = 1\n',
  'src/lessons/mm_cid/intro.lesson.json': '{"model": "mm_cid"}\n',
  'src/engine/mm_cid/bridge.ts': 'export const MM_CID_PATHS = []\n',
  'src/core/lesson/player.ts': '// plays any model\nexport const x = 1\n',
}

/*
 * The import cycles left (each a strongly connected component). The list only
 * shrinks: a new cycle, or one that grew, fails; so does an entry that is gone.
 * The engine's (wasm_bridge <-> trace_worker, the worker's message types;
 * wasm_bridge <-> decompress, the errors) ended when wasm_bridge.ts was split.
 */
const KNOWN_CYCLES = [
  ['src/pages/PresentPage.tsx', 'src/pages/PresentRoom.tsx'],
  ['src/views/lesson/LessonPlayer.tsx', 'src/views/lesson/QuizPanel.tsx'],
]

describe('import cycles', () => {
  it('finds a cycle through a type-only import, with a query and an index file', () => {
    const root = tree({
      'src/engine/wasm_bridge.ts': "import type { Msg } from './worker/'\nimport url from './x.wasm?url'\nexport const load = (m: Msg) => m\n",
      'src/engine/worker/index.ts': "import { load } from '../wasm_bridge'\nexport type Msg = string\nexport const w = load\n",
      'src/engine/self.ts': "import { a } from './self'\nexport const a = 1\n",
      'src/core/store.ts': "import { load } from '../engine/wasm_bridge'\nexport const s = load\n",
    })
    expect(findCycles(root)).toEqual([
      ['src/engine/self.ts'],
      ['src/engine/wasm_bridge.ts', 'src/engine/worker/index.ts'],
    ])
  })

  it('the engine has none; elsewhere only the known ones are left', () => {
    const cycles = findCycles(packageRoot)
    expect(cycles.filter((c) => c.some((f) => f.startsWith('src/engine/')))).toEqual([])
    expect(cycles).toEqual(KNOWN_CYCLES)
  })
})

describe('check-model-names', () => {
  it('accepts a model named only in its own folders and the registry', () => {
    const { models, leaks } = checkModelNames(tree(modelTree))
    expect(models).toEqual(['cpupri', 'mm_cid'])
    expect(leaks).toEqual([])
  })

  it('finds every spelling of a model in generic code, comments and paths too', () => {
    const root = tree({
      ...modelTree,
      'src/core/lesson/player.ts': '// the MmCid lesson\nexport const x = 1\nconst y = "mm-cid"\nconst MM_CID = y\n',
      'src/pages/CpupriPage.tsx': 'export const p = 1\n',
      'src/views/mm_cid/cpupri_note.ts': '// cpupri: another model\n',
    })
    const { leaks } = checkModelNames(root)
    expect(leaks.map((l) => `${l.file}:${l.line}:${l.model}`)).toEqual([
      'src/core/lesson/player.ts:1:mm_cid',
      'src/core/lesson/player.ts:3:mm_cid',
      'src/core/lesson/player.ts:4:mm_cid',
      'src/pages/CpupriPage.tsx:0:cpupri',
      'src/views/mm_cid/cpupri_note.ts:0:cpupri',
      'src/views/mm_cid/cpupri_note.ts:1:cpupri',
    ])
    for (const s of ['mm_cid', 'mmCid', 'MmCid', 'MM_CID', 'mm-cid', 'mmcid']) expect(spellings('mm_cid').test(s)).toBe(true)
    expect(spellings('mm_cid').test('mm cid')).toBe(false)
  })

  it('an event-model field that shares a model\'s name is not the model where it is written as a field, and only there', () => {
    const header = [
      '/* rseq_update: cpu_id=%d node_id=%d mm_cid=%d */',
      'typedef struct ks_ev_rseq_update {',
      '    int32_t cpu_id;',
      '    int32_t node_id;',
      '    int32_t mm_cid;',
      '} ks_ev_rseq_update;',
      'typedef struct ks_ev_sched_switch { char prev_comm[KS_COMM_LEN]; int32_t prev_pid; } ks_ev_sched_switch;',
    ].join('\n')
    expect(eventFields(header)).toEqual(['cpu_id', 'mm_cid', 'node_id', 'prev_comm', 'prev_pid'])
    const fields = [
      'const cid = ev.mm_cid // rseq_update.mm_cid',
      'const text = `cpu_id=${ev.cpu_id} mm_cid=${ev.mm_cid}`',
      "const e = { type: 'rseq_update', cpu_id: 3, node_id: 0, mm_cid: -1 }",
      'interface R { mm_cid?: number }',
      "const c = col('mm_cid')",
      "const schema = [['mm_cid', () => new Int32()]]",
      "const w = { index_by: 'mm_cid' }",
      "      return { ...base, type, cpu_id: v.i32[p], node_id: v.i32[p + 1], mm_cid: v.i32[p + 2] }",
      '      mm_cid: v.i32[w + 7],',
      '  return `${who} sees cpu_id ${ev.cpu_id}, mm_cid=${ev.mm_cid} in its rseq area`',
      '    `the kernel wrote mm_cid=${d.kernel_cid} into thread ${d.tid}\'s rseq area`,',
      ' *   rseq_update   cpu_id   node_id   rseq_update.mm_cid   -',
      ' * the area swept: the rseq.cpu_id or rseq.mm_cid the thread read',
    ]
    const leaksOnly = [
      "const lesson = { lesson: 'mm_cid', step: 1 }", // the id as a value
      "const algo = 'mm_cid:v6.18' // ev.mm_cid", // a leak beside a field use
      "const ids = ['mm_cid', 'cpupri']", // a list of ids, not a [column, value] pair
      '// the mm_cid model', // prose
      'const c = ev.mmCid', // another spelling is never the field
      "import x from '../models/mm_cid/x'",
      "const byModel = { mm_cid: 'the allocator' }", // a key whose value is a string: a map by model
      ' * mm_cid: the model of the allocator', // prose with a colon is no object key
      '  return `${who} sees no mm_cid in its rseq area`', // the field in prose, not as a field
      ' *   rseq_update   cpu_id   node_id   mm_cid   -', // a bare column header
    ]
    const root = tree({ ...modelTree, 'src/core/traces/fields.ts': fields.join('\n') + '\n', 'src/core/traces/leaks.ts': leaksOnly.join('\n') + '\n' })
    const { leaks } = checkModelNames(root, { eventFields: eventFields(header) })
    expect(leaks.map((l) => `${l.file}:${l.line}`)).toEqual(leaksOnly.map((_, i) => `src/core/traces/leaks.ts:${i + 1}`))
    // Without the event model's fields, every one of them counts.
    expect(checkModelNames(root, { eventFields: [] }).leaks.filter((l) => l.file.endsWith('fields.ts'))).toHaveLength(fields.length)
    // The fields come from the C core's event header: rseq_update's mm_cid is one.
    expect(eventFields(readFileSync(path.join(packageRoot, EVENT_HEADER), 'utf8'))).toEqual(expect.arrayContaining(['cpu_id', 'mm_cid', 'node_id']))
  })

  it('the CLI prints file:line lines and exits 1 on a leak', () => {
    let out = ''
    let code = 0
    try {
      execFileSync(process.execPath, [namesScript, tree({ ...modelTree, 'src/App.tsx': "import { MmCidPage } from './x'\n" })], { encoding: 'utf8' })
    } catch (e) {
      const err = e as { status: number; stdout: string }
      code = err.status
      out = err.stdout
    }
    expect(code).toBe(1)
    expect(out).toMatch(/^src\/App\.tsx:1: names model mm_cid: import \{ MmCidPage \}/m)
    expect(out.trim().split('\n').at(-1)).toBe('check-model-names: 8 files, 2 models, 1 leaks')
  })

  it('this package (and the e2e specs beside it) names no model outside its folders but for the shrinking allow-list', () => {
    const { files, models, leaks } = checkModelNames(packageRoot, { models: MODELS })
    expect(models).toContain('mm_cid')
    expect(againstAllowList(leaks, NOT_YET_MOVED)).toEqual([])
    // The e2e folder was checked too: more files than src/ alone.
    expect(files).toBeGreaterThan(checkModelNames(packageRoot, { models: MODELS, e2e: null }).files)
  })

  it('checks the e2e specs: a model is named only in e2e/specs/<model>/', () => {
    const root = tree({
      ...Object.fromEntries(Object.entries(modelTree).map(([k, v]) => [`frontend/${k}`, v])),
      'e2e/playwright.config.ts': "export default { testDir: './specs' }\n",
      'e2e/specs/lesson_helper.ts': 'export const LESSON = MODEL_IDS[0]\n',
      'e2e/specs/landing.spec.ts': "import { LESSON } from './lesson_helper'\nawait page.goto('/learn/mm_cid')\nawait page.goto(`/learn/${LESSON}`)\n",
      'e2e/specs/rooms.spec.ts': "// the cid shown: rseq_update's mm_cid=3\nconst ev = { mm_cid: 3 }\n",
      'e2e/specs/cpupri_push.spec.ts': '// pushes RT tasks\n',
      'e2e/specs/mm_cid/lessons.spec.ts': "await page.goto('/present/mm_cid?step=2')\n",
      'e2e/specs/mm_cid/lessons.spec.ts-snapshots/notes.txt': 'mm_cid\n',
      'e2e/specs/cpupri/lessons.spec.ts': "// not mm_cid's\n",
      'e2e/test-results/mm_cid/trace.json': '"mm_cid"\n',
    })
    // (The tree has no C event header: its field is given, as the package's event.h gives it.)
    const { leaks } = checkModelNames(path.join(root, 'frontend'), { eventFields: ['mm_cid'] })
    expect(leaks.map((l) => `${l.file}:${l.line}:${l.model}`)).toEqual([
      '../e2e/specs/cpupri/lessons.spec.ts:1:mm_cid',
      '../e2e/specs/cpupri_push.spec.ts:0:cpupri',
      '../e2e/specs/landing.spec.ts:2:mm_cid',
    ])
    // Without an e2e folder holding playwright.config.ts, or with e2e: null, only src/ is checked.
    expect(checkModelNames(path.join(root, 'frontend'), { e2e: null }).leaks).toEqual([])
  })

  it('the allow-list comparison fails on a new leak, a grown count and a stale entry', () => {
    const { leaks } = checkModelNames(packageRoot, { models: MODELS })
    const probe: Leak = { file: 'src/core/playback/new_file.ts', line: 3, model: 'mm_cid', text: 'MmCid' }
    expect(againstAllowList([...leaks, probe], NOT_YET_MOVED)).toEqual([
      'src/core/playback/new_file.ts:3: names model mm_cid (new leak: move it into the model\'s folder or the registry)',
    ])
    const grown: Leak = { ...probe, line: 4, model: 'mm_cid', text: 'MmCid' }
    expect(againstAllowList([...leaks, probe, grown], { ...NOT_YET_MOVED, [probe.file]: 1 })).toEqual([
      `${probe.file}: names a model on 2 lines, the allow-list says 1`,
    ])
    expect(againstAllowList(leaks, { ...NOT_YET_MOVED, 'src/gone.ts': 1 })).toEqual([
      'src/gone.ts: names no model any more: delete its NOT_YET_MOVED entry',
    ])
  })
})
