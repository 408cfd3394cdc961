// The event list's rows, columns and virtual scrolling, on hand-written rows.
import { describe, expect, it } from 'vitest'
import { columnsFromRows, type EventRow } from './traces_api'
import { openTraceStore, TYPE_SWITCH, type TraceInput } from './trace_store'
import { listColumns, listRows, rowAtTime, scrollToRow, visibleSlice } from './trace_event_list'

const STATS: TraceInput['stats'] = { format: 'ftrace', bytes: 0, lines: 0, events: 0, genericEvents: 0, malformed: 0,
  lostEvents: 0, nrCpus: 2, uname: '', traceClock: '', firstError: null }
const ROWS: EventRow[] = [
  { ts_ns: 100, cpu: 0, type: 'sched_waking', pid: 1, tgid: 1, comm: 'a', task_pid: 2, task_comm: 'b', prio: 120, target_cpu: 1 },
  { ts_ns: 200, cpu: 1, type: 'sched_switch', pid: 0, tgid: 0, comm: 'swapper', prev_pid: 0, prev_prio: 120, prev_state: 0,
    prev_comm: 'swapper', next_pid: 2, next_prio: 120, next_comm: 'b' },
  { ts_ns: 300, cpu: 0, type: 'irq_handler_entry', pid: 1, tgid: 1, comm: 'a', name: 'irq_handler_entry', fields: 'irq=5 name=eth0' },
  { ts_ns: 400, cpu: 1, type: 'sched_switch', pid: 2, tgid: 2, comm: 'b', prev_pid: 2, prev_prio: 120, prev_state: 1,
    prev_comm: 'b', next_pid: 0, next_prio: 120, next_comm: 'swapper' },
]
const store = openTraceStore({ name: 'l', format: 'ftrace', origin: { kind: 'local' }, columns: columnsFromRows(ROWS), stats: STATS, header: [] })
const fields = (r: number): [string, string][] => [['f0', String(store.columns.f0[r])], ['f3', String(store.columns.f3[r])]]

describe('the event list', () => {
  it('lists the window\'s rows that pass the filter, capped', () => {
    expect(listRows(store, 0, 1000, {}).rows.map((r) => store.columns.ts[r])).toEqual([100, 200, 300, 400])
    expect(listRows(store, 150, 400, {}).rows.map((r) => store.columns.ts[r])).toEqual([200, 300])
    expect(listRows(store, 0, 1000, { comm: 'b' }).rows.length).toBe(3)
    expect(listRows(store, 0, 1000, {}, 2)).toMatchObject({ capped: true })
    expect(listRows(store, 0, 1000, {}, 2).rows.length).toBe(2)
  })

  it('finds the row at the cursor', () => {
    const { rows } = listRows(store, 0, 1000, {})
    expect(rowAtTime(store, rows, 250)).toBe(2)
    expect(rowAtTime(store, rows, 0)).toBe(0)
    expect(rowAtTime(store, rows, 401)).toBe(4)
  })

  it('has one column per field for one type, one fields column for many', () => {
    const rel = (t: number) => `${t} ns`
    const mixed = listRows(store, 0, 1000, {}).rows
    const cols = listColumns(store, mixed, rel, fields)
    expect(cols.map((c) => c.label)).toEqual(['time', 'CPU', 'task', 'event', 'fields'])
    expect(cols[3].cell(mixed[2])).toBe('irq_handler_entry')
    expect(cols[4].cell(mixed[1])).toBe('f0=0 f3=2')
    const switches = listRows(store, 0, 1000, { types: new Set([TYPE_SWITCH]) }).rows
    const typed = listColumns(store, switches, rel, fields)
    expect(typed.map((c) => c.label)).toEqual(['time', 'CPU', 'task', 'event', 'f0', 'f3'])
    expect(typed.map((c) => c.cell(switches[1]))).toEqual(['400 ns', '1', 'b 2', 'sched_switch', '2', '0'])
  })

  it('shows only the rows a scrolled box holds, and scrolls a row into view', () => {
    expect(visibleSlice(1000, 20, 0, 100, 0)).toEqual([0, 5])
    expect(visibleSlice(1000, 20, 400, 100, 2)).toEqual([18, 27])
    expect(visibleSlice(3, 20, 0, 100)).toEqual([0, 3])
    expect(scrollToRow(50, 20, 0, 100)).toBe(920)
    expect(scrollToRow(2, 20, 0, 100)).toBe(0)
    expect(scrollToRow(2, 20, 200, 100)).toBe(40)
  })
})
