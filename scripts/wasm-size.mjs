// The browser's wasm core, its size and gzipped size against the budget (issue 14: a lean
// browser core, native-only API left out of its export list: see scripts/check-exports.mjs).
//
//   node scripts/wasm-size.mjs            prints {"wasm":..., "bytes":N, "gzip_bytes":N, ...}
//   node scripts/wasm-size.mjs --check    the same, and exits 1 when over budget (npm test)
//
// gzip is zlib's level 9 (what a static server's precompressed asset would be).
// The file is wasm-core/build/wasm/kscope_core.wasm (`make -C wasm-core wasm`, run by setup).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The budget: 300 KB of wasm, 120 KB gzipped (KB = 1000 bytes). */
export const BUDGET = { bytes: 300_000, gzipBytes: 120_000 };

/** {bytes, gzipBytes} of a wasm module's bytes. */
export function measure(wasm) {
  return { bytes: wasm.length, gzipBytes: gzipSync(wasm, { level: 9 }).length };
}

/** One line per budget the sizes exceed (none: within budget). */
export function overBudget(sizes, budget = BUDGET) {
  const out = [];
  if (sizes.bytes > budget.bytes) out.push(`${sizes.bytes} bytes > ${budget.bytes} allowed`);
  if (sizes.gzipBytes > budget.gzipBytes) out.push(`${sizes.gzipBytes} bytes gzipped > ${budget.gzipBytes} allowed`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const file = path.join(root, 'wasm-core/build/wasm/kscope_core.wasm');
  let wasm;
  try {
    wasm = readFileSync(file);
  } catch (err) {
    console.log(`wasm-size: ${path.relative(root, file)}: ${err.code ?? err.message} (build it: make -C wasm-core wasm)`);
    process.exit(1);
  }
  const sizes = measure(wasm);
  console.log(JSON.stringify({ wasm: path.relative(root, file), bytes: sizes.bytes, gzip_bytes: sizes.gzipBytes,
    budget_bytes: BUDGET.bytes, budget_gzip_bytes: BUDGET.gzipBytes }));
  const over = overBudget(sizes);
  for (const line of over) console.log(`wasm-size: ${path.relative(root, file)}: ${line}`);
  if (process.argv.includes('--check')) process.exit(over.length ? 1 : 0);
}
