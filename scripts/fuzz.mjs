// `npm run fuzz -- [--seconds N] [target ...]`: runs the libFuzzer harnesses of
// wasm-core/fuzz (one per input reader; see wasm-core/fuzz/README.md) one after the
// other, ONE fuzzer process at a time under `nice -n 10` (the machines are shared).
//
//   --seconds N   fuzzing time per target (default 60)
//   --test        what `npm test` runs: replay every saved crash input of
//                 wasm-core/fuzz/regressions/<target>/ (one test each), then a short
//                 smoke run per target (--seconds, default 10); prints "N passed, N failed"
//   --report      prints the fuzzing time and executions recorded so far, per target
//   --list        prints the targets
//   --seeds       gathers each target's seeds (see below) and prints how many, no fuzzing
//
// Seeds: wasm-core/fuzz/corpus/<target>/ (written here), the public corpus in
// ../shared/corpus/public (or $KSCOPE_PUBLIC_CORPUS) when present, traces/, and the C
// tests' fixtures; copied (decompressed where needed) into .kscope/fuzz/<target>/seeds
// at each run, never into the repository (their licences are the upstreams').
// The growing corpus lives in .kscope/fuzz/<target>/corpus, crash inputs in
// .kscope/fuzz/<target>/artifacts. Every run appends a line to .kscope/fuzz/history.jsonl
// (target, seconds, CPU seconds, executions, exec/s, finding).
//
// SIGINT or SIGTERM stops the running fuzzer cleanly: libFuzzer prints its stats, the run is
// recorded with the CPU time it had (marked "interrupted"), and no further target starts.
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync,
  writeFileSync,
} from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const core = path.join(root, 'wasm-core');
const fuzzSrc = path.join(core, 'fuzz');
const work = path.join(root, '.kscope', 'fuzz');
const history = path.join(work, 'history.jsonl');
const publicCorpus = process.env.KSCOPE_PUBLIC_CORPUS
  ?? path.resolve(root, '..', 'shared', 'corpus', 'public');

// Per target: the longest input (libFuzzer's -max_len; longer seeds are cut) and
// where its seeds come from: [directory, file-name pattern] pairs.
const fixtures = path.join(core, 'tests', 'fixtures');
const traces = path.join(root, 'traces');
const workloads = path.join(core, 'workloads');
const TARGETS = {
  ftrace: {
    maxLen: 65536,
    seeds: [[publicCorpus, /^(trace-cmd-report|atrace-text)__/], [traces, /\.txt(\.xz)?$/],
      [fixtures, /^ftrace_.*\.txt$/]],
  },
  perf: {
    maxLen: 65536,
    seeds: [[publicCorpus, /^perf-(script|report)__/], [fixtures, /^perf_.*\.txt$/]],
  },
  systrace: {
    maxLen: 65536,
    seeds: [[publicCorpus, /^systrace-html__/]],
    // A page of our own around a fixture: two text blocks and a JSON one.
    extra: () => {
      const text = readFileSync(path.join(fixtures, 'ftrace_6.18_tgid_irq.txt'), 'utf8');
      const block = (t, body) => `<script class="trace-data" type="application/${t}">\n${body}</script>\n`;
      return {
        'own-page.html': `<!DOCTYPE html>\n<html><head><title>t</title></head><body>\n${
          block('text', text)}${block('text', text.split('\n').slice(0, 12).join('\n'))}${
          block('json', '{"traceEvents": [{"ph": "M", "pid": 1}]}\n')}</body></html>\n`,
      };
    },
  },
  tracedat: {
    maxLen: 262144,
    seeds: [[publicCorpus, /^trace-dat__.*\.dat$/], [traces, /\.dat(\.xz)?$/],
      [fixtures, /\.dat(\.gz)?$/]],
    // Small cuts of the public v6 files (their formats, cmdlines, options and first pages:
    // wasm-core/fuzz/make_tracedat_seeds.py), made here at run time, not kept in the repo.
    extra: (dir) => {
      const cuts = [[path.join(publicCorpus, 'trace-dat__lisa__sched_load.dat'), 'sched', 'power', 'ftrace'],
        [path.join(core, 'build', 'fixtures', 'amdgpu.dat'), 'sched', 'amdgpu', 'drm', 'ftrace']];
      for (const [file, ...systems] of cuts) {
        if (!existsSync(file)) continue;
        spawnSync('python3', [path.join(fuzzSrc, 'make_tracedat_seeds.py'), file,
          path.join(dir, `cut--${path.basename(file)}`), '2', ...systems], { stdio: 'ignore' });
      }
      return {};
    },
  },
  // The one interface over every decoder (trace_decoder.h): any format, through the registry.
  trace_decoder: {
    maxLen: 262144,
    seeds: [[publicCorpus, /^(trace-cmd-report|atrace-text|perf-script|perf-report|systrace-html)__/],
      [fixtures, /^(ftrace|perf)_.*\.txt$|\.dat(\.gz)?$/]],
  },
  json: {
    maxLen: 16384,
    seeds: [[workloads, /\.json$/], [traces, /\.json$/]],
  },
  workload: { maxLen: 16384, seeds: [[workloads, /\.json$/]] },
  lscpu: { maxLen: 16384, seeds: [] },
  sysfs: { maxLen: 16384, seeds: [] },
  // The lesson validator is TypeScript: a fast-check property test, run for the time
  // given (npm test runs it by count in the vitest suite, so --test leaves it out).
  lesson: { property: 'src/core/lesson/lesson_validate.fuzz.test.ts' },
};

function parseArgs(argv) {
  const opts = { seconds: null, test: false, report: false, list: false, seeds: false, targets: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--seconds') opts.seconds = Number(argv[++i]);
    else if (a.startsWith('--seconds=')) opts.seconds = Number(a.slice(10));
    else if (a === '--test') opts.test = true;
    else if (a === '--report') opts.report = true;
    else if (a === '--list') opts.list = true;
    else if (a === '--seeds') opts.seeds = true;
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else opts.targets.push(a);
  }
  if (opts.seconds !== null && !(opts.seconds > 0)) throw new Error('--seconds needs a number > 0');
  return opts;
}

/** The harnesses present (wasm-core/fuzz/fuzz_<target>.c) in TARGETS' order. */
function allTargets() {
  const present = readdirSync(fuzzSrc).filter((f) => /^fuzz_\w+\.c$/.test(f))
    .map((f) => f.slice(5, -2));
  const unknown = present.filter((t) => !TARGETS[t]);
  if (unknown.length) throw new Error(`no seed plan in scripts/fuzz.mjs for: ${unknown.join(', ')}`);
  return Object.keys(TARGETS).filter((t) => present.includes(t) || TARGETS[t].property);
}

/** Fills .kscope/fuzz/<t>/seeds afresh; returns how many seed files it holds. */
function prepareSeeds(target) {
  const spec = TARGETS[target];
  const dir = path.join(work, target, 'seeds');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const own = path.join(fuzzSrc, 'corpus', target);
  const sources = [[own, /./], ...spec.seeds];
  for (const [from, pattern] of sources) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from).filter((f) => pattern.test(f)).sort()) {
      const file = path.join(from, name);
      const dest = path.join(dir, `${path.basename(from)}--${name.replace(/\.(gz|xz)$/, '')}`);
      if (name.endsWith('.gz')) {
        writeFileSync(dest, gunzipSync(readFileSync(file)).subarray(0, spec.maxLen));
      } else if (name.endsWith('.xz')) {
        const r = spawnSync('xz', ['-dc', file], { maxBuffer: 1 << 30 });
        if (r.status === 0) writeFileSync(dest, r.stdout.subarray(0, spec.maxLen));
      } else {
        copyFileSync(file, dest);
      }
    }
  }
  for (const [name, text] of Object.entries(spec.extra?.(dir) ?? {})) {
    writeFileSync(path.join(dir, name), text);
  }
  return readdirSync(dir).length;
}

function build() {
  const r = spawnSync('make', ['-s', '-C', core, 'fuzz'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the fuzz targets failed (make -C wasm-core fuzz)');
}

/** The fuzzer running now (its `sh` wrapper), so that SIGINT/SIGTERM to this script can stop
 *  it cleanly; and whether that happened. */
let running = null;
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    interrupted = true;
    if (running) running.kill('SIGINT');
  });
}

// The wrapper runs the fuzzer in the background so that an interrupt reaches it as SIGINT
// (libFuzzer then prints its final stats and exits with 72, INTERRUPTED_EXIT), waits until it
// has really exited, and prints the CPU time of the shell and its children with `times`. The
// trap is set before the fuzzer starts, so an early interrupt stops it as soon as it has started
// (one that arrives before libFuzzer installs its handler is ignored: the run goes to its end).
const WRAPPER = 'p=; trap \'s=1; [ -n "$p" ] && kill -INT $p 2>/dev/null\' INT TERM; ' +
  'nice -n 10 "$@" & p=$!; [ -n "$s" ] && kill -INT $p 2>/dev/null; ' +
  'while :; do wait $p; rc=$?; kill -0 $p 2>/dev/null || break; done; times >&2; exit $rc';
/** libFuzzer's exit status after SIGINT (its -interrupted_exitcode default). */
export const INTERRUPTED_EXIT = 72;

/** Runs one fuzzer process under nice, its CPU time measured by the shell's `times`.
 *  Resolves {code, output, cpuSeconds, wallSeconds, interrupted}. */
function runFuzzer(bin, args, logFile, env = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('sh', ['-c', WRAPPER, 'sh', bin, ...args],
      { cwd: root, env: { ...process.env, ...env } });
    running = child;
    let output = '';
    for (const s of [child.stdout, child.stderr]) s.on('data', (c) => { output += c; });
    child.on('close', (code) => {
      running = null;
      writeFileSync(logFile, output);
      // `times` prints the shell's then its children's "user system" on two lines.
      const t = output.trim().split('\n').slice(-1)[0].match(/(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/);
      const cpuSeconds = t ? +t[1] * 60 + +t[2] + +t[3] * 60 + +t[4] : null;
      // Stopped by us, not by a finding: libFuzzer said so and exited with its interrupt status.
      const stopped = interrupted && code === INTERRUPTED_EXIT && /libFuzzer: run interrupted/.test(output);
      resolve({ code: stopped ? 0 : (code ?? 1), output, cpuSeconds,
        wallSeconds: (Date.now() - started) / 1000, interrupted: stopped });
    });
  });
}

const stat = (output, name) => {
  const m = output.match(new RegExp(`stat::${name}:\\s+(\\d+)`));
  return m ? +m[1] : null;
};

/** The sanitizer's or the harness's first line about a finding, if any. */
function findingOf(output) {
  const line = output.split('\n').find((l) => /ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error:|fuzz check failed|SUMMARY:/.test(l));
  return line ? line.trim() : null;
}

/** Runs the lesson validator's property test for `seconds`; returns {ok, line}. */
async function fuzzProperty(target, seconds) {
  const dir = path.join(work, target);
  mkdirSync(dir, { recursive: true });
  const r = await runFuzzer('npx', ['vitest', 'run', '--root', 'frontend', TARGETS[target].property],
    path.join(dir, 'last.log'), { KSCOPE_FUZZ_SECONDS: String(seconds) });
  const runs = [...r.output.matchAll(/fuzz-lesson (\S+): (\d+) runs in ([\d.]+) s/g)];
  const execs = runs.reduce((n, m) => n + +m[2], 0);
  const busy = runs.reduce((n, m) => n + +m[3], 0);
  const perSec = busy ? Math.round(execs / busy) : null;
  const finding = r.code === 0 ? null : (r.output.match(/Property failed[^\n]*|Error: [^\n]*/)?.[0] ?? `exit status ${r.code}`);
  appendFileSync(history, `${JSON.stringify({
    target, date: new Date().toISOString(), seconds, wall_s: +r.wallSeconds.toFixed(1),
    cpu_s: r.cpuSeconds, execs, exec_per_s: perSec, finding,
  })}\n`);
  const cpu = r.cpuSeconds === null ? '?' : r.cpuSeconds.toFixed(1);
  return {
    ok: !finding,
    line: `${target}: ${execs} cases (${runs.map((m) => `${m[1]} ${m[2]}`).join(', ')}), ${perSec ?? '?'} cases/s, ` +
      `CPU ${cpu} s: ${finding ? `FINDING ${finding} (see .kscope/fuzz/${target}/last.log)` : 'no finding'}`,
  };
}

/** Fuzzes one target for `seconds`; returns {ok, line}. */
async function fuzzTarget(target, seconds) {
  if (TARGETS[target].property) return fuzzProperty(target, seconds);
  const dir = path.join(work, target);
  const corpus = path.join(dir, 'corpus');
  const artifacts = path.join(dir, 'artifacts');
  mkdirSync(corpus, { recursive: true });
  mkdirSync(artifacts, { recursive: true });
  const nSeeds = prepareSeeds(target);
  const bin = path.join(core, 'build', 'fuzz', `fuzz_${target}`);
  const args = [corpus, path.join(dir, 'seeds'), `-max_total_time=${seconds}`,
    `-max_len=${TARGETS[target].maxLen}`, '-timeout=25', '-rss_limit_mb=2048',
    `-artifact_prefix=${artifacts}/`, '-print_final_stats=1'];
  const r = await runFuzzer(bin, args, path.join(dir, 'last.log'));
  const execs = stat(r.output, 'number_of_executed_units');
  const perSec = stat(r.output, 'average_exec_per_sec');
  const rss = stat(r.output, 'peak_rss_mb');
  const cov = [...r.output.matchAll(/ cov: (\d+) ft: (\d+) corp: (\d+)/g)].pop();
  const finding = r.code === 0 ? null : (findingOf(r.output) ?? `exit status ${r.code}`);
  const artifact = finding ? (r.output.match(/Test unit written to (\S+)/)?.[1] ?? null) : null;
  appendFileSync(history, `${JSON.stringify({
    target, date: new Date().toISOString(), seconds, wall_s: +r.wallSeconds.toFixed(1),
    cpu_s: r.cpuSeconds, execs, exec_per_s: perSec, peak_rss_mb: rss,
    cov: cov ? +cov[1] : null, corpus: cov ? +cov[3] : null, finding, artifact,
    ...(r.interrupted ? { interrupted: true } : {}),
  })}\n`);
  const cpu = r.cpuSeconds === null ? '?' : r.cpuSeconds.toFixed(1);
  const line = `${target}: ${execs ?? '?'} execs, ${perSec ?? '?'} exec/s, CPU ${cpu} s, ` +
    `cov ${cov?.[1] ?? '?'}, corpus ${cov?.[3] ?? '?'} (${nSeeds} seeds), peak RSS ${rss ?? '?'} MB: ` +
    (finding ? `FINDING ${finding}${artifact ? ` -> ${path.relative(root, artifact)}` : ''}` : 'no finding') +
    (r.interrupted ? ` (stopped after ${r.wallSeconds.toFixed(0)} s by an interrupt)` : '');
  return { ok: !finding, line };
}

/** Runs every saved crash input of a target once; returns [{ok, line}] (one per file). */
async function replayTarget(target) {
  const dir = path.join(fuzzSrc, 'regressions', target);
  if (TARGETS[target].property) return [];
  if (!existsSync(dir)) return [];
  const bin = path.join(core, 'build', 'fuzz', `fuzz_${target}`);
  const results = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'README.md') continue;
    const file = path.join(dir, name);
    mkdirSync(path.join(work, target), { recursive: true });
    const r = await runFuzzer(bin, ['-timeout=25', '-rss_limit_mb=2048', file],
      path.join(work, target, 'replay.log'));
    const finding = r.code === 0 ? null : (findingOf(r.output) ?? `exit status ${r.code}`);
    results.push({ ok: !finding, line: `replay ${target}/${name}: ${finding ?? 'clean'}` });
  }
  return results;
}

function report() {
  if (!existsSync(history)) {
    console.log('no fuzzing recorded yet (.kscope/fuzz/history.jsonl)');
    return;
  }
  const per = {};
  for (const l of readFileSync(history, 'utf8').split('\n').filter(Boolean)) {
    const r = JSON.parse(l);
    const p = (per[r.target] ??= { runs: 0, cpu: 0, execs: 0, findings: 0, last: null });
    p.runs++; p.cpu += r.cpu_s ?? 0; p.execs += r.execs ?? 0; p.findings += r.finding ? 1 : 0;
    p.last = r;
  }
  for (const [t, p] of Object.entries(per)) {
    console.log(`${t}: ${p.runs} runs, CPU ${(p.cpu / 3600).toFixed(2)} h, ${p.execs} execs ` +
      `(${p.cpu ? Math.round(p.execs / p.cpu) : '?'} exec per CPU-s), ${p.findings} with a finding; ` +
      `last: ${p.last.exec_per_s} exec/s, cov ${p.last.cov}, corpus ${p.last.corpus}`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  mkdirSync(work, { recursive: true });
  if (opts.report) return report();
  const targets = opts.targets.length ? opts.targets : allTargets();
  for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown target ${t} (try --list)`);
  if (opts.list) return console.log(targets.join('\n'));
  if (opts.seeds) {
    for (const t of targets.filter((x) => !TARGETS[x].property)) console.log(`${t}: ${prepareSeeds(t)} seeds`);
    return;
  }
  if (targets.some((t) => !TARGETS[t].property)) build();
  let passed = 0;
  let failed = 0;
  const note = ({ ok, line }) => {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
    if (ok) passed++; else failed++;
  };
  if (opts.test) {
    for (const t of targets) (await replayTarget(t)).forEach(note);
  }
  const seconds = opts.seconds ?? (opts.test ? 10 : 60);
  for (const t of targets) {
    if (interrupted) break;                              // SIGINT/SIGTERM: no further targets
    if (opts.test && TARGETS[t].property) continue;     // the vitest suite runs it
    note(await fuzzTarget(t, seconds));
  }
  if (failed) {
    console.log('A finding: the input is in .kscope/fuzz/<target>/artifacts; reproduce with ' +
      'wasm-core/build/fuzz/fuzz_<target> <file>. After the fix, keep it in ' +
      'wasm-core/fuzz/regressions/<target>/ (npm test replays it).');
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
  console.error(`fuzz: ${e.message}`);
  console.log('0 passed, 1 failed');
  process.exitCode = 2;
});
