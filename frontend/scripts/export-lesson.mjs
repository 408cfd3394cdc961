#!/usr/bin/env node
// Writes a lesson as a static folder that runs with no server: from any static
// host, and straight from disk (file://). Called by `kscope export-lesson NAME -o DIR`
// (backend/kscope/export_lesson.py), which builds the single-file C core first.
//
//   node frontend/scripts/export-lesson.mjs NAME DIR
//
// 1. vite build -c vite.export.config.ts (the lesson pages as one IIFE script,
//    the C core with its wasm embedded) into a scratch folder;
// 2. index.html = the page with that script (and any CSS) inlined as a classic
//    <script> at the end of <body>: Chromium runs no ES-module script and no
//    fetch() of a .wasm from file://;
// 3. DIR/<NAME>.lesson.json: the lesson's data, as shipped (the app carries its
//    own copy: a file:// page cannot fetch it);
// 4. prints one JSON line: {"dir", "index", "bytes", "lesson", "steps"}.
// Node built-ins only.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const frontend = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const [name, outArg] = process.argv.slice(2)
const fail = (msg, code = 2) => {
  process.stderr.write(`export-lesson: ${msg}\n`)
  process.exit(code)
}
if (!name || !outArg) fail('usage: export-lesson.mjs NAME DIR')
if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) fail(`lesson name "${name}": lower-case letters, digits, "-" and "_" only`)
// The shipped lessons: src/lessons/<model>/<name>.lesson.json (one folder per model).
const lessonsDir = join(frontend, 'src', 'lessons')
const lessonFile = readdirSync(lessonsDir, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => join(lessonsDir, e.name, `${name}.lesson.json`))
  .find((f) => existsSync(f))
if (!lessonFile) fail(`no lesson "${name}" (no ${join(lessonsDir, '<model>', `${name}.lesson.json`)})`)
const single = resolve(frontend, '..', 'wasm-core', 'build', 'wasm', 'kscope_core_single.mjs')
if (!existsSync(single)) fail(`${single} is missing: run \`make -C wasm-core wasm-single\``, 1)

const out = resolve(outArg)
const scratch = mkdtempSync(join(tmpdir(), 'kscope-export-'))
try {
  const vite = join(frontend, 'node_modules', '.bin', 'vite')
  const viteBin = existsSync(vite) ? vite : join(frontend, '..', 'node_modules', '.bin', 'vite')
  const r = spawnSync(viteBin, ['build', '-c', 'vite.export.config.ts', '--logLevel', 'error'], {
    cwd: frontend,
    env: { ...process.env, KSCOPE_EXPORT_LESSON: name, KSCOPE_EXPORT_OUT: scratch },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (r.status !== 0) fail(`vite build failed (exit ${r.status})`, 1)

  let html = readFileSync(join(scratch, 'export.html'), 'utf8')
  const scripts = []
  html = html.replace(/<script\b[^>]*\bsrc="\.\/([^"]+)"[^>]*><\/script>\s*/g, (_, src) => {
    scripts.push(readFileSync(join(scratch, src), 'utf8'))
    return ''
  })
  html = html.replace(/<link\b[^>]*\brel="stylesheet"[^>]*\bhref="\.\/([^"]+)"[^>]*>/g, (_, href) =>
    `<style>\n${readFileSync(join(scratch, href), 'utf8').replace(/<\/style/gi, '<\\/style')}\n</style>`)
  if (scripts.length !== 1) fail(`expected one script in the build, found ${scripts.length}`, 1)
  if (/<script[^>]*\bsrc=|<link[^>]*\bhref="\.\//.test(html)) fail('the page still loads a file next to it', 1)
  const code = scripts[0].replace(/<\/script/gi, '<\\/script')
  // A function, not a string, as the replacement: the code is full of "$&"-like text.
  html = html.replace('</body>', () => `<script>\n${code}\n</script>\n</body>`)

  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, 'index.html'), html)
  copyFileSync(lessonFile, join(out, `${name}.lesson.json`))
  const lesson = JSON.parse(readFileSync(lessonFile, 'utf8'))
  writeFileSync(join(out, 'README.txt'), [
    `kscope lesson "${name}": ${lesson.title}`,
    '',
    'Open index.html in a browser (double-click works: no server, no network).',
    `  index.html#/learn/${name}?step=0      step by step`,
    `  index.html#/present/${name}?step=0    presenter mode (keys: space/arrows, digits, f, ?, t)`,
    `  index.html#/notes/${name}             speaker notes (open from presenter mode)`,
    `  index.html#/embed/${name}/3?view=picture   one view of one step, for an iframe`,
    '',
    'Everything is in index.html: the app, the C core compiled to WebAssembly, and the lesson.',
    `${name}.lesson.json is the lesson's data as shipped (docs/lessons.md in the kscope repository).`,
    'Figures are MODELLED by kscope, except those labelled PUBLISHED.',
    '',
  ].join('\n'))
  process.stdout.write(`${JSON.stringify({ dir: out, index: join(out, 'index.html'), bytes: Buffer.byteLength(html), lesson: name, steps: lesson.steps.length })}\n`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
