/*
 * The cpupri model's view formats (wasm-core/include/kscope/cpupri/cpupri.h), decoded
 * from bytes. Pure functions over typed-array views, no wasm calls. Layouts (each
 * _Static_assert-ed in the header; cpupri_layouts.test.ts checks them against offsetof):
 *
 *   ks_cpupri_view_request (8 B)  view first
 *   ks_cpupri_summary (128 B)     variant flags nr_cpus nr_nodes nr_rows mask_bytes set_cpus
 *                                 reserved | sets finds finds_found nodes_scanned
 *                                 finds_changed_by_inflight accesses mask_line_served (u64 @32..)
 *                                 | access_ns wait_ns mask_line_busy_ns mask_line_wait_ns now_ns (f64 @88..)
 *   ks_cpupri_c2c_row (136 B)     object char[40] | symbol char[32] @40 | level node offset
 *                                 line_offset loads sampled_loads local_hitm remote_hitm stores
 *                                 store_l1_hit store_l1_miss reserved (@72..@116)
 *                                 | load_cycles_sum wait_cycles_sum (f64 @120, @128)
 *   KS_CPUPRI_VIEW_LEVELS         int32 per CPU (cp->cpu_to_pri)
 */
import type { Views } from '../sim_records'

export const CPUPRI_VIEW_REQUEST_BYTES = 8
export const CPUPRI_SUMMARY_BYTES = 128
export const CPUPRI_C2C_ROW_BYTES = 136

/** KS_CPUPRI_VIEW_*: which view ks_sim_model_view_get writes. */
export const CPUPRI_VIEW = { SUMMARY: 1, C2C: 2, LEVELS: 3 } as const

/** ks_cpupri_variant, in enum order: the algo string's variant names. */
export const CPUPRI_VARIANTS = ['global', 'pernode', 'pernode-kscope'] as const
export type CpupriVariant = (typeof CPUPRI_VARIANTS)[number]

/** KS_CPUPRI_FLAG_UNORDERED_SET: "+unordered_set", cpupri_set's ordering dropped (the bug toggle). */
export const CPUPRI_FLAG_UNORDERED_SET = 1

export interface CpupriSummary {
  variant: CpupriVariant | 'unknown'
  flags: number
  nr_cpus: number
  nr_nodes: number
  nr_rows: number
  mask_bytes: number
  set_cpus: number
  sets: number
  finds: number
  finds_found: number
  nodes_scanned: number
  finds_changed_by_inflight: number
  accesses: number
  mask_line_served: number
  access_ns: number
  wait_ns: number
  mask_line_busy_ns: number
  mask_line_wait_ns: number
  now_ns: number
}

/** One perf c2c row: an 8-byte word of an object and the symbol that touched it. */
export interface CpupriC2cRow {
  object: string
  symbol: string
  level: number
  node: number
  offset: number
  line_offset: number
  loads: number
  sampled_loads: number
  local_hitm: number
  remote_hitm: number
  stores: number
  store_l1_hit: number
  store_l1_miss: number
  load_cycles_sum: number
  wait_cycles_sum: number
}

/** Writes a ks_cpupri_view_request at `at` (the view then overwrites it). */
export function writeCpupriViewRequest(v: Views, at: number, view: number, first = 0): void {
  v.i32[at >>> 2] = view
  v.i32[(at >>> 2) + 1] = first
}

const f64 = (v: Views, at: number) => new DataView(v.u8.buffer, v.u8.byteOffset).getFloat64(at, true)
const u64 = (v: Views, at: number) => Number(v.u64[at >>> 3])
const u32 = (v: Views, at: number) => v.i32[at >>> 2] >>> 0

function cstr(v: Views, at: number, size: number): string {
  let end = at
  while (end < at + size && v.u8[end] !== 0) end++
  return new TextDecoder().decode(v.u8.slice(at, end))
}

export function decodeCpupriSummary(v: Views, at: number): CpupriSummary {
  const w = at >>> 2
  return {
    variant: CPUPRI_VARIANTS[v.i32[w]] ?? 'unknown',
    flags: v.i32[w + 1],
    nr_cpus: v.i32[w + 2],
    nr_nodes: v.i32[w + 3],
    nr_rows: v.i32[w + 4],
    mask_bytes: v.i32[w + 5],
    set_cpus: v.i32[w + 6],
    sets: u64(v, at + 32),
    finds: u64(v, at + 40),
    finds_found: u64(v, at + 48),
    nodes_scanned: u64(v, at + 56),
    finds_changed_by_inflight: u64(v, at + 64),
    accesses: u64(v, at + 72),
    mask_line_served: u64(v, at + 80),
    access_ns: f64(v, at + 88),
    wait_ns: f64(v, at + 96),
    mask_line_busy_ns: f64(v, at + 104),
    mask_line_wait_ns: f64(v, at + 112),
    now_ns: f64(v, at + 120),
  }
}

export function decodeCpupriC2cRows(v: Views, at: number, count: number): CpupriC2cRow[] {
  const rows: CpupriC2cRow[] = []
  for (let i = 0; i < count; i++) {
    const r = at + i * CPUPRI_C2C_ROW_BYTES
    rows.push({
      object: cstr(v, r, 40),
      symbol: cstr(v, r + 40, 32),
      level: v.i32[(r + 72) >>> 2],
      node: v.i32[(r + 76) >>> 2],
      offset: u32(v, r + 80),
      line_offset: u32(v, r + 84),
      loads: u32(v, r + 88),
      sampled_loads: u32(v, r + 92),
      local_hitm: u32(v, r + 96),
      remote_hitm: u32(v, r + 100),
      stores: u32(v, r + 104),
      store_l1_hit: u32(v, r + 108),
      store_l1_miss: u32(v, r + 112),
      load_cycles_sum: f64(v, r + 120),
      wait_cycles_sum: f64(v, r + 128),
    })
  }
  return rows
}

/** KS_CPUPRI_VIEW_LEVELS: each CPU's cpupri level (cp->cpu_to_pri). */
export function decodeCpupriLevels(v: Views, at: number, nrCpus: number): number[] {
  return Array.from(v.i32.subarray(at >>> 2, (at >>> 2) + nrCpus))
}

/**
 * A cpupri level as the RT priority it stands for (the model's convert_prio, v6.12): -1
 * invalid, 0 no RT task, 1..99 the RT priority, 100 deadline or stop.
 */
export function levelLabel(level: number): string {
  if (level < 0) return 'invalid'
  if (level === 0) return 'no RT'
  if (level >= 100) return 'DL'
  return `RT ${level}`
}
