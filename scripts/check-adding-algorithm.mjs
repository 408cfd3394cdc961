// `node scripts/check-adding-algorithm.mjs`: ARCHITECTURE.md's "Adding an algorithm" section
// checked against the tree, so the recipe stays true.
//
// The section's table lists, per layer, a model's folder or file (a path holding `<name>`)
// and the registry files that name it (the third column's paths). For every model:
//   - every listed folder or file exists, `<name>` replaced by the model's id;
//   - every registry file names the model;
// and every layer registers the same models: the folders of wasm-core/src/algo/,
// frontend/src/models/ and backend/kscope/models/ hold the same ids.
//
// A model whose plug-in is landing layer by layer is listed in ARCHITECTURE.md's
// "## Models being built" table (model, the layers not built yet, its issue). Those layers'
// folders and registry lines are reported as pending, not as problems; every other layer of
// that model is checked as usual, and a listed layer that exists is a problem (the list must
// stay true: take the layer off it).
// Prints each problem and each pending layer, and exits 1 when there is a problem.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const SECTION = '## Adding an algorithm';
const BUILDING = '## Models being built';
/** Where each layer keeps one folder per model. */
export const LAYERS = {
  C: 'wasm-core/src/algo',
  frontend: 'frontend/src/models',
  backend: 'backend/kscope/models',
};

/** The section's table: [{layer, folders: [path with <name>], registries: [path]}]. */
export function recipe(markdown) {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`ARCHITECTURE.md has no "${SECTION}" section`);
  const rest = markdown.slice(start + SECTION.length + 2);
  const end = rest.search(/\n## /);
  const body = end < 0 ? rest : rest.slice(0, end);
  const rows = [];
  for (const line of body.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || cells[1] === 'layer' || /^-+$/.test(cells[1])) continue;
    const paths = (cell) => [...cell.matchAll(/`([^`\s]+)`/g)].map((m) => m[1].replace(/:$/, ''))
      .filter((p) => p.includes('/'));
    rows.push({
      layer: cells[1],
      folders: paths(cells[2]).filter((p) => p.includes('<name>')),
      registries: paths(cells[3]).filter((p) => !p.includes('<name>')),
    });
  }
  if (!rows.length) throw new Error(`"${SECTION}": no table rows`);
  return rows;
}

/** The "Models being built" table: Map(model id -> Set(layer names not built yet)). */
export function pendingLayers(markdown) {
  const pending = new Map();
  const start = markdown.indexOf(`\n${BUILDING}\n`);
  if (start < 0) return pending;
  const rest = markdown.slice(start + BUILDING.length + 2);
  const end = rest.search(/\n## /);
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || cells[1] === 'model' || /^-+$/.test(cells[1])) continue;
    const id = cells[1].replace(/`/g, '');
    pending.set(id, new Set(cells[2].split(',').map((l) => l.trim()).filter(Boolean)));
  }
  return pending;
}

const dirsIn = (dir) => (existsSync(dir) ? readdirSync(dir) : [])
  .filter((n) => !n.startsWith('_') && !n.startsWith('.') && statSync(path.join(dir, n)).isDirectory())
  .sort();

/** Problems found under `root` (a repository, or a test's fixture tree). */
export function checkAddingAlgorithm(root) {
  const problems = [];
  const pending = [];
  const arch = readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8');
  const rows = recipe(arch);
  const building = pendingLayers(arch);
  const layerRow = { C: 'C model', frontend: 'frontend model', backend: 'backend' };
  for (const [id, layers] of building)
    for (const layer of layers)
      if (!rows.some((r) => r.layer === layer)) problems.push(`${id}: "${layer}" in "${BUILDING}" is not a layer of "${SECTION}"`);
  const byLayer = Object.fromEntries(Object.entries(LAYERS).map(([k, dir]) => [k, dirsIn(path.join(root, dir))]));
  const models = [...new Set(Object.values(byLayer).flat())].sort();
  const isPending = (id, layer) => building.get(id)?.has(layer) ?? false;
  for (const [layer, ids] of Object.entries(byLayer))
    for (const id of models)
      if (!ids.includes(id) && !isPending(id, layerRow[layer])) problems.push(`${id}: no folder in ${LAYERS[layer]}/ (the ${layer} layer does not register it)`);
  for (const id of models) {
    for (const row of rows) {
      const waiting = isPending(id, row.layer);
      let built = row.folders.length > 0;
      for (const folder of row.folders) {
        const p = folder.replaceAll('<name>', id);
        if (existsSync(path.join(root, p))) continue;
        built = false;
        if (waiting) pending.push(`${id}: ${p} ("${row.layer}", listed in "${BUILDING}")`);
        else problems.push(`${id}: ${p} is missing (ARCHITECTURE.md, "${row.layer}")`);
      }
      if (waiting && built) problems.push(`${id}: "${row.layer}" is built; take it off "${BUILDING}"`);
      for (const reg of row.registries) {
        const file = path.join(root, reg);
        if (!existsSync(file)) problems.push(`${reg}: the registry of "${row.layer}" does not exist`);
        else if (!readFileSync(file, 'utf8').includes(id) && !waiting) problems.push(`${id}: not named in ${reg} ("${row.layer}" registry)`);
      }
    }
  }
  for (const id of building.keys())
    if (!models.includes(id)) problems.push(`${id}: listed in "${BUILDING}" but no layer has it`);
  return { models, problems, pending };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { models, problems, pending } = checkAddingAlgorithm(root);
  for (const p of problems) console.log(`check-adding-algorithm: ${p}`);
  for (const p of pending) console.log(`check-adding-algorithm: pending: ${p}`);
  console.log(`check-adding-algorithm: ${models.length} models (${models.join(', ')}), ${problems.length} problems, `
    + `${pending.length} pending`);
  process.exit(problems.length ? 1 : 0);
}
