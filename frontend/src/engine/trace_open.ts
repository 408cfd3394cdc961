/*
 * Real traces decoded in the browser by the C decoders (never uploaded):
 * format detection, decompression first when the file is compressed
 * (decompress.ts), then the ftrace / perf / systrace / trace.dat decoder's
 * records copied out of wasm memory into columns (trace_records.ts).
 */
import { compressionOf, type Compression } from './compression'
import { KscopeError, KsStatus, TraceOpenError } from './core_errors'
import {
  TraceColumnsBuilder,
  decodeFtraceStats, decodePerfStats, decodeTracedatStats, headerLines,
  type TraceColumns, type TraceDecodeStats,
} from './trace_records'
import type { KscopeCoreModule, WasmContext } from './wasm_context'

/** Progress of openTrace: bytes read of the file (or of the decompressed data). */
export interface TraceOpenProgress {
  phase: 'detect' | 'decompress' | 'decode' | 'done'
  bytesDone: number
  bytesTotal: number
  events: number
}

/** A real trace decoded in the browser: columns copied out of wasm memory, the decoder's stats, its header text. */
export interface LocalTrace {
  /** The file's name (untrusted text). */
  name: string
  /** ks_trace_format_name() of what was decoded, e.g. "ftrace-text", "trace.dat". */
  format: string
  /** Set when the file was compressed and was decompressed in the browser first (decompress.ts). */
  compressed: '' | Compression
  columns: TraceColumns
  stats: TraceDecodeStats
  /** The "# ..." header lines of a text trace (capture metadata, tracefs header); [] for trace.dat. */
  header: string[]
}

export interface TraceOpenOptions {
  /** Bytes per read for text formats (default 1 MiB). */
  chunkBytes?: number
}

const DETECT_BYTES = 64 << 10
const TRACE_SCRATCH = 512 // stats (<= 368) + want offset (i64 @ 400) + len (@ 408) + out pointer (@ 416)
const FORMAT = {
  FTRACE_TEXT: 1, TRACE_CMD_REPORT: 2, TRACE_DAT: 3, PERF_SCRIPT: 4, PERF_SCHED_TIMEHIST: 5, SYSTRACE_HTML: 6,
  PERF_REPORT: 7, PERF_DATA: 8, GZIP: 9, ZIP: 10,
} as const
const ADVICE: Record<number, string> = {
  [FORMAT.PERF_REPORT]: 'this is perf report output (a summary, not a trace): run `perf script` and open its output',
  [FORMAT.PERF_DATA]: 'this is a binary perf.data: run `perf script > trace.txt` and open that',
  [FORMAT.ZIP]: 'this is a zip archive: extract the trace first',
  0: 'not a trace format kscope reads (ftrace text, trace-cmd report, trace.dat v6/v7, perf script, systrace HTML)',
}

async function bytesOf(file: Blob, from: number, to: number): Promise<Uint8Array> {
  return new Uint8Array(await file.slice(from, to).arrayBuffer())
}

/** Copies bytes into a malloc'd block (growing it when needed); returns the block. */
function toWasm(mod: KscopeCoreModule, bytes: Uint8Array, block: { ptr: number; cap: number }): number {
  if (bytes.length > block.cap) {
    if (block.ptr) mod._free(block.ptr)
    block.cap = Math.max(bytes.length, 1)
    block.ptr = mod._malloc(block.cap)
    if (!block.ptr) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
  }
  mod.HEAPU8.set(bytes, block.ptr)
  return block.ptr
}

function detect(mod: KscopeCoreModule, head: Uint8Array): number {
  const block = { ptr: 0, cap: 0 }
  try {
    const ptr = toWasm(mod, head, block)
    return mod._ks_trace_detect(ptr, head.length)
  } finally {
    if (block.ptr) mod._free(block.ptr)
  }
}

/**
 * Decodes a trace file with the C decoders (KscopeCore.openTrace): detects the
 * format from the first 64 KiB, streams text in chunks and reads trace.dat by
 * offset. Throws TraceOpenError naming the file, place and problem.
 */
export async function openTrace(ctx: WasmContext, file: Blob, name: string, onProgress: (p: TraceOpenProgress) => void = () => {},
  options: TraceOpenOptions = {}): Promise<LocalTrace> {
  const { mod, text, check, views } = ctx
  onProgress({ phase: 'detect', bytesDone: 0, bytesTotal: file.size, events: 0 })
  const head = await bytesOf(file, 0, DETECT_BYTES)
  if (head.length === 0) throw new TraceOpenError(KsStatus.PARSE, 'parse error', name, 'the file is empty')
  // gzip, xz, zstd or zip: decompressed first, under the server's limits (decompress.ts).
  const compressed: LocalTrace['compressed'] = compressionOf(head) ?? ''
  if (compressed) {
    const total = file.size
    onProgress({ phase: 'decompress', bytesDone: 0, bytesTotal: total, events: 0 })
    const { decompressToBlob } = await import('./decompress')
    file = await decompressToBlob(file, name, compressed,
      (read) => onProgress({ phase: 'decompress', bytesDone: read, bytesTotal: total, events: 0 }))
  }
  const format = detect(mod, compressed ? await bytesOf(file, 0, DETECT_BYTES) : head)
  const formatName = text(mod._ks_trace_format_name(format))
  const kind = format === FORMAT.TRACE_DAT ? 'tracedat'
    : format === FORMAT.FTRACE_TEXT || format === FORMAT.TRACE_CMD_REPORT ? 'ftrace'
      : format === FORMAT.PERF_SCRIPT || format === FORMAT.PERF_SCHED_TIMEHIST ? 'perf'
        : format === FORMAT.SYSTRACE_HTML ? 'systrace' : null
  if (!kind) {
    throw new TraceOpenError(KsStatus.PARSE, 'parse error', name,
      ADVICE[format] ?? `${formatName} files cannot be decoded here`, { offset: 0 })
  }
  const builder = new TraceColumnsBuilder()
  const scratch = mod._malloc(TRACE_SCRATCH)
  if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
  const block = { ptr: 0, cap: 0 }
  let dec = 0
  try {
    const api = kind === 'ftrace'
      ? { nu: mod._ks_ftrace_decoder_new, free: mod._ks_ftrace_decoder_free, feed: mod._ks_ftrace_decoder_feed, finish: mod._ks_ftrace_decoder_finish, stats: mod._ks_ftrace_decoder_stats }
      : kind === 'perf'
        ? { nu: mod._ks_perf_decoder_new, free: mod._ks_perf_decoder_free, feed: mod._ks_perf_decoder_feed, finish: mod._ks_perf_decoder_finish, stats: mod._ks_perf_decoder_stats }
        : kind === 'systrace'
          ? { nu: mod._ks_systrace_decoder_new, free: mod._ks_systrace_decoder_free, feed: mod._ks_systrace_decoder_feed, finish: mod._ks_systrace_decoder_finish, stats: mod._ks_systrace_decoder_stats }
          : { nu: mod._ks_tracedat_decoder_new, free: mod._ks_tracedat_decoder_free, feed: null, finish: mod._ks_tracedat_decoder_finish, stats: mod._ks_tracedat_decoder_stats }
    check(api.nu(scratch + 416), `${name}: decoder`)
    dec = mod.HEAPU32[(scratch + 416) >>> 2]

    /** Runs one decoder call into a fresh C log, copies the records out, frees the log. */
    const intoColumns = (call: (sink: number) => number, what: string): number => {
      check(mod._ks_event_log_new(scratch + 416), 'ks_event_log_new')
      const log = mod.HEAPU32[(scratch + 416) >>> 2]
      try {
        const status = call(log)
        const n = mod._ks_event_log_count(log) >>> 0
        if (n) {
          const at = mod._ks_event_log_data(log)
          const genericText = (off: number) => text(mod._ks_event_log_text(log, off))
          // Generic text lookups are wasm calls that do not grow memory: the views stay valid.
          const v = views()
          builder.appendEvents(v.u8, v.i32, new Uint32Array(v.u8.buffer), at, n, genericText)
        }
        if (status !== KsStatus.OK && status !== KsStatus.PARSE) check(status, `${name}: ${what}`)
        return status
      } finally {
        mod._ks_event_log_free(log)
      }
    }

    let header: string[] = []
    if (kind !== 'tracedat') {
      const chunk = Math.max(4096, options.chunkBytes ?? 1 << 20)
      let headerDone = false
      let headText = ''
      let stopped = false
      for (let off = 0; off < file.size && !stopped; off += chunk) {
        const bytes = await bytesOf(file, off, off + chunk)
        if (!headerDone) {
          headText += new TextDecoder('utf-8').decode(bytes.subarray(0, Math.min(bytes.length, 1 << 20)))
          const h = headerLines(headText)
          header = h.lines
          headerDone = h.done || headText.length >= 4 << 20
        }
        const ptr = toWasm(mod, bytes, block)
        const status = intoColumns((sink) => api.feed!(dec, ptr, bytes.length, sink), 'feed')
        if (status === KsStatus.PARSE) stopped = true
        onProgress({ phase: 'decode', bytesDone: Math.min(file.size, off + bytes.length), bytesTotal: file.size, events: builder.count })
      }
      intoColumns((sink) => api.finish(dec, sink), 'finish')
    } else {
      const MAX_READ = 4 << 20
      for (;;) {
        check(mod._ks_tracedat_decoder_want(dec, scratch + 400, scratch + 408), `${name}: want`)
        const want = Number(views().u64[(scratch + 400) >>> 3])
        const len = mod.HEAP32[(scratch + 408) >>> 2]
        if (len <= 0) break
        const bytes = await bytesOf(file, want, want + Math.min(len, MAX_READ))
        const ptr = bytes.length ? toWasm(mod, bytes, block) : (block.ptr || scratch)
        const status = intoColumns((sink) => mod._ks_tracedat_decoder_feed(dec, BigInt(want), ptr, bytes.length, sink), 'feed')
        onProgress({ phase: 'decode', bytesDone: Math.min(file.size, want + bytes.length), bytesTotal: file.size, events: builder.count })
        if (status === KsStatus.PARSE) break
      }
      intoColumns((sink) => api.finish(dec, sink), 'finish')
    }

    check(api.stats(dec, scratch), `${name}: stats`)
    const v = views()
    const i32 = new Int32Array(v.u8.buffer)
    let stats: TraceDecodeStats
    let failed: { status: number } | null = null
    if (kind === 'tracedat') {
      const s = decodeTracedatStats(v.u8, i32, scratch, formatName, file.size)
      if (s.status !== KsStatus.OK) failed = s
      const nb = mod._ks_tracedat_decoder_buffer_count(dec)
      stats = { ...s, buffers: Array.from({ length: nb }, (_, i) => ({
        name: text(mod._ks_tracedat_decoder_buffer_name(dec, i)), events: builder.bufferCounts[i] ?? 0 })) }
    } else if (kind === 'perf') {
      const s = decodePerfStats(v.u8, i32, scratch, formatName, file.size)
      if (s.status !== KsStatus.OK) failed = s
      stats = s
    } else {
      stats = decodeFtraceStats(v.u8, i32, scratch, formatName, file.size)
    }
    if (failed) {
      const e = stats.firstError
      throw new TraceOpenError(failed.status, text(mod._ks_status_message(failed.status)), name,
        e?.message || 'the decoder stopped', { offset: e?.offset, line: e?.line, field: e?.field })
    }
    onProgress({ phase: 'done', bytesDone: file.size, bytesTotal: file.size, events: builder.count })
    return { name, format: formatName, compressed, columns: builder.finish(), stats, header }
  } finally {
    if (dec) (kind === 'ftrace' ? mod._ks_ftrace_decoder_free : kind === 'perf' ? mod._ks_perf_decoder_free
      : kind === 'systrace' ? mod._ks_systrace_decoder_free : mod._ks_tracedat_decoder_free)(dec)
    if (block.ptr) mod._free(block.ptr)
    mod._free(scratch)
  }
}
