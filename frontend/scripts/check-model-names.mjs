#!/usr/bin/env node
/*
 * Generic code names no model (issue 14: adding an algorithm is adding one
 * folder per layer plus one registry line each). A model is a folder of
 * src/models/ (src/models/<id>/index.ts exports its descriptor), plus any
 * id given with --model. Outside that model's own folders
 *
 *     src/models/<id>/   src/views/<id>/   src/lessons/<id>/   src/engine/<id>/
 *
 * and the registry files (REGISTRY_FILES, one line per model; and this
 * checker's own test, src/layering.test.ts), no file's
 * path or text may name it in any spelling: for "mm_cid" that is mm_cid,
 * mm-cid, mmCid, MmCid, MM_CID, mmcid (the id's parts joined by an optional
 * _ or -, any case). Comments count: "grep -ri mm_cid" is the issue's test.
 *
 * One exception, kept narrow: the event model's field names. A tracepoint
 * field can carry a model's name (rseq:rseq_update's mm_cid is what the kernel
 * writes into the thread's rseq area, whichever model kscope runs); that is the
 * one event model every layer shares (simulated and decoded records, the Arrow
 * column), not the model plug-in. The fields are read from the C core's event
 * header (EVENT_HEADER: the members of its ks_ev_* structs), and an id that is
 * one of them is not counted where it is written, exactly in lower case, AS A
 * FIELD:
 *
 *     ev.mm_cid  rseq_update.mm_cid     property access (prose: "rseq_update.mm_cid")
 *     mm_cid=%d  mm_cid=${x}            the tracepoint's key=value text format
 *     { mm_cid: -1 }  mm_cid?: number   an object key with a number, null or number type
 *     { ..., mm_cid: v.i32[p] }         an object key (after '{' or ',' or first on its line)
 *                                       whose value is an expression, not a string
 *     col('mm_cid')  ['mm_cid', x]      a column name (Arrow schema; a [name, value] pair
 *                                       whose value is not another string)
 *     index_by: 'mm_cid'                a workload's field that names the record field
 *
 * Anything else on such a line still counts (the id as a value, "mm_cid:v6.18",
 * a path, MmCid, prose "no mm_cid"), so a real leak next to a field is caught.
 *
 * The end-to-end specs are generic code too: e2e/ (beside the package; its
 * specs, helpers and config) is checked the same way, a model's own specs
 * sitting in e2e/specs/<id>/ (with their screenshot folders); its files are
 * reported as ../e2e/<path>. Generic specs take the lesson they open from
 * e2e/specs/lesson_helper.ts, which reads the models' folders.
 *
 * Usage: node scripts/check-model-names.mjs [frontend-dir] [--model id]...
 * Prints "file:line: names model <id>: <the line>" per leak (line 0: the path
 * itself) and a closing "check-model-names: N files, M models, K leaks";
 * exits 1 on any leak. src/layering.test.ts runs it with its allow-list of
 * files not yet moved into their model's folders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Files that list every model, one line each (relative to the package root):
 * the registry and the engine's bridges. (The lesson format composed for
 * editors is per model, lessons/<id>/lesson.schema.json, in the model's folder.)
 */
export const REGISTRY_FILES = ['src/models/registry.ts', 'src/models/order.json', 'src/engine/model_bridges.ts']
/** This checker's own test: its fixtures and allow-list name models on purpose. */
const SELF_TEST = 'src/layering.test.ts'
/** The layers that hold one folder per model (src/<layer>/<id>/). */
export const MODEL_LAYERS = ['models', 'views', 'lessons', 'engine']
/** The C core's event model (relative to the package root): its ks_ev_* struct members are field names. */
export const EVENT_HEADER = '../wasm-core/include/kscope/event.h'
const SKIP_DIRS = new Set(['node_modules', 'dist', 'test-results', 'artifacts', 'playwright-report'])
/** The end-to-end specs' folder, relative to the package root (checked when it holds playwright.config.ts). */
export const E2E_DIR = '../e2e'
const TEXT_EXT = /\.(ts|tsx|mts|cts|js|mjs|json|css|html|md)$/

/** Model ids: the folders of <root>/src/models/, and `extra`. */
export function modelIds(root, extra = []) {
  const dir = path.join(root, 'src', 'models')
  const found = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
    : []
  return [...new Set([...found, ...extra])].sort()
}

/** Every spelling of a model id: its parts joined by an optional _ or -, any case. */
export function spellings(id) {
  const parts = id.split(/[_-]+/).filter(Boolean).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(parts.join('[_-]?'), 'i')
}

function listFiles(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(entry.name)) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) out.push(...listFiles(full))
    else if (TEXT_EXT.test(entry.name)) out.push(full)
  }
  return out.sort()
}

/** Field names of the event model: the members of the ks_ev_* payload structs in the C core's event header. */
export function eventFields(headerText) {
  const out = new Set()
  for (const m of headerText.matchAll(/typedef\s+struct\s+ks_ev_\w+\s*\{([^}]*)\}/g)) {
    for (const f of m[1].matchAll(/\b(?:u?int\d+_t|char|double|float)\s+(\w+)\s*(?:\[[^\]]*\])?\s*;/g)) out.add(f[1])
  }
  return [...out].sort()
}

/** The forms in which `field` is written as an event-model field (see the header); global, case-sensitive. */
export function fieldUses(field) {
  const f = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(
    [
      `\\.${f}\\b(?![.:/-])`,
      `\\b${f}=`,
      `(?<![\\w'"/.:-])${f}\\??:\\s*(?:-?\\d|null\\b|number\\b)`,
      `(?<=(?:^|[{,])\\s*)${f}:\\s*(?![\\s'"\`])(?=\\S)`,
      `(?:\\bcol\\(\\s*|\\bindex_by:\\s*)(['"])${f}\\1`,
      `\\[\\s*(['"])${f}\\2\\s*,\\s*(?!['"])`,
    ].join('|'),
    'g',
  )
}

/** Whether rel (package-relative, '/' separators) lies in model id's own folder of some layer (or of the e2e specs). */
function inModelFolder(rel, id) {
  return MODEL_LAYERS.some((layer) => rel.startsWith(`src/${layer}/${id}/`)) || rel.startsWith(`${E2E_DIR}/specs/${id}/`)
}

/**
 * Checks every text file under <root>/src and under the e2e folder
 * (options.e2e: its path; by default <root>/E2E_DIR when that holds
 * playwright.config.ts; null: none) (options.models: extra ids;
 * options.eventFields: the event model's field names, by default read from
 * EVENT_HEADER). Returns { files, models, leaks }
 * with leaks [{ file, line, model, text }] (line 0: the path names the model).
 */
export function checkModelNames(root, options = {}) {
  const models = modelIds(root, options.models ?? [])
  const header = path.join(root, EVENT_HEADER)
  const fields = options.eventFields ?? (existsSync(header) ? eventFields(readFileSync(header, 'utf8')) : [])
  const patterns = models.map((id) => ({ id, re: spellings(id), field: fields.includes(id) ? fieldUses(id) : null }))
  const defaultE2e = path.join(root, E2E_DIR)
  const e2e = options.e2e !== undefined ? options.e2e : existsSync(path.join(defaultE2e, 'playwright.config.ts')) ? defaultE2e : null
  const sources = [{ dir: path.join(root, 'src'), as: 'src' }, ...(e2e ? [{ dir: e2e, as: E2E_DIR }] : [])]
  const files = sources.flatMap(({ dir, as }) => listFiles(dir).map((file) => ({ file, inner: path.relative(dir, file).split(path.sep).join('/'), as })))
  const leaks = []
  for (const { file, inner, as } of files) {
    const rel = `${as}/${inner}`
    if (REGISTRY_FILES.includes(rel) || rel === SELF_TEST) continue
    const mine = patterns.filter(({ id }) => !inModelFolder(rel, id))
    if (!mine.length) continue
    for (const { id, re } of mine) {
      if (re.test(inner)) leaks.push({ file: rel, line: 0, model: id, text: rel })
    }
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.forEach((text, i) => {
      for (const { id, re, field } of mine) {
        const named = field ? text.replace(field, ' ') : text
        if (re.test(named)) leaks.push({ file: rel, line: i + 1, model: id, text: text.trim() })
      }
    })
  }
  return { files: files.length, models, leaks }
}

/** Leaks per file: { 'src/x.ts': 3 }. */
export function countByFile(leaks) {
  const out = {}
  for (const l of leaks) out[l.file] = (out[l.file] ?? 0) + 1
  return out
}

function main() {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const args = process.argv.slice(2)
  const extra = []
  let dir = null
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--model') extra.push(args[++i])
    else dir = args[i]
  }
  const root = path.resolve(dir ?? path.join(here, '..'))
  const { files, models, leaks } = checkModelNames(root, { models: extra })
  for (const l of leaks) console.log(`${l.file}:${l.line}: names model ${l.model}: ${l.text.slice(0, 120)}`)
  console.log(`check-model-names: ${files} files, ${models.length} models, ${leaks.length} leaks`)
  process.exitCode = leaks.length ? 1 : 0
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
