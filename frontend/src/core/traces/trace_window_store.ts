/*
 * One fetched window of a stored trace -> its TraceStore: where the window's
 * loaded range ends (a fetch that hit its row limit covers only up to its last
 * event) and the index over it. Shared by the window worker and the inline
 * path (tests, and browsers without module workers).
 */
import type { TraceColumns } from '../../engine/trace_records'
import { openTraceStore, type TraceInput, type TraceStore } from './trace_store'

export type WindowInput = Omit<TraceInput, 'columns'> & { window: NonNullable<TraceInput['window']> }

export function storeFromWindow(columns: TraceColumns, input: WindowInput, limit: number): TraceStore {
  const truncated = columns.count >= limit
  const lastTs = columns.count ? columns.ts[columns.count - 1] : input.window.loaded.t1
  const loaded = { t0: input.window.loaded.t0, t1: truncated ? lastTs : input.window.loaded.t1, truncated }
  return openTraceStore({ ...input, columns, window: { ...input.window, loaded } })
}
