/*
 * The event list under the timeline: the visible window's events that pass the
 * page's filter (core/traces/trace_event_list.ts), virtualised (only the rows in
 * view are in the DOM). A click (or ↑ ↓ on the focused list) moves the cursor to
 * the event and selects it; the cursor moving elsewhere scrolls the list to it
 * (the row at the cursor is marked ▶). One type filtered: a column per field.
 * Every value is the trace's text, rendered as React text.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import { listColumns, listRows, rowAtTime, scrollToRow, visibleSlice } from '../../core/traces/trace_event_list'
import type { EventFilter, TraceStore } from '../../core/traces/trace_store'
import { eventFields, rel } from './Details'

export interface EventListProps {
  store: TraceStore
  window: { start: number; end: number }
  filter: EventFilter
  cursor: number | null
  /** The selected event's row, -1 for none. */
  selectedRow: number
  height: number
  onPick(row: number): void
}

const ROW = 30
const HEAD = 34
const WIDTHS: Record<string, number> = { time: 8.5, cpu: 3.2, task: 10, event: 9.5, fields: 18 }
const WIDTH_FIELD = 6.5

export function EventList({ store, window: win, filter, cursor, selectedRow, height, onPick }: EventListProps) {
  const { rows, capped } = useMemo(() => listRows(store, win.start, win.end, filter), [store, win, filter])
  const cols = useMemo(() => listColumns(store, rows, (t) => rel(store, t), (r) => eventFields(store, r)), [store, rows])
  const box = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const bodyH = Math.max(ROW, height - HEAD - 40)
  const cursorIndex = cursor === null ? -1 : Math.min(rows.length - 1, rowAtTime(store, rows, cursor))
  // The cursor moved: bring its row into view.
  useEffect(() => {
    const el = box.current
    if (!el || cursorIndex < 0) return
    const top = scrollToRow(cursorIndex, ROW, el.scrollTop, bodyH)
    if (top !== el.scrollTop) el.scrollTop = top
  }, [cursorIndex, bodyH])
  const [first, last] = visibleSlice(rows.length, ROW, scrollTop, bodyH)
  // Column widths (em): fixed for the common ones, at least WIDTH_FIELD for each field; past the
  // box's width the table scrolls sideways (head and rows together).
  const widths = cols.map((c) => WIDTHS[c.key] ?? WIDTH_FIELD)
  const template = cols.map((c, i) => (c.key in WIDTHS && c.key !== 'fields' ? `${widths[i]}em` : `minmax(${widths[i]}em, 1fr)`)).join(' ')
  const minWidth = `calc(${widths.reduce((a, b) => a + b, 0)}em + ${10 * (cols.length - 1) + 12}px)`
  const at = selectedRow >= 0 ? rows.indexOf(selectedRow) : -1
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!rows.length || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return
    e.preventDefault()
    const from = at >= 0 ? at : Math.max(0, cursorIndex)
    const next = Math.max(0, Math.min(rows.length - 1, from + (e.key === 'ArrowDown' ? 1 : -1)))
    onPick(rows[next])
  }
  return (
    <section className="event-list" data-testid="event-list" aria-label="Events in the visible window" style={{ height }}>
      <p className="event-list-note" data-testid="event-list-count">
        {rows.length.toLocaleString('en')}{capped ? '+ (the first ones)' : ''} events in the visible window
        {filter.comm || filter.pid !== undefined || filter.types?.size ? ' passing the filter' : ''}
        {store.loaded ? ' (a stored trace: the loaded events)' : ''} · click a row or use ↑ ↓ to move the cursor to it
      </p>
      <div className="event-list-table" role="table" aria-rowcount={rows.length + 1}>
        <div className="event-list-head" role="row" style={{ gridTemplateColumns: template, height: HEAD, minWidth }}>
          {cols.map((c) => <span key={c.key} role="columnheader" className="clip" title={c.label}>{c.label}</span>)}
        </div>
        <div className="event-list-body" ref={box} tabIndex={0} onKeyDown={onKeyDown} data-testid="event-list-body"
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)} style={{ height: bodyH, minWidth }}
          aria-label="Event rows; up and down move the cursor and the selection">
          <div style={{ height: rows.length * ROW, position: 'relative' }}>
            {rows.slice(first, last).map((r, k) => {
              const i = first + k
              const selected = r === selectedRow
              return (
                <div key={r} role="row" aria-rowindex={i + 2} aria-selected={selected}
                  className={`event-list-row${selected ? ' selected' : ''}${i === cursorIndex ? ' at-cursor' : ''}`}
                  style={{ top: i * ROW, height: ROW, gridTemplateColumns: template }} onClick={() => onPick(r)} data-testid="event-row">
                  {cols.map((c, ci) => (
                    <span key={c.key} role="cell" className="clip" title={c.key.startsWith('f') ? c.cell(r) : undefined}>
                      {ci === 0 && i === cursorIndex ? '▶ ' : ''}{c.cell(r)}
                    </span>
                  ))}
                </div>
              )
            })}
          </div>
        </div>
      </div>
    </section>
  )
}
