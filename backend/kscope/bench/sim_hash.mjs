// The wasm side of `kscope sim`'s event-stream hash: runs a preset + workload + seed in
// the browser's module and prints one JSON line with the run's count and FNV-1a 64 hash.
//
//   node sim_hash.mjs --module .../kscope_core.mjs --preset P --workload W.json --seed S
//                     --until NS [--algo NAME]
//   {"events":N,"now_ns":T,"events_by_type":{...},"event_stream_hash":"<16 hex>"}
import { readFileSync } from 'node:fs';
import { WasmSim, fnv1a64, hashHex, loadCore, parseFlags } from './wasm_core.mjs';

const flags = parseFlags(process.argv.slice(2));
const M = await loadCore(flags.module);
const sim = new WasmSim(M, flags.preset, readFileSync(flags.workload, 'utf8'), flags.seed ?? '0', flags.algo ?? 'none');
let state;
const events = sim.forEachChunk({ untilNs: BigInt(flags.until ?? '0') }, (bytes) => {
  state = fnv1a64(bytes, state);
});
const stats = sim.stats();
sim.free();
if (stats.events !== events) throw new Error(`stats say ${stats.events} events, the run gave ${events}`);
console.log(JSON.stringify({ events, now_ns: stats.now_ns, events_by_type: stats.events_by_type,
  event_stream_hash: hashHex(state ?? fnv1a64([])) }));
