// FNV-1a 64 of everything on stdin, printed as {"bytes":N,"event_stream_hash":"<16 hex>"}:
// the bench hashes the native run's records here, with the same code as the wasm run's.
import { fnv1a64, hashHex } from './wasm_core.mjs';

let state;
let bytes = 0;
for await (const chunk of process.stdin) {
  state = fnv1a64(chunk, state);
  bytes += chunk.length;
}
console.log(JSON.stringify({ bytes, event_stream_hash: hashHex(state ?? fnv1a64([])) }));
