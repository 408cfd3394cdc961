/*
 * The one door to the C core.
 *
 * This is the only file that imports the Emscripten module (checked by
 * scripts/check-imports.mjs). Everything above it sees plain TypeScript values:
 * records are copied out of wasm memory before the C objects are freed, and
 * every non-zero ks_status becomes a KscopeError through check().
 *
 * Reading C arrays: ks_cpu is 6 x int32 and ks_topology_summary 9 x int32
 * (both _Static_assert-ed in kscope/topology.h), so each is read through one
 * Int32Array view over the module's memory, never field by field through wasm
 * calls. Views are created after the last call that could grow memory
 * (growth detaches the old ArrayBuffer).
 */
import createKscopeCore, {
  type KscopeCoreModule,
} from '../../../wasm-core/build/wasm/kscope_core.mjs'
import wasmUrl from '../../../wasm-core/build/wasm/kscope_core.wasm?url'

/** One logical CPU, as struct ks_cpu (kscope/topology.h); all ids dense, 0-based. */
export interface CpuInfo {
  /** Linux CPU number. */
  cpu: number
  /** Physical core id, machine-wide. */
  core: number
  /** Last-level-cache (L3) instance id, machine-wide. */
  llc: number
  /** NUMA node id. */
  node: number
  /** Package id. */
  socket: number
  /** 0 for the first hardware thread of a core, 1 for its sibling, ... */
  smt_index: number
}

/** Counts and cache sizes, as struct ks_topology_summary. */
export interface TopologySummary {
  cpus: number
  cores: number
  llcs: number
  nodes: number
  sockets: number
  threads_per_core: number
  /** Per core. */
  l1d_kib: number
  /** Per core. */
  l2_kib: number
  /** Per LLC instance. */
  l3_kib: number
}

/** A machine: its preset name, summary and one record per CPU, indexed by CPU number. */
export interface Topology {
  name: string
  summary: TopologySummary
  cpus: CpuInfo[]
}

export interface PresetInfo {
  name: string
  description: string
}

/** The C core's ks_status codes (kscope/status.h). */
export const KsStatus = {
  OK: 0,
  INVALID_ARG: 1,
  NOT_FOUND: 2,
  NO_MEMORY: 3,
  PARSE: 4,
  RANGE: 5,
} as const

/** A non-zero ks_status from the C core, with ks_status_message()'s text. */
export class KscopeError extends Error {
  readonly status: number
  /** The C core's own message, e.g. "not found". */
  readonly statusMessage: string

  constructor(status: number, statusMessage: string, context: string) {
    super(`${context}: ${statusMessage}`)
    this.name = 'KscopeError'
    this.status = status
    this.statusMessage = statusMessage
  }
}

export interface KscopeCore {
  /** The core's version string, e.g. "0.1.0". */
  version(): string
  /** The built-in machine presets, in the core's order. */
  presets(): PresetInfo[]
  /** Builds a preset's topology; throws KscopeError (NOT_FOUND) for an unknown name. */
  topology(name: string): Topology
  /** Size of the wasm linear memory in bytes (diagnostics: it grows only if C memory leaks or fills). */
  memoryBytes(): number
}

export interface LoadCoreOptions {
  /** The .wasm bytes (Node/Vitest: the caller reads the file). The browser fetches instead. */
  wasmBinary?: Uint8Array
}

const CPU_FIELDS = 6 // ks_cpu: cpu, core, llc, node, socket, smt_index
const SUMMARY_FIELDS = 9 // ks_topology_summary
const INT32_BYTES = 4
const POINTER_BYTES = 4 // wasm32

/** Loads the C core: instantiates the wasm module once per call. */
export async function loadCore(options: LoadCoreOptions = {}): Promise<KscopeCore> {
  const mod = await createKscopeCore(
    options.wasmBinary
      ? { wasmBinary: options.wasmBinary }
      : { locateFile: (path) => (path.endsWith('.wasm') ? wasmUrl : path) },
  )
  return bindCore(mod)
}

function bindCore(mod: KscopeCoreModule): KscopeCore {
  const text = (ptr: number): string => (ptr ? mod.UTF8ToString(ptr) : '')

  function check(status: number, context: string): void {
    if (status !== KsStatus.OK) throw new KscopeError(status, text(mod._ks_status_message(status)), context)
  }

  /** Runs fn with a NUL-terminated copy of str in wasm memory, then frees it. */
  function withCString<T>(str: string, fn: (ptr: number) => T): T {
    const size = mod.lengthBytesUTF8(str) + 1
    const ptr = mod._malloc(size)
    if (!ptr) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    try {
      mod.stringToUTF8(str, ptr, size)
      return fn(ptr)
    } finally {
      mod._free(ptr)
    }
  }

  function readTopology(topo: number, scratch: number): Topology {
    check(mod._ks_topology_summarize(topo, scratch), 'ks_topology_summarize')
    const cpusPtr = mod._ks_topology_cpus(topo)
    const name = text(mod._ks_topology_name(topo))

    // No wasm calls below this line: the views stay attached.
    const s = new Int32Array(mod.HEAP32.buffer, scratch, SUMMARY_FIELDS)
    const summary: TopologySummary = {
      cpus: s[0], cores: s[1], llcs: s[2], nodes: s[3], sockets: s[4],
      threads_per_core: s[5], l1d_kib: s[6], l2_kib: s[7], l3_kib: s[8],
    }
    const v = new Int32Array(mod.HEAP32.buffer, cpusPtr, summary.cpus * CPU_FIELDS)
    const cpus: CpuInfo[] = []
    for (let i = 0; i < v.length; i += CPU_FIELDS) {
      cpus.push({
        cpu: v[i], core: v[i + 1], llc: v[i + 2], node: v[i + 3], socket: v[i + 4], smt_index: v[i + 5],
      })
    }
    return { name, summary, cpus }
  }

  return {
    version: () => text(mod._ks_version()),
    memoryBytes: () => mod.HEAPU8.buffer.byteLength,

    presets() {
      const count = mod._ks_topology_preset_count()
      const out: PresetInfo[] = []
      for (let i = 0; i < count; i++) {
        out.push({
          name: text(mod._ks_topology_preset_name(i)),
          description: text(mod._ks_topology_preset_description(i)),
        })
      }
      return out
    },

    topology(name) {
      return withCString(name, (namePtr) => {
        // One scratch block: the ks_topology* out-pointer, then the summary.
        const scratch = mod._malloc(POINTER_BYTES + SUMMARY_FIELDS * INT32_BYTES)
        if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
        try {
          check(mod._ks_topology_from_preset(namePtr, scratch), `preset "${name}"`)
          const topo = mod.HEAPU32[scratch >>> 2]
          try {
            return readTopology(topo, scratch + POINTER_BYTES)
          } finally {
            mod._ks_topology_free(topo)
          }
        } finally {
          mod._free(scratch)
        }
      })
    },
  }
}
