// cpupri's view layouts (cpupri_records.ts) against the C compiler's offsetof/sizeof
// (wasm-core/tools/layout/cpupri/layout.inc, printed by struct_layout).
import { describe, expect, it } from 'vitest'
import { fieldOf, layout } from '../layout_test_support'
import { viewsOf } from '../sim_records'
import {
  CPUPRI_C2C_ROW_BYTES, CPUPRI_SUMMARY_BYTES, CPUPRI_VIEW_REQUEST_BYTES, decodeCpupriC2cRows, decodeCpupriSummary,
  levelLabel, writeCpupriViewRequest,
} from './cpupri_records'

/** A struct's bytes (0xff elsewhere) with each value at its compiler offset: i32/u32, u64 (bigint), f64 (`d:` prefix), text. */
function struct(name: string, values: Record<string, number | bigint | string>, at = 0, buf?: ArrayBuffer): ArrayBuffer {
  const b = buf ?? new ArrayBuffer(layout[name].size + 8)
  if (!buf) new Uint8Array(b).fill(0xff)
  const dv = new DataView(b)
  for (const [key, value] of Object.entries(values)) {
    const isDouble = key.startsWith('d:')
    const [off, size] = fieldOf(name, isDouble ? key.slice(2) : key)
    if (typeof value === 'string') {
      const f = new Uint8Array(b, at + off, size)
      f.fill(0)
      f.set(new TextEncoder().encode(value))
    } else if (isDouble) dv.setFloat64(at + off, Number(value), true)
    else if (typeof value === 'bigint') dv.setBigUint64(at + off, value, true)
    else dv.setInt32(at + off, value, true)
  }
  return b
}

describe('cpupri view sizes against sizeof', () => {
  it('cpupri_records.ts sizes', () => {
    expect([CPUPRI_VIEW_REQUEST_BYTES, CPUPRI_SUMMARY_BYTES, CPUPRI_C2C_ROW_BYTES]).toEqual([
      layout.ks_cpupri_view_request.size, layout.ks_cpupri_summary.size, layout.ks_cpupri_c2c_row.size,
    ])
  })
})

describe('cpupri views (ks_sim_model_view_get) against offsetof', () => {
  it('writes ks_cpupri_view_request at the compiler offsets', () => {
    const buf = new ArrayBuffer(16)
    new Uint8Array(buf).fill(0xff)
    writeCpupriViewRequest(viewsOf(buf), 8, 2, 37)
    const dv = new DataView(buf)
    expect([dv.getInt32(8 + fieldOf('ks_cpupri_view_request', 'view')[0], true),
      dv.getInt32(8 + fieldOf('ks_cpupri_view_request', 'first')[0], true)]).toEqual([2, 37])
  })

  it('decodes ks_cpupri_summary', () => {
    const buf = struct('ks_cpupri_summary', {
      variant: 1, flags: 1, nr_cpus: 16, nr_nodes: 2, nr_rows: 9, mask_bytes: 8, set_cpus: 12, reserved: 0,
      sets: 101n, finds: 202n, finds_found: 150n, nodes_scanned: 303n, finds_changed_by_inflight: 4n, accesses: 5005n,
      mask_line_served: 77n, 'd:access_ns': 1.5, 'd:wait_ns': 0.25, 'd:mask_line_busy_ns': 3.75, 'd:mask_line_wait_ns': 2.5,
      'd:now_ns': 1e6,
    })
    expect(decodeCpupriSummary(viewsOf(buf), 0)).toEqual({
      variant: 'pernode', flags: 1, nr_cpus: 16, nr_nodes: 2, nr_rows: 9, mask_bytes: 8, set_cpus: 12,
      sets: 101, finds: 202, finds_found: 150, nodes_scanned: 303, finds_changed_by_inflight: 4, accesses: 5005,
      mask_line_served: 77, access_ns: 1.5, wait_ns: 0.25, mask_line_busy_ns: 3.75, mask_line_wait_ns: 2.5, now_ns: 1e6,
    })
  })

  it('decodes consecutive ks_cpupri_c2c_rows', () => {
    const size = layout.ks_cpupri_c2c_row.size
    const buf = new ArrayBuffer(size * 2 + 8)
    new Uint8Array(buf).fill(0xff)
    const row = (i: number) => ({
      object: `cpupri_vec[${100 + i}].mask`, symbol: i ? 'cpupri_set' : '_find_first_and_bit', level: 100 + i, node: i - 1,
      offset: 8 * i, line_offset: 8 * i, loads: 10 + i, sampled_loads: 9 + i, local_hitm: 3 + i, remote_hitm: 4 + i,
      stores: 5 + i, store_l1_hit: 2 + i, store_l1_miss: 3 + i, reserved: 0,
      'd:load_cycles_sum': 1234.5 + i, 'd:wait_cycles_sum': 100.25 + i,
    })
    struct('ks_cpupri_c2c_row', row(0), 0, buf)
    struct('ks_cpupri_c2c_row', row(1), size, buf)
    const got = decodeCpupriC2cRows(viewsOf(buf), 0, 2)
    expect(got.map((r) => [r.object, r.symbol, r.level, r.node, r.offset, r.loads, r.sampled_loads, r.local_hitm, r.remote_hitm,
      r.stores, r.store_l1_hit, r.store_l1_miss, r.load_cycles_sum, r.wait_cycles_sum])).toEqual([
      ['cpupri_vec[100].mask', '_find_first_and_bit', 100, -1, 0, 10, 9, 3, 4, 5, 2, 3, 1234.5, 100.25],
      ['cpupri_vec[101].mask', 'cpupri_set', 101, 0, 8, 11, 10, 4, 5, 6, 3, 4, 1235.5, 101.25],
    ])
  })

  it('names levels as convert_prio maps them', () => {
    expect([-1, 0, 1, 99, 100].map(levelLabel)).toEqual(['invalid', 'no RT', 'RT 1', 'RT 99', 'DL'])
  })
})
