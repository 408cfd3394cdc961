/*
 * Types for the C core's Emscripten module (wasm-core/build/wasm/kscope_core.mjs),
 * built with -sMODULARIZE -sEXPORT_ES6: a default-exported factory resolving to
 * the module. Only the exports listed in wasm-core/bindings/exported_functions.json
 * and the runtime methods named in the Makefile exist. Pointers are wasm32
 * addresses (number); int32_t returns are number; uint64_t would be bigint
 * (-sWASM_BIGINT).
 *
 * Only src/engine/ may import the module (scripts/check-imports.mjs): wasm_bridge.ts
 * loads it; wasm_context.ts and the parts it is handed to use these types.
 */
declare module '*/kscope_core.mjs' {
  type Ptr = number

  export interface KscopeCoreModule {
    readonly HEAPU8: Uint8Array
    readonly HEAP32: Int32Array
    readonly HEAPU32: Uint32Array
    UTF8ToString(ptr: Ptr, maxBytesToRead?: number): string
    stringToUTF8(str: string, outPtr: Ptr, maxBytesToWrite: number): number
    lengthBytesUTF8(str: string): number

    _malloc(size: number): Ptr
    _free(ptr: Ptr): void

    // kscope/status.h
    _ks_status_message(status: number): Ptr
    _ks_version(): Ptr

    // kscope/topology.h
    _ks_topology_preset_count(): number
    _ks_topology_preset_name(index: number): Ptr
    _ks_topology_preset_description(index: number): Ptr
    _ks_topology_from_preset(name: Ptr, out: Ptr): number
    _ks_topology_free(topo: Ptr): void
    _ks_topology_name(topo: Ptr): Ptr
    _ks_topology_summarize(topo: Ptr, out: Ptr): number
    _ks_topology_cpus(topo: Ptr): Ptr

    // kscope/event.h
    _ks_event_type_name(type: number): Ptr
    _ks_event_type_from_name(name: Ptr): number
    _ks_event_log_new(out: Ptr): number
    _ks_event_log_free(log: Ptr): void
    _ks_event_log_append(log: Ptr, ev: Ptr): number
    _ks_event_log_append_many(log: Ptr, evs: Ptr, n: number): number
    _ks_event_log_append_generic(
      log: Ptr, tsNs: bigint, cpu: number, pid: number, tgid: number,
      comm: Ptr, name: Ptr, fields: Ptr,
    ): number
    _ks_event_log_count(log: Ptr): number
    _ks_event_log_data(log: Ptr): Ptr
    _ks_event_log_text(log: Ptr, offset: number): Ptr

    // kscope/trace_detect.h, trace_decoder.h, tracedat.h (decoding real traces: one interface,
    // the core's registry picks the decoder; trace.dat's buffer names through its own decoder)
    _ks_trace_format_name(format: number): Ptr
    _ks_trace_decoder_open(head: Ptr, len: number, format: Ptr, out: Ptr): number
    _ks_trace_decoder_free(dec: Ptr): void
    _ks_trace_decoder_name(dec: Ptr): Ptr
    _ks_trace_decoder_set_piece(dec: Ptr, bytes: number): number
    _ks_trace_decoder_want(dec: Ptr, offset: Ptr, len: Ptr): number
    _ks_trace_decoder_feed(dec: Ptr, offset: bigint, chunk: Ptr, len: number, sink: Ptr): number
    _ks_trace_decoder_finish(dec: Ptr, sink: Ptr): number
    _ks_trace_decoder_stats(dec: Ptr, out: Ptr): number
    _ks_trace_decoder_format_stats(dec: Ptr, out: Ptr, size: number): number
    _ks_trace_decoder_inner(dec: Ptr): Ptr
    _ks_tracedat_decoder_buffer_count(dec: Ptr): number
    _ks_tracedat_decoder_buffer_name(dec: Ptr, index: number): Ptr

    // kscope/cache.h (what the simulation bridge uses)
    _ks_cache_default_params(out: Ptr): void
    // (what a model's bridge reads: where a line lives now)
    _ks_cache_object_count(cache: Ptr): number
    _ks_cache_object_name(cache: Ptr, object: number): Ptr
    _ks_cache_line_places(cache: Ptr, object: number, nowNs: bigint): Ptr

    // kscope/sim.h
    _ks_sim_new(topo: Ptr, json: Ptr, jsonLen: number, config: Ptr, out: Ptr, err: Ptr): number
    _ks_sim_free(sim: Ptr): void
    _ks_sim_algo_name(sim: Ptr): Ptr
    _ks_sim_step(sim: Ptr, out: Ptr, produced: Ptr): number
    _ks_sim_run_until(sim: Ptr, limit: Ptr, log: Ptr, n: Ptr): number
    _ks_sim_run_until_tail(sim: Ptr, limit: Ptr, tail: Ptr, tailCap: number, n: Ptr): number
    _ks_sim_seek(sim: Ptr, step: bigint): number
    _ks_sim_frame_get(sim: Ptr): Ptr
    _ks_sim_get_stats(sim: Ptr, out: Ptr): number
    _ks_sim_burst_count(sim: Ptr): number
    _ks_sim_burst_costs(sim: Ptr): Ptr

    // kscope/sim_cost.h, kscope/cost.h (the cost breakdown)
    _ks_sim_set_cost_model(sim: Ptr, model: number, params: Ptr): number
    _ks_sim_cost_model(sim: Ptr): number
    _ks_sim_burst_parts(sim: Ptr): Ptr
    _ks_cost_part_name(part: number): Ptr
    _ks_sim_cache(sim: Ptr): Ptr
    /** The plugged model's views: a request at buf (the model's own format), the view written over it. */
    _ks_sim_model_view_get(sim: Ptr, buf: Ptr, len: number): number
  }

  export interface KscopeCoreOptions {
    /** The .wasm bytes; skips fetching (Node/Vitest). */
    wasmBinary?: Uint8Array | ArrayBuffer
    /** Maps "kscope_core.wasm" to the URL the browser should fetch. */
    locateFile?: (path: string, scriptDirectory: string) => string
    print?: (text: string) => void
    printErr?: (text: string) => void
  }

  const createKscopeCore: (options?: KscopeCoreOptions) => Promise<KscopeCoreModule>
  export default createKscopeCore
}
