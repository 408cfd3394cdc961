/*
 * The simulator's C records, decoded from bytes.
 *
 * Pure functions over typed-array views: no wasm calls and no import of the
 * Emscripten module (simulation.ts and the model bridges make the views; the
 * tests can hand in any buffer). Each layout below is the one the C headers
 * _Static_assert, so one Int32Array (and one BigUint64Array for the u64
 * fields) per record array is enough: fields are read by index, never
 * through a call per field.
 *
 *   ks_event (kscope/event.h, 96 B)              ks_sim_frame (kscope/sim.h, 48 B header)
 *     0 ts_ns u64   8 type u16  10 buffer u16    0 now_ns u64   8 step u64
 *    12 cpu  16 pid  20 tgid  24 comm[16]       16 nr_cpus 20 nr_tasks 24 nr_rq_tids
 *    40 per-type payload (56 B)                  32 cpus_off 36 tasks_off 40 rq_tids_off 44 size
 *
 *   ks_sim_cpu (24 B)  cpu curr_tid nr_running rq_offset | busy_ns u64
 *   ks_sim_task (64 B) tid tgid cpu state policy prio nr_cpus_allowed
 *                      task.mm_cid (the rseq field) | vruntime_ns u64 | sum_exec_ns u64 | comm[16]
 */

/** Tracepoint names in ks_event_type order (kscope/event.h; the bridge test checks them against the core). */
export const EVENT_TYPES = [
  'generic',
  'sched_switch',
  'sched_waking',
  'sched_wakeup',
  'sched_wakeup_new',
  'sched_migrate_task',
  'sched_process_fork',
  'sched_process_exit',
  'sched_process_free',
  'rseq_update',
  'kmem_cache_alloc',
  'kmem_cache_free',
  // kscope's own SLUB sheaves events: no kernel tracepoint (kscope/event.h)
  'sheaf_refill',
  'sheaf_flush',
  'barn_get',
  'barn_put',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export const COMM_LEN = 16
export const EVENT_BYTES = 96
export const FRAME_HEADER_BYTES = 48
export const SIM_CPU_BYTES = 24
export const SIM_TASK_BYTES = 64
export const STATS_BYTES = 8 * (2 + EVENT_TYPES.length + 1 + 8 + 2)
export const BURST_BYTES = 32
/** ks_burst_cost.flags: the entry is a warm-up (KS_BURST_WARMUP, kscope/sim.h). */
export const BURST_WARMUP = 1
export const PARSE_ERROR_BYTES = 168
export const RUN_LIMIT_BYTES = 24

/** Fields every event has (the current task on `cpu` when it was recorded). */
interface EventBase {
  /** Time since the start of the run, ns. */
  ts_ns: number
  cpu: number
  pid: number
  tgid: number
  comm: string
}

export type SimEvent = EventBase &
  (
    | {
        type: 'sched_switch'
        prev_comm: string
        prev_pid: number
        prev_prio: number
        /** TASK_* bits: 0 preempted (still runnable), 1 sleeping (S), 0x20 exiting (Z). */
        prev_state: number
        next_comm: string
        next_pid: number
        next_prio: number
      }
    | {
        type: 'sched_waking' | 'sched_wakeup' | 'sched_wakeup_new'
        target_comm: string
        target_pid: number
        target_prio: number
        target_cpu: number
      }
    | { type: 'sched_migrate_task'; target_comm: string; target_pid: number; target_prio: number; orig_cpu: number; dest_cpu: number }
    | { type: 'sched_process_fork'; parent_comm: string; parent_pid: number; child_comm: string; child_pid: number }
    | { type: 'sched_process_exit' | 'sched_process_free'; target_comm: string; target_pid: number; target_prio: number }
    | { type: 'rseq_update'; cpu_id: number; node_id: number; mm_cid: number }
    | {
        type: 'kmem_cache_alloc' | 'kmem_cache_free'
        /** The caller's address as hex ("0xffffffff81a2b3c4"); "" when the trace printed only a symbol (not kept). */
        call_site: string
        /** The object's address as hex (a real trace prints it hashed). */
        ptr: string
        /** The kmem_cache's name. */
        cache: string
        /** alloc: bytes asked for / the object size; free: 0. */
        bytes_req: number
        bytes_alloc: number
        /** gfp_t bits, Linux 6.18 numbering. */
        gfp_flags: number
        /** NUMA node asked for; -1 any node (and always for free). */
        node: number
        /** 1 charged to a memcg, 0 not, -1 not recorded. */
        accounted: number
      }
    | {
        type: 'sheaf_refill' | 'sheaf_flush' | 'barn_get' | 'barn_put'
        cache: string
        node: number
        /** Objects moved by a refill/flush (0 for barn operations). */
        objects: number
        /** Objects in the sheaf after the event, and its capacity. */
        size: number
        capacity: number
        /** barn_get/put: 1 a full sheaf, 0 an empty one; refill/flush: -1. */
        full: number
        barn_full: number
        barn_empty: number
      }
    | { type: 'generic'; name_off: number; fields_off: number }
  )

export type TaskState = 'running' | 'runnable' | 'sleeping' | 'dead'
/** ks_task_state order. */
export const TASK_STATES: readonly TaskState[] = ['running', 'runnable', 'sleeping', 'dead']
export type Policy = 'normal' | 'fifo'

/** One CPU in a frame (ks_sim_cpu + its runqueue). */
export interface SimCpu {
  cpu: number
  /** Running task's tid; -1 when idle. */
  curr_tid: number
  /** Tasks on the runqueue, including the running one. */
  nr_running: number
  /** Waiting tids in pick order (the running task excluded). */
  queued: number[]
  /** Time spent running tasks since the start, ns. */
  busy_ns: number
}

/** One task in a frame (ks_sim_task). */
export interface SimTask {
  tid: number
  /** The process (mm) it belongs to. */
  tgid: number
  comm: string
  /** CPU it runs on, or last ran on. */
  cpu: number
  state: TaskState
  policy: Policy
  /** Kernel prio: 0..99 RT (lower is higher), 100..139 normal. */
  prio: number
  nr_cpus_allowed: number
  /** From the plugged algorithm; -1 if none. */
  mm_cid: number
  vruntime_ns: number
  /** CPU time used so far, ns. */
  sum_exec_ns: number
}

/** What a view draws: the machine after `step` events. Plain data, detached from wasm memory. */
export interface SimFrame {
  step: number
  now_ns: number
  cpus: SimCpu[]
  /** Every task the run has created (exited ones too, state 'dead'), in creation order. */
  tasks: SimTask[]
}

/** Summary statistics since the start (ks_sim_stats). */
export interface SimStats {
  now_ns: number
  events: number
  events_by_type: Record<EventType, number>
  /** Total modelled memory-access time, ns. */
  access_ns: number
  /** Cache lines served from each source (ks_cache_source order: L1, L2, LLC, ...). */
  lines_from: number[]
  local_hitm: number
  remote_hitm: number
}

/** One burst of an "intermittent" thread (ks_burst_cost). */
export interface BurstCost {
  ts_ns: number
  tid: number
  cpu: number
  /** The area swept: the rseq.cpu_id or rseq.mm_cid the thread read. */
  index: number
  /** Modelled cost of the sweep, ns (of the whole warm-up for a warm-up entry). */
  cost_ns: number
  /** The entry is a thread's unmeasured warm-up (KS_BURST_WARMUP), not a measured burst. */
  warmup: boolean
}

/** Where a workload failed to validate (ks_parse_error). */
export interface ParseErrorRecord {
  /** 1-based line; 0 = the input as a whole. */
  line: number
  /** 1-based column of the offending value (or key). */
  column: number
  /** Field path, e.g. "processes[0].threads". */
  field: string
  message: string
}

const utf8 = new TextDecoder('utf-8')

/** A NUL-terminated (or full-length) C string of at most `len` bytes, as text. */
export function cString(bytes: Uint8Array, offset: number, len: number): string {
  const field = bytes.subarray(offset, offset + len)
  const end = field.indexOf(0)
  return utf8.decode(end < 0 ? field : field.subarray(0, end))
}

/** Reads u64 `index` of a BigUint64Array as a number (exact below 2^53: 104 days of ns). */
const u64 = (v: BigUint64Array, index: number) => Number(v[index])

/** Typed views over one region of memory (created by the caller after its last wasm call). */
export interface Views {
  u8: Uint8Array
  i32: Int32Array
  u64: BigUint64Array
}

export function viewsOf(buffer: ArrayBufferLike): Views {
  return { u8: new Uint8Array(buffer), i32: new Int32Array(buffer), u64: new BigUint64Array(buffer) }
}

/** Decodes the ks_event at byte offset `at` (8-byte aligned). */
export function decodeEvent(v: Views, at: number): SimEvent {
  const w = at >>> 2
  const typeIndex = v.i32[w + 2] & 0xffff // u16 type; bytes 10..11 are the buffer index
  const base: EventBase = {
    ts_ns: u64(v.u64, at >>> 3),
    cpu: v.i32[w + 3],
    pid: v.i32[w + 4],
    tgid: v.i32[w + 5],
    comm: cString(v.u8, at + 24, COMM_LEN),
  }
  const p = w + 10 // payload, in int32 words
  const text = (byte: number) => cString(v.u8, at + byte, COMM_LEN)
  const type = EVENT_TYPES[typeIndex] ?? 'generic'
  switch (type) {
    case 'sched_switch':
      return {
        ...base, type,
        prev_comm: text(40), prev_pid: v.i32[p + 4], prev_prio: v.i32[p + 5],
        prev_state: (v.i32[p + 6] >>> 0) + v.i32[p + 7] * 2 ** 32, // i64, little-endian
        next_comm: text(72), next_pid: v.i32[p + 12], next_prio: v.i32[p + 13],
      }
    case 'sched_waking':
    case 'sched_wakeup':
    case 'sched_wakeup_new':
      return { ...base, type, target_comm: text(40), target_pid: v.i32[p + 4], target_prio: v.i32[p + 5], target_cpu: v.i32[p + 6] }
    case 'sched_migrate_task':
      return {
        ...base, type, target_comm: text(40), target_pid: v.i32[p + 4], target_prio: v.i32[p + 5],
        orig_cpu: v.i32[p + 6], dest_cpu: v.i32[p + 7],
      }
    case 'sched_process_fork':
      return { ...base, type, parent_comm: text(40), parent_pid: v.i32[p + 4], child_comm: text(60), child_pid: v.i32[p + 9] }
    case 'sched_process_exit':
    case 'sched_process_free':
      return { ...base, type, target_comm: text(40), target_pid: v.i32[p + 4], target_prio: v.i32[p + 5] }
    case 'rseq_update':
      return { ...base, type, cpu_id: v.i32[p], node_id: v.i32[p + 1], mm_cid: v.i32[p + 2] }
    case 'kmem_cache_alloc':
    case 'kmem_cache_free': {
      const symbolic = v.u8[at + 71] !== 0
      return {
        ...base, type,
        call_site: symbolic ? '' : hex64(v.i32[p + 1], v.i32[p]), ptr: hex64(v.i32[p + 3], v.i32[p + 2]),
        cache: cString(v.u8, at + 72, 24),
        bytes_req: v.i32[p + 4] >>> 0, bytes_alloc: v.i32[p + 5] >>> 0, gfp_flags: v.i32[p + 6] >>> 0,
        node: (v.i32[p + 7] << 16) >> 16, accounted: (v.u8[at + 70] << 24) >> 24,
      }
    }
    case 'sheaf_refill':
    case 'sheaf_flush':
    case 'barn_get':
    case 'barn_put':
      return {
        ...base, type, cache: cString(v.u8, at + 40, 24), node: v.i32[p + 6], objects: v.i32[p + 7] >>> 0,
        size: v.i32[p + 8] >>> 0, capacity: v.i32[p + 9] >>> 0, full: v.i32[p + 10],
        barn_full: v.i32[p + 11] >>> 0, barn_empty: v.i32[p + 12] >>> 0,
      }
    default:
      return { ...base, type: 'generic', name_off: v.i32[p] >>> 0, fields_off: v.i32[p + 1] >>> 0 }
  }
}

/** A u64 from its two little-endian i32 words, as exact hex ("0xffff888104c2d000"). */
function hex64(hi: number, lo: number): string {
  return '0x' + ((hi >>> 0).toString(16) + (lo >>> 0).toString(16).padStart(8, '0')).replace(/^0+(?=.)/, '')
}

/** Decodes `count` consecutive ks_event records starting at byte `at`. */
export function decodeEvents(v: Views, at: number, count: number): SimEvent[] {
  return Array.from({ length: count }, (_, i) => decodeEvent(v, at + i * EVENT_BYTES))
}

/** Decodes a whole ks_sim_frame (header, CPUs, tasks, runqueue tids) at byte `at`. */
export function decodeFrame(v: Views, at: number): SimFrame {
  const h = at >>> 2
  const nrCpus = v.i32[h + 4]
  const nrTasks = v.i32[h + 5]
  const nrRq = v.i32[h + 6]
  const cpusAt = at + (v.i32[h + 8] >>> 0)
  const tasksAt = at + (v.i32[h + 9] >>> 0)
  const rqAt = (at + (v.i32[h + 10] >>> 0)) >>> 2
  const rq = v.i32.subarray(rqAt, rqAt + nrRq)

  const cpus: SimCpu[] = new Array(nrCpus)
  for (let i = 0; i < nrCpus; i++) {
    const b = cpusAt + i * SIM_CPU_BYTES
    const w = b >>> 2
    // This CPU's waiting tids run up to the next CPU's first entry.
    const first = v.i32[w + 3]
    const end = i + 1 < nrCpus ? v.i32[(cpusAt + (i + 1) * SIM_CPU_BYTES + 12) >>> 2] : nrRq
    cpus[i] = {
      cpu: v.i32[w],
      curr_tid: v.i32[w + 1],
      nr_running: v.i32[w + 2],
      queued: Array.from(rq.subarray(first, end)),
      busy_ns: u64(v.u64, (b + 16) >>> 3),
    }
  }
  const tasks: SimTask[] = new Array(nrTasks)
  for (let i = 0; i < nrTasks; i++) {
    const b = tasksAt + i * SIM_TASK_BYTES
    const w = b >>> 2
    tasks[i] = {
      tid: v.i32[w],
      tgid: v.i32[w + 1],
      comm: cString(v.u8, b + 48, COMM_LEN),
      cpu: v.i32[w + 2],
      state: TASK_STATES[v.i32[w + 3]] ?? 'dead',
      policy: v.i32[w + 4] === 1 ? 'fifo' : 'normal',
      prio: v.i32[w + 5],
      nr_cpus_allowed: v.i32[w + 6],
      mm_cid: v.i32[w + 7],
      vruntime_ns: u64(v.u64, (b + 32) >>> 3),
      sum_exec_ns: u64(v.u64, (b + 40) >>> 3),
    }
  }
  return { step: u64(v.u64, (at + 8) >>> 3), now_ns: u64(v.u64, at >>> 3), cpus, tasks }
}

/** Decodes ks_sim_stats at byte `at`. */
export function decodeStats(v: Views, at: number): SimStats {
  const q = at >>> 3
  const byType = {} as Record<EventType, number>
  EVENT_TYPES.forEach((t, i) => (byType[t] = u64(v.u64, q + 2 + i)))
  const after = q + 2 + EVENT_TYPES.length
  return {
    now_ns: u64(v.u64, q),
    events: u64(v.u64, q + 1),
    events_by_type: byType,
    access_ns: u64(v.u64, after),
    lines_from: Array.from({ length: 8 }, (_, i) => u64(v.u64, after + 1 + i)),
    local_hitm: u64(v.u64, after + 9),
    remote_hitm: u64(v.u64, after + 10),
  }
}

/** Decodes `count` ks_burst_cost records at byte `at`. */
export function decodeBursts(v: Views, at: number, count: number): BurstCost[] {
  return Array.from({ length: count }, (_, i) => {
    const b = at + i * BURST_BYTES
    const w = b >>> 2
    return {
      ts_ns: u64(v.u64, b >>> 3), tid: v.i32[w + 2], cpu: v.i32[w + 3], index: v.i32[w + 4],
      cost_ns: u64(v.u64, (b + 24) >>> 3), warmup: (v.i32[w + 5] & BURST_WARMUP) !== 0,
    }
  })
}

/** ks_cost_parts (kscope/cost.h): KS_COST_PARTS doubles, one burst's cost by mechanism. */
export const COST_PARTS = 15
export const COST_PARTS_BYTES = COST_PARTS * 8

/**
 * Decodes ks_cost_parts records [from, to) of the array at byte `at` (8-byte aligned):
 * each burst's ns per mechanism, in ks_cost_part order (all 0 under cost model v1).
 */
export function decodeCostParts(v: Views, at: number, from: number, to: number): number[][] {
  const f64 = new Float64Array(v.u8.buffer, v.u8.byteOffset, v.u8.byteLength >>> 3)
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => {
    const b = (at + (from + i) * COST_PARTS_BYTES) >>> 3
    return Array.from(f64.subarray(b, b + COST_PARTS))
  })
}

/** Decodes ks_parse_error at byte `at`. */
export function decodeParseError(v: Views, at: number): ParseErrorRecord {
  const w = at >>> 2
  return { line: v.i32[w], column: v.i32[w + 1], field: cString(v.u8, at + 8, 32), message: cString(v.u8, at + 40, 128) }
}

/** Writes a ks_run_limit at byte `at`; absent fields are 0 ("no limit"). */
export function encodeRunLimit(v: Views, at: number, limit: { untilNs?: number; typeMask?: number; tid?: number; maxEvents?: number }): void {
  v.u64[at >>> 3] = BigInt(Math.max(0, Math.floor(limit.untilNs ?? 0)))
  const w = at >>> 2
  v.i32[w + 2] = (limit.typeMask ?? 0) | 0
  v.i32[w + 3] = limit.tid ?? 0
  v.i32[w + 4] = Math.min(limit.maxEvents ?? 0, 0xffffffff) | 0
  v.i32[w + 5] = 0
}

/** Bit mask of event types for ks_run_limit.type_mask. */
export function eventTypeMask(types: Iterable<EventType>): number {
  let mask = 0
  for (const t of types) mask |= 1 << EVENT_TYPES.indexOf(t)
  return mask >>> 0
}

/** Whether an event is about `tid` (as ks_sim_run_until's tid limit decides). */
export function eventMentions(ev: SimEvent, tid: number): boolean {
  if (ev.pid === tid) return true
  switch (ev.type) {
    case 'sched_switch':
      return ev.prev_pid === tid || ev.next_pid === tid
    case 'sched_process_fork':
      return ev.child_pid === tid
    case 'rseq_update':
    case 'generic':
    case 'kmem_cache_alloc':
    case 'kmem_cache_free':
    case 'sheaf_refill':
    case 'sheaf_flush':
    case 'barn_get':
    case 'barn_put':
      return false
    default:
      return ev.target_pid === tid
  }
}
