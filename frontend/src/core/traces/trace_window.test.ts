// A stored trace's windows: the Arrow decoder against the JSON rows decoder on
// the server's schema (dictionaries, nulls, several record batches), a window
// store's extent and cut slices, the summaries' resampling, the fetch policy.
import {
  Dictionary, Int8, Int32, Int64, RecordBatch, Table, Utf8, makeData, tableToIPC, vectorFromArray, Schema, Struct, Field,
  type DataType,
} from 'apache-arrow'
import { describe, expect, it } from 'vitest'
import { columnsFromArrow } from './trace_arrow'
import { openTraceStore, type Occupancy } from './trace_store'
import { columnsFromRows, type EventRow } from './traces_api'
import { overviewServes, paddedRange, resampleOverview, windowServes } from './trace_window'

const STR = () => new Dictionary(new Utf8(), new Int32())
/** The server's columns (backend/kscope/ingest/records.py SCHEMA) and their Arrow types. */
const SCHEMA: [string, () => DataType][] = [
  ['ts_ns', () => new Int64()], ['cpu', () => new Int32()], ['type', () => new Dictionary(new Utf8(), new Int8())],
  ['pid', () => new Int32()], ['tgid', () => new Int32()], ['comm', STR],
  ['task_pid', () => new Int32()], ['task_comm', STR], ['prio', () => new Int32()],
  ['prev_comm', STR], ['prev_pid', () => new Int32()], ['prev_prio', () => new Int32()], ['prev_state', () => new Int64()],
  ['next_comm', STR], ['next_pid', () => new Int32()], ['next_prio', () => new Int32()],
  ['target_cpu', () => new Int32()], ['orig_cpu', () => new Int32()], ['dest_cpu', () => new Int32()],
  ['child_pid', () => new Int32()], ['child_comm', STR], ['group_dead', () => new Int8()],
  ['cpu_id', () => new Int32()], ['node_id', () => new Int32()], ['mm_cid', () => new Int32()],
  ['name', STR], ['fields', () => new Utf8()],
]

const base = { pid: 10, tgid: 10, comm: 'a' }
const ROWS: EventRow[] = [
  { ts_ns: 1000, cpu: 0, type: 'sched_switch', pid: 0, tgid: 0, comm: 'swapper/0', prev_comm: 'swapper/0', prev_pid: 0,
    prev_prio: 120, prev_state: 0, next_comm: 'a', next_pid: 10, next_prio: 120 },
  { ts_ns: 1500, cpu: 0, type: 'sched_wakeup', ...base, task_pid: 11, task_comm: '<img src=x>', prio: 120, target_cpu: 1 },
  { ts_ns: 1600, cpu: 1, type: 'sched_migrate_task', ...base, task_pid: 11, task_comm: '<img src=x>', prio: 120, orig_cpu: 1, dest_cpu: 0 },
  { ts_ns: 1700, cpu: 0, type: 'sched_process_fork', ...base, task_pid: 10, task_comm: 'a', child_pid: 12, child_comm: 'a' },
  { ts_ns: 1800, cpu: 0, type: 'rseq_update', ...base, cpu_id: 0, node_id: null, mm_cid: 3 },
  { ts_ns: 1900, cpu: 0, type: 'sched_process_exit', ...base, task_pid: 10, task_comm: 'a', prio: 120, group_dead: 1 },
  { ts_ns: 2000, cpu: 1, type: 'generic', ...base, name: 'irq_handler_entry', fields: 'irq=5 name=eth0' },
  { ts_ns: 2100, cpu: 0, type: 'sched_switch', ...base, prev_comm: 'a', prev_pid: 10, prev_prio: 120, prev_state: 257,
    next_comm: 'swapper/0', next_pid: 0, next_prio: 120 },
]

function arrowOf(rows: EventRow[], batchSize: number): Uint8Array {
  const batches: RecordBatch[] = []
  const fields = SCHEMA.map(([name, t]) => new Field(name, t(), true))
  for (let at = 0; at < rows.length; at += batchSize) {
    const part = rows.slice(at, at + batchSize)
    const children = SCHEMA.map(([name, t]) => {
      const values = part.map((r) => (r[name] === undefined ? null : r[name]))
      const type = t()
      return vectorFromArray(type instanceof Int64 ? values.map((v) => (v === null ? null : BigInt(v as number))) : values, type).data[0]
    })
    const data = makeData({ type: new Struct(fields), length: part.length, nullCount: 0, children })
    batches.push(new RecordBatch(new Schema(fields), data))
  }
  return tableToIPC(new Table(batches), 'stream')
}

describe('columnsFromArrow', () => {
  it('gives the same columns as the JSON rows, over several record batches', () => {
    const fromJson = columnsFromRows(ROWS)
    for (const size of [3, 100]) {
      const c = columnsFromArrow(arrowOf(ROWS, size))
      expect(c.count).toBe(ROWS.length)
      for (const key of ['ts', 'type', 'cpu', 'pid', 'tgid', 'f0', 'f1', 'f2', 'f3', 'f4'] as const) {
        expect(Array.from(c[key]), key).toEqual(Array.from(fromJson[key]))
      }
      const text = (cols: typeof c, key: 'comm' | 's1' | 's2') => Array.from(cols[key], (id) => (id >= 0 ? cols.strings[id] : null))
      for (const key of ['comm', 's1', 's2'] as const) expect(text(c, key), key).toEqual(text(fromJson, key))
    }
  })

  it('keeps a null rseq node_id as -1 and HTML-looking comms as plain strings', () => {
    const c = columnsFromArrow(arrowOf(ROWS, 4))
    expect(c.f1[4]).toBe(-1)
    expect(c.f2[4]).toBe(3)
    expect(c.strings).toContain('<img src=x>')
    expect(c.f2[7]).toBe(257) // prev_state R+ (int64 column)
  })
})

describe('a window of a stored trace', () => {
  const columns = columnsFromRows(ROWS.filter((r) => (r.ts_ns as number) >= 1500))
  const store = openTraceStore({
    name: 'w', format: 'ftrace', origin: { kind: 'server', id: 'x' }, columns, header: [],
    stats: { format: 'ftrace', bytes: 0, lines: 0, events: 8, genericEvents: 1, malformed: 0, lostEvents: 0, nrCpus: 2,
      uname: '', traceClock: '', firstError: null },
    window: { extentT0: 1000, extentT1: 2100, cpus: [0, 1, 2], totalEvents: 8, loaded: { t0: 1400, t1: 2101, truncated: false } },
  })

  it('spans the whole trace and lists every CPU, with only the window’s events', () => {
    expect([store.t0, store.t1]).toEqual([1000, 2100])
    expect(store.cpus).toEqual([0, 1, 2])
    expect(store.totalEvents).toBe(8)
    expect(store.columns.count).toBe(7)
  })

  it('cuts the slice running at the window’s start there, not at the trace’s', () => {
    const sl = store.slices.get(0)!
    expect(sl.start[0]).toBe(1400)
    expect(sl.pid[0]).toBe(10)
    expect(sl.fromRow[0]).toBe(-1)
    expect(store.slices.get(2)!.start.length).toBe(0)
  })
})

describe('summaries and the fetch policy', () => {
  const coarse: Occupancy = { t0: 0, t1: 1000, bucketNs: 100, cpus: [0, 1], rows: [
    Float32Array.from([1, 1, 1, 1, 1, 0, 0, 0, 0, 0]), Float32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5])] }
  const fine: Occupancy = { t0: 400, t1: 600, bucketNs: 10, cpus: [1, 0], rows: [
    new Float32Array(20).fill(0.25), Float32Array.from({ length: 20 }, (_, i) => (i < 10 ? 1 : 0))] }

  it('resamples overlap-weighted, preferring the finest summary that covers a bucket', () => {
    const r = resampleOverview([coarse], [1, 0], 0, 1000, 4)
    expect(Array.from(r.rows[1])).toEqual([1, 1, 0, 0])
    expect(r.rows[0][3]).toBeCloseTo(0.2)
    const both = resampleOverview([coarse, fine], [0, 1], 450, 550, 2)
    expect(Array.from(both.rows[0])).toEqual([1, 0])
    expect(Array.from(both.rows[1])).toEqual([0.25, 0.25])
    // Outside the fine one, the coarse one answers.
    expect(resampleOverview([coarse, fine], [0], 0, 200, 2).rows[0][0]).toBe(1)
  })

  it('pads half a window each side within the trace, and knows when a load serves', () => {
    expect(paddedRange(400, 600, 0, 1000)).toEqual({ start: 300, end: 700 })
    expect(paddedRange(0, 100, 0, 1000)).toEqual({ start: 0, end: 150 })
    const loaded = { t0: 300, t1: 700, truncated: false, lastTs: 690 }
    expect(windowServes(loaded, 350, 650)).toBe(true)
    expect(windowServes(loaded, 250, 650)).toBe(false)
    expect(windowServes({ ...loaded, truncated: true, t1: 500, lastTs: 500 }, 350, 650)).toBe(false)
    expect(windowServes(null, 0, 1)).toBe(false)
    expect(overviewServes(fine, 450, 550, 10)).toBe(true)
    expect(overviewServes(fine, 450, 550, 100)).toBe(false) // 10 ns buckets for 1 ns pixels: too coarse
    expect(overviewServes(fine, 350, 550, 10)).toBe(false)
  })
})
