// The browser's wasm module (wasm-core/build/wasm/kscope_core.mjs) under Node, for the
// backend's cross-checks and benchmarks: the same .mjs + .wasm the frontend loads,
// the bytes passed as wasmBinary (Node cannot fetch a file: URL).
//
// Struct layouts are wasm32's (kscope/sim.h): ks_sim_config is u64 seed @0,
// const char *algo @8, ks_cache_params @12 (32 bytes); ks_run_limit is u64 until_ns @0,
// u32 type_mask @8, i32 tid @12, u32 max_events @16 (24 bytes); ks_event is 96 bytes.
import { readFileSync } from 'node:fs';

export const EVENT_BYTES = 96;
export const EVENT_TYPES = [
  'generic', 'sched_switch', 'sched_waking', 'sched_wakeup', 'sched_wakeup_new',
  'sched_migrate_task', 'sched_process_fork', 'sched_process_exit', 'sched_process_free',
  'rseq_update', 'kmem_cache_alloc', 'kmem_cache_free',
  'sheaf_refill', 'sheaf_flush', 'barn_get', 'barn_put', // kscope's own (no kernel tracepoint)
];
// ks_sim_stats: now_ns, events, events_by_type[KS_EV_TYPE_COUNT], access_ns, lines_from[8], 2 hitm
const STATS_BYTES = 232; // 8 * (2 + 16 + 1 + 8 + 2): a literal, checked against the C layout by test_struct_layouts
const SCRATCH_BYTES = 512;
// Scratch layout: config @0 (32), run limit @32 (24), u32 n @56, out pointer @60,
// ks_parse_error @64 (168), ks_sim_stats @232 (232).
const S_CONFIG = 0, S_LIMIT = 32, S_N = 56, S_OUT = 60, S_PERR = 64, S_STATS = 232;

/** Command-line flags `--name value` as an object of strings. */
export function parseFlags(argv) {
  const flags = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument ${argv[i]}`);
    flags[argv[i].slice(2)] = argv[i + 1];
  }
  return flags;
}

/** Loads the module from the path of its .mjs (the .wasm beside it). */
export async function loadCore(modulePath) {
  const { default: createKscopeCore } = await import(modulePath);
  const wasmBinary = readFileSync(modulePath.replace(/\.mjs$/, '.wasm'));
  return createKscopeCore({ wasmBinary });
}

function check(M, status, what) {
  if (status !== 0) throw new Error(`${what}: ${M.UTF8ToString(M._ks_status_message(status))} (status ${status})`);
}

/** A running simulation in the wasm module: preset + workload + seed, with one scratch block. */
export class WasmSim {
  constructor(M, preset, workloadJson, seed, algo = 'none') {
    this.M = M;
    this.scratch = M._malloc(SCRATCH_BYTES);
    M.HEAPU8.fill(0, this.scratch, this.scratch + SCRATCH_BYTES);
    const name = this.cstring(preset);
    check(M, M._ks_topology_from_preset(name, this.scratch + S_OUT), `preset ${preset}`);
    M._free(name);
    this.topo = M.HEAPU32[(this.scratch + S_OUT) >>> 2];
    const config = this.scratch + S_CONFIG;
    M._ks_cache_default_params(config + 12);
    new BigUint64Array(M.HEAPU8.buffer, config, 1)[0] = BigInt(seed);
    this.algo = this.cstring(algo);
    M.HEAPU32[(config + 8) >>> 2] = this.algo;
    const json = this.cstring(workloadJson);
    const status = M._ks_sim_new(this.topo, json, M.lengthBytesUTF8(workloadJson), config,
      this.scratch + S_OUT, this.scratch + S_PERR);
    M._free(json);
    if (status !== 0) {
      const e = this.scratch + S_PERR;
      const line = M.HEAP32[e >>> 2];
      const detail = `${M.UTF8ToString(e + 8)}: ${M.UTF8ToString(e + 40)} (line ${line})`;
      this.free();
      throw new Error(`workload refused: ${detail}`);
    }
    this.sim = M.HEAPU32[(this.scratch + S_OUT) >>> 2];
  }

  cstring(text) {
    const n = this.M.lengthBytesUTF8(text) + 1;
    const p = this.M._malloc(n);
    this.M.stringToUTF8(text, p, n);
    return p;
  }

  /** ks_sim_run_until with a limit (0 = none), into log (0 = no log); returns the event count. */
  runUntil({ untilNs = 0n, typeMask = 0, tid = 0, maxEvents = 0 } = {}, log = 0) {
    const M = this.M, l = this.scratch + S_LIMIT;
    new BigUint64Array(M.HEAPU8.buffer, l, 1)[0] = BigInt(untilNs);
    M.HEAPU32[(l + 8) >>> 2] = typeMask;
    M.HEAP32[(l + 12) >>> 2] = tid;
    M.HEAPU32[(l + 16) >>> 2] = maxEvents;
    M.HEAPU32[(l + 20) >>> 2] = 0;
    check(M, M._ks_sim_run_until(this.sim, l, log, this.scratch + S_N), 'ks_sim_run_until');
    return M.HEAPU32[(this.scratch + S_N) >>> 2];
  }

  /**
   * Runs in chunks of at most `chunk` events (to untilNs, or maxEvents in all, or the end),
   * calling onChunk(bytes) with each chunk's records (a view valid during the call).
   */
  forEachChunk({ untilNs = 0n, maxEvents = 0, chunk = 65536 }, onChunk) {
    const M = this.M;
    let total = 0;
    for (;;) {
      const want = maxEvents ? Math.min(chunk, maxEvents - total) : chunk;
      if (want <= 0) return total;
      check(M, M._ks_event_log_new(this.scratch + S_OUT), 'ks_event_log_new');
      const log = M.HEAPU32[(this.scratch + S_OUT) >>> 2];
      const n = this.runUntil({ untilNs, maxEvents: want }, log);
      const data = M._ks_event_log_data(log);
      const bytes = M.HEAPU8.subarray(data, data + n * EVENT_BYTES);
      const lastTs = n ? new DataView(bytes.buffer, data + (n - 1) * EVENT_BYTES, 8).getBigUint64(0, true) : 0n;
      if (n) onChunk(bytes);
      M._ks_event_log_free(log);
      total += n;
      if (n < want || (untilNs && lastTs >= BigInt(untilNs))) return total;
    }
  }

  /** ks_sim_get_stats: now_ns, events and events by type name. */
  stats() {
    const M = this.M, p = this.scratch + S_STATS;
    check(M, M._ks_sim_get_stats(this.sim, p), 'ks_sim_get_stats');
    const u64 = new BigUint64Array(M.HEAPU8.buffer, p, STATS_BYTES / 8);
    const byType = {};
    EVENT_TYPES.forEach((name, i) => { byType[name] = Number(u64[2 + i]); });
    return { now_ns: Number(u64[0]), events: Number(u64[1]), events_by_type: byType };
  }

  free() {
    const M = this.M;
    if (this.sim) M._ks_sim_free(this.sim);
    if (this.topo) M._ks_topology_free(this.topo);
    if (this.algo) M._free(this.algo);
    M._free(this.scratch);
    this.sim = this.topo = this.algo = 0;
  }
}

/**
 * FNV-1a 64 over bytes, continuing from state [lo, hi] (32-bit halves), as the C tests
 * hash whole ks_event records. The prime 2^40 + 0x1b3 splits into exact 32-bit pieces.
 */
export function fnv1a64(bytes, state = [0x84222325, 0xcbf29ce4]) {
  let [lo, hi] = state;
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i];
    const a = lo & 0xffff, b = lo >>> 16;
    const l0 = a * 0x1b3;
    const l1 = b * 0x1b3 + (l0 >>> 16);
    hi = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + (l1 >>> 16)) | 0;
    lo = ((l1 & 0xffff) << 16) | (l0 & 0xffff);
  }
  return [lo, hi];
}

/** A hash state as the 16-digit hex the JSON documents print. */
export function hashHex([lo, hi]) {
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}
