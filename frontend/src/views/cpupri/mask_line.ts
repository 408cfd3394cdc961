/*
 * The hot priority bitmap's cache line(s) as the cpupri views draw them (pure): from a
 * run's c2c rows, the level whose bitmaps were touched most, each of its lines (one for
 * the global mask; one per node with per-node masks) as 8 words x (loads, stores, local
 * HITM, remote HITM), its modelled cycles per sampled load (perf c2c's "Load cycles",
 * ldlat >= 30), and the socket that owns it now (the cache model's line place).
 */
import type { CpupriView } from '../../models/cpupri/types'
import type { Topology } from '../../core/shared/types'

export interface WordCounts {
  loads: number
  stores: number
  local_hitm: number
  remote_hitm: number
}

export interface MaskLine {
  /** The cache-model object, e.g. "cpupri_vec[99].mask". */
  object: string
  level: number
  /** The node of a per-node bitmap, -1 for the global one. */
  node: number
  words: WordCounts[]
  total: WordCounts
  /** Modelled cycles per sampled load (0 when nothing was sampled). */
  cyclesPerLoad: number
  /** The socket holding the line now (Modified/Exclusive, or the last to hold it), null if never cached. */
  ownerSocket: number | null
  /** 'M', 'E', 'S' or 'I' machine-wide. */
  state: string
}

const zero = (): WordCounts => ({ loads: 0, stores: 0, local_hitm: 0, remote_hitm: 0 })

/** The level whose bitmaps saw the most loads and stores (RT levels first), or null before any access. */
export function hotLevel(view: CpupriView): number | null {
  const by = new Map<number, number>()
  for (const r of view.rows) if (r.level >= 1 && r.object.includes('mask')) by.set(r.level, (by.get(r.level) ?? 0) + r.loads + r.stores)
  let best: number | null = null
  for (const [l, n] of by) if (best === null || n > by.get(best)! || (n === by.get(best)! && l > best)) best = l
  return best
}

/** The socket of a line place: its owner core's, else its last LLC's. */
export function socketOfPlace(topology: Topology, place: { owner_core: number; owner_llc: number }): number | null {
  const byCore = topology.cpus.find((c) => c.core === place.owner_core)
  if (place.owner_core >= 0 && byCore) return byCore.socket
  const byLlc = topology.cpus.find((c) => c.llc === place.owner_llc)
  return place.owner_llc >= 0 && byLlc ? byLlc.socket : null
}

/** The hot level's bitmap lines, by node (the global one alone before the split). */
export function maskLines(view: CpupriView, topology: Topology, level = hotLevel(view)): MaskLine[] {
  if (level === null) return []
  const lines = new Map<string, MaskLine>()
  const loadCycles = new Map<string, { cycles: number; sampled: number }>()
  for (const r of view.rows) {
    if (r.level !== level || !r.object.includes('mask')) continue
    let line = lines.get(r.object)
    if (!line) {
      const place = view.places.find((p) => p.object === r.object)
      line = {
        object: r.object, level, node: r.node, words: Array.from({ length: 8 }, zero), total: zero(), cyclesPerLoad: 0,
        ownerSocket: place ? socketOfPlace(topology, place) : null, state: place ? 'IESM'[place.state] ?? '?' : 'I',
      }
      lines.set(r.object, line)
    }
    const w = line.words[Math.floor(r.line_offset / 8) % 8]
    for (const t of [w, line.total]) {
      t.loads += r.loads
      t.stores += r.stores
      t.local_hitm += r.local_hitm
      t.remote_hitm += r.remote_hitm
    }
    const c = loadCycles.get(r.object) ?? { cycles: 0, sampled: 0 }
    c.cycles += r.load_cycles_sum
    c.sampled += r.sampled_loads
    loadCycles.set(r.object, c)
  }
  for (const line of lines.values()) {
    const c = loadCycles.get(line.object)!
    line.cyclesPerLoad = c.sampled ? c.cycles / c.sampled : 0
  }
  return [...lines.values()].sort((a, b) => a.node - b.node)
}

/** The CPUs of each socket, ascending. */
export function cpusBySocket(topology: Topology): { socket: number; cpus: number[] }[] {
  const out = new Map<number, number[]>()
  for (const c of topology.cpus) out.set(c.socket, [...(out.get(c.socket) ?? []), c.cpu])
  return [...out.entries()].sort((a, b) => a[0] - b[0]).map(([socket, cpus]) => ({ socket, cpus: cpus.sort((a, b) => a - b) }))
}
