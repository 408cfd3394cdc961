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
 *
 * Simulations (kscope/sim.h) are objects with a lifetime: simulate() returns a
 * Simulation that owns its ks_sim, its topology, an event log and one scratch
 * block, until free(). Its records (events, frames, stats) are decoded by the
 * pure functions in sim_records.ts from typed-array views made here.
 */
import createKscopeCore, {
  type KscopeCoreModule,
} from '../../../wasm-core/build/wasm/kscope_core.mjs'
import wasmUrl from '../../../wasm-core/build/wasm/kscope_core.wasm?url'
import {
  BURST_BYTES, EVENT_BYTES, EVENT_TYPES, PARSE_ERROR_BYTES, RUN_LIMIT_BYTES, STATS_BYTES,
  decodeBursts, decodeEvent, decodeEvents, decodeFrame, decodeParseError, decodeStats, encodeRunLimit,
  eventMentions, viewsOf,
  type BurstCost, type ParseErrorRecord, type SimEvent, type SimFrame, type SimStats, type Views,
} from './sim_records'
import {
  MM_CID_LOG_VIEW_BYTES, MM_CID_PATHS, MM_CID_VIEW, MM_CID_VIEW_REQUEST_BYTES, decodeMask, decodeMmCidAreas,
  decodeMmCidLessonHeader, decodeMmCidLogView, decodeMmCidMm, decodeMmCidPathView, decodeMmCidPcpu,
  decodeMmCidRecords, writeMmCidViewRequest,
  type MmCidArea, type MmCidMm, type MmCidPcpu, type MmCidRecord,
} from './mm_cid_records'
import type { TraceWorkerReply, TraceWorkerRequest } from './trace_worker'
import { compressionOf, type Compression } from './compression'
import {
  TraceColumnsBuilder,
  decodeFtraceStats, decodePerfStats, decodeTracedatStats, headerLines,
  type TraceColumns, type TraceDecodeStats,
} from './trace_records'

export {
  TYPE_EXIT, TYPE_FORK, TYPE_FREE, TYPE_GENERIC, TYPE_MIGRATE, TYPE_RSEQ, TYPE_SWITCH, TYPE_WAKEUP, TYPE_WAKEUP_NEW,
  TYPE_WAKING, headerLines,
  type TraceColumns, type TraceDecodeStats, type TraceParseProblem,
} from './trace_records'

export {
  MM_CID_F_OVER_ALLOWED, MM_CID_F_TASK_ALLOWED, MM_CID_F_WAITED, MM_CID_PATHS, MM_CID_VARIANTS,
  type MmCidArea, type MmCidMm, type MmCidPath, type MmCidPcpu, type MmCidRecord, type MmCidVariant,
} from './mm_cid_records'
export {
  EVENT_TYPES, eventTypeMask,
  type BurstCost, type EventType, type ParseErrorRecord, type Policy, type SimCpu, type SimEvent, type SimFrame,
  type SimStats, type SimTask, type TaskState,
} from './sim_records'

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

/**
 * A workload the C parser rejected (ks_sim_new returned KS_ERR_PARSE, or named
 * a bad configuration field): where, which field, and why, e.g.
 * `workload line 7, column 20, field "processes[0].threads": must be between 1 and 1024, got 0`.
 */
export class WorkloadError extends KscopeError {
  /** 1-based line of the JSON text; 0 when the error is about the input as a whole. */
  readonly line: number
  /** 1-based column (0 when unknown). */
  readonly column: number
  /** Field path, e.g. "processes[0].threads" ("" when none). */
  readonly field: string
  /** The parser's own words, e.g. "must be between 1 and 1024, got 0". */
  readonly detail: string

  constructor(status: number, statusMessage: string, where: ParseErrorRecord) {
    super(status, statusMessage, 'workload')
    const parts = [where.line > 0 ? `line ${where.line}` : '', where.column > 0 ? `column ${where.column}` : '',
      where.field ? `field "${where.field}"` : ''].filter(Boolean)
    this.message = `workload${parts.length ? ` ${parts.join(', ')}` : ''}: ${where.message || statusMessage}`
    this.name = 'WorkloadError'
    this.line = where.line
    this.column = where.column
    this.field = where.field
    this.detail = where.message || statusMessage
  }
}

/**
 * A trace file that could not be opened: which file, where (byte offset
 * and/or line, when known) and what was wrong, e.g.
 * `threads4.dat: offset 4096 (header_page): truncated file`.
 */
export class TraceOpenError extends KscopeError {
  readonly file: string
  /** Byte offset in the file, -1 when not known. */
  readonly offset: number
  /** 1-based line of a text trace, 0 when not known. */
  readonly line: number
  readonly problem: string

  constructor(status: number, statusMessage: string, file: string, problem: string, where: { offset?: number; line?: number; field?: string } = {}) {
    super(status, statusMessage, file)
    const offset = where.offset ?? -1
    const line = where.line ?? 0
    const parts = [line > 0 ? `line ${line}` : '', offset >= 0 ? `offset ${offset}` : ''].filter(Boolean)
    const place = parts.length ? ` ${parts.join(', ')}${where.field ? ` (${where.field})` : ''}` : where.field ? ` (${where.field})` : ''
    this.message = `${file}:${place} ${problem}`
    this.name = 'TraceOpenError'
    this.file = file
    this.offset = offset
    this.line = line
    this.problem = problem
  }
}

/** Progress of openTrace: bytes read of the file (or of the decompressed data). */
export interface TraceOpenProgress {
  phase: 'detect' | 'decompress' | 'decode' | 'done'
  bytesDone: number
  bytesTotal: number
  events: number
}

/** A real trace decoded in the browser: columns copied out of wasm memory, the decoder's stats, its header text. */
export interface LocalTrace {
  /** The file's name (untrusted text). */
  name: string
  /** ks_trace_format_name() of what was decoded, e.g. "ftrace-text", "trace.dat". */
  format: string
  /** Set when the file was compressed and was decompressed in the browser first (decompress.ts). */
  compressed: '' | Compression
  columns: TraceColumns
  stats: TraceDecodeStats
  /** The "# ..." header lines of a text trace (capture metadata, tracefs header); [] for trace.dat. */
  header: string[]
}

export interface TraceOpenOptions {
  /** Bytes per read for text formats (default 1 MiB). */
  chunkBytes?: number
}

export interface SimulationOptions {
  /** Topology preset name, e.g. "classroom-8". */
  preset: string
  /** The workload as JSON text (schema: wasm-core/src/sched/workload.c). */
  workloadJson: string
  /** RNG seed: the same (preset, workload, seed, algo) gives the same events. */
  seed: number | bigint
  /** Scheduling algorithm model, e.g. "mm_cid:v6.13", or "auto" (mm_cid:v6.18 when a process registers rseq); default "none". */
  algo?: string
  /** Cache eviction parameters; absent fields keep the core's defaults (ks_cache_default_params). */
  cache?: Partial<CacheParams>
}

/**
 * The cache model's eviction by time decay (ks_cache_params): bytes of other
 * work per microsecond that push a copy out; 0 means never evicted.
 */
export interface CacheParams {
  /** Per core: a copy untouched longer than L2 size / rate leaves the core's caches. */
  privateBackgroundBytesPerUs: number
  /** Per LLC: a copy untouched longer than L3 size / rate leaves the LLC. */
  llcBackgroundBytesPerUs: number
}

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

/**
 * A run scanned ahead event by event (Simulation.timeline): when each event
 * happened, how far the mm_cid log and the burst list had grown after it,
 * and where each burst's lines came from. Event i (1-based step i) is entry i - 1.
 */
export interface RunTimeline {
  /** Event times, ns. */
  ts: Float64Array
  /** Log sequence number after each event (records [0, logEnd) logged by then). */
  logEnd: Float64Array
  /** Bursts run after each event. */
  burstEnd: Uint32Array
  /**
   * Per burst (by number): cache lines served from each source during it
   * (ks_cache_source order: L1, L2, LLC, same-LLC core, other LLC, other socket,
   * DRAM local, DRAM remote); null if two bursts started within one event.
   */
  burstLines: (number[] | null)[]
  /** Whether the run ended within the scan (else maxEvents stopped it). */
  finished: boolean
  /** Every mm_cid log record of the scanned run (all processes), oldest first. */
  records: MmCidRecord[]
}

/** Stop conditions of runUntil; an absent field is "no limit" (ks_run_limit). */
export interface RunLimit {
  /** Stop after the first event at or after this time, ns. */
  untilNs?: number
  /** Stop after the first event whose type bit is set (eventTypeMask). */
  typeMask?: number
  /** Stop after the first event about this tid. */
  tid?: number
  /** Stop after this many events. */
  maxEvents?: number
}

export interface RunResult {
  /** Events produced. */
  events: number
  /** The last of them (null if none). */
  last: SimEvent | null
  /** Which condition stopped the run; 'end' when the workload finished first. */
  stoppedBy: 'time' | 'type' | 'tid' | 'max' | 'end'
}

/**
 * One simulated run, stepped deterministically by the C core.
 *
 * Costs in JS<->wasm calls (what an animation frame pays): step() 1,
 * advance(n > 1) 1 (ks_sim_run_until_tail: the last RECENT_EVENTS land in a
 * buffer read through typed arrays), frame() 1; so a playback frame is 2 calls
 * at any speed. seek()/stepBack() 2 (seek, then a replay of the last RECENT_EVENTS).
 */
export interface Simulation {
  readonly preset: string
  readonly topology: Topology
  /** The algorithm the run uses, "auto" resolved by the core: e.g. "mm_cid:v6.18" or "none". */
  readonly algo: string
  /** Events produced so far: the frame on screen is the machine after this many. */
  readonly currentStep: number
  /** Whether the workload has ended (a step produced nothing). */
  readonly finished: boolean
  /** Produces the next event; null when the run has ended. */
  step(): SimEvent | null
  /** Goes back one event (seek(currentStep - 1)); null at step 0. */
  stepBack(): SimEvent | null
  /** Goes to step n exactly (back or forward; clamped to the run's end). Returns the step reached. */
  seek(n: number): number
  /** Up to n events in one wasm call (playback); returns the last RECENT_EVENTS of them. */
  advance(n: number): SimEvent[]
  /** Runs until a limit is met (ks_sim_run_until). */
  runUntil(limit: RunLimit): RunResult
  /** The machine now, from one ks_sim_frame_get call. */
  frame(): SimFrame
  /** The event that led to the current step (null at step 0). */
  lastEvent(): SimEvent | null
  /** The last RECENT_EVENTS events up to the current step, oldest first. */
  recentEvents(): readonly SimEvent[]
  /** The bursts run so far (intermittent workloads), in start order. */
  burstCosts(): BurstCost[]
  /**
   * The mm_cid lesson's view of process tgid (one wasm call; the first also
   * sizes and allocates the view's block). Throws KscopeError (NOT_FOUND) if
   * the run has no mm_cid model.
   */
  mmCidView(tgid: number, since?: MmCidSince): MmCidView
  /**
   * The plugged model's own view (ks_sim_model_view_get, one wasm call): `request` writes
   * the model's request at `at` (a block of at least `bytes`, reused between calls), the
   * core writes the view over it; returns `at`. Valid until the next call on the run.
   * For the per-model bridges; throws KscopeError (NOT_FOUND) if the model has no views.
   */
  modelView(bytes: number, request: (v: Views, at: number) => void): number
  /**
   * Scans the run ahead from step 0 to its end (or maxEvents), recording
   * what RunTimeline holds, then comes back to the current step. About four
   * wasm calls per event (step, log window, burst count; stats when a burst
   * started): for set-up, not for animation frames.
   */
  timeline(maxEvents: number): RunTimeline
  stats(): SimStats
  /** JS->wasm calls made so far (tests check the per-frame budget). */
  wasmCalls(): number
  /** Releases the C objects; the Simulation cannot be used afterwards. */
  free(): void
}

/** How many recent events a Simulation keeps decoded (the event log panel shows ~20). */
export const RECENT_EVENTS = 24

export interface KscopeCore {
  /** The core's version string, e.g. "0.1.0". */
  version(): string
  /** The allocator branches the mm_cid log names, in ks_mm_cid_path order: name and one-sentence help. */
  mmCidPaths(): { name: string; help: string }[]
  /** The cache model's default eviction parameters (ks_cache_default_params). */
  cacheDefaults(): CacheParams
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

const CPU_FIELDS = 6 // ks_cpu: cpu, core, llc, node, socket, smt_index
const SUMMARY_FIELDS = 9 // ks_topology_summary
const INT32_BYTES = 4
const POINTER_BYTES = 4 // wasm32

/*
 * A simulation's scratch block (one malloc, 8-byte aligned fields):
 *     0 ks_event   96 ks_run_limit  120 ks_sim_stats  304 ks_parse_error
 *   472 ks_sim_config  504 u32 n  508 i32 produced  512 pointer out
 * ks_sim_config in wasm32: u64 seed @0, const char *algo @8, ks_cache_params @12
 * (4 x int32), 32 bytes with tail padding.
 */
const S_EVENT = 0
const S_LIMIT = S_EVENT + EVENT_BYTES
const S_STATS = S_LIMIT + RUN_LIMIT_BYTES
const S_PERR = S_STATS + STATS_BYTES
const S_CONFIG = S_PERR + PARSE_ERROR_BYTES
const CONFIG_BYTES = 32
const CONFIG_ALGO = 8
const CONFIG_CACHE = 12
const S_N = S_CONFIG + CONFIG_BYTES
const S_PRODUCED = S_N + 4
const S_OUT = S_PRODUCED + 4
/** ks_sim_run_until_tail's buffer: the last RECENT_EVENTS events of a run, oldest first. */
const S_TAIL = S_OUT + 8
const SCRATCH_BYTES = S_TAIL + RECENT_EVENTS * EVENT_BYTES
/** A run of one thread, for asking the mm_cid model its path names (mmCidPaths). */
const PATHS_WORKLOAD = JSON.stringify({
  name: 'paths', duration_ms: 1, processes: [{ kind: 'intermittent', comm: 'paths', threads: 1, delay_ms: 1 }],
})
/** ks_mm_cid_lesson: the embedded ks_mm_cid_mm starts at byte 88. */
const MM_LESSON_MM = 88

/** Loads the C core: instantiates the wasm module once per call. */
export async function loadCore(options: LoadCoreOptions = {}): Promise<KscopeCore> {
  const mod = await createKscopeCore(
    options.wasmBinary
      ? { wasmBinary: options.wasmBinary }
      : { locateFile: (path) => (path.endsWith('.wasm') ? wasmUrl : path) },
  )
  return bindCore(mod)
}

let sharedCore: Promise<KscopeCore> | null = null

/**
 * Opens a trace file in the browser with the C decoders (never uploads it):
 * loads the core once, then KscopeCore.openTrace. Node/Vitest pass the wasm bytes.
 */
export function openTraceLocally(file: File | Blob, onProgress?: (p: TraceOpenProgress) => void,
  options: TraceOpenOptions & LoadCoreOptions & { name?: string; inWorker?: boolean } = {}): Promise<LocalTrace> {
  const name = options.name ?? ('name' in file && typeof file.name === 'string' ? file.name : 'trace')
  if ((options.inWorker ?? true) && typeof Worker !== 'undefined' && typeof window !== 'undefined' && !options.wasmBinary) {
    return openInWorker(file, name, onProgress, options)
  }
  sharedCore ??= loadCore(options)
  return sharedCore.then((core) => core.openTrace(file, name, onProgress, options))
}

/** The same decoding in a dedicated worker (engine/trace_worker.ts): the page never blocks. */
function openInWorker(file: Blob, name: string, onProgress: ((p: TraceOpenProgress) => void) | undefined,
  options: TraceOpenOptions): Promise<LocalTrace> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./trace_worker.ts', import.meta.url), { type: 'module' })
    const done = () => worker.terminate()
    worker.onmessage = (e: MessageEvent<TraceWorkerReply>) => {
      const m = e.data
      if (m.kind === 'progress') {
        onProgress?.({ phase: m.phase, bytesDone: m.bytesDone, bytesTotal: m.bytesTotal, events: m.events })
      } else if (m.kind === 'done') {
        done()
        resolve(m.trace)
      } else {
        done()
        reject(m.file !== undefined && m.problem !== undefined
          ? Object.assign(new TraceOpenError(m.status, m.statusMessage, m.file, m.problem, { offset: m.offset, line: m.line }), { message: m.message })
          : Object.assign(new KscopeError(m.status || KsStatus.PARSE, m.statusMessage || 'error', name), { message: m.message }))
      }
    }
    worker.onerror = (e) => {
      done()
      reject(new KscopeError(KsStatus.INVALID_ARG, 'worker failed', `${name}: ${e.message || 'the decoding worker stopped'}`))
    }
    worker.postMessage({ file, name, chunkBytes: options.chunkBytes } satisfies TraceWorkerRequest)
  })
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

  let cachedViews: Views | null = null
  /** Typed views over the whole memory, re-made when a call has grown (and detached) it. */
  function views(): Views {
    if (!cachedViews || cachedViews.u8.buffer !== mod.HEAPU8.buffer) cachedViews = viewsOf(mod.HEAPU8.buffer)
    return cachedViews
  }

  function simulate(options: SimulationOptions): Simulation {
    const scratch = mod._malloc(SCRATCH_BYTES)
    if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    let topo = 0
    let sim = 0
    /** Frees the simulation, then the topology it runs on, then the scratch block. */
    const releaseCore = () => {
      if (sim) mod._ks_sim_free(sim)
      if (topo) mod._ks_topology_free(topo)
      mod._free(scratch)
    }
    let topology: Topology
    try {
      withCString(options.preset, (namePtr) =>
        check(mod._ks_topology_from_preset(namePtr, scratch + S_OUT), `preset "${options.preset}"`))
      topo = mod.HEAPU32[(scratch + S_OUT) >>> 2]
      topology = readTopology(topo, scratch + S_STATS)
      sim = newSim(topo, options, scratch)
    } catch (err) {
      releaseCore()
      throw err
    }
    return bindSimulation({ preset: options.preset, topology, scratch, sim, releaseCore })
  }

  /** ks_sim_new with the options' workload, seed and algorithm; a WorkloadError if rejected. */
  function newSim(topo: number, options: SimulationOptions, scratch: number): number {
    const config = scratch + S_CONFIG
    mod.HEAPU8.fill(0, config, config + CONFIG_BYTES)
    mod._ks_cache_default_params(config + CONFIG_CACHE)
    const cache = options.cache ?? {}
    if (cache.privateBackgroundBytesPerUs !== undefined) mod.HEAP32[(config + CONFIG_CACHE) >>> 2] = cache.privateBackgroundBytesPerUs
    if (cache.llcBackgroundBytesPerUs !== undefined) mod.HEAP32[(config + CONFIG_CACHE + 4) >>> 2] = cache.llcBackgroundBytesPerUs
    views().u64[config >>> 3] = BigInt.asUintN(64, BigInt(options.seed))
    return withCString(options.algo ?? 'none', (algo) => {
      mod.HEAPU32[(config + CONFIG_ALGO) >>> 2] = algo
      return withCString(options.workloadJson, (json) => {
        const status = mod._ks_sim_new(topo, json, mod.lengthBytesUTF8(options.workloadJson), config, scratch + S_OUT, scratch + S_PERR)
        if (status !== KsStatus.OK) {
          const where = decodeParseError(views(), scratch + S_PERR)
          if (status === KsStatus.PARSE || where.message) {
            throw new WorkloadError(status, text(mod._ks_status_message(status)), where)
          }
          check(status, 'ks_sim_new')
        }
        return mod.HEAPU32[(scratch + S_OUT) >>> 2]
      })
    })
  }

  interface SimHandles {
    preset: string
    topology: Topology
    scratch: number
    sim: number
    releaseCore: () => void
  }

  function bindSimulation(h: SimHandles): Simulation {
    const { sim, scratch } = h
    let calls = 0
    let stepNo = 0
    let finished = false
    let freed = false
    let recent: SimEvent[] = []
    /** The mm_cid lesson block (ks_mm_cid_lesson_get), allocated on first use. */
    let lesson = 0
    let lessonBytes = 0
    /** modelView's block, grown on demand. */
    let viewBlock = 0
    let viewBytes = 0
    const modelView = (bytes: number, request: (v: Views, at: number) => void): number => {
      live()
      if (bytes > viewBytes) {
        if (viewBlock) mod._free(viewBlock)
        viewBlock = mod._malloc(bytes)
        viewBytes = viewBlock ? bytes : 0
        if (!viewBlock) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
      }
      request(views(), viewBlock)
      calls++
      check(mod._ks_sim_model_view_get(sim, viewBlock, viewBytes), 'ks_sim_model_view_get')
      return viewBlock
    }
    /** The mm_cid allocation log's place (KS_MM_CID_VIEW_LOG); empty without the model. */
    const mmCidLog = () => {
      try {
        return decodeMmCidLogView(views(), modelView(MM_CID_LOG_VIEW_BYTES,
          (v, at) => writeMmCidViewRequest(v, at, MM_CID_VIEW.LOG)))
      } catch (err) {
        if (err instanceof KscopeError && err.status === KsStatus.NOT_FOUND) return { first_seq: 0, records: 0, count: 0 }
        throw err
      }
    }

    const live = () => {
      if (freed) throw new KscopeError(KsStatus.INVALID_ARG, 'simulation already freed', 'Simulation')
    }
    const remember = (events: SimEvent[]) => {
      recent = recent.concat(events).slice(-RECENT_EVENTS)
    }

    /** ks_sim_run_until_tail: one call; returns the events' count and the last RECENT_EVENTS of them. */
    function runTail(limit: RunLimit): { n: number; tail: SimEvent[] } {
      encodeRunLimit(views(), scratch + S_LIMIT, limit)
      calls++
      check(mod._ks_sim_run_until_tail(sim, scratch + S_LIMIT, scratch + S_TAIL, RECENT_EVENTS, scratch + S_N),
        'ks_sim_run_until_tail')
      const v = views()
      const n = v.i32[(scratch + S_N) >>> 2] >>> 0
      return { n, tail: decodeEvents(v, scratch + S_TAIL, Math.min(n, RECENT_EVENTS)) }
    }

    /** Goes to `target` and re-reads the events leading there (replaying the last few). */
    function goTo(target: number): number {
      const from = Math.max(0, Math.floor(target) - RECENT_EVENTS)
      calls++
      const status = mod._ks_sim_seek(sim, BigInt(from))
      if (status === KsStatus.RANGE) {
        // Past the end: the core stopped at the last step; find it and land there.
        goTo(readStep())
        finished = true
        return stepNo
      }
      check(status, 'ks_sim_seek')
      stepNo = from
      finished = false
      recent = []
      if (target > from) {
        const { n, tail } = runTail({ maxEvents: target - from })
        stepNo += n
        finished = n < target - from
        remember(tail)
      }
      return stepNo
    }

    function readStep(): number {
      calls++
      const ptr = mod._ks_sim_frame_get(sim)
      return Number(views().u64[(ptr + 8) >>> 3])
    }

    const simulation: Simulation = {
      preset: h.preset,
      topology: h.topology,
      algo: text(mod._ks_sim_algo_name(sim)),
      get currentStep() {
        return stepNo
      },
      get finished() {
        return finished
      },

      step() {
        live()
        calls++
        check(mod._ks_sim_step(sim, scratch + S_EVENT, scratch + S_PRODUCED), 'ks_sim_step')
        const v = views()
        if (!v.i32[(scratch + S_PRODUCED) >>> 2]) {
          finished = true
          return null
        }
        const ev = decodeEvent(v, scratch + S_EVENT)
        stepNo++
        remember([ev])
        return ev
      },

      stepBack() {
        live()
        if (stepNo === 0) return null
        goTo(stepNo - 1)
        return simulation.lastEvent()
      },

      seek(n) {
        live()
        return goTo(Math.max(0, n))
      },

      advance(n) {
        live()
        if (n <= 0) return []
        if (n === 1) {
          const ev = simulation.step()
          return ev ? [ev] : []
        }
        const { n: produced, tail } = runTail({ maxEvents: n })
        stepNo += produced
        if (produced < n) finished = true
        remember(tail)
        return tail
      },

      runUntil(limit) {
        live()
        const run = runTail(limit)
        const n = run.n
        stepNo += n
        remember(run.tail)
        const last = n > 0 ? simulation.lastEvent() : null
        let stoppedBy: RunResult['stoppedBy'] = 'end'
        if (last && limit.untilNs && last.ts_ns >= limit.untilNs) stoppedBy = 'time'
        else if (last && limit.typeMask && limit.typeMask & (1 << EVENT_TYPES.indexOf(last.type))) stoppedBy = 'type'
        else if (last && limit.tid && eventMentions(last, limit.tid)) stoppedBy = 'tid'
        else if (limit.maxEvents && n === limit.maxEvents) stoppedBy = 'max'
        finished = stoppedBy === 'end'
        return { events: n, last, stoppedBy }
      },

      frame() {
        live()
        calls++
        const ptr = mod._ks_sim_frame_get(sim)
        return decodeFrame(views(), ptr)
      },

      lastEvent: () => recent.at(-1) ?? null,
      recentEvents: () => recent,

      burstCosts() {
        live()
        calls += 2
        const count = mod._ks_sim_burst_count(sim) >>> 0
        const ptr = mod._ks_sim_burst_costs(sim)
        return count && ptr ? decodeBursts(views(), ptr, count) : []
      },

      stats() {
        live()
        calls++
        check(mod._ks_sim_get_stats(sim, scratch + S_STATS), 'ks_sim_get_stats')
        return decodeStats(views(), scratch + S_STATS)
      },

      mmCidView(tgid, since = {}) {
        live()
        if (!lesson) {
          const at = modelView(MM_CID_VIEW_REQUEST_BYTES, (v, a) => writeMmCidViewRequest(v, a, MM_CID_VIEW.LESSON_SIZE))
          lessonBytes = views().i32[at >>> 2] >>> 0
          if (!lessonBytes) throw new KscopeError(KsStatus.NOT_FOUND, 'not found', 'ks_mm_cid_lesson_size (no mm_cid model)')
          lesson = mod._malloc(lessonBytes)
          if (!lesson) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
        }
        calls++
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
        const back = stepNo
        goTo(0)
        const ts: number[] = []
        const logEnd: number[] = []
        const burstEnd: number[] = []
        const burstLines: (number[] | null)[] = []
        const linesFrom = () => {
          calls++
          check(mod._ks_sim_get_stats(sim, scratch + S_STATS), 'ks_sim_get_stats')
          return decodeStats(views(), scratch + S_STATS).lines_from
        }
        let lines = linesFrom()
        let bursts = 0
        let ended = false
        while (ts.length < maxEvents) {
          calls += 2
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
        stepNo = ts.length
        finished = ended
        goTo(back)
        return {
          ts: Float64Array.from(ts), logEnd: Float64Array.from(logEnd), burstEnd: Uint32Array.from(burstEnd), burstLines,
          finished: ended, records,
        }
      },

      modelView,

      wasmCalls: () => calls,

      free() {
        if (freed) return
        freed = true
        if (lesson) mod._free(lesson)
        if (viewBlock) mod._free(viewBlock)
        h.releaseCore()
      },
    }
    return simulation
  }

  /* ---- real traces, decoded in the browser ---- */

  const DETECT_BYTES = 64 << 10
  const TRACE_SCRATCH = 512 // stats (<= 368) + want offset (i64 @ 400) + len (@ 408) + out pointer (@ 416)
  const FORMAT = {
    FTRACE_TEXT: 1, TRACE_CMD_REPORT: 2, TRACE_DAT: 3, PERF_SCRIPT: 4, PERF_SCHED_TIMEHIST: 5, SYSTRACE_HTML: 6,
    PERF_REPORT: 7, PERF_DATA: 8, GZIP: 9, ZIP: 10,
  } as const
  const ADVICE: Record<number, string> = {
    [FORMAT.PERF_REPORT]: 'this is perf report output (a summary, not a trace): run `perf script` and open its output',
    [FORMAT.PERF_DATA]: 'this is a binary perf.data: run `perf script > trace.txt` and open that',
    [FORMAT.ZIP]: 'this is a zip archive: extract the trace first',
    0: 'not a trace format kscope reads (ftrace text, trace-cmd report, trace.dat v6/v7, perf script, systrace HTML)',
  }

  async function bytesOf(file: Blob, from: number, to: number): Promise<Uint8Array> {
    return new Uint8Array(await file.slice(from, to).arrayBuffer())
  }

  /** Copies bytes into a malloc'd block (growing it when needed); returns the block. */
  function toWasm(bytes: Uint8Array, block: { ptr: number; cap: number }): number {
    if (bytes.length > block.cap) {
      if (block.ptr) mod._free(block.ptr)
      block.cap = Math.max(bytes.length, 1)
      block.ptr = mod._malloc(block.cap)
      if (!block.ptr) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    }
    mod.HEAPU8.set(bytes, block.ptr)
    return block.ptr
  }

  function detect(head: Uint8Array): number {
    const block = { ptr: 0, cap: 0 }
    try {
      const ptr = toWasm(head, block)
      return mod._ks_trace_detect(ptr, head.length)
    } finally {
      if (block.ptr) mod._free(block.ptr)
    }
  }

  async function openTrace(file: Blob, name: string, onProgress: (p: TraceOpenProgress) => void = () => {},
    options: TraceOpenOptions = {}): Promise<LocalTrace> {
    onProgress({ phase: 'detect', bytesDone: 0, bytesTotal: file.size, events: 0 })
    const head = await bytesOf(file, 0, DETECT_BYTES)
    if (head.length === 0) throw new TraceOpenError(KsStatus.PARSE, 'parse error', name, 'the file is empty')
    // gzip, xz, zstd or zip: decompressed first, under the server's limits (decompress.ts).
    const compressed: LocalTrace['compressed'] = compressionOf(head) ?? ''
    if (compressed) {
      const total = file.size
      onProgress({ phase: 'decompress', bytesDone: 0, bytesTotal: total, events: 0 })
      const { decompressToBlob } = await import('./decompress')
      file = await decompressToBlob(file, name, compressed,
        (read) => onProgress({ phase: 'decompress', bytesDone: read, bytesTotal: total, events: 0 }))
    }
    const format = detect(compressed ? await bytesOf(file, 0, DETECT_BYTES) : head)
    const formatName = text(mod._ks_trace_format_name(format))
    const kind = format === FORMAT.TRACE_DAT ? 'tracedat'
      : format === FORMAT.FTRACE_TEXT || format === FORMAT.TRACE_CMD_REPORT ? 'ftrace'
        : format === FORMAT.PERF_SCRIPT || format === FORMAT.PERF_SCHED_TIMEHIST ? 'perf'
          : format === FORMAT.SYSTRACE_HTML ? 'systrace' : null
    if (!kind) {
      throw new TraceOpenError(KsStatus.PARSE, 'parse error', name,
        ADVICE[format] ?? `${formatName} files cannot be decoded here`, { offset: 0 })
    }
    const builder = new TraceColumnsBuilder()
    const scratch = mod._malloc(TRACE_SCRATCH)
    if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    const block = { ptr: 0, cap: 0 }
    let dec = 0
    try {
      const api = kind === 'ftrace'
        ? { nu: mod._ks_ftrace_decoder_new, free: mod._ks_ftrace_decoder_free, feed: mod._ks_ftrace_decoder_feed, finish: mod._ks_ftrace_decoder_finish, stats: mod._ks_ftrace_decoder_stats }
        : kind === 'perf'
          ? { nu: mod._ks_perf_decoder_new, free: mod._ks_perf_decoder_free, feed: mod._ks_perf_decoder_feed, finish: mod._ks_perf_decoder_finish, stats: mod._ks_perf_decoder_stats }
          : kind === 'systrace'
            ? { nu: mod._ks_systrace_decoder_new, free: mod._ks_systrace_decoder_free, feed: mod._ks_systrace_decoder_feed, finish: mod._ks_systrace_decoder_finish, stats: mod._ks_systrace_decoder_stats }
            : { nu: mod._ks_tracedat_decoder_new, free: mod._ks_tracedat_decoder_free, feed: null, finish: mod._ks_tracedat_decoder_finish, stats: mod._ks_tracedat_decoder_stats }
      check(api.nu(scratch + 416), `${name}: decoder`)
      dec = mod.HEAPU32[(scratch + 416) >>> 2]

      /** Runs one decoder call into a fresh C log, copies the records out, frees the log. */
      const intoColumns = (call: (sink: number) => number, what: string): number => {
        check(mod._ks_event_log_new(scratch + 416), 'ks_event_log_new')
        const log = mod.HEAPU32[(scratch + 416) >>> 2]
        try {
          const status = call(log)
          const n = mod._ks_event_log_count(log) >>> 0
          if (n) {
            const at = mod._ks_event_log_data(log)
            const genericText = (off: number) => text(mod._ks_event_log_text(log, off))
            // Generic text lookups are wasm calls that do not grow memory: the views stay valid.
            const v = views()
            builder.appendEvents(v.u8, v.i32, new Uint32Array(v.u8.buffer), at, n, genericText)
          }
          if (status !== KsStatus.OK && status !== KsStatus.PARSE) check(status, `${name}: ${what}`)
          return status
        } finally {
          mod._ks_event_log_free(log)
        }
      }

      let header: string[] = []
      if (kind !== 'tracedat') {
        const chunk = Math.max(4096, options.chunkBytes ?? 1 << 20)
        let headerDone = false
        let headText = ''
        let stopped = false
        for (let off = 0; off < file.size && !stopped; off += chunk) {
          const bytes = await bytesOf(file, off, off + chunk)
          if (!headerDone) {
            headText += new TextDecoder('utf-8').decode(bytes.subarray(0, Math.min(bytes.length, 1 << 20)))
            const h = headerLines(headText)
            header = h.lines
            headerDone = h.done || headText.length >= 4 << 20
          }
          const ptr = toWasm(bytes, block)
          const status = intoColumns((sink) => api.feed!(dec, ptr, bytes.length, sink), 'feed')
          if (status === KsStatus.PARSE) stopped = true
          onProgress({ phase: 'decode', bytesDone: Math.min(file.size, off + bytes.length), bytesTotal: file.size, events: builder.count })
        }
        intoColumns((sink) => api.finish(dec, sink), 'finish')
      } else {
        const MAX_READ = 4 << 20
        for (;;) {
          check(mod._ks_tracedat_decoder_want(dec, scratch + 400, scratch + 408), `${name}: want`)
          const want = Number(views().u64[(scratch + 400) >>> 3])
          const len = mod.HEAP32[(scratch + 408) >>> 2]
          if (len <= 0) break
          const bytes = await bytesOf(file, want, want + Math.min(len, MAX_READ))
          const ptr = bytes.length ? toWasm(bytes, block) : (block.ptr || scratch)
          const status = intoColumns((sink) => mod._ks_tracedat_decoder_feed(dec, BigInt(want), ptr, bytes.length, sink), 'feed')
          onProgress({ phase: 'decode', bytesDone: Math.min(file.size, want + bytes.length), bytesTotal: file.size, events: builder.count })
          if (status === KsStatus.PARSE) break
        }
        intoColumns((sink) => api.finish(dec, sink), 'finish')
      }

      check(api.stats(dec, scratch), `${name}: stats`)
      const v = views()
      const i32 = new Int32Array(v.u8.buffer)
      let stats: TraceDecodeStats
      let failed: { status: number } | null = null
      if (kind === 'tracedat') {
        const s = decodeTracedatStats(v.u8, i32, scratch, formatName, file.size)
        if (s.status !== KsStatus.OK) failed = s
        const nb = mod._ks_tracedat_decoder_buffer_count(dec)
        stats = { ...s, buffers: Array.from({ length: nb }, (_, i) => ({
          name: text(mod._ks_tracedat_decoder_buffer_name(dec, i)), events: builder.bufferCounts[i] ?? 0 })) }
      } else if (kind === 'perf') {
        const s = decodePerfStats(v.u8, i32, scratch, formatName, file.size)
        if (s.status !== KsStatus.OK) failed = s
        stats = s
      } else {
        stats = decodeFtraceStats(v.u8, i32, scratch, formatName, file.size)
      }
      if (failed) {
        const e = stats.firstError
        throw new TraceOpenError(failed.status, text(mod._ks_status_message(failed.status)), name,
          e?.message || 'the decoder stopped', { offset: e?.offset, line: e?.line, field: e?.field })
      }
      onProgress({ phase: 'done', bytesDone: file.size, bytesTotal: file.size, events: builder.count })
      return { name, format: formatName, compressed, columns: builder.finish(), stats, header }
    } finally {
      if (dec) (kind === 'ftrace' ? mod._ks_ftrace_decoder_free : kind === 'perf' ? mod._ks_perf_decoder_free
        : kind === 'systrace' ? mod._ks_systrace_decoder_free : mod._ks_tracedat_decoder_free)(dec)
      if (block.ptr) mod._free(block.ptr)
      mod._free(scratch)
    }
  }

  let paths: { name: string; help: string }[] | null = null

  return {
    version: () => text(mod._ks_version()),
    mmCidPaths() {
      if (paths) return paths
      // The names and help are the model's (KS_MM_CID_VIEW_PATH): asked of a tiny run of it.
      const sim = simulate({ preset: 'classroom-8', workloadJson: PATHS_WORKLOAD, seed: 1, algo: 'mm_cid:v6.13' })
      try {
        paths = MM_CID_PATHS.map((_, i) => decodeMmCidPathView(views(), sim.modelView(1024,
          (v, at) => writeMmCidViewRequest(v, at, MM_CID_VIEW.PATH, 0, i))))
      } finally {
        sim.free()
      }
      return paths
    },
    cacheDefaults() {
      const at = mod._malloc(16)
      try {
        mod._ks_cache_default_params(at)
        return { privateBackgroundBytesPerUs: mod.HEAP32[at >>> 2], llcBackgroundBytesPerUs: mod.HEAP32[(at >>> 2) + 1] }
      } finally {
        mod._free(at)
      }
    },
    memoryBytes: () => mod.HEAPU8.buffer.byteLength,
    eventTypeName: (type) => text(mod._ks_event_type_name(type)),
    simulate,
    openTrace,

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
