// Checks that bindings/exported_functions.json (what the browser's wasm build exports)
// lists exactly the KS_API functions of the browser's public headers (include/kscope/**/*.h
// outside any native/ folder), plus malloc/free, and none of the native-only API (every
// native/ folder: include/kscope/native/*.h, the Parquet writer, the column builder, the
// ftrace exporter; a model's include/kscope/<name>/native/*.h, its conform host), which the browser never calls and
// would otherwise download. A function missing from the list would work natively and fail
// in the browser; a native-only one in it would cost the browser its code.
// The native library (libkscope.so, built with -fvisibility=hidden) exports every KS_API
// function of both folders.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const core = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../wasm-core');

/** The .h files under dir (recursively), relative to dir. */
function headersUnder(dir, rel = '') {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = path.posix.join(rel, e.name);
    if (e.isDirectory()) return headersUnder(dir, p);
    return e.name.endsWith('.h') ? [p] : [];
  });
}

/** `_name` of every KS_API function declared in the given headers. */
function declaredIn(dir, files) {
  const out = new Set();
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/^KS_API[^(]*?\b(ks_\w+)\s*\(/gm)) out.add(`_${m[1]}`);
  }
  return out;
}

const publicDir = path.join(core, 'include/kscope');
const isNative = (rel) => rel.split('/').includes('native');
const headers = headersUnder(publicDir);
const declared = new Set(['_malloc', '_free', ...declaredIn(publicDir, headers.filter((h) => !isNative(h)))]);
const nativeOnly = declaredIn(publicDir, headers.filter(isNative));
const listFile = path.join(core, 'bindings/exported_functions.json');
const exported = new Set(JSON.parse(readFileSync(listFile, 'utf8')));
const problems = [
  ...[...declared].filter((f) => !exported.has(f)).map((f) => `${f} is declared KS_API but not exported`),
  ...[...exported].filter((f) => nativeOnly.has(f))
    .map((f) => `${f} is native-only (a native/ folder of include/kscope) but exported to the browser`),
  ...[...exported].filter((f) => !declared.has(f) && !nativeOnly.has(f))
    .map((f) => `${f} is exported but not declared KS_API`),
  ...[...declared].filter((f) => nativeOnly.has(f))
    .map((f) => `${f} is declared both for the browser and in a native/ folder`),
];
for (const p of problems) console.log(`${path.relative(process.cwd(), listFile)}: ${p}`);
console.log(`check-exports: ${declared.size} declared for the browser, ${nativeOnly.size} native-only, ` +
  `${exported.size} exported, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
