/*
 * What one run's picture shows at a step, derived from the run's view (pure,
 * unit-tested): each card's badge and chip, each cid cell's bit, each area's
 * label, which bits just changed, which cids flew to which CPU, and the
 * transfer arrows of the step's bursts. The React component only draws this.
 */
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import { NEW_CID_PATHS, isTransfer, type BurstSource } from '../../core/lesson/lesson_timeline'
import type { Placement } from '../../core/lesson/lesson_state'
import type { MmCidArea, Topology } from '../../core/shared/types'
import { cellCount } from './layout'

export interface CardState {
  cpu: number
  /** The cid the CPU's slot owns (-1 none). */
  cid: number
  /** 6.13+: the slot's recent_cid (-1 none). */
  recent: number
  lazy: boolean
  /** The process's thread running there, -1 idle. */
  tid: number
  /** Compare mode: the other kernel gives this CPU another cid. */
  differs: boolean
}

export interface AreaState {
  index: number
  /** 'unused' never touched; 'cold' in no cache; 'cached' mostly in `llc`. */
  kind: 'unused' | 'cold' | 'cached'
  llc: number
  /** The two label lines: "L3" "#0", "cold" "DRAM", "—" "" (never touched). */
  lines: [string, string]
  title: string
}

export interface Flight {
  cid: number
  cpu: number
}

export interface Transfer {
  /** Burst number (keys the arrow). */
  n: number
  cpu: number
  source: BurstSource
  /** The CPU whose cache held the lines (same-L3 / other-L3 / other-socket), null: DRAM. */
  fromCpu: number | null
  label: string
}

export interface PictureState {
  cards: CardState[]
  bits: boolean[]
  /** Cells whose bit changed since the previous step (+1 set, -1 cleared). */
  changed: Map<number, 1 | -1>
  areas: AreaState[]
  flights: Flight[]
  transfers: Transfer[]
}

/** An area's label and kind from its line-place summary. */
export function areaState(a: MmCidArea | undefined, index: number): AreaState {
  if (!a || a.object < 0 || a.lines === 0) {
    return { index, kind: 'unused', llc: -1, lines: ['—', ''], title: `area[${index}]: never touched yet (no thread had cid ${index})` }
  }
  if (a.llc < 0 || a.cold_lines * 2 > a.lines) {
    return { index, kind: 'cold', llc: -1, lines: ['cold', 'DRAM'], title: `area[${index}]: ${a.cold_lines} of ${a.lines} lines in no cache (the next sweep reads DRAM)` }
  }
  const owner = a.core >= 0 && a.core_lines * 2 > a.lines ? `; core ${a.core} owns ${a.core_lines} Modified/Exclusive` : ''
  return {
    index,
    kind: 'cached',
    llc: a.llc,
    lines: ['L3', `#${a.llc}`],
    title: `area[${index}]: ${a.llc_lines} of ${a.lines} lines held by L3 #${a.llc}${owner}${a.cold_lines ? `, ${a.cold_lines} cold` : ''}`,
  }
}

/** The picture's state for one run; `other` is the other kernel's run in compare mode. */
export function pictureState(run: LessonRunView, cpus: readonly number[], cells: number, other?: LessonRunView, topology?: Topology): PictureState {
  const { view, previous } = run
  const cards = cpus.map((cpu) => {
    const row = view.pcpu[cpu]
    const otherRow = other?.view.pcpu[cpu]
    return {
      cpu,
      cid: row?.cid ?? -1,
      recent: row?.recent_cid ?? -1,
      lazy: row?.lazy_put ?? false,
      tid: row?.running_tid ?? -1,
      differs: !!otherRow && otherRow.cid !== (row?.cid ?? -1),
    }
  })
  const bits = Array.from({ length: cells }, (_, i) => view.cidmask[i] ?? false)
  const changed = new Map<number, 1 | -1>()
  if (previous) {
    bits.forEach((b, i) => {
      const was = previous.cidmask[i] ?? false
      if (b !== was) changed.set(i, b ? 1 : -1)
    })
  }
  const areas = Array.from({ length: cells }, (_, i) => areaState(view.areas[i], i))
  const flights = previous
    ? run.records.filter((r) => NEW_CID_PATHS.includes(r.path) && r.cid >= 0 && r.cid < cells).map((r) => ({ cid: r.cid, cpu: r.cpu }))
    : []
  const transfers = run.stepBursts
    .filter((b) => isTransfer(b.source) || b.source === 'dram')
    .map((b) => ({
      n: b.n,
      cpu: b.cpu,
      source: b.source,
      fromCpu: isTransfer(b.source) ? b.fromCpu : null,
      label: `${b.warmup ? 'warm-up' : 'burst'} on CPU ${b.cpu} pulled area[${b.index}]'s 256 lines ${transferFrom(b.source, b.fromCpu, topology)}`,
    }))
  return { cards, bits, changed, areas, flights, transfers }
}

/** An arrow's short label: where the lines came from ("from DRAM", "from CPU 0, same L3", "from L3 #2"). */
export function transferFrom(source: BurstSource, fromCpu: number | null, topology?: Topology): string {
  if (source === 'dram' || fromCpu === null) return 'from DRAM'
  if (source === 'same-llc-core') return `from CPU ${fromCpu}, same L3`
  const llc = topology?.cpus[fromCpu]?.llc
  return `from ${llc !== undefined ? `L3 #${llc}` : `CPU ${fromCpu}`}${source === 'other-socket' ? ', other socket' : ''}`
}

/** Which CPUs the lesson draws: those the threads may use (the pinned list, the L3, or all when few). */
export function shownCpus(
  topology: Topology,
  placement: { kind: 'pinned'; cpus: number[] } | { kind: 'any' } | { kind: 'l3'; llc: number },
  used: readonly number[],
  maxAll = 32,
): number[] {
  const valid = (c: number) => c >= 0 && c < topology.cpus.length
  if (placement.kind === 'pinned') return [...new Set(placement.cpus.filter(valid))].sort((a, b) => a - b)
  if (placement.kind === 'l3') return topology.cpus.filter((c) => c.llc === placement.llc).map((c) => c.cpu)
  if (topology.cpus.length <= maxAll) return topology.cpus.map((c) => c.cpu)
  return [...new Set(used.filter(valid))].sort((a, b) => a - b)
}

/**
 * The exact state on screen as one line, for tests and links: the step, its
 * time, and per kernel the cidmask bits and every CPU's cid.
 * "step 40 · t=1411552000 ns · v6.12: cidmask 10000000 · cpu cids 0:0 | v6.13: ..."
 */
export function lessonDigest(step: number, timeNs: number, runs: readonly LessonRunView[]): string {
  const parts = runs.map((r) => {
    const bits = r.view.cidmask.map((b) => (b ? '1' : '0')).join('')
    const cids = r.view.pcpu.filter((p) => p.cid >= 0).map((p) => `${p.cpu}:${p.cid}`).join(' ')
    return `${r.variant}: cidmask ${bits} · cpu cids ${cids || 'none'} · bursts ${r.totals.measured}`
  })
  return `step ${step} · t=${timeNs} ns · ${parts.join(' | ')}`
}

/**
 * What a picture of these runs draws: the CPUs the threads may use (or that
 * held a cid) and enough cid cells for every cid, recent_cid and area seen.
 * (The lesson page and the lesson player draw the same picture.)
 */
export function pictureExtent(topology: Topology, placement: Placement, threads: number, runs: readonly LessonRunView[]): { cpus: number[]; cells: number } {
  const used = [...new Set(runs.flatMap((r) => r.history.map((x) => x.cpu)).filter((c) => c >= 0))]
  const cpus = shownCpus(topology, placement, used)
  const cids = runs.flatMap((r) => [
    ...r.history.map((x) => x.cid),
    ...r.view.pcpu.map((p) => p.recent_cid),
    ...r.view.areas.filter((a) => a.object >= 0).map((a) => a.index),
  ])
  return { cpus, cells: cellCount(topology.cpus.length, threads, cids) }
}
