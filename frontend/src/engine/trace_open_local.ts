/*
 * Opening a trace file on the page: in a dedicated worker when the browser
 * has workers (the page never blocks), else on a core loaded once for the page
 * (Node/Vitest pass the wasm bytes).
 */
import { KscopeError, KsStatus, TraceOpenError } from './core_errors'
import type { LocalTrace, TraceOpenOptions, TraceOpenProgress } from './trace_open'
import type { TraceWorkerReply, TraceWorkerRequest } from './trace_worker_messages'
import { loadCore, type KscopeCore, type LoadCoreOptions } from './wasm_bridge'

let sharedCore: Promise<KscopeCore> | null = null

/**
 * Opens a trace file in the browser with the C decoders (never uploads it):
 * loads the core once, then KscopeCore.openTrace. Node/Vitest pass the wasm bytes.
 */
export function openTraceLocally(file: File | Blob, onProgress?: (p: TraceOpenProgress) => void,
  options: TraceOpenOptions & LoadCoreOptions & { name?: string; inWorker?: boolean } = {}): Promise<LocalTrace> {
  const name = options.name ?? ('name' in file && typeof file.name === 'string' ? file.name : 'trace')
  if ((options.inWorker ?? true) && typeof Worker !== 'undefined' && typeof window !== 'undefined' && !options.wasmBinary) {
    return openInWorker(file, name, onProgress, options)
  }
  sharedCore ??= loadCore(options)
  return sharedCore.then((core) => core.openTrace(file, name, onProgress, options))
}

/** The same decoding in a dedicated worker (engine/trace_worker.ts): the page never blocks. */
function openInWorker(file: Blob, name: string, onProgress: ((p: TraceOpenProgress) => void) | undefined,
  options: TraceOpenOptions): Promise<LocalTrace> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./trace_worker.ts', import.meta.url), { type: 'module' })
    const done = () => worker.terminate()
    worker.onmessage = (e: MessageEvent<TraceWorkerReply>) => {
      const m = e.data
      if (m.kind === 'progress') {
        onProgress?.({ phase: m.phase, bytesDone: m.bytesDone, bytesTotal: m.bytesTotal, events: m.events })
      } else if (m.kind === 'done') {
        done()
        resolve(m.trace)
      } else {
        done()
        reject(m.file !== undefined && m.problem !== undefined
          ? Object.assign(new TraceOpenError(m.status, m.statusMessage, m.file, m.problem, { offset: m.offset, line: m.line }), { message: m.message })
          : Object.assign(new KscopeError(m.status || KsStatus.PARSE, m.statusMessage || 'error', name), { message: m.message }))
      }
    }
    worker.onerror = (e) => {
      done()
      reject(new KscopeError(KsStatus.INVALID_ARG, 'worker failed', `${name}: ${e.message || 'the decoding worker stopped'}`))
    }
    worker.postMessage({ file, name, chunkBytes: options.chunkBytes } satisfies TraceWorkerRequest)
  })
}
