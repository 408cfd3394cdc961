/*
 * Decodes a trace file off the main thread: the page stays responsive while
 * the C decoders (in this worker's own wasm instance) read a large file.
 *
 *   page --{ file, name }--> worker --{ progress }*--> page
 *                                   --{ done: LocalTrace } | { error }--> page
 *
 * The columns' buffers are transferred, not copied. Started by
 * openTraceLocally() (trace_open_local.ts) when the browser has workers; the
 * messages are in trace_worker_messages.ts.
 */
import { TraceOpenError } from './core_errors'
import type { TraceWorkerReply, TraceWorkerRequest } from './trace_worker_messages'
import { loadCore, type KscopeCore } from './wasm_bridge'

let core: Promise<KscopeCore> | null = null
const post = (reply: TraceWorkerReply, transfer: Transferable[] = []) =>
  (self as unknown as { postMessage(m: unknown, t: Transferable[]): void }).postMessage(reply, transfer)

self.onmessage = async (e: MessageEvent<TraceWorkerRequest>) => {
  const { file, name, chunkBytes } = e.data
  try {
    core ??= loadCore()
    const trace = await (await core).openTrace(file, name, (p) => post({ kind: 'progress', ...p }), { chunkBytes })
    const c = trace.columns
    post({ kind: 'done', trace }, [c.ts, c.type, c.cpu, c.pid, c.tgid, c.comm, c.f0, c.f1, c.f2, c.f3, c.f4, c.s1, c.s2]
      .map((a) => a.buffer as ArrayBuffer))
  } catch (err) {
    const base = { message: err instanceof Error ? err.message : String(err), status: 0, statusMessage: '' }
    if (err instanceof TraceOpenError) {
      post({ kind: 'error', ...base, status: err.status, statusMessage: err.statusMessage, file: err.file, problem: err.problem,
        offset: err.offset, line: err.line })
    } else post({ kind: 'error', ...base })
  }
}
