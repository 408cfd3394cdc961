/*
 * GET /api/traces/{id}/events as an Arrow IPC stream -> the same columns the
 * local wasm decoder gives (engine/trace_records.ts TraceColumns).
 *
 * The server's schema (backend/kscope/ingest/records.py SCHEMA) is one wide
 * table with nulls where an event type has no such field:
 *
 *     ts_ns int64 | cpu | type dict<int8,string> | pid | tgid | comm dict
 *     task_pid task_comm prio | prev_* next_* | target_cpu orig_cpu dest_cpu
 *     child_pid child_comm group_dead | cpu_id node_id mm_cid | name fields
 *
 * We read each record batch's buffers directly (no per-value Vector.get): the
 * dictionary columns map their batch-local indices to one string table (the
 * columns' `strings`), so a million rows decode in tens of milliseconds. Each
 * type's payload is copied into f0..f4 / s1, s2 exactly as the wasm decoder
 * lays it out (columnsFromRows in traces_api.ts is the JSON twin; both are
 * checked against each other in trace_arrow.test.ts).
 *
 * All strings are untrusted file content: they stay plain strings.
 */
import { tableFromIPC, type Data, type Table } from 'apache-arrow'
import { EVENT_TYPES } from '../../engine/sim_records'
import { TYPE_GENERIC, type TraceColumns } from '../../engine/trace_records'
import { StringInterner } from '../../engine/string_interner'

type AnyData = Data

/** Per-batch reader of one column: value at batch-local row i, or the default when null. */
interface ColumnReader {
  num(i: number, dflt: number): number
  str(i: number): number
}

function validity(d: AnyData): (i: number) => boolean {
  const bitmap = d.nullBitmap
  if (!d.nullCount || !bitmap || bitmap.length === 0) return () => true
  const off = d.offset
  return (i) => ((bitmap[(off + i) >> 3] >> ((off + i) & 7)) & 1) === 1
}

const ABSENT: ColumnReader = { num: (_i, d) => d, str: () => -1 }

function reader(d: AnyData | undefined, strings: StringInterner): ColumnReader {
  if (!d) return ABSENT
  const valid = validity(d)
  const dict = (d as { dictionary?: { length: number; get(i: number): unknown } }).dictionary
  if (dict) {
    // Batch-local dictionary index -> global string id, resolved once per distinct index.
    const local = new Int32Array(dict.length).fill(-2)
    const idx = d.values as ArrayLike<number>
    const off = d.offset
    return {
      num: (_i, dflt) => dflt,
      str: (i) => {
        if (!valid(i)) return -1
        const k = idx[off + i]
        if (local[k] === -2) local[k] = strings.id(String(dict.get(k) ?? ''))
        return local[k]
      },
    }
  }
  const values = d.values as ArrayLike<number | bigint>
  const off = d.offset
  if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
    return { num: (i, dflt) => (valid(i) ? Number(values[off + i]) : dflt), str: () => -1 }
  }
  if (d.valueOffsets) {
    // Plain utf8 (generic events' `fields`).
    const offsets = d.valueOffsets as Int32Array
    const bytes = d.values as Uint8Array
    const text = new TextDecoder()
    return {
      num: (_i, dflt) => dflt,
      str: (i) => (valid(i) ? strings.id(text.decode(bytes.subarray(offsets[off + i], offsets[off + i + 1]))) : -1),
    }
  }
  return { num: (i, dflt) => (valid(i) ? Number(values[off + i]) : dflt), str: () => -1 }
}

/** Event type per server type name; unknown names are generic. */
const TYPE_OF = new Map<string, number>((EVENT_TYPES as readonly string[]).map((t, i) => [t, i]))

/** Decodes an Arrow IPC stream of the events route into trace columns. */
export function columnsFromArrow(bytes: Uint8Array | ArrayBuffer): TraceColumns {
  return columnsFromTable(tableFromIPC(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)))
}

export function columnsFromTable(table: Table): TraceColumns {
  const n = table.numRows
  const strings = new StringInterner()
  const c: TraceColumns = {
    count: n, ts: new Float64Array(n), type: new Uint8Array(n), cpu: new Int32Array(n), pid: new Int32Array(n),
    tgid: new Int32Array(n), comm: new Int32Array(n), f0: new Int32Array(n), f1: new Int32Array(n),
    f2: new Int32Array(n), f3: new Int32Array(n), f4: new Int32Array(n), s1: new Int32Array(n).fill(-1),
    s2: new Int32Array(n).fill(-1), strings: strings.strings,
  }
  const names = table.schema.fields.map((f) => f.name)
  let base = 0
  for (const batch of table.batches) {
    const col = (name: string) => {
      const k = names.indexOf(name)
      return reader(k >= 0 ? (batch.data.children[k] as AnyData) : undefined, strings)
    }
    const ts = col('ts_ns'), cpu = col('cpu'), pid = col('pid'), tgid = col('tgid'), comm = col('comm')
    const typeCol = col('type')
    const taskPid = col('task_pid'), taskComm = col('task_comm'), prio = col('prio')
    const prevComm = col('prev_comm'), prevPid = col('prev_pid'), prevPrio = col('prev_prio'), prevState = col('prev_state')
    const nextComm = col('next_comm'), nextPid = col('next_pid'), nextPrio = col('next_prio')
    const target = col('target_cpu'), orig = col('orig_cpu'), dest = col('dest_cpu')
    const childPid = col('child_pid'), childComm = col('child_comm'), groupDead = col('group_dead')
    const cpuId = col('cpu_id'), nodeId = col('node_id'), mmCid = col('mm_cid')
    const name = col('name'), fields = col('fields')
    // The type dictionary's string ids -> event type numbers, once per batch.
    const typeOfId = new Map<number, number>()
    for (let i = 0; i < batch.numRows; i++) {
      const r = base + i
      const tid = typeCol.str(i)
      let type = typeOfId.get(tid)
      if (type === undefined) {
        type = TYPE_OF.get(tid >= 0 ? strings.strings[tid] : '') ?? TYPE_GENERIC
        typeOfId.set(tid, type)
      }
      c.ts[r] = ts.num(i, 0); c.type[r] = type; c.cpu[r] = cpu.num(i, -1); c.pid[r] = pid.num(i, 0)
      c.tgid[r] = tgid.num(i, -1)
      const cm = comm.str(i)
      c.comm[r] = cm >= 0 ? cm : strings.id('')
      switch (EVENT_TYPES[type]) {
        case 'sched_switch':
          c.f0[r] = prevPid.num(i, 0); c.f1[r] = prevPrio.num(i, 0); c.f2[r] = prevState.num(i, 0)
          c.f3[r] = nextPid.num(i, 0); c.f4[r] = nextPrio.num(i, 0); c.s1[r] = prevComm.str(i); c.s2[r] = nextComm.str(i)
          break
        case 'sched_waking': case 'sched_wakeup': case 'sched_wakeup_new':
          c.f0[r] = taskPid.num(i, 0); c.f1[r] = prio.num(i, 0); c.f2[r] = target.num(i, 0); c.s1[r] = taskComm.str(i)
          break
        case 'sched_migrate_task':
          c.f0[r] = taskPid.num(i, 0); c.f1[r] = prio.num(i, 0); c.f2[r] = orig.num(i, 0); c.f3[r] = dest.num(i, 0)
          c.s1[r] = taskComm.str(i)
          break
        case 'sched_process_fork':
          c.f0[r] = taskPid.num(i, 0); c.f3[r] = childPid.num(i, 0); c.s1[r] = taskComm.str(i); c.s2[r] = childComm.str(i)
          break
        case 'sched_process_exit': case 'sched_process_free':
          c.f0[r] = taskPid.num(i, 0); c.f1[r] = prio.num(i, 0); c.f2[r] = groupDead.num(i, -1); c.s1[r] = taskComm.str(i)
          break
        case 'rseq_update':
          c.f0[r] = cpuId.num(i, 0); c.f1[r] = nodeId.num(i, -1); c.f2[r] = mmCid.num(i, -1)
          break
        default:
          c.type[r] = TYPE_GENERIC
          c.s1[r] = name.str(i); c.s2[r] = fields.str(i)
          if (c.s1[r] < 0) c.s1[r] = strings.id('')
          if (c.s2[r] < 0) c.s2[r] = strings.id('')
      }
    }
    base += batch.numRows
  }
  return c
}
