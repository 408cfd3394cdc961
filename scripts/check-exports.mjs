// Checks that bindings/exported_functions.json (what the wasm build exports)
// lists exactly the KS_API functions the public headers declare, plus malloc/free.
// A function missing from the list would work natively and fail in the browser.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const core = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../wasm-core');
const headerDir = path.join(core, 'include/kscope');
const declared = new Set(['_malloc', '_free']);
for (const file of readdirSync(headerDir).filter((f) => f.endsWith('.h'))) {
  const text = readFileSync(path.join(headerDir, file), 'utf8');
  for (const m of text.matchAll(/^KS_API[^(]*?\b(ks_\w+)\s*\(/gm)) declared.add(`_${m[1]}`);
}
const listFile = path.join(core, 'bindings/exported_functions.json');
const exported = new Set(JSON.parse(readFileSync(listFile, 'utf8')));
const problems = [
  ...[...declared].filter((f) => !exported.has(f)).map((f) => `${f} is declared KS_API but not exported`),
  ...[...exported].filter((f) => !declared.has(f)).map((f) => `${f} is exported but not declared KS_API`),
];
for (const p of problems) console.log(`${path.relative(process.cwd(), listFile)}: ${p}`);
console.log(`check-exports: ${declared.size} declared, ${exported.size} exported, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
