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
 * _ or -, any case). Comments count: "grep -ri mm_cid" is the test.
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

/** Files that list every model, one line each (relative to the package root). */
export const REGISTRY_FILES = ['src/models/registry.ts', 'src/engine/model_bridges.ts']
/** This checker's own test: its fixtures and allow-list name models on purpose. */
const SELF_TEST = 'src/layering.test.ts'
/** The layers that hold one folder per model (src/<layer>/<id>/). */
export const MODEL_LAYERS = ['models', 'views', 'lessons', 'engine']
const SKIP_DIRS = new Set(['node_modules', 'dist'])
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

/** Whether rel (package-relative, '/' separators) lies in model id's own folder of some layer. */
function inModelFolder(rel, id) {
  return MODEL_LAYERS.some((layer) => rel.startsWith(`src/${layer}/${id}/`))
}

/**
 * Checks every text file under <root>/src. Returns { files, models, leaks }
 * with leaks [{ file, line, model, text }] (line 0: the path names the model).
 */
export function checkModelNames(root, options = {}) {
  const models = modelIds(root, options.models ?? [])
  const patterns = models.map((id) => ({ id, re: spellings(id) }))
  const files = listFiles(path.join(root, 'src'))
  const leaks = []
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/')
    if (REGISTRY_FILES.includes(rel) || rel === SELF_TEST) continue
    const mine = patterns.filter(({ id }) => !inModelFolder(rel, id))
    if (!mine.length) continue
    for (const { id, re } of mine) {
      if (re.test(rel.slice('src/'.length))) leaks.push({ file: rel, line: 0, model: id, text: rel })
    }
    const lines = readFileSync(file, 'utf8').split('\n')
    lines.forEach((text, i) => {
      for (const { id, re } of mine) {
        if (re.test(text)) leaks.push({ file: rel, line: i + 1, model: id, text: text.trim() })
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
