// Unit tests of scripts/check-c-layering.mjs on small fixture trees written to a temp dir.
// run: node --test scripts/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { checkLayering, checkModelNames, includesOf } from './check-c-layering.mjs';

const SCRIPT = fileURLToPath(new URL('./check-c-layering.mjs', import.meta.url));

/** A tree that keeps every rule: the shape of wasm-core today. */
const CLEAN = {
  'include/kscope/status.h': '#include <stdint.h>\n',
  'include/kscope/ftrace.h': '#include "kscope/status.h"\n',
  'src/base/text_tokenizer.h': '#include <stdbool.h>\n#include "kscope/status.h"\n',
  'src/base/text_tokenizer.c': '#include "text_tokenizer.h"\n',
  'src/machine/lscpu_parser.c': '#include "../base/text_tokenizer.h"\n',
  'src/sched/sim_internal.h': '#include "kscope/status.h"\n#include "../base/text_tokenizer.h"\n',
  'src/algo/mm_cid/mm_cid.c': '#include "../../sched/sim_internal.h"\n',
  'src/trace/ftrace_text_tokenizer.h': '#include "kscope/ftrace.h"\n#include "../base/text_tokenizer.h"\n',
  'src/trace/tracedat_decompress.c': '#include <zstd.h>\n',
  'src/store/parquet.c': '#include "../base/text_tokenizer.h"\n',
  'tools/ingest/lod.h': '#include "kscope/ftrace.h"\n',
  'tools/ingest/lod.c': '#include "lod.h"\n#include "arrow_schema.inc"\n',
  'tools/ingest/arrow_schema.inc': '/* data */\n',
};

function makeTree(files) {
  const root = mkdtempSync(path.join(tmpdir(), 'c-layering-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.join(root, path.dirname(rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function problemsOf(files) {
  const root = makeTree(files);
  try {
    return checkLayering(root).problems.map((p) => `${p.file}:${p.line}: ${p.message}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('a tree that keeps the rules has no problems', () => {
  assert.deepEqual(problemsOf(CLEAN), []);
});

test('trace including machine (the old text_tokenizer.h) is caught with file:line', () => {
  const problems = problemsOf({
    ...CLEAN,
    'src/machine/text_tokenizer.h': '#include "kscope/status.h"\n',
    'src/trace/ftrace_text_tokenizer.h':
      '/* header */\n#include "kscope/ftrace.h"\n#include "../machine/text_tokenizer.h"\n',
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^src\/trace\/ftrace_text_tokenizer\.h:3: includes src\/machine\/text_tokenizer\.h/);
  assert.match(problems[0], /trace and store only on base/);
});

test('a lower layer including a higher one is caught', () => {
  const problems = problemsOf({
    ...CLEAN,
    'src/base/rng.c': '#include "../sched/sim_internal.h"\n',
    'src/machine/topology.c': '\n\n#include "../algo/mm_cid/mm_cid.c"\n',
    'src/store/writer.c': '#include "../trace/ftrace_text_tokenizer.h"\n',
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]), [
    'src/base/rng.c:1',
    'src/machine/topology.c:3',
    'src/store/writer.c:1',
  ]);
});

test('tools see only the public API; public headers see only public headers', () => {
  const problems = problemsOf({
    ...CLEAN,
    'tools/ingest/tally.c': '#include "kscope/status.h"\n#include "../../src/trace/ftrace_text_tokenizer.h"\n',
    'tools/other/x.c': '#include "../ingest/lod.h"\n',
    'include/kscope/sim.h': '#include "../../src/sched/sim_internal.h"\n',
  });
  assert.equal(problems.length, 3);
  assert.match(problems.find((p) => p.startsWith('tools/ingest/tally.c:2:')), /only the public API/);
  assert.match(problems.find((p) => p.startsWith('tools/other/x.c:1:')), /tools\/ingest/);
  assert.match(problems.find((p) => p.startsWith('include/kscope/sim.h:1:')), /only other public headers/);
});

test('an unknown src folder and an unresolvable quoted include are reported', () => {
  const problems = problemsOf({
    ...CLEAN,
    'src/net/sock.c': '#include "kscope/status.h"\n',
    'src/base/json.c': '#include "missing.h"\n',
  });
  assert.equal(problems.length, 2);
  assert.match(problems.find((p) => p.startsWith('src/base/json.c:1:')), /not a file of the core/);
  assert.match(problems.find((p) => p.startsWith('src/net/sock.c:1:')), /no layering rule/);
});

test('includes in comments are ignored; line numbers survive block comments', () => {
  const text = '/* #include "../sched/x.h"\n still a comment */\n// #include "y.h"\n  #  include "z.h"\n';
  assert.deepEqual(includesOf(text), [{ line: 4, quoted: true, name: 'z.h' }]);
});

test('the command prints path:line and exits 1 on a violation, 0 when clean', () => {
  const bad = makeTree({ ...CLEAN, 'src/trace/bad.c': '#include "../sched/sim_internal.h"\n' });
  const good = makeTree(CLEAN);
  try {
    assert.throws(() => execFileSync('node', [SCRIPT, bad], { cwd: bad, encoding: 'utf8' }), (err) => {
      assert.equal(err.status, 1);
      assert.match(err.stdout, /^src\/trace\/bad\.c:1: includes src\/sched\/sim_internal\.h/m);
      assert.match(err.stdout, /1 problems$/m);
      return true;
    });
    const out = execFileSync('node', [SCRIPT, good], { cwd: good, encoding: 'utf8' });
    assert.match(out, /0 problems/);
  } finally {
    rmSync(bad, { recursive: true, force: true });
    rmSync(good, { recursive: true, force: true });
  }
});

function nameProblemsOf(files) {
  const root = makeTree(files);
  try {
    return checkModelNames(root).map((p) => `${p.file}:${p.line}: ${p.message}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A tree with two models whose generic code names neither, except where allowed. */
const MODELS = {
  ...CLEAN,
  'src/algo/cpupri/cpupri.c': 'int cpupri_find(void);\n',
  'src/sched/sched_ops.c':
    'extern const ks_sched_ops mm_cid_ops;   /* registry */\nextern const ks_sched_ops cpupri_ops; /* registry */\n',
  'include/kscope/kscope.h': '#include "kscope/cpupri/cpupri.h"   /* registry */\n',
  'include/kscope/cpupri/cpupri.h': '/* the cpupri views */\n',
  'include/kscope/mm_cid/view.h': '/* mm_cid formats */\n',
  'include/kscope/mm_cid/native/conform.h': '/* the mm_cid conform host */\n',
  'include/kscope/event.h': '    int32_t mm_cid;   /* rseq ABI field */\n',
  'src/trace/parser.c': 'FIELD("mm_cid")\n',
  'tools/layout/struct_layout.c': '#include "mm_cid/layout.inc"   /* registry */\nFIELD(ks_sim_task, mm_cid);\n',
  'tools/layout/mm_cid/layout.inc': 'BEGIN(ks_mm_cid_mm);\n',
  'tools/ingest/store_batches.c': '{"mm_cid", KS_PQ_I32, 0, KS_COL_MM_CID, KS_VALID_MM_CID},\n',
  'tests/check.h': 'extern const test_case mm_cid_tests[], cpupri_tests[]; /* registry */\n',
  'tests/test_main.c': '    mm_cid_tests, cpupri_tests,   /* registry */\n',
  'tests/mm_cid/test_mm_cid.c': 'test_sim_new("classroom-8", json, 1, "mm_cid:v6.13");\n',
  'tests/cpupri/test_cpupri.c': '/* cpupri_find picks the lowest mask */\n',
  'tests/test_sim_core.c':
    '"\\"index_by\\": \\"mm_cid\\""\nCHECK_EQ_INT(ev.u.rseq_update.mm_cid, -1);\n/* "none" leaves rseq->mm_cid at -1 */\n',
  'tests/fixtures/ftrace.txt': 'x-1 [001] 1.0: rseq_update: cpu_id=1 node_id=0 mm_cid=0 (the mm_cid model)\n',
  'workloads/seed.json': '{"index_by": "mm_cid", "description": "areas indexed by rseq\'s mm_cid"}\n',
  'fuzz/README.md': 'models/mm_cid/lesson_validate.test.ts\n',
};

test('model names only in their folders, on registry lines, or as a kernel ABI field', () => {
  assert.deepEqual(nameProblemsOf(MODELS), []);
});

test('a model name in generic C code fails, with file:line (comments count)', () => {
  const problems = nameProblemsOf({
    ...MODELS,
    'src/sched/core.c': 'int x;\n/* the cpupri model wants this */\n',
    'src/machine/cache_model.c': 'static int mm_cid_area;\n',
    'src/sched/sched_ops.c': 'extern const ks_sched_ops cpupri_ops;\n',   /* not marked registry */
    'include/kscope/sim.h': '#define AUTO "CPUPRI:v1"\n',
    'src/base/rng.c': 'int32_t mm_cid;  /* rseq */\n',                  /* an ABI field: allowed */
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]).sort(), [
    'include/kscope/sim.h:1',
    'src/machine/cache_model.c:1',
    'src/sched/core.c:2',
    'src/sched/sched_ops.c:1',
  ]);
  assert.match(problems.find((p) => p.startsWith('src/sched/core.c')), /names the model "cpupri" \(src\/algo\/cpupri\/\)/);
});

test('a leak in tools/ or tests/ outside a model folder fails', () => {
  const problems = nameProblemsOf({
    ...MODELS,
    'tools/layout/struct_layout.c': '#include "mm_cid/layout.inc"   /* registry */\nBEGIN(ks_cpupri_mask);\n',
    'tools/ingest/tally.c': 'int x;\n/* counts the mm_cid decisions */\n',
    'tests/test_sim_core.c': 'test_sim_new("classroom-8", json, 1, "mm_cid:v6.13");\n',
    'tests/test_main.c': '    mm_cid_tests,\n',                     /* not marked registry */
    'tests/sim_test_util.h': 'static const char *algo = "cpupri"; /* registry */\n', /* not a registry file */
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]).sort(), [
    'tests/sim_test_util.h:1',
    'tests/test_main.c:1',
    'tests/test_sim_core.c:1',
    'tools/ingest/tally.c:2',
    'tools/layout/struct_layout.c:2',
  ]);
});

test('a model\'s header outside its folder fails, even named after it', () => {
  const problems = nameProblemsOf({
    ...MODELS,
    'include/kscope/cpupri.h': '/* the cpupri views */\n',
    'include/kscope/native/conform.h': '/* the mm_cid conform host */\n',
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]).sort(),
    ['include/kscope/cpupri.h:1', 'include/kscope/native/conform.h:1']);
});

test('the ABI name passes only written as a field, not near the word rseq', () => {
  const problems = nameProblemsOf({
    ...MODELS,
    'src/sched/sim.c': [
      '    .mm_cid = sched_task_rseq_cid(s, t),',
      '/* rseq: the mm_cid model decides */',
      '    return "mm_cid:v6.18";   /* for rseq workloads */',
      '    static const char *const indexes[] = { "cpu", "mm_cid" };   /* rseq fields */',
      '    ops = sched_ops_find("mm_cid", &v);',
      ' *   reads its rseq cpu_id or mm_cid; librseq\'s BUILDOPT_RSEQ_PERCPU_MM_CID',
    ].join('\n') + '\n',
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]), ['src/sched/sim.c:2', 'src/sched/sim.c:3', 'src/sched/sim.c:5']);
});

test('READMEs, JSON and the Makefile are read; src/trace, fuzz and fixture data are not', () => {
  const problems = nameProblemsOf({
    ...MODELS,
    'Makefile': '# build the mm_cid tests\n',
    'workloads/README.md': '| seed.json | run it with mm_cid:v6.13 |\n',
    'tests/fixtures/README.md': 'captured with the mm_cid model on\n',
    'src/trace/README.md': 'the mm_cid model\n',
  });
  assert.deepEqual(problems.map((p) => p.split(': ')[0]).sort(),
    ['Makefile:1', 'tests/fixtures/README.md:1', 'workloads/README.md:1']);
});

test('the command fails on a leak in tests/', () => {
  const bad = makeTree({ ...MODELS, 'tests/test_workload.c': '/* the mm_cid model */\n' });
  try {
    assert.throws(() => execFileSync('node', [SCRIPT, bad], { cwd: bad, encoding: 'utf8' }), (err) => {
      assert.equal(err.status, 1);
      assert.match(err.stdout, /^tests\/test_workload\.c:1: names the model "mm_cid"/m);
      return true;
    });
  } finally {
    rmSync(bad, { recursive: true, force: true });
  }
});
