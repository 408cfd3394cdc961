// Area aggregates over a hand-written 4-CPU sequence (two CPUs share an LLC, a third is
// another LLC of node 0, the fourth is node 1), every figure worked out by hand.
import { describe, expect, it } from 'vitest'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, type TraceInput } from './trace_store'
import { areaAggregates, areaFromDrag, boundaryOf } from './trace_area'

const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 0, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 4, uname: '', traceClock: '', firstError: null }
const NAMES: Record<number, string> = { 0: 'swapper', 10: 'mover', 20: 'steady', 30: 'woken' }
const sw = (ts: number, cpu: number, prev: number, state: number, next: number): EventRow => ({
  ts_ns: ts, cpu, type: 'sched_switch', pid: prev, tgid: prev, comm: NAMES[prev], prev_pid: prev, prev_prio: 120,
  prev_state: state, prev_comm: NAMES[prev], next_pid: next, next_prio: 120, next_comm: NAMES[next],
})
const ev = (ts: number, cpu: number, ctx: number, type: string, fields: EventRow): EventRow => ({
  ts_ns: ts, cpu, type, pid: ctx, tgid: ctx, comm: NAMES[ctx], prio: 120, ...fields,
})
const R = 0, S = 1
const ROWS: EventRow[] = [
  sw(1000, 0, 0, R, 10),
  sw(1000, 1, 0, R, 20),
  ev(2000, 0, 10, 'sched_waking', { task_pid: 30, task_comm: 'woken', target_cpu: 0 }),
  sw(3000, 0, 10, R, 30),
  ev(3500, 0, 0, 'sched_migrate_task', { task_pid: 10, task_comm: 'mover', orig_cpu: 0, dest_cpu: 1 }),
  ev(3600, 1, 20, 'sched_migrate_task', { task_pid: 10, task_comm: 'mover', orig_cpu: 1, dest_cpu: 2 }),
  ev(3700, 2, 0, 'sched_migrate_task', { task_pid: 10, task_comm: 'mover', orig_cpu: 2, dest_cpu: 3 }),
  sw(4000, 3, 0, R, 10),
  sw(5000, 0, 30, S, 0),
  sw(6000, 1, 20, S, 0),
  sw(6000, 3, 10, S, 0),
]
const HEADER = [
  ...[0, 1, 2, 3].flatMap((cpu) => [`# kscope-sysfs: cpu${cpu}/cache/index3/level\t3`,
    `# kscope-sysfs: cpu${cpu}/cache/index3/shared_cpu_list\t${cpu < 2 ? '0-1' : String(cpu)}`]),
  '# kscope-sysfs: ../node/node0/cpulist\t0-2', '# kscope-sysfs: ../node/node1/cpulist\t3',
]
const store = openTraceStore({ name: 'a', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(ROWS), stats: STATS, header: HEADER })

describe('area aggregates', () => {
  it('busy time per CPU and per task, switches by kind', () => {
    const a = areaAggregates(store, { start: 2000, end: 5000, cpus: [0, 1] })
    expect(a.span).toBe(3000)
    expect(a.perCpu).toEqual([{ cpu: 0, busy: 3000, switches: 1 }, { cpu: 1, busy: 3000, switches: 0 }])
    expect(a.busyTotal).toBe(6000)
    expect(a.switches).toEqual({ total: 1, involuntary: 1, voluntary: 0 })
    expect(a.perTask.map((t) => [t.comm, t.pid, t.busy, t.runnable])).toEqual([
      ['steady', 20, 3000, 0], ['woken', 30, 2000, 1000], ['mover', 10, 1000, 600]])
  })

  it('runnable wait on the area\'s queues, and the waits that ended there', () => {
    const a = areaAggregates(store, { start: 2000, end: 5000, cpus: [0, 1] })
    expect(a.runnableTotal).toBe(1600)
    expect(a.waits).toEqual({ count: 1, mean: 1000, max: 1000 })
    // CPU 3 alone: mover's 300 ns on its queue, and its wait since the preemption (1000 ns).
    const b = areaAggregates(store, { start: 2000, end: 5000, cpus: [3] })
    expect(b.runnableTotal).toBe(300)
    expect(b.waits).toEqual({ count: 1, mean: 1000, max: 1000 })
  })

  it('counts migrations by the boundary crossed', () => {
    const a = areaAggregates(store, { start: 2000, end: 5000, cpus: [0, 1] })
    expect([a.migrations['within LLC'], a.migrations['across LLC'], a.migrations['across node']]).toEqual([1, 1, 0])
    const all = areaAggregates(store, { start: 0, end: 10_000, cpus: [0, 1, 2, 3] })
    expect([all.migrations['within LLC'], all.migrations['across LLC'], all.migrations['across node']]).toEqual([1, 1, 1])
    expect(boundaryOf(null, 0, 1)).toBe('topology not known')
    expect(boundaryOf(store.meta.topology, 2, 2)).toBe('same CPU')
    expect(boundaryOf(store.meta.topology, 2, 3)).toBe('across node')
  })

  it('turns a drag into an area: its span and the lanes between', () => {
    expect(areaFromDrag(5000, 2000, [0, 1, 2, 3], 2, 0)).toEqual({ start: 2000, end: 5000, cpus: [0, 1, 2] })
    expect(areaFromDrag(1, 1, [0], 0, 0)).toBeNull()
    expect(areaFromDrag(1, 2, [4, 7], 0, 9)).toEqual({ start: 1, end: 2, cpus: [4, 7] })
  })
})
