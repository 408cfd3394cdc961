/*
 * Machines from the C core (kscope/topology.h): the built-in presets and a
 * preset's topology, copied out of wasm memory.
 *
 * ks_cpu is 6 x int32 and ks_topology_summary 9 x int32 (both _Static_assert-ed
 * in kscope/topology.h), so each is read through one Int32Array view over the
 * module's memory, never field by field through wasm calls.
 */
import { KscopeError, KsStatus } from './core_errors'
import type { WasmContext } from './wasm_context'

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

const CPU_FIELDS = 6 // ks_cpu: cpu, core, llc, node, socket, smt_index
const SUMMARY_FIELDS = 9 // ks_topology_summary
const INT32_BYTES = 4
const POINTER_BYTES = 4 // wasm32

/** Copies a ks_topology out (scratch: room for one ks_topology_summary). */
export function readTopology(ctx: WasmContext, topo: number, scratch: number): Topology {
  const { mod, text, check } = ctx
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

/** The built-in machine presets, in the core's order. */
export function listPresets(ctx: WasmContext): PresetInfo[] {
  const { mod, text } = ctx
  const count = mod._ks_topology_preset_count()
  const out: PresetInfo[] = []
  for (let i = 0; i < count; i++) {
    out.push({
      name: text(mod._ks_topology_preset_name(i)),
      description: text(mod._ks_topology_preset_description(i)),
    })
  }
  return out
}

/** A preset's topology; throws KscopeError (NOT_FOUND) for an unknown name. */
export function presetTopology(ctx: WasmContext, name: string): Topology {
  const { mod, check } = ctx
  return ctx.withCString(name, (namePtr) => {
    // One scratch block: the ks_topology* out-pointer, then the summary.
    const scratch = mod._malloc(POINTER_BYTES + SUMMARY_FIELDS * INT32_BYTES)
    if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    try {
      check(mod._ks_topology_from_preset(namePtr, scratch), `preset "${name}"`)
      const topo = mod.HEAPU32[scratch >>> 2]
      try {
        return readTopology(ctx, topo, scratch + POINTER_BYTES)
      } finally {
        mod._ks_topology_free(topo)
      }
    } finally {
      mod._free(scratch)
    }
  })
}
