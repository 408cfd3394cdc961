// The wasm half of `kscope bench core`: the scheduler core's hot loop in the browser's
// module under Node. Each of `repeat` runs builds a fresh simulation (untimed) and times
// one ks_sim_run_until call producing `events` events without keeping them, exactly as
// the native half does through ctypes; a last untimed run hashes the same events.
//
//   node bench_core.mjs --module .../kscope_core.mjs --preset P --workload W.json --seed S
//                       --events N --repeat R
//   {"events":N,"seconds":[...],"best_seconds":S,"events_per_s":R,"event_stream_hash":"..."}
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { WasmSim, fnv1a64, hashHex, loadCore, parseFlags } from './wasm_core.mjs';

const flags = parseFlags(process.argv.slice(2));
const M = await loadCore(flags.module);
const json = readFileSync(flags.workload, 'utf8');
const want = Number(flags.events);
const seconds = [];
let events = 0;
for (let r = 0; r < Number(flags.repeat ?? 3); r++) {
  const sim = new WasmSim(M, flags.preset, json, flags.seed);
  const t0 = performance.now();
  events = sim.runUntil({ maxEvents: want });
  seconds.push((performance.now() - t0) / 1000);
  sim.free();
}
const sim = new WasmSim(M, flags.preset, json, flags.seed);
let state;
const hashed = sim.forEachChunk({ maxEvents: want }, (bytes) => { state = fnv1a64(bytes, state); });
sim.free();
if (hashed !== events) throw new Error(`timed runs gave ${events} events, the hashed run ${hashed}`);
const best = Math.min(...seconds);
console.log(JSON.stringify({ events, seconds, best_seconds: best, events_per_s: events / best,
  event_stream_hash: hashHex(state ?? fnv1a64([])) }));
