// `npm run bench:cli`: what each documented way into the CLI adds over the program itself.
// Runs `kscope --version` through the venv's program, scripts/kscope and
// `npm run -s kscope --`, interleaved (so a busy moment hits all three alike), and prints
// each one's min, median and p90 wall time and what it adds over the program (min and
// median), in ms; on a busy machine the min is the steadier figure.
// Target (issue 13, item 16): scripts/kscope adds <= 50 ms when everything is set up.
// Node built-ins only. `--runs N` (default 21); `--json` prints one JSON document.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1]) || 21;
const json = args.includes('--json');

const ways = {
  program: ['.venv/bin/kscope', ['--version']],
  launcher: ['scripts/kscope', ['--version']],
  npm_run: ['npm', ['run', '-s', 'kscope', '--', '--version']],
};

function timeOnce([cmd, argv]) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
timeOnce(ways.launcher);                        // set-up on first use, outside the figures
const samples = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let i = 0; i < runs; i++) {
  for (const [k, way] of Object.entries(ways)) samples[k].push(timeOnce(way));
}
const result = { runs, target_added_ms: 50, ways: {} };
for (const [k, xs] of Object.entries(samples)) {
  result.ways[k] = { min_ms: +Math.min(...xs).toFixed(1), median_ms: +q(xs, 0.5).toFixed(1),
    p90_ms: +q(xs, 0.9).toFixed(1),
    added_min_ms: +(Math.min(...xs) - Math.min(...samples.program)).toFixed(1),
    added_median_ms: +(q(xs, 0.5) - q(samples.program, 0.5)).toFixed(1) };
}
result.launcher_within_target = result.ways.launcher.added_median_ms <= 50;
if (json) {
  console.log(JSON.stringify(result, null, 2));
} else {
  console.log(`kscope --version, ${runs} runs each, interleaved`);
  for (const [k, v] of Object.entries(result.ways)) {
    console.log(`${k.padEnd(9)} min ${String(v.min_ms).padStart(7)} ms  median ${String(v.median_ms).padStart(7)} ms` +
      `  p90 ${String(v.p90_ms).padStart(7)} ms  added: min ${String(v.added_min_ms).padStart(7)} ms,` +
      ` median ${String(v.added_median_ms).padStart(7)} ms`);
  }
  console.log(`launcher adds ${result.ways.launcher.added_median_ms} ms (target <= 50 ms): ` +
    (result.launcher_within_target ? 'met' : 'NOT met'));
}
