/*
 * The event list beside the timeline: the window's events that pass the
 * page's filter, as table rows, and the sums a virtualised table needs.
 *
 *   listRows      the rows (time order) of [start, end), capped
 *   rowAtTime     the first row at or after a time (the cursor scrolls to it)
 *   listColumns   the columns: time, CPU, task, event, then one column per
 *                 field when every row is of one type (a type filter), else
 *                 one "fields" column of name=value pairs
 *   visibleSlice  which rows a scrolled box of a given height shows
 *
 * Pure; the field names and values come from `fieldsOf` (the details panel's
 * eventFields), passed in so this module stays below the views.
 */
import { EVENT_TYPES, eventsIn, type EventFilter, type TraceStore } from './trace_store'

export const LIST_MAX_ROWS = 100_000

export interface EventListRows {
  rows: number[]
  /** More rows passed the filter than the list holds. */
  capped: boolean
}

export function listRows(s: TraceStore, start: number, end: number, filter: EventFilter, max = LIST_MAX_ROWS): EventListRows {
  const rows = eventsIn(s, start, end, s.cpus, filter, max + 1)
  return rows.length > max ? { rows: rows.slice(0, max), capped: true } : { rows, capped: false }
}

/** Index of the first row with ts >= t (rows.length when none). */
export function rowAtTime(s: TraceStore, rows: readonly number[], t: number): number {
  let lo = 0, hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (s.columns.ts[rows[mid]] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface ListColumn {
  key: string
  label: string
  /** The cell's text for a row. */
  cell(row: number): string
}

/**
 * The columns for these rows: the common ones, then the fields of their one type (all rows of
 * one type), else a single "fields" column. `rel` formats a time, `fieldsOf` names a row's fields.
 */
export function listColumns(s: TraceStore, rows: readonly number[], rel: (t: number) => string,
  fieldsOf: (row: number) => [string, string][]): ListColumn[] {
  const c = s.columns
  const common: ListColumn[] = [
    { key: 'time', label: 'time', cell: (r) => rel(c.ts[r]) },
    { key: 'cpu', label: 'CPU', cell: (r) => String(c.cpu[r]) },
    { key: 'task', label: 'task', cell: (r) => `${c.strings[c.comm[r]] ?? ''} ${c.pid[r]}` },
    { key: 'event', label: 'event', cell: (r) => (c.type[r] === 0 ? c.strings[c.s1[r]] ?? 'generic' : EVENT_TYPES[c.type[r]]) },
  ]
  const types = new Set<number>()
  for (let k = 0; k < rows.length && types.size < 2; k++) types.add(c.type[rows[k]])
  if (types.size === 1 && rows.length && c.type[rows[0]] !== 0) {
    const names = fieldsOf(rows[0]).map(([k]) => k)
    return [...common, ...names.map((name, i) => ({
      key: `f-${name}`, label: name, cell: (r: number) => fieldsOf(r)[i]?.[1] ?? '',
    }))]
  }
  return [...common, { key: 'fields', label: 'fields', cell: (r) => fieldsOf(r).map(([k, v]) => `${k}=${v}`).join(' ') }]
}

/** Rows [first, last) a box `height` px tall scrolled to `scrollTop` shows, with `overscan` rows either side. */
export function visibleSlice(count: number, rowHeight: number, scrollTop: number, height: number, overscan = 8): [number, number] {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan)
  return [first, Math.max(first, last)]
}

/** The scrollTop that shows row `index` (unchanged when it already shows). */
export function scrollToRow(index: number, rowHeight: number, scrollTop: number, height: number): number {
  const top = index * rowHeight
  if (top < scrollTop) return top
  if (top + rowHeight > scrollTop + height) return Math.max(0, top + rowHeight - height)
  return scrollTop
}
