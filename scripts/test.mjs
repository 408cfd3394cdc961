// `npm test`, after scripts/setup.sh: runs every suite and sums them into one
// closing line "N passed, N failed". Each suite's own output streams through;
// its counts are read from its summary (or a JSON report). A suite that dies
// without a summary counts as one failure, so nothing can pass by crashing.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reports = path.join(root, '.kscope', 'reports');
mkdirSync(reports, { recursive: true });

/** Runs a command, echoing its output; resolves {code, output}. */
function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env } });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk) => {
        output += chunk;
        process.stdout.write(chunk);
      });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Counts from a plain "N passed, N failed" closing line (our C harness). */
function plainCounts(output) {
  const m = [...output.matchAll(/^(\d+) passed, (\d+) failed/gm)].pop();
  return m ? { passed: +m[1], failed: +m[2] } : null;
}

/** Counts from pytest's closing line, e.g. "== 12 passed, 1 failed, 2 errors in 0.5s ==". */
function pytestCounts(output) {
  const line = output.trim().split('\n').pop() ?? '';
  const count = (word) => +(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
  const passed = count('passed');
  const failed = count('failed') + count('errors?');
  const skipped = count('skipped');
  return passed + failed + skipped ? { passed, failed, skipped } : null;
}

/** Counts from node:test's TAP summary ("# pass N", "# fail N", "# skipped N"). */
function nodeTestCounts(output) {
  const count = (word) => [...output.matchAll(new RegExp(`^# ${word} (\\d+)$`, 'gm'))].pop()?.[1];
  const passed = count('pass');
  return passed === undefined ? null
    : { passed: +passed, failed: +(count('fail') ?? 0) + +(count('cancelled') ?? 0), skipped: +(count('skipped') ?? 0) };
}

function jsonReport(file, pick) {
  try {
    return pick(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
}

const vitestReport = path.join(reports, 'vitest.json');
const playwrightReport = path.join(reports, 'playwright.json');

const scriptTests = readdirSync(path.join(root, 'scripts'))
  .filter((f) => f.endsWith('.test.mjs')).sort().map((f) => `scripts/${f}`);
if (!scriptTests.length) throw new Error('scripts/*.test.mjs: none found (node --test would run this file)');

const suites = [
  {
    name: 'C core (native)',
    cmd: ['make', ['-s', '-C', 'wasm-core', 'test-native']],
    counts: plainCounts,
  },
  {
    name: 'C core (wasm under Node)',
    cmd: ['make', ['-s', '-C', 'wasm-core', 'test-wasm']],
    counts: plainCounts,
  },
  {
    name: 'C core under ASan+UBSan (native)',
    cmd: ['make', ['-s', '-C', 'wasm-core', 'test-sanitize']],
    counts: plainCounts,
  },
  {
    name: 'fuzz targets: saved crash inputs replayed, then a 10 s smoke each (libFuzzer)',
    cmd: ['node', ['scripts/fuzz.mjs', '--test', '--seconds', '10']],
    counts: plainCounts,
  },
  {
    name: 'wasm export list matches the public headers',
    cmd: ['node', ['scripts/check-exports.mjs']],
    counts: null,
  },
  {
    name: 'browser wasm within its size budget (300 KB, 120 KB gzipped; scripts/wasm-size.mjs)',
    cmd: ['node', ['scripts/wasm-size.mjs', '--check']],
    counts: null,
  },
  {
    name: 'C layering rule (base <- machine <- sched <- algo; trace, store on base; a model named only in its folders, on registry lines, as an ABI field)',
    cmd: ['node', ['scripts/check-c-layering.mjs']],
    counts: null,
  },
  {
    name: 'ARCHITECTURE.md "Adding an algorithm" matches the tree (every layer registers the same models)',
    cmd: ['node', ['scripts/check-adding-algorithm.mjs']],
    counts: null,
  },
  {
    // The scripts' own unit tests (scripts/*.test.mjs). Files are listed: given a folder (or
    // nothing), node --test would also run scripts/test.mjs (this file) as a test.
    name: 'scripts (node:test)',
    cmd: ['node', ['--test', ...scriptTests]],
    counts: nodeTestCounts,
  },
  {
    name: 'frontend layering rule',
    cmd: ['npm', ['run', '-s', '-w', 'frontend', 'check-imports']],
    counts: null,
  },
  {
    name: 'backend (pytest)',
    cmd: ['.venv/bin/python', ['-m', 'pytest', 'backend/tests', '-q', '-p', 'no:cacheprovider']],
    counts: pytestCounts,
  },
  {
    name: 'frontend (vitest)',
    before: () => rmSync(vitestReport, { force: true }),
    cmd: ['npx', ['vitest', 'run', '--root', 'frontend', '--reporter=default',
      '--reporter=json', `--outputFile.json=${vitestReport}`]],
    counts: () => jsonReport(vitestReport, (r) => ({
      passed: r.numPassedTests, failed: r.numFailedTests + (r.numFailedTestSuites ?? 0),
      skipped: r.numPendingTests + r.numTodoTests,
    })),
  },
  {
    name: 'end-to-end (Playwright, Debian Chromium)',
    before: () => rmSync(playwrightReport, { force: true }),
    cmd: ['npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json']],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
    counts: () => jsonReport(playwrightReport, (r) => ({
      passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected + r.errors.length,
      skipped: r.stats.skipped,
    })),
  },
];

const total = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
for (const suite of suites) {
  console.log(`\n=== ${suite.name}`);
  suite.before?.();
  const started = Date.now();
  const { code, output } = await run(...suite.cmd, suite.env);
  let counts = suite.counts ? suite.counts(output) : code === 0 ? { passed: 1, failed: 0 } : null;
  if (!counts) counts = { passed: 0, failed: 1 };                // died without a summary
  if (code !== 0 && counts.failed === 0) counts.failed = 1;      // a non-zero exit is a failure
  counts.skipped ??= 0;
  for (const k of Object.keys(total)) total[k] += counts[k];
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  lines.push(`${counts.failed ? 'FAIL' : 'ok  '} ${suite.name}: ${counts.passed} passed, ` +
    `${counts.failed} failed, ${counts.skipped} skipped (${secs} s)`);
}
console.log('\n=== summary');
for (const line of lines) console.log(line);
const skipped = total.skipped ? `, ${total.skipped} skipped` : '';
console.log(`${total.passed} passed, ${total.failed} failed${skipped}`);
process.exit(total.failed ? 1 : 0);
