/*
 * The mm_cid model's C records (kscope/mm_cid/mm_cid.h), decoded from bytes.
 *
 * Pure functions over typed-array views, like sim_records.ts: no wasm calls, no
 * import of the Emscripten module. Layouts (all _Static_assert-ed in the header):
 *
 *   ks_mm_cid_mm (64 B)      tgid mm variant race nr_cpu_ids nr_cpus_allowed max_nr_cid
 *                            mm_users cidmask_weight held_cids | next_scan_ns u64 @40
 *                            | last_scan_ns u64 @48 | nr_scans u64 @56
 *   ks_mm_cid_pcpu (32 B)    cpu cid recent_cid lazy_put running_tid reserved | time_ns u64 @24
 *   ks_mm_cid_record (64 B)  ts_ns u64 @0 | age_ns u64 @8 | path tgid tid cpu cid prev_cid
 *                            recent_cid max_nr_cid bound mm_users other_cpu flags (@16..@60)
 *   ks_mm_cid_area (32 B)    index object lines llc llc_lines cold_lines core core_lines
 *   ks_mm_cid_lesson (152 B) now_ns step log_first_seq log_records bursts frame (u64 x 6)
 *                            | log_count burst_count mm_status nr_cpus mask_bytes (@48..@64)
 *                            | cidmask_off cpus_allowed_off pcpu_off areas_off size (@68..@84)
 *                            | ks_mm_cid_mm @88
 *   ks_mm_cid_view_request (16 B)  view tgid arg reserved: what ks_sim_model_view_get reads
 *   ks_mm_cid_log_view (24 B)  first_seq u64 @0 | records u64 @8 | count u32 @16
 */
import type { Views } from '../sim_records'

export const MM_CID_MM_BYTES = 64
export const MM_CID_PCPU_BYTES = 32
export const MM_CID_RECORD_BYTES = 64
export const MM_CID_AREA_BYTES = 32
export const MM_CID_LESSON_BYTES = 152
export const MM_CID_VIEW_REQUEST_BYTES = 16
export const MM_CID_LOG_VIEW_BYTES = 24

/** KS_MM_CID_VIEW_*: which view ks_sim_model_view_get writes (kscope/mm_cid/mm_cid.h). */
export const MM_CID_VIEW = { LESSON_SIZE: 0, LESSON: 1, MM: 2, MASK: 3, PCPU: 4, LOG: 5, PATH: 6 } as const

/** Writes a ks_mm_cid_view_request at `at` (the view then overwrites it). */
export function writeMmCidViewRequest(v: Views, at: number, view: number, tgid = 0, arg = 0): void {
  const w = at >>> 2
  v.i32[w] = view
  v.i32[w + 1] = tgid
  v.i32[w + 2] = arg
  v.i32[w + 3] = 0
}

/** ks_mm_cid_log_view: where the allocation log is. */
export function decodeMmCidLogView(v: Views, at: number): { first_seq: number; records: number; count: number } {
  return { first_seq: u64(v, at), records: u64(v, at + 8), count: v.i32[(at >>> 2) + 4] >>> 0 }
}

/** KS_MM_CID_VIEW_PATH's bytes: "NAME\0help\0". */
export function decodeMmCidPathView(v: Views, at: number): { name: string; help: string } {
  const cstr = (from: number): [string, number] => {
    let end = from
    while (v.u8[end] !== 0) end++
    return [new TextDecoder().decode(v.u8.subarray(from, end)), end + 1]
  }
  const [name, next] = cstr(at)
  const [help] = cstr(next)
  return { name, help }
}

/** ks_mm_cid_path names in enum order (the bridge test checks them against ks_mm_cid_path_name). */
export const MM_CID_PATHS = [
  'KEEP_PCPU_CID',
  'RECENT_CID',
  'EXPAND_MAX_NR_CID',
  'FIRST_FREE',
  'PUT_LAZY',
  'MIGRATE_TAKEN_FROM_SRC',
  'MIGRATE_SRC_DROPPED',
  'MIGRATE_KEPT_SRC',
  'MIGRATE_SRC_IN_USE',
  'SCAN',
  'SCAN_DROPPED_OLD',
  'COMPACT_DROPPED',
  'MARKED_LAZY',
  'EXIT_PUT',
  'REMOTE_CLEAR_HELD',
  'REMOTE_CLEAR_DONE',
  'MAX_NR_CID_SHRUNK',
  'KEEP_TASK_CID',
  'HANDOVER',
  'CONVERGE',
  'MODE_PER_CPU',
  'MODE_PER_TASK',
  'DROPPED',
] as const
export type MmCidPath = (typeof MM_CID_PATHS)[number]

/** ks_mm_cid_record.flags */
export const MM_CID_F_WAITED = 0x1
export const MM_CID_F_OVER_ALLOWED = 0x2
/** 6.13+ with the "+task_nr_cpus_allowed" toggle: migrate-to compared with the thread's own allowed CPUs. */
export const MM_CID_F_TASK_ALLOWED = 0x4

/** ks_mm_cid_variant order. */
export const MM_CID_VARIANTS = ['v6.12', 'v6.13', 'v6.18', 'v6.19'] as const
export type MmCidVariant = (typeof MM_CID_VARIANTS)[number]

/** Per-mm scalars (ks_mm_cid_mm). Fields a kernel version lacks read -1. */
export interface MmCidMm {
  tgid: number
  variant: MmCidVariant
  /** CPUs of the machine: the v6.12 cid bound. */
  nr_cpu_ids: number
  /** Weight of the mm's union of allowed CPUs (6.13+), else -1. */
  nr_cpus_allowed: number
  /** How far allocation has spread (6.13+), else -1. */
  max_nr_cid: number
  /** Threads holding the mm. */
  mm_users: number
  /** cids allocated now. */
  cidmask_weight: number
  /** cids held by a remote clear in flight (the race). */
  held_cids: number
  /** No scan before this, ns. */
  next_scan_ns: number
  /** When the last scan ran, ns (0: never). */
  last_scan_ns: number
  nr_scans: number
}

/** One row of the per-mm/cpu table (struct mm_cid). */
export interface MmCidPcpu {
  cpu: number
  /** The cid this CPU owns for the mm, -1 if none. */
  cid: number
  /** 6.13+: the last cid this CPU used, -1 if none (always -1 on 6.12). */
  recent_cid: number
  /** MM_CID_LAZY_PUT: a remote clear wants the cid back. */
  lazy_put: boolean
  /** The mm's thread running there now, -1. */
  running_tid: number
  /** When the CPU last used its cid, ns. */
  time_ns: number
}

/** One allocator decision (ks_mm_cid_record), with its sequence number in the log. */
export interface MmCidRecord {
  seq: number
  ts_ns: number
  /** SCAN_DROPPED_OLD: how long the slot had been unused, ns. */
  age_ns: number
  path: MmCidPath
  tgid: number
  /** The task decided for (the scanning task for scans), -1. */
  tid: number
  /** The CPU whose per-mm/cpu slot the decision is about. */
  cpu: number
  /** The cid taken, kept, moved or freed; -1 none. */
  cid: number
  /** The slot's cid before the decision, -1 unset. */
  prev_cid: number
  /** The slot's recent_cid before the decision (6.13+), -1. */
  recent_cid: number
  /** mm->max_nr_cid after the decision (6.13+), -1. */
  max_nr_cid: number
  /** The limit the branch compared with (see ks_mm_cid_path_help). */
  bound: number
  mm_users: number
  /** Migrations: the source CPU; scans: the scanning CPU; -1. */
  other_cpu: number
  flags: number
}

/** Where one per-index data area's lines are (ks_mm_cid_area). */
export interface MmCidArea {
  index: number
  /** Cache object id, -1 while no thread has touched the area. */
  object: number
  /** 64-byte lines (256 for 16 KiB), 0 while untouched. */
  lines: number
  /** The LLC holding most of its lines, -1 if none holds any. */
  llc: number
  llc_lines: number
  /** Lines no cache holds (the next touch reads DRAM). */
  cold_lines: number
  /** The core holding most lines Exclusive/Modified, -1. */
  core: number
  core_lines: number
}

/** The lesson block's header (ks_mm_cid_lesson), with the addresses it points at. */
export interface MmCidLessonHeader {
  now_ns: number
  step: number
  log_first_seq: number
  log_records: number
  bursts: number
  frame: number
  log_count: number
  burst_count: number
  /** 0 (KS_OK) while the mm is live, 2 (KS_ERR_NOT_FOUND) before its first thread or after its last. */
  mm_status: number
  nr_cpus: number
  mask_bytes: number
  cidmask_off: number
  cpus_allowed_off: number
  pcpu_off: number
  areas_off: number
  size: number
}

const u64 = (v: Views, byte: number) => Number(v.u64[byte >>> 3])

export function decodeMmCidMm(v: Views, at: number): MmCidMm {
  const w = at >>> 2
  return {
    tgid: v.i32[w],
    variant: MM_CID_VARIANTS[v.i32[w + 2]] ?? 'v6.13',
    nr_cpu_ids: v.i32[w + 4],
    nr_cpus_allowed: v.i32[w + 5],
    max_nr_cid: v.i32[w + 6],
    mm_users: v.i32[w + 7],
    cidmask_weight: v.i32[w + 8],
    held_cids: v.i32[w + 9],
    next_scan_ns: u64(v, at + 40),
    last_scan_ns: u64(v, at + 48),
    nr_scans: u64(v, at + 56),
  }
}

export function decodeMmCidPcpu(v: Views, at: number, count: number): MmCidPcpu[] {
  return Array.from({ length: count }, (_, i) => {
    const b = at + i * MM_CID_PCPU_BYTES
    const w = b >>> 2
    return {
      cpu: v.i32[w], cid: v.i32[w + 1], recent_cid: v.i32[w + 2], lazy_put: v.i32[w + 3] !== 0,
      running_tid: v.i32[w + 4], time_ns: u64(v, b + 24),
    }
  })
}

export function decodeMmCidRecord(v: Views, at: number, seq: number): MmCidRecord {
  const w = at >>> 2
  return {
    seq,
    ts_ns: u64(v, at),
    age_ns: u64(v, at + 8),
    path: MM_CID_PATHS[v.i32[w + 4]] ?? 'SCAN',
    tgid: v.i32[w + 5],
    tid: v.i32[w + 6],
    cpu: v.i32[w + 7],
    cid: v.i32[w + 8],
    prev_cid: v.i32[w + 9],
    recent_cid: v.i32[w + 10],
    max_nr_cid: v.i32[w + 11],
    bound: v.i32[w + 12],
    mm_users: v.i32[w + 13],
    other_cpu: v.i32[w + 14],
    flags: v.i32[w + 15],
  }
}

/** Records with sequence numbers [from, end) of a log whose record 0 (at `at`) has `firstSeq`. */
export function decodeMmCidRecords(v: Views, at: number, firstSeq: number, from: number, end: number): MmCidRecord[] {
  const out: MmCidRecord[] = []
  for (let seq = Math.max(from, firstSeq); seq < end; seq++) {
    out.push(decodeMmCidRecord(v, at + (seq - firstSeq) * MM_CID_RECORD_BYTES, seq))
  }
  return out
}

export function decodeMmCidAreas(v: Views, at: number, count: number): MmCidArea[] {
  return Array.from({ length: count }, (_, i) => {
    const w = (at + i * MM_CID_AREA_BYTES) >>> 2
    return {
      index: v.i32[w], object: v.i32[w + 1], lines: v.i32[w + 2], llc: v.i32[w + 3],
      llc_lines: v.i32[w + 4], cold_lines: v.i32[w + 5], core: v.i32[w + 6], core_lines: v.i32[w + 7],
    }
  })
}

export function decodeMmCidLessonHeader(v: Views, at: number): MmCidLessonHeader {
  const w = at >>> 2
  return {
    now_ns: u64(v, at),
    step: u64(v, at + 8),
    log_first_seq: u64(v, at + 16),
    log_records: u64(v, at + 24),
    bursts: u64(v, at + 32),
    frame: u64(v, at + 40),
    log_count: v.i32[w + 12] >>> 0,
    burst_count: v.i32[w + 13] >>> 0,
    mm_status: v.i32[w + 14],
    nr_cpus: v.i32[w + 15],
    mask_bytes: v.i32[w + 16],
    cidmask_off: v.i32[w + 17] >>> 0,
    cpus_allowed_off: v.i32[w + 18] >>> 0,
    pcpu_off: v.i32[w + 19] >>> 0,
    areas_off: v.i32[w + 20] >>> 0,
    size: v.i32[w + 21] >>> 0,
  }
}

/** Bit i of a mask as ks_mm_cid_mask_get writes it (bit i % 8 of byte i / 8), as booleans. */
export function decodeMask(v: Views, at: number, bits: number): boolean[] {
  return Array.from({ length: bits }, (_, i) => ((v.u8[at + (i >>> 3)] >>> (i & 7)) & 1) === 1)
}
