// Checks that bindings/exported_functions.json (what the browser's wasm build exports)
// lists exactly the KS_API functions of the browser's public headers (include/kscope/*.h),
// plus malloc/free, and none of the native-only API (include/kscope/native/*.h: the
// Parquet writer, the column builder, the conform host), which the browser never calls and
// would otherwise download. A function missing from the list would work natively and fail
// in the browser; a native-only one in it would cost the browser its code.
// The native library (libkscope.so, built with -fvisibility=hidden) exports every KS_API
// function of both folders.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const core = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../wasm-core');

/** `_name` of every KS_API function declared in the .h files of dir (not its subfolders). */
function declaredIn(dir) {
  const out = new Set();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.h'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/^KS_API[^(]*?\b(ks_\w+)\s*\(/gm)) out.add(`_${m[1]}`);
  }
  return out;
}

const declared = new Set(['_malloc', '_free', ...declaredIn(path.join(core, 'include/kscope'))]);
const nativeOnly = declaredIn(path.join(core, 'include/kscope/native'));
const listFile = path.join(core, 'bindings/exported_functions.json');
const exported = new Set(JSON.parse(readFileSync(listFile, 'utf8')));
const problems = [
  ...[...declared].filter((f) => !exported.has(f)).map((f) => `${f} is declared KS_API but not exported`),
  ...[...exported].filter((f) => nativeOnly.has(f))
    .map((f) => `${f} is native-only (include/kscope/native) but exported to the browser`),
  ...[...exported].filter((f) => !declared.has(f) && !nativeOnly.has(f))
    .map((f) => `${f} is exported but not declared KS_API`),
  ...[...declared].filter((f) => nativeOnly.has(f))
    .map((f) => `${f} is declared in both include/kscope and include/kscope/native`),
];
for (const p of problems) console.log(`${path.relative(process.cwd(), listFile)}: ${p}`);
console.log(`check-exports: ${declared.size} declared for the browser, ${nativeOnly.size} native-only, ` +
  `${exported.size} exported, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
