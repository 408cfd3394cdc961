/*
 * What a real trace says about the machine it was captured on.
 *
 * kscope's capture script (traces/README.md) writes the kernel release and a
 * dump of sysfs topology files as comment lines above the events:
 *
 *     # kscope: kernel=6.18.44-fc-v669
 *     # kscope-sysfs: cpu0/cache/index3/shared_cpu_list<TAB>0-3
 *     # kscope-sysfs: cpu0/cache/index3/level<TAB>3
 *     # kscope-sysfs: ../node/node1/cpulist<TAB>4-7
 *
 * From those, each CPU's last-level cache (the highest cache level; CPUs that
 * share its shared_cpu_list are one LLC instance) and NUMA node. Traces
 * without them (other tools' text, trace.dat) give a null topology and the
 * timeline stacks its lanes flat. Pure functions: no DOM, no wasm. All header
 * text is untrusted: it only ever becomes numbers or plain strings.
 */
import { parseCpuList } from '../shared/cpulist'

export interface TraceCpuPlace {
  cpu: number
  /** LLC instance index, dense from 0 in order of first CPU; -1 unknown. */
  llc: number
  /** NUMA node id; -1 unknown. */
  node: number
}

/**
 * Where the events come from. `kscope sim --export ftrace` heads its file with
 * "# kscope: source=modelled" and the run's workload, seed, algo and preset
 * (backend/kscope/simulate.py export_meta; the server reads the same lines,
 * backend/kscope/ingest/provenance.py): such a trace is MODELLED. Anything
 * else is MEASURED on a real kernel.
 */
export type TraceProvenance =
  | { kind: 'measured' }
  | { kind: 'modelled'; workload?: string; seed?: string; algo?: string; preset?: string; generator?: string }

const MODELLED_KEYS = ['workload', 'seed', 'algo', 'preset', 'generator'] as const

export function provenanceOf(capture: Record<string, string>): TraceProvenance {
  if ((capture.source ?? '').trim().toLowerCase() !== 'modelled') return { kind: 'measured' }
  const p: TraceProvenance = { kind: 'modelled' }
  for (const k of MODELLED_KEYS) if (capture[k] !== undefined) p[k] = capture[k]
  return p
}

/** The header lines that say a provenance (the server path rebuilds the header from its metadata). */
export function provenanceLines(p: { kind: string } & Partial<Record<(typeof MODELLED_KEYS)[number], string | null>>): string[] {
  if (p.kind !== 'modelled') return []
  return ['# kscope: source=modelled', ...MODELLED_KEYS.flatMap((k) => (p[k] ? [`# kscope: ${k}=${p[k]}`] : []))]
}

export interface TraceMeta {
  /** Kernel release when the header says ("" otherwise). */
  kernel: string
  /** MODELLED (a kscope simulator export) or MEASURED (a real kernel's trace). */
  provenance: TraceProvenance
  /** "# kscope: key=value" pairs (capture metadata). */
  capture: Record<string, string>
  /** CPU count from "#P:N" / "cpus=N" / the decoder; 0 unknown. */
  nrCpus: number
  /** Per CPU, when the header has sysfs topology; null otherwise. */
  topology: Map<number, TraceCpuPlace> | null
}

const SYSFS = /^# kscope-sysfs: (\S+)\t(.*)$/

export function parseTraceMeta(header: readonly string[], uname = ''): TraceMeta {
  const capture: Record<string, string> = {}
  const cacheLevel = new Map<string, number>() // "cpu/index" -> level
  const cacheShared = new Map<string, string>() // "cpu/index" -> shared_cpu_list
  const nodeOf = new Map<number, number>()
  let nrCpus = 0
  for (const line of header) {
    const cap = /^# kscope: ([\w.-]+)=(.*)$/.exec(line)
    if (cap) {
      capture[cap[1]] = cap[2]
      continue
    }
    const p = /#P:(\d+)/.exec(line)
    if (p) nrCpus = Number(p[1])
    const s = SYSFS.exec(line)
    if (!s) continue
    const [, path, value] = s
    const cache = /^cpu(\d+)\/cache\/(index\d+)\/(level|shared_cpu_list)$/.exec(path)
    if (cache) {
      const key = `${cache[1]}/${cache[2]}`
      if (cache[3] === 'level') cacheLevel.set(key, Number(value))
      else cacheShared.set(key, value.trim())
      continue
    }
    const node = /node\/node(\d+)\/cpulist$/.exec(path)
    if (node) {
      try {
        for (const cpu of parseCpuList(value.trim())) nodeOf.set(cpu, Number(node[1]))
      } catch {
        // A malformed list only loses the node grouping.
      }
    }
  }
  // Each CPU's last-level cache: the index with the highest level.
  const llcList = new Map<number, { level: number; shared: string }>()
  for (const [key, level] of cacheLevel) {
    const [cpuText] = key.split('/')
    const cpu = Number(cpuText)
    const shared = cacheShared.get(key)
    if (shared === undefined) continue
    const best = llcList.get(cpu)
    if (!best || level > best.level) llcList.set(cpu, { level, shared })
  }
  let topology: Map<number, TraceCpuPlace> | null = null
  if (llcList.size || nodeOf.size) {
    topology = new Map()
    const llcIds = new Map<string, number>()
    const cpus = [...new Set([...llcList.keys(), ...nodeOf.keys()])].sort((a, b) => a - b)
    for (const cpu of cpus) {
      const shared = llcList.get(cpu)?.shared
      let llc = -1
      if (shared !== undefined) {
        if (!llcIds.has(shared)) llcIds.set(shared, llcIds.size)
        llc = llcIds.get(shared)!
      }
      topology.set(cpu, { cpu, llc, node: nodeOf.get(cpu) ?? -1 })
    }
  }
  const kernel = capture.kernel ?? (/Linux \S+ (\S+)/.exec(uname)?.[1] ?? uname)
  return { kernel, capture, provenance: provenanceOf(capture), nrCpus, topology }
}
