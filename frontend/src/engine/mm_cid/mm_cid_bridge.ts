/*
 * The mm_cid model's bridge: what a Simulation running "mm_cid:<variant>"
 * adds (the lesson's view of a process, the scan of a run with its
 * allocation log) and the allocator branches' names. Its records are decoded
 * by the pure functions in mm_cid_records.ts.
 */
import { KscopeError, KsStatus } from '../core_errors'
import {
  MM_CID_LOG_VIEW_BYTES, MM_CID_PATHS, MM_CID_VIEW, MM_CID_VIEW_REQUEST_BYTES, decodeMask, decodeMmCidAreas,
  decodeMmCidLessonHeader, decodeMmCidLogView, decodeMmCidMm, decodeMmCidPathView, decodeMmCidPcpu,
  decodeMmCidRecords, writeMmCidViewRequest,
  type MmCidArea, type MmCidMm, type MmCidPcpu, type MmCidRecord,
} from './mm_cid_records'
import { S_EVENT, S_PRODUCED, S_STATS, simulate, type RunTimeline, type SimInternals } from '../simulation'
import { BURST_BYTES, decodeBursts, decodeCostParts, decodeFrame, decodeStats, type BurstCost, type SimFrame } from '../sim_records'
import type { WasmContext } from '../wasm_context'

/**
 * The mm_cid lesson's view of one process after the current step
 * (ks_mm_cid_lesson_get: one wasm call), with the log records and bursts
 * that are new since the caller's last read.
 */
export interface MmCidView {
  now_ns: number
  step: number
  frame: SimFrame
  /** Per-mm scalars; null before the process's first thread or after its last one exited. */
  mm: MmCidMm | null
  /** mm->cidmask: bit i = cid i allocated (nr_cpu_ids entries). */
  cidmask: boolean[]
  /** The 6.13+ per-mm union of allowed CPUs (all false on 6.12). */
  cpusAllowed: boolean[]
  /** The per-mm/cpu table, one row per CPU. */
  pcpu: MmCidPcpu[]
  /** Where each per-index data area is, by index (nr_cpu_ids entries; untouched ones have object -1). */
  areas: MmCidArea[]
  /** Log sequence numbers [logStart, logEnd) are visible at this step. */
  logStart: number
  logEnd: number
  /** The visible records with seq >= since.logFrom. */
  records: MmCidRecord[]
  /** Bursts run so far. */
  burstCount: number
  /** Bursts number since.burstsFrom .. burstCount - 1. */
  bursts: BurstCost[]
}

/** What the caller has already read: only newer records and bursts are decoded. */
export interface MmCidSince {
  logFrom?: number
  burstsFrom?: number
}

/** What the mm_cid bridge adds to a Simulation. */
export interface MmCidSimulation {
  /**
   * The mm_cid lesson's view of process tgid (one wasm call; the first also
   * sizes and allocates the view's block). Throws KscopeError (NOT_FOUND) if
   * the run has no mm_cid model.
   */
  mmCidView(tgid: number, since?: MmCidSince): MmCidView
  /**
   * Scans the run ahead from step 0 to its end (or maxEvents), recording
   * what RunTimeline holds, then comes back to the current step. About four
   * wasm calls per event (step, log window, burst count; stats when a burst
   * started): for set-up, not for animation frames.
   */
  timeline(maxEvents: number): RunTimeline<MmCidRecord>
}

/** ks_mm_cid_lesson: the embedded ks_mm_cid_mm starts at byte 88. */
const MM_LESSON_MM = 88
/** A run of one thread, for asking the mm_cid model its path names (mmCidPaths). */
const PATHS_WORKLOAD = JSON.stringify({
  name: 'paths', duration_ms: 1, processes: [{ kind: 'intermittent', comm: 'paths', threads: 1, delay_ms: 1 }],
})

/** The mm_cid methods of one simulation (listed in model_bridges.ts). */
export function attachMmCid(s: SimInternals): MmCidSimulation {
  const { sim, scratch, live } = s
  const { mod, check, views } = s.ctx
  /** The mm_cid lesson block (ks_mm_cid_lesson_get), allocated on first use. */
  let lesson = 0
  let lessonBytes = 0
  s.onFree(() => {
    if (lesson) mod._free(lesson)
  })
  /** The mm_cid allocation log's place (KS_MM_CID_VIEW_LOG); empty without the model. */
  const mmCidLog = () => {
    try {
      return decodeMmCidLogView(views(), s.modelView(MM_CID_LOG_VIEW_BYTES,
        (v, at) => writeMmCidViewRequest(v, at, MM_CID_VIEW.LOG)))
    } catch (err) {
      if (err instanceof KscopeError && err.status === KsStatus.NOT_FOUND) return { first_seq: 0, records: 0, count: 0 }
      throw err
    }
  }

  return {
    mmCidView(tgid, since = {}) {
      live()
      if (!lesson) {
        const at = s.modelView(MM_CID_VIEW_REQUEST_BYTES, (v, a) => writeMmCidViewRequest(v, a, MM_CID_VIEW.LESSON_SIZE))
        lessonBytes = views().i32[at >>> 2] >>> 0
        if (!lessonBytes) throw new KscopeError(KsStatus.NOT_FOUND, 'not found', 'ks_mm_cid_lesson_size (no mm_cid model)')
        lesson = mod._malloc(lessonBytes)
        if (!lesson) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
      }
      s.countCalls(1)
      writeMmCidViewRequest(views(), lesson, MM_CID_VIEW.LESSON, tgid)
      check(mod._ks_sim_model_view_get(sim, lesson, lessonBytes), 'ks_sim_model_view_get (mm_cid lesson)')
      // No wasm calls below: the views stay attached.
      const v = views()
      const h = decodeMmCidLessonHeader(v, lesson)
      const logEnd = h.log_first_seq + h.log_count
      const burstsFrom = Math.min(since.burstsFrom ?? 0, h.burst_count)
      return {
        now_ns: h.now_ns,
        step: h.step,
        frame: decodeFrame(v, h.frame),
        mm: h.mm_status === KsStatus.OK ? decodeMmCidMm(v, lesson + MM_LESSON_MM) : null,
        cidmask: decodeMask(v, lesson + h.cidmask_off, h.nr_cpus),
        cpusAllowed: decodeMask(v, lesson + h.cpus_allowed_off, h.nr_cpus),
        pcpu: decodeMmCidPcpu(v, lesson + h.pcpu_off, h.nr_cpus),
        areas: decodeMmCidAreas(v, lesson + h.areas_off, h.nr_cpus),
        logStart: h.log_first_seq,
        logEnd,
        records: h.log_count ? decodeMmCidRecords(v, h.log_records, h.log_first_seq, since.logFrom ?? 0, logEnd) : [],
        burstCount: h.burst_count,
        bursts: h.burst_count > burstsFrom && h.bursts
          ? decodeBursts(v, h.bursts + burstsFrom * BURST_BYTES, h.burst_count - burstsFrom)
          : [],
      }
    },

    timeline(maxEvents) {
      live()
      const back = s.stepNo
      s.goTo(0)
      const ts: number[] = []
      const logEnd: number[] = []
      const burstEnd: number[] = []
      const burstLines: (number[] | null)[] = []
      const linesFrom = () => {
        s.countCalls(1)
        check(mod._ks_sim_get_stats(sim, scratch + S_STATS), 'ks_sim_get_stats')
        return decodeStats(views(), scratch + S_STATS).lines_from
      }
      let lines = linesFrom()
      let bursts = 0
      let ended = false
      while (ts.length < maxEvents) {
        s.countCalls(2)
        check(mod._ks_sim_step(sim, scratch + S_EVENT, scratch + S_PRODUCED), 'ks_sim_step')
        if (!mod.HEAP32[(scratch + S_PRODUCED) >>> 2]) {
          ended = true
          break
        }
        ts.push(Number(views().u64[(scratch + S_EVENT) >>> 3]))
        const log = mmCidLog()
        logEnd.push(log.first_seq + log.count)
        const now = mod._ks_sim_burst_count(sim) >>> 0
        if (now > bursts) {
          const after = linesFrom()
          for (let b = bursts; b < now - 1; b++) burstLines.push(null)
          burstLines.push(now - bursts === 1 ? after.map((n, i) => n - lines[i]) : null)
          lines = after
          bursts = now
        }
        burstEnd.push(bursts)
      }
      // The whole log, read before coming back (a step back hides the records after it).
      const { first_seq: first, count, records: at } = mmCidLog()
      const records = count && at ? decodeMmCidRecords(views(), at, first, first, first + count) : []
      // Every burst's parts (cost model v2), read at the scan's end for the same reason.
      s.countCalls(1)
      const partsAt = mod._ks_sim_burst_parts(sim)
      const burstParts = bursts && partsAt ? decodeCostParts(views(), partsAt, 0, bursts) : []
      s.setPosition(ts.length, ended)
      s.goTo(back)
      return {
        ts: Float64Array.from(ts), logEnd: Float64Array.from(logEnd), burstEnd: Uint32Array.from(burstEnd), burstLines,
        burstParts, finished: ended, records,
      }
    },
  }
}

/** What the mm_cid bridge adds to a loaded core. */
export interface MmCidCore {
  /** The allocator branches the mm_cid log names, in ks_mm_cid_path order: name and one-sentence help. */
  mmCidPaths(): { name: string; help: string }[]
}

/** The mm_cid methods of a loaded core (listed in model_bridges.ts). */
export function bindMmCidCore(ctx: WasmContext): MmCidCore {
  let paths: { name: string; help: string }[] | null = null
  return {
    mmCidPaths() {
      if (paths) return paths
      // The names and help are the model's (KS_MM_CID_VIEW_PATH): asked of a tiny run of it.
      const sim = simulate(ctx, { preset: 'classroom-8', workloadJson: PATHS_WORKLOAD, seed: 1, algo: 'mm_cid:v6.13' },
        () => ({}))
      try {
        paths = MM_CID_PATHS.map((_, i) => decodeMmCidPathView(ctx.views(), sim.modelView(1024,
          (v, at) => writeMmCidViewRequest(v, at, MM_CID_VIEW.PATH, 0, i))))
      } finally {
        sim.free()
      }
      return paths
    },
  }
}
