/*
 * The messages between the page and the trace decoding worker
 * (trace_worker.ts), in a module of their own so the page side
 * (trace_open_local.ts) and the worker import them without importing each
 * other.
 *
 *   page --{ file, name }--> worker --{ progress }*--> page
 *                                   --{ done: LocalTrace } | { error }--> page
 */
import type { LocalTrace } from './trace_open'

export type TraceWorkerRequest = { file: Blob; name: string; chunkBytes?: number }
export type TraceWorkerReply =
  | { kind: 'progress'; phase: 'detect' | 'decompress' | 'decode' | 'done'; bytesDone: number; bytesTotal: number; events: number }
  | { kind: 'done'; trace: LocalTrace }
  | { kind: 'error'; message: string; status: number; statusMessage: string; file?: string; problem?: string; offset?: number; line?: number }
