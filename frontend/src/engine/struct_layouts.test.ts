// The record decoders' hand-written layouts against the C compiler's offsetof/sizeof.
//
// wasm-core/build/native/struct_layout (tools/layout/struct_layout.c, built by `make native`)
// prints each shared struct's size and every field's [offset, size]. Each test writes a
// distinct value into every C field at the offset the compiler gives, decodes the bytes with
// the TypeScript decoder, and expects each value back under its name: a field the decoder
// reads at the wrong offset or width comes back wrong. (backend/tests/test_struct_layouts.py
// checks the Python mirrors the same way.) Layouts are the same in wasm32 and x86-64 for
// these structs: fixed-width fields only, no pointers.
import { describe, expect, it } from 'vitest'
import { fieldOf, layout, put, record } from './layout_test_support'
import {
  BURST_BYTES, COST_PARTS, COST_PARTS_BYTES, EVENT_BYTES, EVENT_TYPES, FRAME_HEADER_BYTES, PARSE_ERROR_BYTES, RUN_LIMIT_BYTES,
  SIM_CPU_BYTES, SIM_TASK_BYTES, STATS_BYTES, decodeBursts, decodeEvent, decodeFrame,
  decodeCostParts, decodeParseError, decodeStats, encodeRunLimit, viewsOf,
} from './sim_records'
import {
  FTRACE_STATS_BYTES, PERF_STATS_BYTES, SYSTRACE_STATS_BYTES, TRACEDAT_STATS_BYTES, TRACE_STATS_BYTES, decodeTraceStats,
} from './trace_records'

const header = { ts_ns: 123456789n, cpu: 3, pid: 41, tgid: 40, comm: 'worker/3' }
const headerOut = { ts_ns: 123456789, cpu: 3, pid: 41, tgid: 40, comm: 'worker/3' }
const typeId = (t: string) => EVENT_TYPES.indexOf(t as (typeof EVENT_TYPES)[number])

describe('ks_event decoder (sim_records.ts) against offsetof', () => {
  it('has the C size', () => {
    expect(EVENT_BYTES).toBe(layout.ks_event.size)
  })
  const cases: [string, Record<string, number | bigint | string>, Record<string, unknown>][] = [
    ['sched_switch',
      { 'u.sched_switch.prev_comm': 'prev', 'u.sched_switch.prev_pid': 7, 'u.sched_switch.prev_prio': 120,
        'u.sched_switch.prev_state': 0x100n, 'u.sched_switch.next_comm': 'next',
        'u.sched_switch.next_pid': 9, 'u.sched_switch.next_prio': 98 },
      { prev_comm: 'prev', prev_pid: 7, prev_prio: 120, prev_state: 0x100, next_comm: 'next', next_pid: 9, next_prio: 98 }],
    ['sched_wakeup',
      { 'u.sched_wakeup.comm': 'woken', 'u.sched_wakeup.pid': 12, 'u.sched_wakeup.prio': 100, 'u.sched_wakeup.target_cpu': 5 },
      { target_comm: 'woken', target_pid: 12, target_prio: 100, target_cpu: 5 }],
    ['sched_migrate_task',
      { 'u.sched_migrate_task.comm': 'mover', 'u.sched_migrate_task.pid': 13, 'u.sched_migrate_task.prio': 110,
        'u.sched_migrate_task.orig_cpu': 2, 'u.sched_migrate_task.dest_cpu': 6 },
      { target_comm: 'mover', target_pid: 13, target_prio: 110, orig_cpu: 2, dest_cpu: 6 }],
    ['sched_process_fork',
      { 'u.sched_process_fork.parent_comm': 'parent', 'u.sched_process_fork.parent_pid': 20,
        'u.sched_process_fork.child_comm': 'child', 'u.sched_process_fork.child_pid': 21 },
      { parent_comm: 'parent', parent_pid: 20, child_comm: 'child', child_pid: 21 }],
    ['sched_process_exit',
      { 'u.sched_process_exit.comm': 'gone', 'u.sched_process_exit.pid': 30, 'u.sched_process_exit.prio': 120 },
      { target_comm: 'gone', target_pid: 30, target_prio: 120 }],
    ['rseq_update',
      { 'u.rseq_update.cpu_id': 4, 'u.rseq_update.node_id': 1, 'u.rseq_update.mm_cid': 2 },
      { cpu_id: 4, node_id: 1, mm_cid: 2 }],
    ['generic',
      { 'u.generic.name_off': 1000, 'u.generic.fields_off': 2000 },
      { name_off: 1000, fields_off: 2000 }],
  ]
  for (const [type, payload, decoded] of cases) {
    it(`reads ${type} at the compiler's offsets`, () => {
      const buf = record('ks_event', { ...header, type: typeId(type), ...payload })
      expect(decodeEvent(viewsOf(buf), 0)).toEqual({ ...headerOut, type, ...decoded })
    })
  }
})

describe('frame, stats, bursts, parse error and run limit (sim_records.ts) against offsetof', () => {
  it('have the C sizes', () => {
    expect({
      FRAME_HEADER_BYTES, SIM_CPU_BYTES, SIM_TASK_BYTES, STATS_BYTES, BURST_BYTES, PARSE_ERROR_BYTES, RUN_LIMIT_BYTES,
    }).toEqual({
      FRAME_HEADER_BYTES: layout.ks_sim_frame.size, SIM_CPU_BYTES: layout.ks_sim_cpu.size,
      SIM_TASK_BYTES: layout.ks_sim_task.size, STATS_BYTES: layout.ks_sim_stats.size,
      BURST_BYTES: layout.ks_burst_cost.size, PARSE_ERROR_BYTES: layout.ks_parse_error.size,
      RUN_LIMIT_BYTES: layout.ks_run_limit.size,
    })
  })

  it('decodes a frame (header, one CPU, one task) at the compiler offsets', () => {
    const h = layout.ks_sim_frame.size, c = layout.ks_sim_cpu.size, t = layout.ks_sim_task.size
    const buf = new ArrayBuffer(h + c + t + 8)
    const put1 = (struct: string, base: number, values: Record<string, number | bigint | string>) => {
      for (const [m, v] of Object.entries(values)) {
        const [offset, width] = fieldOf(struct, m)
        put(buf, base + offset, width, v)
      }
    }
    put1('ks_sim_frame', 0, {
      now_ns: 5000n, step: 17n, nr_cpus: 1, nr_tasks: 1, nr_rq_tids: 1, reserved: 0x55,
      cpus_off: h, tasks_off: h + c, rq_tids_off: h + c + t, size: h + c + t + 4,
    })
    put1('ks_sim_cpu', h, { cpu: 0, curr_tid: 8, nr_running: 2, rq_offset: 0, busy_ns: 4000n })
    put1('ks_sim_task', h + c, {
      tid: 8, tgid: 7, cpu: 0, state: 1, policy: 1, prio: 90, nr_cpus_allowed: 4, mm_cid: 3,
      vruntime_ns: 111n, sum_exec_ns: 222n, comm: 'task8',
    })
    new DataView(buf).setInt32(h + c + t, 9, true)
    expect(decodeFrame(viewsOf(buf), 0)).toEqual({
      now_ns: 5000, step: 17,
      cpus: [{ cpu: 0, curr_tid: 8, nr_running: 2, queued: [9], busy_ns: 4000 }],
      tasks: [{
        tid: 8, tgid: 7, comm: 'task8', cpu: 0, state: 'runnable', policy: 'fifo', prio: 90,
        nr_cpus_allowed: 4, mm_cid: 3, vruntime_ns: 111, sum_exec_ns: 222,
      }],
    })
  })

  it('decodes ks_sim_stats at the compiler offsets', () => {
    const buf = record('ks_sim_stats', {})
    const dv = new DataView(buf)
    const [byType] = fieldOf('ks_sim_stats', 'events_by_type')
    const [linesFrom] = fieldOf('ks_sim_stats', 'lines_from')
    EVENT_TYPES.forEach((_, i) => dv.setBigUint64(byType + 8 * i, BigInt(100 + i), true))
    for (let i = 0; i < 8; i++) dv.setBigUint64(linesFrom + 8 * i, BigInt(200 + i), true)
    for (const [m, v] of [['now_ns', 1n], ['events', 2n], ['access_ns', 3n], ['local_hitm', 4n], ['remote_hitm', 5n]] as const) {
      put(buf, fieldOf('ks_sim_stats', m)[0], 8, v)
    }
    const s = decodeStats(viewsOf(buf), 0)
    expect([s.now_ns, s.events, s.access_ns, s.local_hitm, s.remote_hitm]).toEqual([1, 2, 3, 4, 5])
    expect(Object.values(s.events_by_type)).toEqual(EVENT_TYPES.map((_, i) => 100 + i))
    expect(s.lines_from).toEqual([200, 201, 202, 203, 204, 205, 206, 207])
  })

  it('decodes ks_burst_cost and ks_parse_error at the compiler offsets', () => {
    const burst = record('ks_burst_cost', { ts_ns: 77n, tid: 5, cpu: 1, index: 2, flags: 1, cost_ns: 99n })
    expect(decodeBursts(viewsOf(burst), 0, 1)).toEqual([{ ts_ns: 77, tid: 5, cpu: 1, index: 2, cost_ns: 99, warmup: true }])
    const perr = record('ks_parse_error', { line: 12, column_or_field: 3, field: 'cpus', message: 'not a number' })
    expect(decodeParseError(viewsOf(perr), 0)).toEqual({ line: 12, column: 3, field: 'cpus', message: 'not a number' })
  })

  it('encodes ks_run_limit at the compiler offsets', () => {
    const buf = new ArrayBuffer(layout.ks_run_limit.size + 8)
    encodeRunLimit(viewsOf(buf), 0, { untilNs: 1234, typeMask: 6, tid: 42, maxEvents: 500 })
    const dv = new DataView(buf)
    const read = (m: string) => {
      const [offset, width] = fieldOf('ks_run_limit', m)
      return width === 8 ? dv.getBigUint64(offset, true) : dv.getUint32(offset, true)
    }
    expect([read('until_ns'), read('type_mask'), read('tid'), read('max_events'), read('reserved')])
      .toEqual([1234n, 6, 42, 500, 0])
  })
})

describe('ks_trace_stats decoder (trace_records.ts) against offsetof', () => {
  it('reads every field where the compiler put it', () => {
    expect(TRACE_STATS_BYTES).toBe(layout.ks_trace_stats.size)
    const buf = record('ks_trace_stats', {
      format: 3, status: 4, events: 1001, generic_events: 17, malformed: 5, lost_events: 9, nr_cpus: 6,
      lines: 0, bytes_fed: 77777n, error_offset: 4321n,
    })
    const [errAt] = fieldOf('ks_trace_stats', 'first_error')
    const [lineAt] = fieldOf('ks_parse_error', 'line')
    const [fieldAt, fieldLen] = fieldOf('ks_parse_error', 'field')
    const [messageAt, messageLen] = fieldOf('ks_parse_error', 'message')
    put(buf, errAt + lineAt, 4, 0)
    put(buf, errAt + fieldAt, fieldLen, 'records')
    put(buf, errAt + messageAt, messageLen, 'a record shorter than its header')
    const u8 = new Uint8Array(buf)
    const s = decodeTraceStats(u8, new Int32Array(buf, 0, Math.floor(buf.byteLength / 4)), 0, 'trace.dat', 99)
    expect(s).toEqual({
      format: 'trace.dat', bytes: 99, status: 4, events: 1001, genericEvents: 17, malformed: 5, lostEvents: 9,
      nrCpus: 6, lines: 0, uname: '', traceClock: '',
      firstError: { line: 0, offset: 4321, field: 'records', message: 'a record shorter than its header' },
    })
  })
})

describe('decoder stats sizes against sizeof', () => {
  it('trace_records.ts sizes', () => {
    expect({ FTRACE_STATS_BYTES, PERF_STATS_BYTES, SYSTRACE_STATS_BYTES, TRACEDAT_STATS_BYTES }).toEqual({
      FTRACE_STATS_BYTES: layout.ks_ftrace_stats.size, PERF_STATS_BYTES: layout.ks_perf_stats.size,
      SYSTRACE_STATS_BYTES: layout.ks_systrace_stats.size, TRACEDAT_STATS_BYTES: layout.ks_tracedat_stats.size,
    })
  })
})

describe('ks_cost_parts (sim_records.ts) against offsetof', () => {
  it('has the C size: part_ns is the whole record, COST_PARTS doubles', () => {
    expect(COST_PARTS_BYTES).toBe(layout.ks_cost_parts.size)
    expect(fieldOf('ks_cost_parts', 'part_ns')).toEqual([0, COST_PARTS * 8])
  })

  it('decodes records [from, to) at the compiler offsets, one double per part', () => {
    const buf = new ArrayBuffer(3 * layout.ks_cost_parts.size)
    const f64 = new Float64Array(buf)
    for (let i = 0; i < f64.length; i++) f64[i] = i + 0.5
    const got = decodeCostParts(viewsOf(buf), 0, 1, 3)
    expect(got).toHaveLength(2)
    expect(got[0]).toEqual(Array.from({ length: COST_PARTS }, (_, p) => COST_PARTS + p + 0.5))
    expect(got[1][COST_PARTS - 1]).toBe(3 * COST_PARTS - 0.5)
  })
})
