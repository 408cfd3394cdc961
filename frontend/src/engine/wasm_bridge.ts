/*
 * The one door to the C core: loads the Emscripten module and binds it.
 *
 * This is the only file that imports the Emscripten module's code (checked by
 * scripts/check-imports.mjs: only src/engine/ may name it at all). Everything
 * above the engine sees plain TypeScript values: records are copied out of
 * wasm memory before the C objects are freed, and every non-zero ks_status
 * becomes a KscopeError (core_errors.ts) through WasmContext.check().
 *
 * The parts, each in its own module:
 *   wasm_context.ts     the module, strings, status checks, typed views
 *   topology.ts         presets and machines
 *   simulation.ts       simulated runs (no model named)
 *   model_bridges.ts    the per-model bridges (<model>_bridge.ts), one line each
 *   trace_open.ts       real traces decoded in the browser
 *   trace_open_local.ts the same from the page, in a worker (trace_worker.ts)
 */
import createKscopeCore from '../../../wasm-core/build/wasm/kscope_core.mjs'
import wasmUrl from '../../../wasm-core/build/wasm/kscope_core.wasm?url'
import { attachModels, bindModelCores, type ModelCoreMethods, type ModelSimulationMethods } from './model_bridges'
import { simulate, type CacheParams, type SimulationBase, type SimulationOptions } from './simulation'
import { listPresets, presetTopology, type PresetInfo, type Topology } from './topology'
import { openTrace, type LocalTrace, type TraceOpenOptions, type TraceOpenProgress } from './trace_open'
import { createContext, type KscopeCoreModule, type WasmContext } from './wasm_context'

/** A simulated run with every model bridge's methods (model_bridges.ts). */
export type Simulation = SimulationBase & ModelSimulationMethods

export interface KscopeCore extends ModelCoreMethods {
  /** The core's version string, e.g. "0.1.0". */
  version(): string
  /** The cache model's default eviction parameters (ks_cache_default_params). */
  cacheDefaults(): CacheParams
  /** The cost model v2's part names, in ks_cost_part order (ks_cost_part_name): "core", "l2", ... */
  costPartNames(): string[]
  /** The built-in machine presets, in the core's order. */
  presets(): PresetInfo[]
  /** Builds a preset's topology; throws KscopeError (NOT_FOUND) for an unknown name. */
  topology(name: string): Topology
  /** Size of the wasm linear memory in bytes (diagnostics: it grows only if C memory leaks or fills). */
  memoryBytes(): number
  /** Tracepoint name of event type i, from the core (ks_event_type_name). */
  eventTypeName(type: number): string
  /** Builds a simulation; throws WorkloadError for a bad workload, KscopeError for an unknown preset. */
  simulate(options: SimulationOptions): Simulation
  /**
   * Decodes a trace file in the browser with the C decoders (never uploads it):
   * detects the format from the first 64 KiB, streams text in chunks and reads
   * trace.dat by offset. Throws TraceOpenError naming the file, place and problem.
   */
  openTrace(file: Blob, name: string, onProgress?: (p: TraceOpenProgress) => void, options?: TraceOpenOptions): Promise<LocalTrace>
}

export interface LoadCoreOptions {
  /** The .wasm bytes (Node/Vitest: the caller reads the file). The browser fetches instead. */
  wasmBinary?: Uint8Array
}

/** Loads the C core: instantiates the wasm module once per call. */
export async function loadCore(options: LoadCoreOptions = {}): Promise<KscopeCore> {
  const mod = await createKscopeCore(
    options.wasmBinary
      ? { wasmBinary: options.wasmBinary }
      : { locateFile: (path) => (path.endsWith('.wasm') ? wasmUrl : path) },
  )
  return bindCore(mod)
}

/** ks_cost_part_name(0..) until it returns NULL. */
function costPartNames(ctx: WasmContext): string[] {
  const names: string[] = []
  for (let i = 0; ; i++) {
    const ptr = ctx.mod._ks_cost_part_name(i)
    if (!ptr) return names
    names.push(ctx.text(ptr))
  }
}

function bindCore(mod: KscopeCoreModule): KscopeCore {
  const ctx = createContext(mod)
  return {
    ...bindModelCores(ctx),
    version: () => ctx.text(mod._ks_version()),
    cacheDefaults() {
      const at = mod._malloc(16)
      try {
        mod._ks_cache_default_params(at)
        return { privateBackgroundBytesPerUs: mod.HEAP32[at >>> 2], llcBackgroundBytesPerUs: mod.HEAP32[(at >>> 2) + 1] }
      } finally {
        mod._free(at)
      }
    },
    costPartNames: () => costPartNames(ctx),
    memoryBytes: () => mod.HEAPU8.buffer.byteLength,
    eventTypeName: (type) => ctx.text(mod._ks_event_type_name(type)),
    simulate: (options) => simulate(ctx, options, attachModels),
    openTrace: (file, name, onProgress, options) => openTrace(ctx, file, name, onProgress, options),
    presets: () => listPresets(ctx),
    topology: (name) => presetTopology(ctx, name),
  }
}
