/*
 * Off the main thread: fetch one window of a stored trace's events (Arrow
 * IPC), decode it into columns and index it into a TraceStore, then hand the
 * store back with its typed arrays transferred (not copied). A 250 k-event
 * window costs ~0.5 s of decoding and indexing on these machines: done here,
 * the timeline keeps drawing while it happens.
 *
 * Message in:  { id, url, headers, input, limit }   (headers: the owner's and/or share token)   (input: TraceInput without columns)
 * Message out: { id, store } | { id, error, status }
 */
import { fetchRetrying } from '../shared/fetch_retry'
import { columnsFromArrow } from './trace_arrow'
import type { TraceStore } from './trace_store'
import { storeFromWindow, type WindowInput } from './trace_window_store'

export interface WindowJob {
  id: number
  url: string
  headers: Record<string, string>
  input: WindowInput
  limit: number
}

export type WindowReply = { id: number; store: TraceStore } | { id: number; error: string; status: number }

/** Every ArrayBuffer a store holds (to transfer it). */
export function buffersOf(s: TraceStore): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>()
  const add = (a: ArrayBufferView) => out.add(a.buffer as ArrayBuffer)
  const c = s.columns
  for (const a of [c.ts, c.type, c.cpu, c.pid, c.tgid, c.comm, c.f0, c.f1, c.f2, c.f3, c.f4, c.s1, c.s2, s.migrations]) add(a)
  for (const rows of s.byCpu.values()) add(rows)
  for (const sl of s.slices.values()) for (const a of [sl.start, sl.end, sl.pid, sl.comm, sl.fromRow, sl.toRow, sl.inferred]) add(a)
  return [...out]
}

const scope = self as unknown as { onmessage: ((e: MessageEvent<WindowJob>) => void) | null; postMessage(m: WindowReply, t?: Transferable[]): void }

scope.onmessage = async (e: MessageEvent<WindowJob>) => {
  const { id, url, headers, input, limit } = e.data
  try {
    const res = await fetchRetrying(url, { headers })
    if (!res.ok) {
      let detail = `${res.status} ${res.statusText}`
      try {
        const body = await res.json()
        if (typeof body.detail === 'string') detail = body.detail
      } catch {
        // not JSON: the status says enough
      }
      scope.postMessage({ id, error: detail, status: res.status })
      return
    }
    const columns = columnsFromArrow(new Uint8Array(await res.arrayBuffer()))
    const store = storeFromWindow(columns, input, limit)
    scope.postMessage({ id, store }, buffersOf(store))
  } catch (err) {
    scope.postMessage({ id, error: err instanceof Error ? err.message : String(err), status: 0 })
  }
}
