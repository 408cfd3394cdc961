/*
 * The mm_cid lesson's state and the named actions that change it.
 *
 * What is on screen is defined by (variant, preset, workload, cache mode, seed,
 * step): the C core is deterministic, so these reproduce the exact view, and
 * they live in the URL:
 *
 *   /lesson/mm_cid?variant=compare&preset=epyc-9654-2s&threads=8&placement=cpus:0-7
 *                 &delay_ms=200&order=fixed&warmup=20000&loops=5&cache=idle&seed=1&step=40
 *
 * A lesson step is one *instant* of simulated time at which something happens
 * (all events with the same timestamp: a wakeup, the switch, the cid decision,
 * the burst). In compare mode the instants of both runs are merged, so one step
 * brings both kernels to the same simulated time (lesson_timeline.ts).
 * `until_ms=` in a link is read once: it becomes the last step at or before
 * that time (the controller resolves it; the URL then says step=).
 *
 * Each action is a pure function (state, args) -> new state; lesson_controller.ts
 * brings the engine to the state and reports where it landed (arrive()).
 */
import { cleanStep, type PlaybackState } from '../playback/playback_state'
import { DEFAULT_PRESET } from '../machine/state'
import type { Topology } from '../shared/types'

// The playback actions (step, stepBack, seek, play, pause, togglePlay, setSpeed) are every page's.
export { pause, play, seek, setSpeed, step, stepBack, togglePlay } from '../playback/playback_state'

export const LESSON_VARIANTS = ['v6.12', 'v6.13', 'v6.18', 'compare'] as const
export type LessonVariant = (typeof LESSON_VARIANTS)[number]
/** The kernels compare mode runs side by side: before and after 7e019dc. */
export const COMPARE_PAIR = ['v6.12', 'v6.13'] as const

/**
 * The cache model's eviction for the lesson. 'idle': no background traffic,
 * a copy stays until another core takes it (seed 000's machine runs nothing
 * else: its per-cpu figure, 1374 ns per 16 KiB burst at 200 ms, means the area
 * is still in L2 1.6 s later). 'busy': kscope's defaults (1 GB/s of other
 * traffic per core): every area goes cold between 200 ms bursts.
 */
export const CACHE_MODES = ['idle', 'busy'] as const
export type CacheMode = (typeof CACHE_MODES)[number]

export type ThreadOrder = 'fixed' | 'reshuffle'

/** Where the threads may run. */
export type Placement =
  /** Thread i pinned to cpus[i] (the workload's "one-per-core" with "cpus"). */
  | { kind: 'pinned'; cpus: number[] }
  /** Every thread may run on every CPU. */
  | { kind: 'any' }
  /** Every thread may run on any CPU of L3 #llc. */
  | { kind: 'l3'; llc: number }

/** The intermittent benchmark's parameters (seed 000; schema in wasm-core/src/sched/workload.c). */
export interface LessonWorkload {
  threads: number
  placement: Placement
  /** Spacing of consecutive bursts, ms. */
  delayMs: number
  /** 'fixed': librseq's pacing (one order, N x delay per thread); 'reshuffle': a driver, new order each round. */
  order: ThreadOrder
  /** Unmeasured sweeps before a thread's first measured burst (librseq: 20000). */
  warmup: number
  /** Measured bursts per thread (librseq: 5). */
  loops: number
  /** Affinity changes during the run (lesson data only; the workload's "repin"). */
  repin?: LessonRepin[]
}

/** Thread `thread` (0-based) calls sched_setaffinity(cpus) at atMs (workload.c "repin"). */
export interface LessonRepin {
  thread: number
  atMs: number
  cpus: number[]
}

export const LIMITS = {
  threads: { min: 1, max: 48 },
  delayMs: { min: 1, max: 2000 },
  warmup: { min: 0, max: 100000 },
  loops: { min: 1, max: 20 },
} as const

export const DEFAULT_SEED = 1
/** Lesson steps (instants) per second while playing. */
export const SPEEDS = [0.5, 1, 2, 5, 10, 30] as const
export const DEFAULT_SPEED = 2

/** What "run to next" stops at: any allocator log entry, a cid handed out anew, a scan. */
export const RUN_TO = ['entry', 'new-cid', 'scan'] as const
export type RunTo = (typeof RUN_TO)[number]

/** Seed 000's benchmark as librseq runs it: 8 threads pinned to CPUs 0-7, 200 ms apart. */
export const BENCHMARK_WORKLOAD: LessonWorkload = {
  threads: 8,
  placement: { kind: 'pinned', cpus: [0, 1, 2, 3, 4, 5, 6, 7] },
  delayMs: 200,
  order: 'fixed',
  warmup: 20000,
  loops: 5,
}

export interface LessonState extends PlaybackState {
  readonly variant: LessonVariant
  readonly preset: string
  readonly workload: LessonWorkload
  readonly cache: CacheMode
  readonly seed: number
  /** Bug-injection toggles of the C model on 6.13+ runs (MM_CID_TOGGLES), sorted. */
  readonly toggles: readonly MmCidToggle[]
  /** Lesson steps (instants) done: 0 is t=0, before anything happened. */
  readonly step: number
  /** A time to go to once the run is built (from a link's until_ms), ns; then null. */
  readonly untilNs: number | null
  /** Steps per second. */
  readonly speed: number
  readonly runTo: RunTo
}

export function initialLessonState(): LessonState {
  return {
    variant: 'compare',
    preset: DEFAULT_PRESET,
    workload: BENCHMARK_WORKLOAD,
    cache: 'idle',
    seed: DEFAULT_SEED,
    toggles: [],
    step: 0,
    untilNs: null,
    playing: false,
    speed: DEFAULT_SPEED,
    runTo: 'entry',
    finished: false,
  }
}

/** What defines a run: changing any of these starts a new one. */
export interface LessonRunParams {
  variant: LessonVariant
  preset: string
  workload: LessonWorkload
  cache: CacheMode
  seed: number
  /** Bug-injection toggles (absent: none). */
  toggles?: readonly MmCidToggle[]
}

export const lessonRunParams = (s: LessonState): LessonRunParams => ({
  variant: s.variant, preset: s.preset, workload: s.workload, cache: s.cache, seed: s.seed, toggles: s.toggles,
})

/**
 * The C model's bug-injection toggles (wasm-core/src/algo/mm_cid/mm_cid.c, "+flag" after the
 * variant): take one part of 7e019dc out of a 6.13+ run to show what it fixes.
 */
export const MM_CID_TOGGLES = ['no_recent_cid', 'task_nr_cpus_allowed'] as const
export type MmCidToggle = (typeof MM_CID_TOGGLES)[number]

/** Known toggles, each once, sorted (anything else dropped). */
export function cleanToggles(list: readonly string[] | undefined): MmCidToggle[] {
  return MM_CID_TOGGLES.filter((t) => (list ?? []).includes(t))
}

/** The algo string of one run: "mm_cid:v6.13+no_recent_cid"; toggles only reach 6.13+ runs. */
export function algoOf(variant: 'v6.12' | 'v6.13' | 'v6.18', toggles: readonly string[] = []): string {
  const flags = variant === 'v6.12' ? [] : cleanToggles(toggles)
  return `mm_cid:${variant}${flags.map((f) => `+${f}`).join('')}`
}

export const sameWorkload = (a: LessonWorkload, b: LessonWorkload) => workloadKey(a) === workloadKey(b)

export const sameLessonRun = (a: LessonRunParams, b: LessonRunParams) =>
  a.variant === b.variant && a.preset === b.preset && a.cache === b.cache && a.seed === b.seed && sameWorkload(a.workload, b.workload) &&
  cleanToggles(a.toggles).join('+') === cleanToggles(b.toggles).join('+')

/** The kernels a variant runs, in display order. */
export function variantsOf(variant: LessonVariant): ('v6.12' | 'v6.13' | 'v6.18')[] {
  return variant === 'compare' ? [...COMPARE_PAIR] : [variant]
}

// ---- cleaning values from links and fields -----------------------------------------

const clampInt = (value: unknown, lo: number, hi: number, dflt: number) => {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim())
  return Number.isFinite(n) && String(value ?? '').trim() !== '' ? Math.min(hi, Math.max(lo, Math.round(n))) : dflt
}

/** A seed as the core takes it: a non-negative safe integer (anything else: the default). */
export function cleanSeed(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim())
  return Number.isSafeInteger(n) && n >= 0 ? n : DEFAULT_SEED
}

/**
 * CPU numbers in the order given, written compactly with ascending runs
 * collapsed: [0..7] -> "0-7", [0, 8, 16] -> "0,8,16", [5, 3] -> "5,3".
 * (Order matters: thread i is pinned to the i-th CPU.)
 */
export function formatCpuSequence(cpus: readonly number[]): string {
  const parts: string[] = []
  for (let i = 0; i < cpus.length; ) {
    let j = i
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++
    parts.push(j - i >= 2 ? `${cpus[i]}-${cpus[j]}` : cpus.slice(i, j + 1).join(','))
    i = j + 1
  }
  return parts.join(',')
}

/** The inverse of formatCpuSequence ("0-3,8" -> [0, 1, 2, 3, 8]); null if malformed. */
export function parseCpuSequence(text: string): number[] | null {
  const out: number[] = []
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part)
    if (!m) return null
    const a = Number(m[1])
    const b = m[2] === undefined ? a : Number(m[2])
    if (b < a || b - a > 4096) return null
    for (let c = a; c <= b; c++) out.push(c)
  }
  return out.length ? out : null
}

/** "cpus:0-7" | "any" | "l3:2" */
export function formatPlacement(p: Placement): string {
  switch (p.kind) {
    case 'pinned':
      return `cpus:${formatCpuSequence(p.cpus)}`
    case 'any':
      return 'any'
    case 'l3':
      return `l3:${p.llc}`
  }
}

export function parsePlacement(text: string | null): Placement | null {
  const t = (text ?? '').trim()
  if (t === 'any') return { kind: 'any' }
  const l3 = /^l3:(\d+)$/.exec(t)
  if (l3) return { kind: 'l3', llc: Number(l3[1]) }
  if (t.startsWith('cpus:')) {
    const cpus = parseCpuSequence(t.slice(5))
    return cpus ? { kind: 'pinned', cpus } : null
  }
  return null
}

/** A canonical text of a workload (equality, and the URL's pieces). */
export function workloadKey(w: LessonWorkload): string {
  const repin = w.repin?.length ? `|repin:${w.repin.map((r) => `${r.thread}@${r.atMs}>${r.cpus.join(',')}`).join(';')}` : ''
  return `${w.threads}|${formatPlacement(w.placement)}|${w.delayMs}|${w.order}|${w.warmup}|${w.loops}${repin}`
}

// ---- the workload as the C core reads it ------------------------------------------

/** The comm of the lesson's process (its areas are "rseq-bench.area[k]"). */
export const LESSON_COMM = 'rseq-bench'

/**
 * Simulated time the run needs, ms: the stagger ((threads - 1) x delay), then
 * `loops` rounds of threads x delay, plus the warm-ups (< 20 ms each even when
 * cold) and a second of slack; the threads exit after their loops, which ends
 * the run earlier.
 */
export function lessonDurationMs(w: LessonWorkload): number {
  const rounds = w.threads * w.delayMs * (w.loops + 1)
  const warm = w.warmup > 0 ? w.threads * (20 + w.warmup * 0.002) : 0
  return Math.ceil(rounds + warm + 1000)
}

/** The CPUs of L3 #llc, ascending (empty if the machine has no such L3). */
export function llcCpus(topology: Topology, llc: number): number[] {
  return topology.cpus.filter((c) => c.llc === llc).map((c) => c.cpu)
}

/** The workload JSON (schema: wasm-core/src/sched/workload.c) for a machine. */
export function lessonWorkloadJson(w: LessonWorkload, topology: Topology): string {
  const p = w.placement
  const process: Record<string, unknown> = {
    kind: 'intermittent',
    comm: LESSON_COMM,
    threads: w.threads,
    placement: p.kind === 'pinned' ? 'one-per-core' : 'free',
    index_by: 'mm_cid',
    area_bytes: 16384,
    delay_ms: w.delayMs,
    order: w.order,
    warmup_sweeps: w.warmup,
    loops: w.loops,
  }
  if (p.kind === 'pinned') process.cpus = p.cpus
  if (p.kind === 'l3') process.cpus = llcCpus(topology, p.llc)
  if (w.repin?.length) process.repin = w.repin.map((r) => ({ thread: r.thread, at_ms: r.atMs, cpus: r.cpus }))
  return JSON.stringify(
    {
      name: 'mm_cid-lesson',
      description: "Seed 000's intermittent benchmark as the mm_cid lesson runs it (kscope frontend, lesson_state.ts).",
      duration_ms: lessonDurationMs(w),
      processes: [process],
    },
    null,
    2,
  )
}

// ---- workload presets and edits (pure) ------------------------------------------------

/** CPUs as the presets number them, first hardware thread of each core first (core order). */
function coreFirstCpus(topology: Topology): number[] {
  return [...topology.cpus].sort((a, b) => a.smt_index - b.smt_index || a.core - b.core || a.cpu - b.cpu).map((c) => c.cpu)
}

/** Seed 000's "one core per L3" configuration: each L3's first core, one thread each. */
export function onePerL3(topology: Topology): LessonWorkload {
  const llcs = [...new Set(topology.cpus.map((c) => c.llc))].sort((a, b) => a - b)
  const cpus = llcs.map((l) => coreFirstCpus(topology).find((cpu) => topology.cpus[cpu].llc === l)!)
  return { ...BENCHMARK_WORKLOAD, threads: cpus.length, placement: { kind: 'pinned', cpus } }
}

/** The next thread's CPU: the first CPU, first hardware threads first, no thread is pinned to. */
export function nextFreeCpu(topology: Topology, used: readonly number[]): number | null {
  return coreFirstCpus(topology).find((cpu) => !used.includes(cpu)) ?? null
}

/** Action helper: one more thread (pinned: on the next free CPU). Null at the limit or out of CPUs. */
export function addThread(w: LessonWorkload, topology: Topology): LessonWorkload | null {
  if (w.threads >= LIMITS.threads.max) return null
  if (w.placement.kind !== 'pinned') return { ...w, threads: w.threads + 1 }
  const cpu = nextFreeCpu(topology, w.placement.cpus)
  if (cpu === null) return null
  const cpus = [...w.placement.cpus, cpu]
  return { ...w, threads: cpus.length, placement: { kind: 'pinned', cpus } }
}

/** Action helper: the last thread goes (never below one). */
export function removeThread(w: LessonWorkload): LessonWorkload | null {
  if (w.threads <= LIMITS.threads.min) return null
  if (w.placement.kind !== 'pinned') return { ...w, threads: w.threads - 1 }
  const cpus = w.placement.cpus.slice(0, -1)
  return { ...w, threads: cpus.length, placement: { kind: 'pinned', cpus } }
}

/** Action helper: pin thread i to cpu (another thread pinned there swaps places with it). */
export function pinThread(w: LessonWorkload, i: number, cpu: number): LessonWorkload {
  if (w.placement.kind !== 'pinned' || i < 0 || i >= w.placement.cpus.length) return w
  const cpus = [...w.placement.cpus]
  const other = cpus.indexOf(cpu)
  if (other >= 0) cpus[other] = cpus[i]
  cpus[i] = cpu
  return { ...w, placement: { kind: 'pinned', cpus } }
}

/** Action helper: another placement; pinned keeps the thread count (CPUs picked in core order). */
export function setPlacementKind(w: LessonWorkload, kind: Placement['kind'], topology: Topology, llc = 0): LessonWorkload {
  if (kind === w.placement.kind && (kind !== 'l3' || (w.placement.kind === 'l3' && w.placement.llc === llc))) return w
  if (kind === 'any') return { ...w, placement: { kind } }
  if (kind === 'l3') return { ...w, placement: { kind, llc } }
  const cpus = coreFirstCpus(topology).slice(0, Math.min(w.threads, topology.cpus.length))
  return { ...w, threads: cpus.length, placement: { kind: 'pinned', cpus } }
}

/** Numbers a user typed, clamped to LIMITS (a bad field keeps the old value). */
export function cleanWorkload(w: LessonWorkload): LessonWorkload {
  return {
    ...w,
    threads: clampInt(w.threads, LIMITS.threads.min, LIMITS.threads.max, BENCHMARK_WORKLOAD.threads),
    delayMs: clampInt(w.delayMs, LIMITS.delayMs.min, LIMITS.delayMs.max, BENCHMARK_WORKLOAD.delayMs),
    warmup: clampInt(w.warmup, LIMITS.warmup.min, LIMITS.warmup.max, BENCHMARK_WORKLOAD.warmup),
    loops: clampInt(w.loops, LIMITS.loops.min, LIMITS.loops.max, BENCHMARK_WORKLOAD.loops),
    order: w.order === 'reshuffle' ? 'reshuffle' : 'fixed',
  }
}

// ---- actions ------------------------------------------------------------------------

/** Action: start a run with some of (variant, preset, workload, cache, seed) changed, from step 0, paused. */
export function newLessonRun(state: LessonState, change: Partial<LessonRunParams>): LessonState {
  const next: LessonRunParams = { ...lessonRunParams(state), ...change }
  next.seed = cleanSeed(next.seed)
  next.workload = cleanWorkload(next.workload)
  next.toggles = cleanToggles(next.toggles)
  if (sameLessonRun(next, lessonRunParams(state)) && state.step === 0 && !state.playing) return state
  return { ...state, ...next, toggles: next.toggles ?? [], step: 0, untilNs: null, playing: false, finished: false }
}

export function setRunTo(state: LessonState, runTo: RunTo): LessonState {
  return runTo === state.runTo ? state : { ...state, runTo }
}

/** Where the engine actually is after an action (which stops playback at the end). */
export function arrive(state: LessonState, reached: number, finished: boolean): LessonState {
  const playing = state.playing && !finished
  if (reached === state.step && finished === state.finished && playing === state.playing && state.untilNs === null) return state
  return { ...state, step: reached, finished, playing, untilNs: null }
}

// ---- URL ------------------------------------------------------------------------------

export const LESSON_PARAMS = {
  variant: 'variant',
  preset: 'preset',
  threads: 'threads',
  placement: 'placement',
  delay: 'delay_ms',
  order: 'order',
  warmup: 'warmup',
  loops: 'loops',
  cache: 'cache',
  seed: 'seed',
  toggles: 'toggles',
  step: 'step',
  until: 'until_ms',
} as const

/** State described by a query string; defaults for what it lacks. Paused, at the named step. */
export function lessonStateFromSearch(search: string): LessonState {
  const q = new URLSearchParams(search)
  const base = initialLessonState()
  const P = LESSON_PARAMS
  const variant = (LESSON_VARIANTS as readonly string[]).includes(q.get(P.variant) ?? '')
    ? (q.get(P.variant) as LessonVariant)
    : base.variant
  const placement = parsePlacement(q.get(P.placement)) ?? base.workload.placement
  const threadsDefault = placement.kind === 'pinned' ? placement.cpus.length : base.workload.threads
  const workload = cleanWorkload({
    threads: q.has(P.threads) ? clampInt(q.get(P.threads), LIMITS.threads.min, LIMITS.threads.max, threadsDefault) : threadsDefault,
    placement,
    delayMs: q.has(P.delay) ? clampInt(q.get(P.delay), LIMITS.delayMs.min, LIMITS.delayMs.max, base.workload.delayMs) : base.workload.delayMs,
    order: q.get(P.order) === 'reshuffle' ? 'reshuffle' : 'fixed',
    warmup: q.has(P.warmup) ? clampInt(q.get(P.warmup), LIMITS.warmup.min, LIMITS.warmup.max, base.workload.warmup) : base.workload.warmup,
    loops: q.has(P.loops) ? clampInt(q.get(P.loops), LIMITS.loops.min, LIMITS.loops.max, base.workload.loops) : base.workload.loops,
  })
  const until = Number(q.get(P.until))
  return {
    ...base,
    variant,
    preset: q.get(P.preset)?.trim() || base.preset,
    workload,
    cache: q.get(P.cache) === 'busy' ? 'busy' : 'idle',
    seed: q.has(P.seed) ? cleanSeed(q.get(P.seed)) : base.seed,
    toggles: cleanToggles((q.get(P.toggles) ?? '').split(',')),
    step: cleanStep(Number(q.get(P.step) ?? 0)),
    untilNs: q.has(P.until) && Number.isFinite(until) && until >= 0 ? Math.round(until * 1e6) : null,
  }
}

/** The query string for a state, keeping unrelated parameters of `search` (until_ms is dropped once used). */
export function searchForLessonState(state: LessonState, search = ''): string {
  const q = new URLSearchParams(search)
  const P = LESSON_PARAMS
  const w = state.workload
  q.set(P.variant, state.variant)
  q.set(P.preset, state.preset)
  q.set(P.threads, String(w.threads))
  q.set(P.placement, formatPlacement(w.placement))
  q.set(P.delay, String(w.delayMs))
  q.set(P.order, w.order)
  q.set(P.warmup, String(w.warmup))
  q.set(P.loops, String(w.loops))
  q.set(P.cache, state.cache)
  q.set(P.seed, String(state.seed))
  if (state.toggles.length) q.set(P.toggles, state.toggles.join(','))
  else q.delete(P.toggles)
  q.set(P.step, String(state.step))
  if (state.untilNs !== null) q.set(P.until, String(state.untilNs / 1e6))
  else q.delete(P.until)
  return `?${q.toString().replace(/%3A/g, ':').replace(/%2C/g, ',')}`
}

/** Action: the URL changed under us (Back/Forward): adopt the run and step it describes. */
export function followLessonUrl(state: LessonState, search: string): LessonState {
  const u = lessonStateFromSearch(search)
  const next: LessonState = { ...state, ...lessonRunParams(u), toggles: u.toggles, step: u.step, untilNs: u.untilNs, playing: false }
  const same = sameLessonRun(lessonRunParams(next), lessonRunParams(state)) && next.step === state.step && next.untilNs === null
  if (same && !state.playing) return state
  return sameLessonRun(lessonRunParams(next), lessonRunParams(state)) ? next : { ...next, finished: false }
}
