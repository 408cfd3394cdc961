/*
 * Real traces decoded in the browser by the C decoders (never uploaded):
 * decompression first when the file is compressed (decompress.ts), then one
 * ks_trace_decoder (trace_decoder.h) - the core detects the format and its
 * registry picks the decoder, nothing here chooses - driven by one loop that
 * reads what the decoder wants (text front to back, trace.dat by offset);
 * records copied out of wasm memory into columns (trace_records.ts).
 */
import { compressionOf, type Compression } from './compression'
import { KscopeError, KsStatus, TraceOpenError } from './core_errors'
import {
  TraceColumnsBuilder, TRACEDAT_STATS_BYTES,
  decodeTraceStats, decodeTracedatStats, headerLines,
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
// Scratch: common stats (216 B) @ 0, the format's own stats (<= 368 B) @ 256, want offset (i64) @ 640,
// want length @ 648, out pointer @ 656, detected format @ 660.
const TRACE_SCRATCH = 672
const S_OWN = 256, S_WANT_OFF = 640, S_WANT_LEN = 648, S_OUT = 656, S_FORMAT = 660
const MAX_READ = 4 << 20
/* What to do with a format the core recognises but has no decoder for (ks_trace_detect ids). */
const PERF_REPORT = 7, PERF_DATA = 8, ZIP = 10
const ADVICE: Record<number, string> = {
  [PERF_REPORT]: 'this is perf report output (a summary, not a trace): run `perf script` and open its output',
  [PERF_DATA]: 'this is a binary perf.data: run `perf script > trace.txt` and open that',
  [ZIP]: 'this is a zip archive: extract the trace first',
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
  const builder = new TraceColumnsBuilder()
  const scratch = mod._malloc(TRACE_SCRATCH)
  if (!scratch) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
  const block = { ptr: 0, cap: 0 }
  let dec = 0
  try {
    // Detect + new: the core's registry picks the decoder for what it detects.
    const headBytes = compressed ? await bytesOf(file, 0, DETECT_BYTES) : head
    const opened = mod._ks_trace_decoder_open(toWasm(mod, headBytes, block), headBytes.length, scratch + S_FORMAT, scratch + S_OUT)
    const format = mod.HEAP32[(scratch + S_FORMAT) >>> 2]
    const formatName = text(mod._ks_trace_format_name(format))
    if (opened === KsStatus.NOT_FOUND) {
      throw new TraceOpenError(KsStatus.PARSE, 'parse error', name,
        ADVICE[format] ?? `${formatName} files cannot be decoded here`, { offset: 0 })
    }
    check(opened, `${name}: decoder`)
    dec = mod.HEAPU32[(scratch + S_OUT) >>> 2]
    check(mod._ks_trace_decoder_set_piece(dec, Math.max(4096, options.chunkBytes ?? 1 << 20)), `${name}: decoder`)

    /** Runs one decoder call into a fresh C log, copies the records out, frees the log. */
    const intoColumns = (call: (sink: number) => number, what: string): number => {
      check(mod._ks_event_log_new(scratch + S_OUT), 'ks_event_log_new')
      const log = mod.HEAPU32[(scratch + S_OUT) >>> 2]
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

    // The one loop: the bytes the decoder wants, until it wants none (or cannot go on).
    // The "# ..." header lines are read off the file's start (none for a binary trace.dat).
    let header: string[] = []
    let headText = ''
    let headRead = 0    // bytes of the file's start read into headText
    let headerDone = false
    for (;;) {
      check(mod._ks_trace_decoder_want(dec, scratch + S_WANT_OFF, scratch + S_WANT_LEN), `${name}: want`)
      const want = Number(views().u64[(scratch + S_WANT_OFF) >>> 3])
      const len = mod.HEAP32[(scratch + S_WANT_LEN) >>> 2]
      if (len <= 0) break
      const bytes = await bytesOf(file, want, want + Math.min(len, MAX_READ))
      if (!headerDone && want === headRead) {
        headText += new TextDecoder('utf-8').decode(bytes.subarray(0, Math.min(bytes.length, 1 << 20)))
        headRead += bytes.length
        const h = headerLines(headText)
        header = h.lines
        headerDone = h.done || headText.length >= 4 << 20
      }
      const ptr = bytes.length ? toWasm(mod, bytes, block) : (block.ptr || scratch)
      const status = intoColumns((sink) => mod._ks_trace_decoder_feed(dec, BigInt(want), ptr, bytes.length, sink), 'feed')
      onProgress({ phase: 'decode', bytesDone: Math.min(file.size, want + bytes.length), bytesTotal: file.size, events: builder.count })
      if (status === KsStatus.PARSE) break
    }
    intoColumns((sink) => mod._ks_trace_decoder_finish(dec, sink), 'finish')

    check(mod._ks_trace_decoder_stats(dec, scratch), `${name}: stats`)
    let v = views()
    const common = decodeTraceStats(v.u8, new Int32Array(v.u8.buffer), scratch, formatName, file.size)
    let stats: TraceDecodeStats = common
    if (text(mod._ks_trace_decoder_name(dec)) === 'trace.dat') {   // what only a trace.dat says
      check(mod._ks_trace_decoder_format_stats(dec, scratch + S_OWN, TRACEDAT_STATS_BYTES), `${name}: stats`)
      v = views()
      const own = decodeTracedatStats(v.u8, new Int32Array(v.u8.buffer), scratch + S_OWN, formatName, file.size)
      const td = mod._ks_trace_decoder_inner(dec)
      const nb = mod._ks_tracedat_decoder_buffer_count(td)
      stats = { ...own, buffers: Array.from({ length: nb }, (_, i) => ({
        name: text(mod._ks_tracedat_decoder_buffer_name(td, i)), events: builder.bufferCounts[i] ?? 0 })) }
    }
    if (common.status !== KsStatus.OK) {
      const e = stats.firstError
      throw new TraceOpenError(common.status, text(mod._ks_status_message(common.status)), name,
        e?.message || 'the decoder stopped', { offset: e?.offset, line: e?.line, field: e?.field })
    }
    onProgress({ phase: 'done', bytesDone: file.size, bytesTotal: file.size, events: builder.count })
    return { name, format: formatName, compressed, columns: builder.finish(), stats, header }
  } finally {
    if (dec) mod._ks_trace_decoder_free(dec)
    if (block.ptr) mod._free(block.ptr)
    mod._free(scratch)
  }
}
