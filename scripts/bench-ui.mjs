// `npm run bench:ui`: the Traces page at scale, measured in headless Chromium
// (figures, not a test; never part of `npm test`).
//
// 1. Generates ~1 M- and ~10 M-event ftrace text with the SIMULATOR's ftrace
//    export (kscope.bench.ingest_bench.generate: hackbench-like pipe pairs on
//    classroom-8, `kscope sim ... --export ftrace`), unless already in the
//    work folder (KSCOPE_BENCH_DIR, default /tmp/kscope-bench-ui).
// 2. Starts `kscope serve` on KSCOPE_BENCH_PORT (default 8773) with a fresh
//    data dir and uploads each file (POST /api/traces, streamed): the server
//    ingests it like any user upload.
// 3. Opens each stored trace on /traces in /usr/bin/chromium and drives zoom
//    (synthetic wheel events, which d3-zoom handles) and pan (arrow keys) for
//    FRAMES animation frames, in cycles: zoom in ~6 decades to exact events,
//    pan, zoom back out. Each frame's requestAnimationFrame delta and the
//    timeline's own draw time (window.__kscopeDrawMs, pushed by the view) are
//    recorded; pauses between phases let the windowed event fetches land.
// 4. Heap: CDP Runtime.getHeapUsage after a forced GC (JS) of the page and of
//    each web worker (attached through the browser's CDP session), plus the
//    bytes of every WebAssembly.Memory the page created (hooked at
//    instantiation), at the end of the drive; and the largest used JS heap of
//    the page sampled during it (performance.memory).
//
// Prints p50/p95 frame time, p95 draw time, heap per trace, and the 10M/1M
// heap ratio. Targets (issue 5): p95 frame <= 20 ms (>= 50 fps) at 10 M;
// heap <= 256 MB and within 10% of the 1 M figure.
import { spawn, execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.KSCOPE_BENCH_PORT ?? 8773);
const work = process.env.KSCOPE_BENCH_DIR ?? '/tmp/kscope-bench-ui';
const FRAMES = Number(process.env.KSCOPE_BENCH_FRAMES ?? 600);
const SIZES = (process.env.KSCOPE_BENCH_EVENTS ?? '1000000,10000000').split(',').map(Number);
const TARGETS = { p95FrameMs: 20, heapMB: 256, heapRatio: 1.1 };

function generate(events) {
  mkdirSync(work, { recursive: true });
  const file = path.join(work, `hackbench-${events}.txt`);
  if (existsSync(file) && statSync(file).size > 0) return file;
  console.error(`bench:ui: generating ${events.toLocaleString('en')} events with the simulator (ftrace export)…`);
  const py = `from pathlib import Path\nfrom kscope.bench.ingest_bench import generate\nimport sys\n` +
    `p, n = generate(${events}, Path(sys.argv[1]))\nprint(p)`;
  const out = execFileSync(path.join(root, '.venv/bin/python'), ['-c', py, work], { encoding: 'utf-8' }).trim();
  return out;
}

function upload(file) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST',
      path: `/api/traces?name=${encodeURIComponent(path.basename(file))}`,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': statSync(file).size } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body)) : reject(new Error(`${file}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

async function waitForServer() {
  for (let i = 0; i < 150; i++) {
    try {
      const ok = await new Promise((resolve) => {
        http.get({ host: '127.0.0.1', port, path: '/api/health' }, (r) => { r.resume(); resolve(r.statusCode === 200); })
          .on('error', () => resolve(false));
      });
      if (ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`kscope serve did not answer on port ${port}`);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

/** In the page: drive zoom and pan for `frames` frames; returns per-frame rAF deltas and draw times. */
async function drive(page, frames) {
  return page.evaluate(async (frames) => {
    const canvas = document.querySelector('[data-testid="timeline-canvas"]');
    const box = canvas.getBoundingClientRect();
    const deltas = [];
    const sink = window.__kscopeDrawMs;
    sink.length = 0;
    const heapSamples = [];
    const frame = () => new Promise((r) => requestAnimationFrame(r));
    const settle = async () => {
      // Let a debounced window fetch land (data-loading clears), at most 10 s; not timed.
      const t = performance.now();
      await new Promise((r) => setTimeout(r, 150));
      while (document.querySelector('[data-testid="timeline"]').dataset.loading && performance.now() - t < 10_000) {
        await new Promise((r) => setTimeout(r, 30));
      }
      await frame();
    };
    const wheel = (dy, x) => canvas.dispatchEvent(new WheelEvent('wheel', { deltaY: dy, deltaMode: 0, clientX: box.left + x,
      clientY: box.top + 40, bubbles: true, cancelable: true, view: window }));
    const mouse = (type, x) => (type === 'mousedown' ? canvas : window).dispatchEvent(new MouseEvent(type, {
      clientX: box.left + x, clientY: box.top + 40, button: 0, buttons: type === 'mouseup' ? 0 : 1, bubbles: true,
      cancelable: true, view: window }));
    const nsPerPx = () => {
      const [a, b] = document.querySelector('[data-testid="timeline"]').dataset.window.split('-').map(Number);
      return (b - a) / box.width;
    };
    // d3-zoom: a wheel deltaY of -100 zooms by 2^0.2. Zoom in to ~2 µs per pixel: these
    // simulated traces hold ~6 events per µs, so the view's padded window holds ~40 k
    // events, drawn exactly (the page fetches exact events when a window holds <= 150 k).
    const zoomFrames = Math.max(10, Math.ceil(Math.log(nsPerPx() / 2_000) / Math.log(2 ** 0.2)))
    // One cycle: zoom in (zoomFrames frames), settle, drag-pan 80 frames by 10 px
    // each (right then left), settle, zoom back out.
    const plan = [];
    while (plan.length < frames * 1.2) {
      const x = 100 + ((plan.length * 37) % Math.max(1, box.width - 200));
      for (let i = 0; i < zoomFrames; i++) plan.push(() => wheel(-100, x));
      plan.push('settle');
      plan.push(() => mouse('mousedown', 800));
      for (let i = 1; i <= 80; i++) plan.push(() => mouse('mousemove', 800 - 10 * (i <= 40 ? i : 80 - i)));
      plan.push(() => mouse('mouseup', 800));
      plan.push('settle');
      for (let i = 0; i < zoomFrames; i++) plan.push(() => wheel(100, x));
      plan.push('settle');
    }
    let done = 0;
    let last = await frame();
    let levels = { slices: 0, buckets: 0 };
    const slow = [];
    const work = [];
    for (const step of plan) {
      if (done >= frames) break;
      if (step === 'settle') {
        await settle();
        last = await frame();
        continue;
      }
      const dispatched = performance.now();
      step();
      const now = await frame();
      // Main-thread work for this input: from dispatching it to the end of the draw it caused.
      if (window.__kscopeDrawEnd > dispatched) work.push(window.__kscopeDrawEnd - dispatched);
      deltas.push(now - last);
      last = now;
      done++;
      const level = document.querySelector('[data-testid="timeline"]').dataset.level;
      levels[level]++;
      slow.push([deltas[deltas.length - 1], level, sink.length ? sink[sink.length - 1] : -1, plan.indexOf(step)]);
      if (done % 50 === 0 && performance.memory) heapSamples.push(performance.memory.usedJSHeapSize);
    }
    return { deltas, draws: [...sink], work, levels, heapSamples, zoomFrames, slow: slow.sort((a, b) => b[0] - a[0]).slice(0, 25) };
  }, frames);
}

async function workerHeaps(browser) {
  const cdp = await browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    let total = 0;
    let count = 0;
    for (const t of targetInfos.filter((x) => x.type === 'worker')) {
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
      const ask = (id, method) => new Promise((resolve) => {
        const on = (m) => {
          const msg = JSON.parse(m.message);
          if (m.sessionId === sessionId && msg.id === id) {
            cdp.off('Target.receivedMessageFromTarget', on);
            resolve(msg.result);
          }
        };
        cdp.on('Target.receivedMessageFromTarget', on);
        void cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method }) });
      });
      await ask(1, 'HeapProfiler.collectGarbage');
      const usage = await ask(2, 'Runtime.getHeapUsage');
      total += usage.usedSize;
      count++;
      await cdp.send('Target.detachFromTarget', { sessionId });
    }
    return { workers: total, workerCount: count };
  } finally {
    await cdp.detach();
  }
}

async function heapOf(page, cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize, totalSize } = await cdp.send('Runtime.getHeapUsage');
  const wasm = await page.evaluate(() => (window.__kscopeWasmMemories ?? []).reduce((n, m) => n + m.buffer.byteLength, 0));
  // Web workers (the window fetcher) have their own isolates: attach to each through the
  // browser's CDP session, collect its garbage and read its heap the same way.
  const { workers, workerCount } = await workerHeaps(page.context().browser());
  return { jsUsed: usedSize, jsTotal: totalSize, wasm, workers, workerCount };
}

async function measure(browser, trace, token) {
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  await context.addInitScript((tok) => {
    localStorage.setItem('kscope.traceToken', tok);
    window.__kscopeDrawMs = [];
    window.__kscopeWasmMemories = [];
    const keep = (result) => {
      const inst = result.instance ?? result;
      for (const v of Object.values(inst.exports ?? {})) if (v instanceof WebAssembly.Memory) window.__kscopeWasmMemories.push(v);
      return result;
    };
    const inst = WebAssembly.instantiate;
    WebAssembly.instantiate = (...a) => inst.apply(WebAssembly, a).then(keep);
    const stream = WebAssembly.instantiateStreaming;
    if (stream) WebAssembly.instantiateStreaming = (...a) => stream.apply(WebAssembly, a).then(keep);
  }, token);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const cdp = await context.newCDPSession(page);
  await page.goto(`http://127.0.0.1:${port}/traces`);
  const before = await heapOf(page, cdp);
  const row = page.getByTestId('trace-row').filter({ hasText: trace.name }).first();
  const t0 = Date.now();
  await row.getByRole('button', { name: 'Open' }).click();
  await page.getByTestId('timeline-canvas').waitFor({ timeout: 60_000 });
  const openMs = Date.now() - t0;
  await page.waitForTimeout(300);
  const run = await drive(page, FRAMES);
  const after = await heapOf(page, cdp);
  await context.close();
  return { openMs, run, before, after, errors };
}

const MB = (b) => b / (1 << 20);

async function main() {
  const files = SIZES.map(generate);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kscope-bench-ui-data-'));
  const server = spawn(path.join(root, '.venv/bin/kscope'), ['serve', '--host', '127.0.0.1', '--port', String(port)], {
    env: { ...process.env, KSCOPE_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'inherit'] });
  const results = [];
  try {
    await waitForServer();
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox',
      '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      '--disable-quic', '--enable-precise-memory-info'] });
    try {
      for (const file of files) {
        const t = Date.now();
        const trace = await upload(file);
        const ingestS = (Date.now() - t) / 1000;
        console.error(`bench:ui: ${trace.name}: ${trace.events.toLocaleString('en')} events ingested in ${ingestS.toFixed(1)} s; driving ${FRAMES} frames…`);
        const m = await measure(browser, trace, trace.token);
        results.push({ file: path.basename(file), events: trace.events, cpus: trace.cpus, ingestS, ...m });
      }
    } finally {
      await browser.close();
    }
  } finally {
    server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log(`kscope bench:ui  (Chromium ${execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf-8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}, ${os.cpus().length} CPUs, ${FRAMES} frames per trace; traces: simulator ftrace export, hackbench pipe pairs on classroom-8)`);
  console.log(`load average during the run: ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} (frame times include waiting for a shared CPU)`);
  console.log('frame = requestAnimationFrame delta; work = input dispatched -> its draw finished (main thread); draw = the canvas draw alone');
  console.log('events        CPUs  open   frame p50  frame p95  work p95   draw p95   fps(p95)  frames drawn as  JS heap   wasm   total   peak JS');
  for (const r of results) {
    const p95 = pct(r.run.deltas, 95);
    const heap = MB(r.after.jsUsed + r.after.wasm + r.after.workers);
    const peak = r.run.heapSamples.length ? MB(Math.max(...r.run.heapSamples)) : NaN;
    console.log(`${r.events.toLocaleString('en').padEnd(12)}  ${String(r.cpus).padStart(4)}  ${(r.openMs / 1000).toFixed(1).padStart(4)} s` +
      `  ${pct(r.run.deltas, 50).toFixed(1).padStart(6)} ms  ${p95.toFixed(1).padStart(6)} ms  ${pct(r.run.work, 95).toFixed(1).padStart(6)} ms  ${pct(r.run.draws, 95).toFixed(2).padStart(6)} ms` +
      `  ${(1000 / p95).toFixed(0).padStart(6)}    ${r.run.levels.slices} slices/${r.run.levels.buckets} buckets` +
      `  ${MB(r.after.jsUsed).toFixed(1).padStart(6)} MB ${MB(r.after.wasm).toFixed(1).padStart(5)} MB ${heap.toFixed(1).padStart(6)} MB ${peak.toFixed(1).padStart(6)} MB`);
    console.log(`  + ${r.after.workerCount} web worker(s) (window fetch/decode): ${MB(r.after.workers).toFixed(1)} MB JS heap, counted in the total`);
    if (process.env.KSCOPE_BENCH_DEBUG) console.log(JSON.stringify({ zoomFrames: r.run.zoomFrames, slow: r.run.slow }))
    if (r.errors.length) console.log(`  page errors: ${r.errors.join(' | ')}`);
  }
  if (results.length >= 2) {
    const [small, big] = [results[0], results[results.length - 1]];
    const total = (r) => r.after.jsUsed + r.after.wasm + r.after.workers;
    const ratio = total(big) / total(small);
    const p95 = pct(big.run.deltas, 95);
    const heap = MB(total(big));
    console.log(`heap ${big.events.toLocaleString('en')} / ${small.events.toLocaleString('en')} = ${ratio.toFixed(3)}`);
    console.log(`targets: p95 frame <= ${TARGETS.p95FrameMs} ms at the big trace: ${p95 <= TARGETS.p95FrameMs ? 'met' : 'NOT met'} (${p95.toFixed(1)} ms); ` +
      `heap <= ${TARGETS.heapMB} MB: ${heap <= TARGETS.heapMB ? 'met' : 'NOT met'} (${heap.toFixed(1)} MB); ` +
      `within 10% of the small trace's: ${Math.abs(ratio - 1) <= TARGETS.heapRatio - 1 ? 'met' : 'NOT met'} (${ratio.toFixed(3)})`);
  }
}

main().catch((err) => {
  console.error(`bench:ui: ${err.stack ?? err}`);
  process.exit(1);
});
