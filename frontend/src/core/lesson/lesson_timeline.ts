/*
 * The lesson's clock: which simulator step each lesson step is, for one run or
 * two in lockstep, and where each burst's data came from. Pure functions over
 * the RunTimeline a Simulation scans ahead (engine: Simulation.timeline).
 *
 * Lesson step = instant. The simulator makes one event per step, and one
 * scheduler action is several events at the same nanosecond (a timer wakes the
 * thread, it is switched in, rseq is updated; the cid is decided and the burst
 * starts in the switch). A lesson step is one such instant: step k shows each
 * run after all its events at time T_k, step 0 is t = 0 before any event.
 *
 * Lockstep (compare mode). The two kernels' event streams differ (a burst that
 * misses the cache runs longer, so later wakeups shift by microseconds, and the
 * allocator logs different records). The merged clock is the sorted union of
 * both runs' instants: step k is the k-th distinct time at which *either* run
 * has an event, and each run is shown after its last event at or before T_k
 * (binary search in its event times). One press of → therefore always advances
 * simulated time to the next thing that happens in either kernel; a run with
 * nothing at T_k simply shows its state unchanged ("nothing happens here").
 *
 *   run A  ──●────●─────────●──●──────      T_1 T_2 T_3 ...: every ● of A or B
 *   run B  ──●─────●────────●────●────      each run: its state at or before T_k
 *   merged   1    2 3       4  5 6
 */
import type { MmCidPath, MmCidRecord, RunTimeline } from '../shared/types'

export interface LessonClock {
  /** Instant times, ns: step k (k >= 1) is times[k - 1]. */
  times: Float64Array
  /** Per run: the simulator step (events done) at each lesson step; stepAt[r][0] = 0. */
  stepAt: Uint32Array[]
  /** Every run scanned to its end (so the last instant is the run's end). */
  complete: boolean
}

/** Index of the first element > x in a sorted array (upper bound). */
export function upperBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The distinct event times of one run, ascending. */
export function instantsOf(ts: ArrayLike<number>): number[] {
  const out: number[] = []
  for (let i = 0; i < ts.length; i++) if (i === 0 || ts[i] !== ts[i - 1]) out.push(ts[i])
  return out
}

/**
 * The lesson clock of one or more runs in lockstep. A run scanned only part
 * way (maxEvents) limits the merged clock to the times it covers.
 */
export function buildClock(runs: readonly Pick<RunTimeline, 'ts' | 'finished'>[]): LessonClock {
  const horizon = Math.min(...runs.map((r) => (r.finished ? Infinity : r.ts.length ? r.ts[r.ts.length - 1] : 0)))
  const merged = [...new Set(runs.flatMap((r) => instantsOf(r.ts)))].filter((t) => t <= horizon).sort((a, b) => a - b)
  const times = Float64Array.from(merged)
  const stepAt = runs.map((r) => {
    const at = new Uint32Array(times.length + 1)
    for (let k = 1; k <= times.length; k++) at[k] = upperBound(r.ts, times[k - 1])
    return at
  })
  return { times, stepAt, complete: runs.every((r) => r.finished) }
}

/** Lesson steps on the clock (the last valid step). */
export const lastStep = (clock: LessonClock) => clock.times.length

/** The time of lesson step k, ns (0 at step 0). */
export const timeOf = (clock: LessonClock, k: number) => (k <= 0 ? 0 : clock.times[Math.min(k, clock.times.length) - 1])

/** The last lesson step at or before time t (ns). */
export const stepAtTime = (clock: LessonClock, t: number) => upperBound(clock.times, t)

/** Log sequence number reached after a run's simulator step s (0 before any event). */
export const logEndAt = (tl: Pick<RunTimeline, 'logEnd'>, s: number) => (s <= 0 ? 0 : tl.logEnd[Math.min(s, tl.logEnd.length) - 1])

/** Bursts run after a run's simulator step s. */
export const burstsAt = (tl: Pick<RunTimeline, 'burstEnd'>, s: number) => (s <= 0 ? 0 : tl.burstEnd[Math.min(s, tl.burstEnd.length) - 1])

/** The records a run logged at lesson step k (those that became visible between steps k - 1 and k). */
export function recordsAtStep(tl: Pick<RunTimeline, 'logEnd' | 'records'>, stepAt: Uint32Array, k: number): MmCidRecord[] {
  if (k <= 0) return []
  const from = logEndAt(tl, stepAt[k - 1])
  const to = logEndAt(tl, stepAt[k])
  return tl.records.filter((r) => r.seq >= from && r.seq < to)
}

/** Paths that hand out a cid the CPU did not already own. */
export const NEW_CID_PATHS: readonly MmCidPath[] = ['RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE', 'MIGRATE_TAKEN_FROM_SRC']
export const SCAN_PATHS: readonly MmCidPath[] = ['SCAN', 'SCAN_DROPPED_OLD', 'COMPACT_DROPPED', 'MARKED_LAZY']

/** Whether a record is what "run to next" looks for. */
export function recordMatches(r: MmCidRecord, what: 'entry' | 'new-cid' | 'scan'): boolean {
  if (what === 'new-cid') return NEW_CID_PATHS.includes(r.path)
  if (what === 'scan') return SCAN_PATHS.includes(r.path)
  return true
}

/**
 * The first lesson step after `from` that shows run r with record `seq` logged (the
 * state after the record), or null if the clock does not reach it. A record is logged
 * inside the simulator step that produces the next event: the 100 ms scan, run from a
 * timer tick, makes no event of its own, so its records (at the tick's time) become
 * visible with the next event, later. The step at the record's own time would still
 * show the state before it.
 */
export function stepShowingRecord(
  clock: LessonClock, r: number, tl: Pick<RunTimeline, 'logEnd'>, seq: number, from = 0,
): number | null {
  // The first simulator step whose logEnd passes seq, then the first lesson step reaching it.
  const simStep = upperBound(tl.logEnd, seq) + 1
  if (simStep > tl.logEnd.length) return null
  const at = clock.stepAt[r]
  let lo = from + 1
  let hi = lastStep(clock)
  if (lo > hi || at[hi] < simStep) return null
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (at[mid] >= simStep) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * "Run to next allocation": the first lesson step after `from` at which any
 * run logs a record of the kind asked for; null if none on the clock.
 */
export function nextRecordStep(
  clock: LessonClock,
  runs: readonly Pick<RunTimeline, 'logEnd' | 'records'>[],
  from: number,
  what: 'entry' | 'new-cid' | 'scan',
): number | null {
  // The first matching record's seq per run after the current step, then the step it shows at.
  let best: number | null = null
  runs.forEach((tl, r) => {
    const seen = logEndAt(tl, clock.stepAt[r][Math.min(from, lastStep(clock))])
    const rec = tl.records.find((x) => x.seq >= seen && recordMatches(x, what))
    if (!rec) return
    const at = stepShowingRecord(clock, r, tl, rec.seq, from)
    if (at !== null && (best === null || at < best)) best = at
  })
  return best
}

// ---- where a burst's data came from ------------------------------------------------------

/**
 * The source of a burst's data, from the lines each cache level served during
 * it (ks_cache_source order: L1, L2, LLC, same-LLC core, other LLC, other
 * socket, DRAM local, DRAM remote): the source that served most lines, L1 hits
 * not counted (each line is stored right after it is loaded, so the stores hit
 * L1); 'core' if every line came from the core's own L1/L2.
 */
export type BurstSource = 'core' | 'llc' | 'same-llc-core' | 'other-llc' | 'other-socket' | 'dram' | 'unknown'

const SOURCE_OF_INDEX: BurstSource[] = ['core', 'core', 'llc', 'same-llc-core', 'other-llc', 'other-socket', 'dram', 'dram']

export function burstSource(lines: readonly number[] | null | undefined): BurstSource {
  if (!lines) return 'unknown'
  let best = -1
  let most = 0
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] > most) {
      most = lines[i]
      best = i
    }
  }
  return best < 0 ? 'core' : SOURCE_OF_INDEX[best]
}

/** Whether the data crossed from another core's or another L3's cache (what the transfer arrow shows). */
export const isTransfer = (s: BurstSource) => s === 'same-llc-core' || s === 'other-llc' || s === 'other-socket'

/** Words for a source: "its own core's L1/L2", "another L3", ... */
export const SOURCE_WORDS: Record<BurstSource, string> = {
  core: "its own core's L1/L2 (no transfer)",
  llc: 'its own L3',
  'same-llc-core': "another core's cache in the same L3",
  'other-llc': 'another L3 (across the die)',
  'other-socket': 'the other socket',
  dram: 'DRAM (in no cache)',
  unknown: 'an unknown source',
}

/** Short labels for the chart's glyph legend. */
export const SOURCE_LABELS: Record<BurstSource, string> = {
  core: 'same core',
  llc: 'own L3',
  'same-llc-core': 'same L3, other core',
  'other-llc': 'other L3',
  'other-socket': 'other socket',
  dram: 'DRAM',
  unknown: '?',
}
