// `kscope bench frame`: what one animation frame costs the browser's module under Node.
//
// A frame = 2 wasm calls + reads: ks_sim_run_until to the next tick of simulated time
// (until_ns = k x tick, without an event log), ks_sim_frame_get, then the whole frame read
// through typed-array views (header, every CPU, every task, every runqueue entry), as a
// view would before drawing. Frames after `warmup` are timed; percentiles by nearest rank.
// frame_read_p95_ms is the p95 of the frame_get + read part alone.
//
//   node bench_frame.mjs --module .../kscope_core.mjs --preset P --workload W.json --seed S
//                        --frames N --tick-ns T [--warmup W]
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { WasmSim, loadCore, parseFlags } from './wasm_core.mjs';

const flags = parseFlags(process.argv.slice(2));
const M = await loadCore(flags.module);
const sim = new WasmSim(M, flags.preset, readFileSync(flags.workload, 'utf8'), flags.seed);
const frames = Number(flags.frames);
const warmup = Number(flags.warmup ?? 10);
const tick = BigInt(flags['tick-ns']);

/** Reads every field of the frame at address f; returns a checksum (so nothing is skipped). */
function readFrame(f) {
  const buf = M.HEAPU8.buffer; // re-read: a call may have grown memory
  const head = new Int32Array(buf, f, 12);
  const [nrCpus, nrTasks, nrRq, , cpusOff, tasksOff, rqOff, size] = head.subarray(4);
  const i32 = new Int32Array(buf, f, size >>> 2);
  const u64 = new BigUint64Array(buf, f, size >>> 3);
  const u8 = new Uint8Array(buf, f, size);
  let sum = Number(u64[0]) + Number(u64[1]);
  for (let c = 0, i = cpusOff >>> 2; c < nrCpus; c++, i += 6) {
    sum += i32[i] + i32[i + 1] + i32[i + 2] + i32[i + 3] + Number(u64[(i >>> 1) + 2]);
  }
  for (let t = 0, i = tasksOff >>> 2; t < nrTasks; t++, i += 16) {
    for (let k = 0; k < 8; k++) sum += i32[i + k];
    sum += Number(u64[(i >>> 1) + 4]) + Number(u64[(i >>> 1) + 5]);
    const comm = (i << 2) + 48;
    for (let k = 0; k < 16 && u8[comm + k]; k++) sum += u8[comm + k];
  }
  for (let r = 0, i = rqOff >>> 2; r < nrRq; r++) sum += i32[i + r];
  return { sum, nrCpus, nrTasks };
}

const times = [], frameTimes = [];
let events = 0, checksum = 0, shape = { nrCpus: 0, nrTasks: 0 }, nowNs = 0n;
for (let k = 1; k <= frames + warmup; k++) {
  const t0 = performance.now();
  const n = sim.runUntil({ untilNs: tick * BigInt(k) });
  const t1 = performance.now();
  const f = M._ks_sim_frame_get(sim.sim);
  shape = readFrame(f);
  const t2 = performance.now();
  const ms = t2 - t0;
  checksum += shape.sum;
  nowNs = new BigUint64Array(M.HEAPU8.buffer, f, 1)[0];
  if (k > warmup) {
    times.push(ms);
    frameTimes.push(t2 - t1);
    events += n;
  }
  if (n === 0) throw new Error(`the workload ended after ${k} frames: give it a longer duration_ms`);
}
sim.free();
times.sort((a, b) => a - b);
frameTimes.sort((a, b) => a - b);
const pct = (p, xs = times) => xs[Math.max(1, Math.ceil((p / 100) * xs.length)) - 1];
const round = (x) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  frames: times.length, p50_ms: round(pct(50)), p95_ms: round(pct(95)), max_ms: round(times.at(-1)),
  mean_ms: round(times.reduce((a, b) => a + b, 0) / times.length),
  frame_read_p95_ms: round(pct(95, frameTimes)),
  events_per_frame_mean: Math.round(events / times.length), warmup_frames: warmup,
  cpus: shape.nrCpus, tasks: shape.nrTasks, simulated_ns: Number(nowNs), checksum,
}));
