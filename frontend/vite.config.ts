// Vite builds the app into dist/ (the backend serves it); Vitest runs the unit
// tests beside the code. The C core's Emscripten module and its example
// workloads live outside this package (../wasm-core/build/wasm/,
// ../wasm-core/workloads/), so the dev server is allowed to read them.
import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'
import { lessonValidators } from './src/core/lesson/lesson_schema_build.ts'

const wasmBuild = fileURLToPath(new URL('../wasm-core/build/wasm/', import.meta.url))
const workloads = fileURLToPath(new URL('../wasm-core/workloads/', import.meta.url))

export default defineConfig({
  plugins: [react(), lessonValidators(new URL('./src/', import.meta.url))],
  server: {
    fs: { allow: ['.', wasmBuild, workloads] },
  },
  // The trace decoder's worker (src/engine/trace_worker.ts) is an ES module: it
  // imports the Emscripten module, which locates its .wasm via import.meta.url.
  worker: { format: 'es' },
  build: {
    // The .wasm must stay a separate file (never a data: URL) so the browser
    // can stream-compile it.
    assetsInlineLimit: 0,
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
  },
})
