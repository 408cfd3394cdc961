/*
 * Simulations (kscope/sim.h) are objects with a lifetime: simulate() returns a
 * Simulation that owns its ks_sim, its topology, an event log and one scratch
 * block, until free(). Its records (events, frames, stats) are decoded by the
 * pure functions in sim_records.ts from typed-array views made here.
 *
 * This part knows no model. A model's bridge (<model>_bridge.ts) adds its
 * own methods from a SimInternals handle; wasm_bridge.ts attaches them.
 */
import { KscopeError, KsStatus, WorkloadError } from './core_errors'
import {
  EVENT_BYTES, EVENT_TYPES, PARSE_ERROR_BYTES, RUN_LIMIT_BYTES, STATS_BYTES,
  decodeBursts, decodeCostParts, decodeEvent, decodeEvents, decodeFrame, decodeParseError, decodeStats, encodeRunLimit,
  eventMentions,
  type BurstCost, type SimEvent, type SimFrame, type SimStats, type Views,
} from './sim_records'
import { readTopology, type Topology } from './topology'
import type { WasmContext } from './wasm_context'

export interface SimulationOptions {
  /** Topology preset name, e.g. "classroom-8". */
  preset: string
  /** The workload as JSON text (schema: wasm-core/src/sched/workload.c). */
  workloadJson: string
  /** RNG seed: the same (preset, workload, seed, algo) gives the same events. */
  seed: number | bigint
  /** Scheduling algorithm model, "<model>:<variant>", or "auto" (the core picks: ks_sim_config.algo in kscope/sim.h); default "none". */
  algo?: string
  /** Cache eviction parameters; absent fields keep the core's defaults (ks_cache_default_params). */
  cache?: Partial<CacheParams>
  /**
   * Which cost model prices the bursts (kscope/sim_cost.h): 'v1' (the core's default:
   * every line's trip one after another) or 'v2' (overlapped misses, prefetch, C-state
   * flushes, capacity eviction, page walks, first-touch faults; each burst's parts by
   * mechanism, burstParts()). Default 'v1'.
   */
  costModel?: CostModel
}

export type CostModel = 'v1' | 'v2'
/** KS_COST_MODEL_V1 / _V2 (kscope/sim_cost.h). */
const COST_MODEL_IDS: Record<CostModel, number> = { v1: 1, v2: 2 }

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
 * One simulated run, stepped deterministically by the C core (the part every
 * model shares).
 *
 * Costs in JS<->wasm calls (what an animation frame pays): step() 1,
 * advance(n > 1) 1 (ks_sim_run_until_tail: the last RECENT_EVENTS land in a
 * buffer read through typed arrays), frame() 1; so a playback frame is 2 calls
 * at any speed. seek()/stepBack() 2 (seek, then a replay of the last RECENT_EVENTS).
 */
export interface SimulationBase {
  readonly preset: string
  readonly topology: Topology
  /** The algorithm the run uses, "auto" resolved by the core: "<model>:<variant>" or "none". */
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
  /** The cost model that prices the bursts (ks_sim_cost_model). */
  readonly costModel: CostModel
  /**
   * Each burst's cost by mechanism, bursts [from, burst count): ns per part in
   * ks_cost_part order (names: KscopeCore.costPartNames()); all 0 under v1. Two wasm calls.
   */
  burstParts(from?: number): number[][]
  stats(): SimStats
  /**
   * The plugged model's own view (ks_sim_model_view_get, one wasm call): `request` writes
   * the model's request at `at` (a block of at least `bytes`, reused between calls), the
   * core writes the view over it; returns `at`. Valid until the next call on the run.
   * For the per-model bridges; throws KscopeError (NOT_FOUND) if the model has no views.
   */
  modelView(bytes: number, request: (v: Views, at: number) => void): number
  /** JS->wasm calls made so far (tests check the per-frame budget). */
  wasmCalls(): number
  /** Releases the C objects; the Simulation cannot be used afterwards. */
  free(): void
}

/**
 * A run scanned ahead event by event (a model bridge's timeline()): when each event happened, how far the model's decision log
 * and the burst list had grown after it, and where each burst's lines came
 * from. Event i (1-based step i) is entry i - 1. R is the model's log record
 * (its engine folder decodes it).
 */
export interface RunTimeline<R = unknown> {
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
  /**
   * Per burst (by number): its cost by mechanism, ns per part in ks_cost_part order
   * (KscopeCore.costPartNames()); all 0 under cost model v1 (Simulation.burstParts).
   */
  burstParts: number[][]
  /** Whether the run ended within the scan (else maxEvents stopped it). */
  finished: boolean
  /** Every record of the model's log over the scanned run (all processes), oldest first. */
  records: R[]
}

/** How many recent events a Simulation keeps decoded (the event log panel shows ~20). */
export const RECENT_EVENTS = 24

/*
 * A simulation's scratch block (one malloc, 8-byte aligned fields):
 *     0 ks_event   96 ks_run_limit  120 ks_sim_stats  304 ks_parse_error
 *   472 ks_sim_config  504 u32 n  508 i32 produced  512 pointer out
 * ks_sim_config in wasm32: u64 seed @0, const char *algo @8, ks_cache_params @12
 * (4 x int32), 32 bytes with tail padding.
 */
export const S_EVENT = 0
const S_LIMIT = S_EVENT + EVENT_BYTES
export const S_STATS = S_LIMIT + RUN_LIMIT_BYTES
const S_PERR = S_STATS + STATS_BYTES
const S_CONFIG = S_PERR + PARSE_ERROR_BYTES
const CONFIG_BYTES = 32
const CONFIG_ALGO = 8
const CONFIG_CACHE = 12
const S_N = S_CONFIG + CONFIG_BYTES
export const S_PRODUCED = S_N + 4
const S_OUT = S_PRODUCED + 4
/** ks_sim_run_until_tail's buffer: the last RECENT_EVENTS events of a run, oldest first. */
const S_TAIL = S_OUT + 8
const SCRATCH_BYTES = S_TAIL + RECENT_EVENTS * EVENT_BYTES

/**
 * What a model's bridge may use of a bound simulation: its C handle, its
 * scratch block (offsets S_*), the call counter and the position it keeps.
 */
export interface SimInternals {
  readonly ctx: WasmContext
  /** The ks_sim pointer. */
  readonly sim: number
  /** The scratch block (offsets S_EVENT, S_STATS, S_PRODUCED, ...). */
  readonly scratch: number
  /** Throws if the simulation was freed. */
  live(): void
  /** SimulationBase.modelView: the model's own view, one wasm call. */
  modelView(bytes: number, request: (v: Views, at: number) => void): number
  /** Counts n JS->wasm calls (wasmCalls()). */
  countCalls(n: number): void
  /** The current step. */
  readonly stepNo: number
  /** Goes to step `target` exactly, re-reading the events leading there. */
  goTo(target: number): number
  /** Records where a model's own stepping left the run (it stepped with ks_sim_step itself). */
  setPosition(stepNo: number, finished: boolean): void
  /** Runs fn when the simulation is freed, before the C objects go. */
  onFree(fn: () => void): void
}

/**
 * Builds a simulation; throws WorkloadError for a bad workload, KscopeError
 * for an unknown preset. `attach` adds a model bridge's methods.
 */
export function simulate<M extends object>(ctx: WasmContext, options: SimulationOptions,
  attach: (s: SimInternals) => M): SimulationBase & M {
  const { mod, check } = ctx
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
    ctx.withCString(options.preset, (namePtr) =>
      check(mod._ks_topology_from_preset(namePtr, scratch + S_OUT), `preset "${options.preset}"`))
    topo = mod.HEAPU32[(scratch + S_OUT) >>> 2]
    topology = readTopology(ctx, topo, scratch + S_STATS)
    sim = newSim(ctx, topo, options, scratch)
    if (options.costModel && options.costModel !== 'v1') {
      check(mod._ks_sim_set_cost_model(sim, COST_MODEL_IDS[options.costModel], 0), `cost model "${options.costModel}"`)
    }
  } catch (err) {
    releaseCore()
    throw err
  }
  return bindSimulation(ctx, { preset: options.preset, topology, scratch, sim, releaseCore }, attach)
}

/** ks_sim_new with the options' workload, seed and algorithm; a WorkloadError if rejected. */
function newSim(ctx: WasmContext, topo: number, options: SimulationOptions, scratch: number): number {
  const { mod, text, check, views, withCString } = ctx
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

function bindSimulation<M extends object>(ctx: WasmContext, h: SimHandles, attach: (s: SimInternals) => M): SimulationBase & M {
  const { mod, text, check, views } = ctx
  const { sim, scratch } = h
  let calls = 0
  let stepNo = 0
  let finished = false
  let freed = false
  let recent: SimEvent[] = []
  const onFree: (() => void)[] = []

  const live = () => {
    if (freed) throw new KscopeError(KsStatus.INVALID_ARG, 'simulation already freed', 'Simulation')
  }
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

  const simulation: SimulationBase = {
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

    costModel: mod._ks_sim_cost_model(sim) === COST_MODEL_IDS.v2 ? 'v2' : 'v1',

    burstParts(from = 0) {
      live()
      calls += 2
      const count = mod._ks_sim_burst_count(sim) >>> 0
      const ptr = mod._ks_sim_burst_parts(sim)
      return count > from && ptr ? decodeCostParts(views(), ptr, Math.max(0, from), count) : []
    },

    stats() {
      live()
      calls++
      check(mod._ks_sim_get_stats(sim, scratch + S_STATS), 'ks_sim_get_stats')
      return decodeStats(views(), scratch + S_STATS)
    },

    modelView,

    wasmCalls: () => calls,

    free() {
      if (freed) return
      freed = true
      for (const fn of onFree) fn()
      if (viewBlock) mod._free(viewBlock)
      h.releaseCore()
    },
  }

  const internals: SimInternals = {
    ctx,
    sim,
    scratch,
    live,
    modelView,
    countCalls: (n) => {
      calls += n
    },
    get stepNo() {
      return stepNo
    },
    goTo,
    setPosition(step, ended) {
      stepNo = step
      finished = ended
    },
    onFree: (fn) => {
      onFree.push(fn)
    },
  }
  // Keeps the getters (currentStep, finished): the model's methods are defined onto the same object.
  return Object.defineProperties(simulation, Object.getOwnPropertyDescriptors(attach(internals))) as SimulationBase & M
}
