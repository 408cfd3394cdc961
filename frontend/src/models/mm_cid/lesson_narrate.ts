/*
 * The mm_cid lesson in plain words: for each step, which branch of the
 * allocator ran and why, from the allocation log's records (ks_mm_cid_record:
 * the values the branch compared), the bursts of the step and the events of the
 * instant. For example:
 *
 *   thread 1003 woke on CPU 5; CPU 5 had no cid (dropped by the 100 ms scan at
 *   t=812.000 ms); v6.13 tried recent_cid 3 first — free — so it got cid 3 back
 *
 * Pure text (unit-tested on records taken from real runs). Task names are user
 * data only in the scheduler events, which go through describeEvent (views
 * render all of it as text, never HTML).
 */
import { describeEvent } from '../../core/sim/narrate'
import { type BurstCost, type SimEvent, type Topology } from '../../core/shared/types'
import { MM_CID_F_OVER_ALLOWED, MM_CID_F_TASK_ALLOWED, MM_CID_F_WAITED, type MmCidPath, type MmCidRecord } from './types'
import { SOURCE_WORDS, isTransfer, type BurstSource } from '../../core/lesson/lesson_timeline'
import { formatDuration, formatT } from '../../core/shared/units'
import { costBreakdown, explainCost, type CostBreakdown } from '../../core/sim/cost_parts'

/** A burst with where its data came from (derived: burstInfos). */
export interface BurstInfo extends BurstCost {
  /** Its number in the run's burst list. */
  n: number
  source: BurstSource
  /** The CPU that swept the same area last before this burst (null: first touch). */
  fromCpu: number | null
  /** Its cost by mechanism (cost model v2), or null (v1, or no parts read). */
  breakdown?: CostBreakdown | null
}

/**
 * Bursts with their source (from the lines each level served, RunTimeline.burstLines)
 * and the CPU that last swept the same area before each.
 */
export function burstInfos(bursts: readonly BurstCost[], sources: readonly BurstSource[],
  parts?: { names: readonly string[]; ns: readonly (readonly number[])[] }): BurstInfo[] {
  const last = new Map<number, number>()
  return bursts.map((b, n) => {
    const fromCpu = last.get(b.index) ?? null
    last.set(b.index, b.cpu)
    const ns = parts?.ns[n]
    return { ...b, n, source: sources[n] ?? 'unknown', fromCpu, breakdown: ns && parts ? costBreakdown(parts.names, ns) : null }
  })
}

/** One line of narration: the text, and the allocator branch it is about (with its help sentence). */
export interface NarrationLine {
  kind: 'record' | 'burst' | 'event' | 'quiet'
  text: string
  /** The allocator branch (records only). */
  path?: MmCidPath
}

const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`
const cidText = (cid: number) => (cid < 0 ? 'none' : `cid ${cid}`)

/** Records that took a cid out of a CPU's slot, with how to say so. */
function removalReason(r: MmCidRecord, cpu: number): string | null {
  const at = formatT(r.ts_ns)
  switch (r.path) {
    case 'SCAN_DROPPED_OLD':
      return r.cpu === cpu ? `dropped by the 100 ms scan at ${at}: unused for ${ms(r.age_ns)} by CPU ${r.cpu}'s rq clock` : null
    case 'COMPACT_DROPPED':
      return r.cpu === cpu ? `taken back by the scan's compaction at ${at}` : null
    case 'PUT_LAZY':
      return r.cpu === cpu ? `given back at ${at} after the scan marked it LAZY_PUT` : null
    case 'EXIT_PUT':
      return r.cpu === cpu ? `freed when thread ${r.tid} exited at ${at}` : null
    case 'MIGRATE_TAKEN_FROM_SRC':
      return r.other_cpu === cpu ? `moved to CPU ${r.cpu} with migrating thread ${r.tid} at ${at}` : null
    case 'MIGRATE_SRC_DROPPED':
      return r.other_cpu === cpu ? `freed when thread ${r.tid} migrated away at ${at}` : null
    case 'REMOTE_CLEAR_HELD':
      return r.cpu === cpu ? `taken by a remote clear at ${at}` : null
    default:
      return null
  }
}

/** Records that gave a CPU's slot a cid (the slot is not empty after them). */
const GIVES: readonly MmCidPath[] = ['KEEP_PCPU_CID', 'RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'MIGRATE_TAKEN_FROM_SRC']

/**
 * Why the CPU's slot was empty when `r` allocated: the last record before r
 * that emptied it, or "first time" if it never had a cid.
 */
export function whyNoCid(r: MmCidRecord, history: readonly MmCidRecord[]): string {
  let hadOne = false
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]
    if (h.seq >= r.seq) continue
    const reason = removalReason(h, r.cpu)
    if (reason) return reason
    if (GIVES.includes(h.path) && h.cpu === r.cpu && h.tgid === r.tgid) {
      hadOne = true
      break
    }
  }
  return hadOne ? 'its cid had been released' : `the process had never run on CPU ${r.cpu}`
}

/** When the CPU last used its cid before r (the previous record giving that CPU a cid), or null. */
function lastUse(r: MmCidRecord, history: readonly MmCidRecord[]): number | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const h = history[i]
    if (h.seq < r.seq && h.cpu === r.cpu && GIVES.includes(h.path)) return h.ts_ns
  }
  return null
}

/** "CPU 5's recent_cid 3 was taken by another CPU" / "CPU 5 had no recent_cid hint yet" (6.13+). */
function hintText(r: MmCidRecord): string {
  return r.recent_cid >= 0
    ? `CPU ${r.cpu}'s recent_cid ${r.recent_cid} was taken by another CPU`
    : `CPU ${r.cpu} had no recent_cid hint yet`
}

function flagsText(r: MmCidRecord): string {
  const parts: string[] = []
  if (r.flags & MM_CID_F_WAITED) parts.push('it first waited for a remote clear in flight')
  if (r.flags & MM_CID_F_OVER_ALLOWED) parts.push(`cid ${r.cid} is above the process's allowed CPUs`)
  return parts.length ? ` (${parts.join('; ')})` : ''
}

/** The sentence for one allocator record. `variant` names the kernel ("v6.12", "v6.13", "v6.18"). */
export function narrateRecord(r: MmCidRecord, variant: string, history: readonly MmCidRecord[]): string {
  const t = `thread ${r.tid}`
  const cpu = `CPU ${r.cpu}`
  const is612 = variant === 'v6.12'
  switch (r.path) {
    case 'KEEP_PCPU_CID': {
      const used = lastUse(r, history)
      const ago = used === null ? '' : ` (last used ${ms(r.ts_ns - used)} ago, before any 100 ms scan took it)`
      return `${t} runs on ${cpu}; ${cpu} still owns cid ${r.cid} for this process${ago}, so ${t} keeps cid ${r.cid}: no cidmask access`
    }
    case 'RECENT_CID':
      return `${t} woke on ${cpu}; ${cpu} had no cid (${whyNoCid(r, history)}); ${variant} tried recent_cid ${r.cid} first — free — so it got cid ${r.cid} back${flagsText(r)}`
    case 'EXPAND_MAX_NR_CID':
      return `${t} woke on ${cpu}; ${cpu} had no cid (${whyNoCid(r, history)}); ${hintText(r)}; max_nr_cid ${r.max_nr_cid - 1} < min(nr_cpus_allowed, mm_users) = ${r.bound}, so it took the never-used cid ${r.cid} and max_nr_cid grew to ${r.max_nr_cid}${flagsText(r)}`
    case 'FIRST_FREE':
      if (is612) {
        return `${t} woke on ${cpu}; ${cpu} had no cid (${whyNoCid(r, history)}); v6.12 takes the lowest free cid below nr_cpu_ids (${r.bound}): ${cidText(r.cid)}${flagsText(r)}`
      }
      return `${t} woke on ${cpu}; ${cpu} had no cid (${whyNoCid(r, history)}); ${hintText(r)}, and max_nr_cid ${r.max_nr_cid} already reached min(nr_cpus_allowed, mm_users), so ${variant} took the lowest free cid below nr_cpus_allowed (${r.bound}): ${cidText(r.cid)}${flagsText(r)}`
    case 'PUT_LAZY':
      return `${cpu}'s cid ${r.cid} carried LAZY_PUT (the scan wanted it back): it is freed now, its cidmask bit cleared`
    case 'MIGRATE_TAKEN_FROM_SRC':
      return `${t} moved from CPU ${r.other_cpu} to ${cpu}; ${cpu} had no cid, so cid ${r.cid} moved with it from CPU ${r.other_cpu}`
    case 'MIGRATE_SRC_DROPPED':
      return `${t} moved from CPU ${r.other_cpu} to ${cpu}, which already had a cid; mm_users ${r.mm_users} < ${r.bound}, so CPU ${r.other_cpu}'s cid ${r.cid} was freed (compaction)`
    case 'MIGRATE_KEPT_SRC':
      return `${t} moved from CPU ${r.other_cpu} to ${cpu}; ${cpu} had a cid${is612 ? '' : ' or a recent_cid'} and mm_users ${r.mm_users} >= ${r.bound} (${is612 ? "the thread's own allowed CPUs" : r.flags & MM_CID_F_TASK_ALLOWED ? "the thread's own allowed CPUs: the test from before 7e019dc, injected" : "the process's allowed CPUs"}), so CPU ${r.other_cpu} keeps cid ${r.cid}`
    case 'MIGRATE_SRC_IN_USE':
      return `another thread of the process runs on CPU ${r.cpu} and uses cid ${r.cid}: nothing moves`
    case 'SCAN':
      return `at ${formatT(r.ts_ns)} the 100 ms scan ran (task_mm_cid_work, from the tick on CPU ${r.other_cpu} while thread ${r.tid} ran there): it checks every CPU's cid for this process`
    case 'SCAN_DROPPED_OLD':
      return `the scan took cid ${r.cid} back from CPU ${r.cpu}: unused for ${ms(r.age_ns)} >= 100 ms by that CPU's rq clock; its cidmask bit is cleared${is612 ? '' : ` (CPU ${r.cpu} still remembers it as recent_cid)`}`
    case 'COMPACT_DROPPED':
      return `the scan took cid ${r.cid} back from CPU ${r.cpu}: it is >= ${r.bound}, the number of cids still taken (compaction)`
    case 'MARKED_LAZY':
      return `a thread of the process runs on CPU ${r.cpu}, so the scan only marked its cid ${r.cid} LAZY_PUT: the thread frees it when it switches out`
    case 'EXIT_PUT':
      return `thread ${r.tid} exits: CPU ${r.cpu} gives cid ${r.cid} back at once`
    case 'REMOTE_CLEAR_HELD':
      return `a remote clear emptied CPU ${r.cpu}'s slot but still holds cid ${r.cid}: an allocation now sees it taken`
    case 'REMOTE_CLEAR_DONE':
      return `the remote clear is over: cid ${r.cid} is free again`
    case 'MAX_NR_CID_SHRUNK':
      return `as thread ${r.tid} allocates on CPU ${r.cpu}, max_nr_cid is cut from ${r.prev_cid} to ${r.bound} = min(nr_cpus_allowed, mm_users): fewer threads or CPUs than before`
    case 'KEEP_TASK_CID':
      return `${t} runs on ${cpu} with its own cid ${r.cid}: since 6.19 a thread owns its cid from fork to exit (per-task mode), on every CPU, however long it slept`
    case 'HANDOVER':
      return `after a mode change, cid ${r.cid} passes between ${t} and ${cpu} instead of going back to the pool`
    case 'CONVERGE':
      return `${t} on ${cpu} held cid ${r.prev_cid} >= max_cids ${r.bound} (threads have left): it swapped it for the lower free cid ${r.cid}`
    case 'MODE_PER_CPU':
      return `${r.mm_users} threads > max_cids ${r.bound} as ${t} starts (${cpu}): the process switches to per-CPU mode, where each CPU owns a cid and lends it to the thread running there`
    case 'MODE_PER_TASK':
      return `${t} leaves (${cpu}): only ${r.mm_users} threads left, below pcpu_thrs ${r.bound}: the process switches back to per-task mode, the CPUs' cids go back to the pool`
    case 'DROPPED':
      return `cid ${r.cid} goes back to the process's pool (${r.tid >= 0 ? `thread ${r.tid} on ` : ''}${cpu})`
  }
}

/** "L3 #0" for a CPU (or "" without a topology). */
function llcOf(topology: Topology | undefined, cpu: number): string {
  const c = topology?.cpus[cpu]
  return c ? `L3 #${c.llc}` : ''
}

/** The sentence for a burst: what was swept, how long it took, where the data came from. */
export function narrateBurst(b: BurstInfo, topology?: Topology, warmupSweeps = 0): string {
  const what = `area[${b.index}] (16 KiB, 256 lines)`
  let from = SOURCE_WORDS[b.source]
  if (isTransfer(b.source) && b.fromCpu !== null) {
    const a = llcOf(topology, b.fromCpu)
    const z = llcOf(topology, b.cpu)
    from = `CPU ${b.fromCpu}'s cache${a && z && a !== z ? ` (${a} → ${z})` : a ? ` (${a})` : ''}: ${SOURCE_WORDS[b.source]}`
  }
  const why = b.breakdown ? `; why: ${explainCost(b.breakdown)}` : ''
  if (b.warmup) {
    return `warm-up (not measured): thread ${b.tid} swept ${what}${warmupSweeps ? ` ${warmupSweeps} times` : ''} on CPU ${b.cpu} in ${formatDuration(b.cost_ns)}; the first sweep's data came from ${from}${why}`
  }
  return `burst: thread ${b.tid} swept ${what} on CPU ${b.cpu} in ${formatDuration(b.cost_ns)} — data from ${from}${why}`
}

const NEW_CID: readonly MmCidPath[] = ['RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE']

/** Where the area of a freshly handed-out cid was when its burst began. */
export function areaPhrase(b: BurstInfo, topology?: Topology): string {
  const area = `its 16 KiB area[${b.index}]`
  switch (b.source) {
    case 'core':
      return `${area} is still in this core's own cache`
    case 'llc':
      return `${area} is still in ${llcOf(topology, b.cpu) || 'its L3'}'s cache`
    case 'same-llc-core':
    case 'other-llc':
    case 'other-socket': {
      const where = b.fromCpu !== null ? `CPU ${b.fromCpu}'s cache${llcOf(topology, b.fromCpu) ? ` in ${llcOf(topology, b.fromCpu)}` : ''}` : 'another cache'
      return `${area} was last written in ${where}: the burst pulls its 256 lines across`
    }
    case 'dram':
      return b.fromCpu === null ? `${area} was never touched: it comes from DRAM` : `${area} went cold: it comes from DRAM`
    default:
      return `${area}'s lines came from an unknown source`
  }
}

/** Scheduler events of the instant in words, duplicates merged (the Simulate page's sentences). */
export function narrateEvents(events: readonly SimEvent[], topology?: Topology): string {
  const seen: string[] = []
  for (const ev of events) {
    if (ev.type === 'rseq_update' || ev.type === 'sched_wakeup') continue // said by the switch / waking
    const text = `${describeEvent(ev, topology)} (CPU ${ev.cpu})`
    if (!seen.includes(text)) seen.push(text)
  }
  return seen.join('; ')
}

export interface StepNarrationInput {
  variant: string
  /** Time of the lesson step, ns. */
  time_ns: number
  /** Records this run logged at the step. */
  records: readonly MmCidRecord[]
  /** All records of the run up to at least this step (why a slot was empty). */
  history: readonly MmCidRecord[]
  /** Bursts that started at the step. */
  bursts: readonly BurstInfo[]
  /** The run's events at this instant (none: nothing happened in this run). */
  events: readonly SimEvent[]
  topology?: Topology
  warmupSweeps?: number
}

/**
 * What the step says for one run, in order: the allocator's decisions (the
 * scan's first), the bursts, and the scheduler events when the allocator did
 * not run.
 */
export function narrateStep(x: StepNarrationInput): NarrationLine[] {
  const lines: NarrationLine[] = []
  // KEEP_PCPU_CID at every switch-in says little when something else happened too.
  const interesting = x.records.filter((r) => r.path !== 'KEEP_PCPU_CID')
  const shown = interesting.length ? interesting : x.records
  for (const r of shown) {
    let text = narrateRecord(r, x.variant, x.history)
    const burst = NEW_CID.includes(r.path) ? x.bursts.find((b) => b.tid === r.tid && b.index === r.cid) : undefined
    if (burst) text += `: ${areaPhrase(burst, x.topology)}`
    lines.push({ kind: 'record', path: r.path, text })
  }
  for (const b of x.bursts) lines.push({ kind: 'burst', text: narrateBurst(b, x.topology, x.warmupSweeps) })
  if (!lines.length && x.events.length) lines.push({ kind: 'event', text: narrateEvents(x.events, x.topology) })
  if (!lines.length) lines.push({ kind: 'quiet', text: `nothing happens in ${x.variant} at ${formatT(x.time_ns)}` })
  return lines
}

/** Measured bursts' total and mean cost (warm-ups excluded, as the benchmark reports). */
export interface CostTotals {
  measured: number
  total_ns: number
  mean_ns: number
  warmups: number
  /** Measured bursts whose data crossed from another core or L3. */
  transfers: number
  /** Measured bursts whose data came from DRAM (in no cache). */
  dram: number
}

export function costTotals(bursts: readonly BurstInfo[]): CostTotals {
  let measured = 0
  let total = 0
  let warmups = 0
  let transfers = 0
  let dram = 0
  for (const b of bursts) {
    if (b.warmup) {
      warmups++
      continue
    }
    measured++
    total += b.cost_ns
    if (isTransfer(b.source)) transfers++
    if (b.source === 'dram') dram++
  }
  return { measured, total_ns: total, mean_ns: measured ? total / measured : 0, warmups, transfers, dram }
}

/** "1.234 µs" with a ratio when both are known: "v6.12 costs 13.9x v6.13". */
export function ratioText(a: CostTotals, b: CostTotals, nameA: string, nameB: string): string {
  if (!a.measured || !b.measured || !b.mean_ns) return ''
  const r = a.mean_ns / b.mean_ns
  if (Math.abs(r - 1) < 0.005) return `${nameA} and ${nameB} cost the same per burst so far`
  return r > 1 ? `${nameA} costs ${r.toFixed(1)}x ${nameB} per burst so far` : `${nameB} costs ${(1 / r).toFixed(1)}x ${nameA} per burst so far`
}

export { ms as msText }
