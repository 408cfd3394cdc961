// Unit tests of scripts/check-adding-algorithm.mjs on small fixture trees written to a temp dir.
// run: node --test scripts/check-adding-algorithm.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { checkAddingAlgorithm, recipe } from './check-adding-algorithm.mjs';

const ARCH = `# x

## Adding an algorithm

| layer | folder | registry lines |
|---|---|---|
| C model | \`wasm-core/src/algo/<name>/\`: the ops | \`wasm-core/src/sched/sched_ops.c\`: a line |
| frontend model | \`frontend/src/models/<name>/index.ts\`: one descriptor | \`frontend/src/models/registry.ts\`: a line |
| backend | \`backend/kscope/models/<name>/\` | \`backend/kscope/models/registry.py\`: one line |
| write-up | \`docs/models/<name>.md\` | none |

## Next
| not | \`a/<name>/\` | \`b\` |
`;

/** A tree where model "toy" is in every layer and every registry. */
const CLEAN = {
  'ARCHITECTURE.md': ARCH,
  'wasm-core/src/algo/toy/toy.c': '',
  'wasm-core/src/sched/sched_ops.c': 'extern const ks_sched_ops toy_ops; /* registry */\n',
  'frontend/src/models/toy/index.ts': '',
  'frontend/src/models/registry.ts': "import { toy } from './toy'\n",
  'backend/kscope/models/toy/__init__.py': '',
  'backend/kscope/models/registry.py': 'MODELS = {"toy": "kscope.models.toy"}\n',
  'docs/models/toy.md': '',
};

function check(files) {
  const root = mkdtempSync(path.join(tmpdir(), 'adding-algorithm-'));
  try {
    for (const [rel, text] of Object.entries(files)) {
      if (text === null) continue;
      mkdirSync(path.join(root, path.dirname(rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    }
    return checkAddingAlgorithm(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('reads only the section table: folders with <name>, registries without', () => {
  const rows = recipe(ARCH);
  assert.deepEqual(rows.map((r) => r.layer), ['C model', 'frontend model', 'backend', 'write-up']);
  assert.deepEqual(rows[0], { layer: 'C model', folders: ['wasm-core/src/algo/<name>/'], registries: ['wasm-core/src/sched/sched_ops.c'] });
  assert.deepEqual(rows[3].registries, []);
});

test('a tree that follows the recipe has no problem', () => {
  assert.deepEqual(check(CLEAN), { models: ['toy'], problems: [], pending: [] });
});

test('a missing folder or write-up is named with its layer', () => {
  const { problems } = check({ ...CLEAN, 'docs/models/toy.md': null });
  assert.deepEqual(problems, ['toy: docs/models/toy.md is missing (ARCHITECTURE.md, "write-up")']);
});

test('a registry that does not name the model fails', () => {
  const { problems } = check({ ...CLEAN, 'frontend/src/models/registry.ts': 'export const MODELS = []\n' });
  assert.deepEqual(problems, ['toy: not named in frontend/src/models/registry.ts ("frontend model" registry)']);
});

test('a model in one layer only fails for the layers that lack it', () => {
  const { models, problems } = check({ ...CLEAN, 'wasm-core/src/algo/extra/extra.c': '' });
  assert.deepEqual(models, ['extra', 'toy']);
  assert.ok(problems.includes('extra: no folder in frontend/src/models/ (the frontend layer does not register it)'));
  assert.ok(problems.includes('extra: no folder in backend/kscope/models/ (the backend layer does not register it)'));
  assert.ok(problems.includes('extra: not named in wasm-core/src/sched/sched_ops.c ("C model" registry)'));
});

test('no section is an error, not a pass', () => {
  assert.throws(() => check({ ...CLEAN, 'ARCHITECTURE.md': '# x\n' }), /no "## Adding an algorithm" section/);
});

test('the repository itself follows its recipe', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const { models, problems } = checkAddingAlgorithm(root);
  assert.ok(models.includes('mm_cid'));
  assert.deepEqual(problems, []);
});

const BUILDING = (rows) => `\n## Models being built\n\n| model | layers not built yet | issue |\n|---|---|---|\n${rows}\n`;

test('a model listed as being built: its listed layers are pending, the others still checked', () => {
  const files = { ...CLEAN, 'ARCHITECTURE.md': ARCH + BUILDING('| `part` | frontend model, write-up | #1 |'),
    'wasm-core/src/algo/part/part.c': '', 'backend/kscope/models/part/__init__.py': '',
    'wasm-core/src/sched/sched_ops.c': 'toy part\n', 'backend/kscope/models/registry.py': 'toy part\n' };
  const { models, problems, pending } = check(files);
  assert.deepEqual(models, ['part', 'toy']);
  assert.deepEqual(problems, []);
  assert.deepEqual(pending, [
    'part: frontend/src/models/part/index.ts ("frontend model", listed in "## Models being built")',
    'part: docs/models/part.md ("write-up", listed in "## Models being built")',
  ]);
  // a layer not on the list is still a problem
  const r2 = check({ ...files, 'backend/kscope/models/registry.py': 'toy\n' });
  assert.deepEqual(r2.problems, ['part: not named in backend/kscope/models/registry.py ("backend" registry)']);
});

test('the being-built list must stay true: a built layer, an unknown layer or model is a problem', () => {
  const built = check({ ...CLEAN, 'ARCHITECTURE.md': ARCH + BUILDING('| `toy` | write-up | #1 |') });
  assert.deepEqual(built.problems, ['toy: "write-up" is built; take it off "## Models being built"']);
  const unknown = check({ ...CLEAN, 'ARCHITECTURE.md': ARCH + BUILDING('| `toy` | lessons | #1 |') });
  assert.deepEqual(unknown.problems, ['toy: "lessons" in "## Models being built" is not a layer of "## Adding an algorithm"']);
  const ghost = check({ ...CLEAN, 'ARCHITECTURE.md': ARCH + BUILDING('| `ghost` | write-up | #1 |') });
  assert.deepEqual(ghost.problems, ['ghost: listed in "## Models being built" but no layer has it']);
});
