// The exported static lesson (kscope export-lesson): the lesson pages only
// (src/export_main.tsx), one classic (IIFE) script with no chunks, the C core's
// single-file build (wasm embedded: -sSINGLE_FILE=1, `make -C wasm-core
// wasm-single`) in place of the .mjs + .wasm pair, relative URLs. Chromium runs
// neither ES-module scripts nor fetch() of a .wasm from file://, so
// scripts/export-lesson.mjs then inlines the script and the CSS into index.html.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig, type Plugin } from 'vite'
import { lessonValidators } from './src/core/lesson/lesson_schema_build.ts'

const single = fileURLToPath(new URL('../wasm-core/build/wasm/kscope_core_single.mjs', import.meta.url))
/** The shipped lessons' names (src/lessons/<model>/<name>.lesson.json), for the error below. */
function shippedLessons(): string[] {
  const dir = fileURLToPath(new URL('./src/lessons/', import.meta.url))
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())
    .flatMap((e) => readdirSync(`${dir}${e.name}`).filter((f) => f.endsWith('.lesson.json')).map((f) => f.replace(/\.lesson\.json$/, '')))
    .sort()
}
// Which lesson to export is the caller's choice (scripts/export-lesson.mjs sets it); there is no default.
const lesson = process.env.KSCOPE_EXPORT_LESSON
if (!lesson) {
  throw new Error(`vite.export.config.ts: set KSCOPE_EXPORT_LESSON to the lesson to export (shipped: ${shippedLessons().join(', ') || 'none'}); ` +
    'or run `kscope export-lesson NAME -o DIR`')
}
const outDir = process.env.KSCOPE_EXPORT_OUT ?? 'dist-export'

/** wasm_bridge.ts's two imports of the C core (the module and its .wasm URL), redirected to the single-file build. */
function singleFileCore(): Plugin {
  return {
    name: 'kscope-single-file-core',
    enforce: 'pre',
    resolveId(id) {
      if (id.endsWith('/kscope_core.mjs')) return single
      if (id.endsWith('/kscope_core.wasm?url')) return '\0kscope-no-wasm-url'
      return null
    },
    load(id) {
      // The single-file module never asks for the .wasm's URL: it carries the bytes.
      return id === '\0kscope-no-wasm-url' ? 'export default ""' : null
    },
    transform(code, id) {
      // A classic script has no import.meta; the module falls back to document.currentScript.
      return id === single ? code.replace('import.meta.url', 'undefined') : null
    },
  }
}

export default defineConfig({
  plugins: [singleFileCore(), react(), lessonValidators(new URL('./src/', import.meta.url))],
  base: './',
  define: { __KSCOPE_EXPORT_LESSON__: JSON.stringify(lesson) },
  build: {
    outDir,
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: false,
    rollupOptions: {
      input: fileURLToPath(new URL('./export.html', import.meta.url)),
      output: { format: 'iife', inlineDynamicImports: true },
    },
  },
})
