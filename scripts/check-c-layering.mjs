// Checks the C core's layering from its #include lines (ARCHITECTURE.md, "Inside wasm-core"):
//
//   base <- machine <- sched <- algo      each may include its own folder and those to its left
//   trace, store                          only their own folder and base
//   tools/<tool>                          only its own folder (the public API, nothing in src/)
//   include/kscope                        (the public API) only other public headers
//
// Every layer may include the public headers (include/kscope).
//
// A second rule keeps the models out of the generic code: the name of a model (a folder of
// src/algo/) may appear anywhere in wasm-core only
//   - inside a folder named after the model (src/algo/<name>/, include/kscope/<name>/ with
//     its native/, tools/layout/<name>/, tests/<name>/ ...), or
//   - on a registry line (a line saying "registry" in a registry file: REGISTRY_FILES), or
//   - as a kernel ABI field that shares the model's name (ABI_NAMES: rseq_update's mm_cid
//     field, rseq->mm_cid, the mm_cid column), written as a field: the line passes only
//     when nothing of the name is left once its field uses are blanked out.
// Comments count (they explain the code). Checked: the C sources, Makefile, README.md and
// JSON files (workloads) of src/, include/, tools/, tests/, workloads/ and wasm-core/ itself.
// Not checked (NAME_UNCHECKED): src/trace and fuzz/, frozen this session while the fuzz
// hours are measured on them; their hits are tracepoint field names anyway (the decoders
// read rseq_update's mm_cid field by its kernel name; the fuzz corpus holds real traces),
// apart from one path to a frontend model folder in fuzz/README.md (to move before fuzz/ is
// dropped from NAME_UNCHECKED, once it thaws). Nor is tests/fixtures/
// data (captured kernel text: rseq_update's mm_cid=), nor build/. src/base is checked (it
// names no model).
//
// Quoted includes are resolved
// the way the compiler does (beside the including file, then -Iinclude); an angle include that
// is not under include/ is a system header and is not checked. Prints one line per broken rule,
// "path:line: rule", and exits 1 when there is any.
//
// usage: node scripts/check-c-layering.mjs [wasm-core dir]
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** What each folder of src/ may include, besides itself and the public headers. */
export const SRC_LAYERS = {
  base: [],
  machine: ['base'],
  sched: ['base', 'machine'],
  algo: ['base', 'machine', 'sched'],
  trace: ['base'],
  store: ['base'],
};

/** Where the model-name rule does not look (see the comment at the top), and why. */
export const NAME_UNCHECKED = {
  'src/trace': 'frozen this session; decoders read tracepoint fields by their kernel names',
  fuzz: 'frozen this session; its corpus holds real traces (rseq_update mm_cid=)',
  build: 'build output',
};
/** Folders of captured kernel text: only their README.md is read (the data holds mm_cid=). */
export const FIXTURE_DATA = ['tests/fixtures'];
/** Files whose lines marked "registry" may name models: the ops table, the umbrella header,
 * the struct layouts' list, the test lists. */
export const REGISTRY_FILES = [
  'src/sched/sched_ops.c', 'include/kscope/kscope.h', 'tools/layout/struct_layout.c',
  'tests/check.h', 'tests/test_main.c',
];
/**
 * Model names that are also kernel ABI names, and how a line may write them as such: each
 * pattern matches one field use, and a line passes when no occurrence of the name is left
 * once they are blanked out.
 */
export const ABI_NAMES = {
  mm_cid: [
    /(?:\.|->)mm_cid\b/g,                          // the member: rseq_update.mm_cid, rseq->mm_cid, task.mm_cid
    /\bint32_t\s+mm_cid\s*;/g,                      // the member's declaration
    /\bFIELD\(\s*\w+,\s*mm_cid\s*\)/g,              // struct_layout's FIELD(type, member)
    /\bmm_cid=/g,                                   // the tracepoint's text: "rseq_update: ... mm_cid=1"
    /\bKS_(?:COL|VALID)_MM_CID\b/g,                 // the column and its validity bit
    /\w*rseq\w*mm_cid\w*/gi,                        // librseq's names for it (BUILDOPT_RSEQ_PERCPU_MM_CID)
    /\brseq(?:_update)?(?:'s)?\s+(?:cpu_id\s+or\s+)?`?mm_cid\b/gi, // prose: "rseq's mm_cid", "rseq cpu_id or mm_cid"
  ],
  cpupri: [
    /_*cpupri_(?:set|find|vec)\w*/g,               // the kernel's functions and struct (cpupri_set, __cpupri_find, cpupri_vec), and kscope_cpupri_set / kscope_cpupri_find tracepoint names
    /\bCPUPRI_[A-Z_]+\b/g,                         // the kernel's constants (CPUPRI_NORMAL, CPUPRI_NR_PRIORITIES)
    /\bkscope_cpupri\w*/g,                          // kscope's 6.12 patch: its tracepoints and boot parameter (kscope_cpupri=)
    /\bcpupri-(?:per-node|global|pernode|\{pernode,global\})/g, // that patch's folder and the captures named after its boot modes
  ],
};
/** The field by name, as a quoted string: accepted on a line that says which field it is. */
const QUOTED_FIELD_CONTEXT = /\b(?:index_by|rseq\w*|KS_COL_\w+|column)\b/;

const SOURCE_EXT = /\.(c|h|inc)$/;
const SCANNED_DIRS = ['src', 'tools', 'include'];

/** Files under dir (recursively) whose names end in .c, .h or .inc, as paths relative to root. */
function sourceFiles(root, dir) {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return [];
  const out = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(root, rel));
    else if (SOURCE_EXT.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

/** The text with its comments blanked out (newlines kept, so line numbers stay true). */
function withoutComments(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/\/\/[^\n]*/g, '');
}

/** {line, quoted, name} for every #include directive, or {line, computed: text}. */
export function includesOf(text) {
  const out = [];
  withoutComments(text).split('\n').forEach((raw, i) => {
    const m = raw.match(/^\s*#\s*include\b\s*(.*)$/);
    if (!m) return;
    const target = m[1].trim();
    const q = target.match(/^"([^"]+)"/) ?? target.match(/^<([^>]+)>/);
    if (!q) out.push({ line: i + 1, computed: target });
    else out.push({ line: i + 1, quoted: target.startsWith('"'), name: q[1] });
  });
  return out;
}

/**
 * Which part of the core a path (relative to the core dir, posix) belongs to:
 * "public", "src/<layer>", "tools/<tool>", or "other:<path>" for anything else.
 */
export function partOf(rel) {
  const [top, second] = rel.split('/');
  if (top === 'include') return 'public';
  if ((top === 'src' || top === 'tools') && second && rel.split('/').length > 2) {
    return `${top}/${second}`;
  }
  return `other:${rel}`;
}

/** Where the compiler finds an include (beside the file, then -Iinclude); null if not in the tree. */
function resolveInclude(root, fromRel, inc) {
  const candidates = inc.quoted
    ? [path.posix.join(path.posix.dirname(fromRel), inc.name), path.posix.join('include', inc.name)]
    : [path.posix.join('include', inc.name)];
  for (const rel of candidates) {
    const normal = path.posix.normalize(rel);
    const abs = path.join(root, normal);
    if (existsSync(abs) && statSync(abs).isFile()) return normal;
  }
  return null;
}

/** The parts `from` may include, or null when the checker has no rule for it. */
function allowedFor(from) {
  if (from === 'public') return ['public'];
  if (from.startsWith('tools/')) return ['public', from];
  if (from.startsWith('src/')) {
    const layer = from.slice(4);
    if (!Object.hasOwn(SRC_LAYERS, layer)) return null;
    return ['public', from, ...SRC_LAYERS[layer].map((l) => `src/${l}`)];
  }
  return null;
}

function describe(part) {
  if (part === 'public') return 'the public headers (include/kscope)';
  if (part.startsWith('other:')) return part.slice(6);
  return part;
}

function ruleFor(from) {
  if (from === 'public') return 'the public headers may include only other public headers';
  if (from.startsWith('tools/')) return `${from} may use only the public API (include/kscope) and its own files`;
  const layer = from.slice(4);
  const deps = SRC_LAYERS[layer];
  const on = deps.length ? `${deps.map((d) => `src/${d}`).join(', ')} and the public headers` : 'the public headers only';
  return `${from} may include ${on} (base <- machine <- sched <- algo; trace and store only on base)`;
}

/**
 * Checks every source file under root's src/, tools/ and include/.
 * Returns {files, includes, problems: [{file, line, message}]} (file relative to root).
 */
export function checkLayering(root) {
  const problems = [];
  let includes = 0;
  const files = SCANNED_DIRS.flatMap((d) => sourceFiles(root, d));
  for (const file of files) {
    const from = partOf(file);
    const allowed = allowedFor(from);
    if (!allowed) {
      problems.push({
        file, line: 1,
        message: `${from} has no layering rule: add it to SRC_LAYERS in scripts/check-c-layering.mjs`,
      });
      continue;
    }
    for (const inc of includesOf(readFileSync(path.join(root, file), 'utf8'))) {
      includes += 1;
      if (inc.computed !== undefined) {
        problems.push({ file, line: inc.line, message: `#include ${inc.computed}: a computed include cannot be checked` });
        continue;
      }
      const target = resolveInclude(root, file, inc);
      if (!target) {
        if (inc.quoted) {
          problems.push({
            file, line: inc.line,
            message: `#include "${inc.name}" is not a file of the core (use <...> for a system header)`,
          });
        }
        continue;                                   // a system header
      }
      const to = partOf(target);
      if (!allowed.includes(to)) {
        problems.push({
          file, line: inc.line,
          message: `includes ${target} (${describe(to)}): ${ruleFor(from)}`,
        });
      }
    }
  }
  return { files: files.length, includes, problems };
}

/** The models: the folders of src/algo. */
export function modelNames(root) {
  const abs = path.join(root, 'src/algo');
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** Files under dir (recursively) the name rule reads: C sources, Makefiles, README.md, JSON. */
const NAME_EXT = /\.(c|h|inc|md|json)$|^Makefile$/;
function nameCheckedFiles(root, dir = '') {
  const abs = path.join(root, dir);
  if (!existsSync(abs)) return [];
  const out = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const rel = dir ? path.posix.join(dir, entry.name) : entry.name;
    if (Object.hasOwn(NAME_UNCHECKED, rel) || entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) out.push(...nameCheckedFiles(root, rel));
    else if (NAME_EXT.test(entry.name)) out.push(rel);
  }
  if (FIXTURE_DATA.includes(dir)) return out.filter((f) => f.endsWith('.md'));
  return out.sort();
}

/** The line with every use of `model` as a kernel ABI field blanked out. */
function withoutFieldUses(model, text) {
  let rest = text;
  for (const re of ABI_NAMES[model] ?? []) rest = rest.replace(re, ' ');
  if (ABI_NAMES[model] && QUOTED_FIELD_CONTEXT.test(text)) {
    rest = rest.replace(new RegExp(`\\\\?"${model}\\\\?"`, 'g'), ' ');
  }
  return rest;
}

/**
 * Lines outside the models' folders that name a model (comments included: they explain
 * the code), other than registry lines and kernel ABI fields.
 * Returns [{file, line, message}] (file relative to root).
 */
export function checkModelNames(root) {
  const models = modelNames(root);
  const problems = [];
  if (!models.length) return problems;
  for (const file of nameCheckedFiles(root, '')) {
    const parts = file.split('/');
    if (parts.slice(0, -1).some((p) => models.includes(p))) continue;     // a model's own folder
    const registry = REGISTRY_FILES.includes(file);
    readFileSync(path.join(root, file), 'utf8').split('\n').forEach((text, i) => {
      for (const model of models) {
        const name = new RegExp(model.replace(/[^a-z0-9_]/gi, ''), 'i');
        if (!name.test(text)) continue;
        if (registry && /\bregistry\b/.test(text)) continue;
        if (!name.test(withoutFieldUses(model, text))) continue;
        problems.push({
          file, line: i + 1,
          message: `names the model "${model}" (src/algo/${model}/): outside a folder named ${model}/, ` +
            `a model may be named only on a registry line (${REGISTRY_FILES.join(', ')}) or as a ` +
            'kernel ABI field (ABI_NAMES)',
        });
      }
    });
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const root = path.resolve(process.argv[2] ?? path.join(here, '../wasm-core'));
  const { files, includes, problems: layering } = checkLayering(root);
  const names = checkModelNames(root);
  const problems = [...layering, ...names];
  const shown = path.relative(process.cwd(), root) || '.';
  for (const p of problems) console.log(`${path.posix.join(shown, p.file)}:${p.line}: ${p.message}`);
  console.log(`check-c-layering: ${files} files, ${includes} includes, ${modelNames(root).length} models, ` +
    `${nameCheckedFiles(root).length} files read for model names, ${problems.length} problems`);
  process.exitCode = problems.length ? 1 : 0;   // not process.exit(): a piped stdout would be cut short
}
