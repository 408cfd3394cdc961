// Unit tests of scripts/wasm-size.mjs: the budget judgement and the gzip measure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import { BUDGET, measure, overBudget } from './wasm-size.mjs';

test('within budget: nothing to say', () => {
  assert.deepEqual(overBudget({ bytes: BUDGET.bytes, gzipBytes: BUDGET.gzipBytes }), []);
});

test('over either budget is named', () => {
  assert.equal(overBudget({ bytes: BUDGET.bytes + 1, gzipBytes: 1 }).length, 1);
  assert.match(overBudget({ bytes: 1, gzipBytes: BUDGET.gzipBytes + 1 })[0], /gzipped/);
  assert.equal(overBudget({ bytes: 676_785, gzipBytes: 215_000 }).length, 2);   // the core before issue 14
});

test('measure: raw bytes, and gzip that shrinks repetition but not noise', () => {
  const zeros = measure(new Uint8Array(100_000));
  assert.equal(zeros.bytes, 100_000);
  assert.ok(zeros.gzipBytes < 1_000);
  const noise = measure(randomBytes(100_000));
  assert.ok(noise.gzipBytes > 99_000);
});
