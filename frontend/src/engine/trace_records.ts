/*
 * A decoded real trace as columns, and the decoders' C stats records read from bytes.
 *
 * Pure functions over typed-array views: no wasm calls and no import of the
 * Emscripten module (trace_open.ts makes the views and calls the decoders).
 *
 * The browser decodes a trace with the same C decoders the backend uses
 * (kscope/ftrace.h, tracedat.h, perf.h, systrace.h). Each batch of ks_event
 * records (96 B, kscope/event.h) is copied out of wasm memory into the
 * columns below, so the C log can be freed after every chunk and wasm memory
 * stays bounded whatever the trace's size.
 *
 * Per-type fields share five int columns and two string columns:
 *
 *   type                              f0          f1           f2                  f3         f4          s1           s2
 *   sched_switch                      prev_pid    prev_prio    prev_state          next_pid   next_prio   prev_comm    next_comm
 *   sched_waking/wakeup*              pid         prio         target_cpu          -          -           comm         -
 *   sched_migrate_task                pid         prio         orig_cpu            dest_cpu   -           comm         -
 *   sched_process_fork                parent_pid  -            -                   child_pid  -           parent_comm  child_comm
 *   sched_process_exit/free           pid         prio         group_dead          -          -           comm         -
 *   rseq_update                       cpu_id      node_id      rseq_update.mm_cid  -          -           -            -
 *   kmem_cache_alloc/free             bytes_req   bytes_alloc  gfp_flags           node       accounted   cache name   ptr (hex)
 *   sheaf_refill/flush, barn_get/put  objects     size         full                barn_full  barn_empty  cache name   -
 *   generic                           -           -            -                   -          -           name         fields text
 *
 * Strings (comm, names, field text) are UNTRUSTED input: they are kept as plain
 * strings in one interned table, and the views render them as text only.
 */
import { EVENT_BYTES, EVENT_TYPES } from './sim_records'
import { StringInterner } from './string_interner'

export const TYPE_GENERIC = 0
export const TYPE_SWITCH = 1
export const TYPE_WAKING = 2
export const TYPE_WAKEUP = 3
export const TYPE_WAKEUP_NEW = 4
export const TYPE_MIGRATE = 5
export const TYPE_FORK = 6
export const TYPE_EXIT = 7
export const TYPE_FREE = 8
export const TYPE_RSEQ = 9
export const TYPE_KMEM_ALLOC = 10
export const TYPE_KMEM_FREE = 11
export const TYPE_SHEAF_REFILL = 12
export const TYPE_SHEAF_FLUSH = 13
export const TYPE_BARN_GET = 14
export const TYPE_BARN_PUT = 15

/** The columns of a decoded trace, in the decoder's (time) order; `count` rows are valid. */
export interface TraceColumns {
  count: number
  /** Absolute kernel time, ns (exact below 2^53 ns, about 104 days of uptime). */
  ts: Float64Array
  /** ks_event_type (EVENT_TYPES index). */
  type: Uint8Array
  /** trace.dat: index of the trace buffer each record came from (TraceDecodeStats.buffers). */
  buffer?: Uint8Array
  cpu: Int32Array
  pid: Int32Array
  tgid: Int32Array
  /** String id (into `strings`) of the current task's comm. */
  comm: Int32Array
  f0: Int32Array
  f1: Int32Array
  f2: Int32Array
  f3: Int32Array
  f4: Int32Array
  /** String ids, see the table above (-1: none). */
  s1: Int32Array
  s2: Int32Array
  /** Interned strings: comms, generic names and field text. Untrusted text. */
  strings: string[]
}

export interface TraceParseProblem {
  /** 1-based line of the text (0: not a line-based format or the input as a whole). */
  line: number
  /** File offset (trace.dat), -1 when not known. */
  offset: number
  /** The section or field that failed, e.g. "header_page". */
  field: string
  message: string
}

/** What the decoder saw, whatever the format. */
export interface TraceDecodeStats {
  /** ks_trace_format_name(), e.g. "ftrace-text", "trace.dat". */
  format: string
  bytes: number
  lines: number
  events: number
  genericEvents: number
  malformed: number
  lostEvents: number
  /** From the trace's header; 0 when it does not say. */
  nrCpus: number
  /** trace.dat: the UNAME option; text formats: "". */
  uname: string
  traceClock: string
  firstError: TraceParseProblem | null
  /** trace.dat: its trace buffers in file order ("" = the top one; instances by name), with
   * the records each gave. Absent for formats without buffers. */
  buffers?: { name: string; events: number }[]
}

/** Growable columns, copied into exact-size arrays by finish(). */
export class TraceColumnsBuilder {
  private cap = 0
  count = 0
  ts = new Float64Array(0)
  type = new Uint8Array(0)
  buffer = new Uint8Array(0)
  /** Records per buffer index (trace.dat instances). */
  bufferCounts: number[] = []
  cpu = new Int32Array(0)
  pid = new Int32Array(0)
  tgid = new Int32Array(0)
  comm = new Int32Array(0)
  f0 = new Int32Array(0)
  f1 = new Int32Array(0)
  f2 = new Int32Array(0)
  f3 = new Int32Array(0)
  f4 = new Int32Array(0)
  s1 = new Int32Array(0)
  s2 = new Int32Array(0)
  private readonly interner = new StringInterner()
  readonly strings: string[] = this.interner.strings
  private readonly decoder = new TextDecoder('utf-8')
  /** Byte-keyed comm cache: most events repeat a handful of comms. */
  private readonly commCache = new Map<string, number>()

  intern(s: string): number {
    return this.interner.id(s)
  }

  /** Interns a NUL-padded char[16] at byte offset `at`. */
  internComm(u8: Uint8Array, at: number, len = 16): number {
    let end = at
    const stop = at + len
    let key = ''
    while (end < stop && u8[end] !== 0) {
      key += String.fromCharCode(u8[end])
      end++
    }
    let id = this.commCache.get(key)
    if (id === undefined) {
      id = this.intern(this.decoder.decode(u8.subarray(at, end)))
      this.commCache.set(key, id)
    }
    return id
  }

  reserve(n: number): void {
    if (this.count + n <= this.cap) return
    const cap = Math.max(1024, this.cap * 2, this.count + n)
    const grow = <T extends Float64Array | Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap)
      b.set(a.subarray(0, this.count) as never)
      return b
    }
    this.ts = grow(this.ts, (k) => new Float64Array(k))
    this.type = grow(this.type, (k) => new Uint8Array(k))
    this.buffer = grow(this.buffer, (k) => new Uint8Array(k))
    for (const k of ['cpu', 'pid', 'tgid', 'comm', 'f0', 'f1', 'f2', 'f3', 'f4', 's1', 's2'] as const) {
      this[k] = grow(this[k], (m) => new Int32Array(m))
    }
    this.cap = cap
  }

  /**
   * Appends n ks_event records at byte offset `at` of the views. `genericText`
   * resolves a generic record's arena offset to its text (one call into the C log).
   */
  appendEvents(u8: Uint8Array, i32: Int32Array, u32: Uint32Array, at: number, n: number,
    genericText: (offset: number) => string): void {
    this.reserve(n)
    for (let k = 0; k < n; k++) {
      const base = at + k * EVENT_BYTES
      const w = base >>> 2
      const row = this.count++
      this.ts[row] = u32[w] + u32[w + 1] * 4294967296
      // bytes 8..11: type u16, then the trace buffer's index u16 (event.h)
      const type = u32[w + 2] & 0xffff
      const buffer = u32[w + 2] >>> 16
      this.type[row] = type < EVENT_TYPES.length ? type : TYPE_GENERIC
      this.buffer[row] = buffer < 255 ? buffer : 255
      this.bufferCounts[buffer] = (this.bufferCounts[buffer] ?? 0) + 1
      this.cpu[row] = i32[w + 3]
      this.pid[row] = i32[w + 4]
      this.tgid[row] = i32[w + 5]
      this.comm[row] = this.internComm(u8, base + 24)
      const p = w + 10 // payload, byte 40
      let f0 = 0, f1 = 0, f2 = 0, f3 = 0, f4 = 0, s1 = -1, s2 = -1
      switch (type) {
        case TYPE_SWITCH:
          s1 = this.internComm(u8, base + 40)
          f0 = i32[p + 4]; f1 = i32[p + 5]; f2 = i32[p + 6] // prev_state low word
          s2 = this.internComm(u8, base + 40 + 32)
          f3 = i32[p + 12]; f4 = i32[p + 13]
          break
        case TYPE_WAKING: case TYPE_WAKEUP: case TYPE_WAKEUP_NEW:
          s1 = this.internComm(u8, base + 40)
          f0 = i32[p + 4]; f1 = i32[p + 5]; f2 = i32[p + 6]
          break
        case TYPE_MIGRATE:
          s1 = this.internComm(u8, base + 40)
          f0 = i32[p + 4]; f1 = i32[p + 5]; f2 = i32[p + 6]; f3 = i32[p + 7]
          break
        case TYPE_FORK:
          s1 = this.internComm(u8, base + 40)
          f0 = i32[p + 4]
          s2 = this.internComm(u8, base + 40 + 20)
          f3 = i32[p + 9]
          break
        case TYPE_EXIT: case TYPE_FREE:
          s1 = this.internComm(u8, base + 40)
          f0 = i32[p + 4]; f1 = i32[p + 5]; f2 = i32[p + 6]
          break
        case TYPE_RSEQ:
          f0 = i32[p]; f1 = i32[p + 1]; f2 = i32[p + 2]
          break
        case TYPE_KMEM_ALLOC: case TYPE_KMEM_FREE: // kscope/event.h ks_ev_kmem_cache
          f0 = i32[p + 4]; f1 = i32[p + 5]; f2 = i32[p + 6]
          f3 = (i32[p + 7] << 16) >> 16; f4 = (u8[base + 70] << 24) >> 24
          s1 = this.internComm(u8, base + 72, 24)
          s2 = this.intern('0x' + ((u32[p + 3]).toString(16) + u32[p + 2].toString(16).padStart(8, '0')).replace(/^0+(?=.)/, ''))
          break
        case TYPE_SHEAF_REFILL: case TYPE_SHEAF_FLUSH: case TYPE_BARN_GET: case TYPE_BARN_PUT: // ks_ev_sheaf
          f0 = i32[p + 7]; f1 = i32[p + 8]; f2 = i32[p + 10]; f3 = i32[p + 11]; f4 = i32[p + 12]
          s1 = this.internComm(u8, base + 40, 24)
          break
        default:
          s1 = this.intern(genericText(u32[p]))
          s2 = this.intern(genericText(u32[p + 1]))
      }
      this.f0[row] = f0; this.f1[row] = f1; this.f2[row] = f2; this.f3[row] = f3; this.f4[row] = f4
      this.s1[row] = s1; this.s2[row] = s2
    }
  }

  finish(): TraceColumns {
    const n = this.count
    return {
      count: n,
      ts: this.ts.slice(0, n), type: this.type.slice(0, n), buffer: this.buffer.slice(0, n), cpu: this.cpu.slice(0, n),
      pid: this.pid.slice(0, n), tgid: this.tgid.slice(0, n), comm: this.comm.slice(0, n),
      f0: this.f0.slice(0, n), f1: this.f1.slice(0, n), f2: this.f2.slice(0, n),
      f3: this.f3.slice(0, n), f4: this.f4.slice(0, n), s1: this.s1.slice(0, n), s2: this.s2.slice(0, n),
      strings: this.strings,
    }
  }
}

/* Decoder stats record sizes and offsets (the C headers _Static_assert the sizes). */
export const FTRACE_STATS_BYTES = 208
export const PERF_STATS_BYTES = 216
export const SYSTRACE_STATS_BYTES = 224
export const TRACEDAT_STATS_BYTES = 368
export const TRACE_STATS_BYTES = 216

function cString(u8: Uint8Array, at: number, max: number): string {
  let end = at
  while (end < at + max && u8[end] !== 0) end++
  return new TextDecoder('utf-8').decode(u8.subarray(at, end))
}

/** A ks_parse_error at `at`; null when line is 0 and there is no message. */
function parseProblem(u8: Uint8Array, i32: Int32Array, at: number, offset = -1): TraceParseProblem | null {
  const line = i32[at >>> 2]
  const message = cString(u8, at + 40, 128)
  if (line === 0 && !message) return null
  return { line, offset, field: cString(u8, at + 8, 32), message }
}

/**
 * ks_trace_stats (trace_decoder.h), what every decoder counts:
 *   0 format i32 | 4 status i32 | 8 events | 12 generic_events | 16 malformed | 20 lost_events
 *   24 nr_cpus i32 | 28 lines | 32 bytes_fed i64 | 40 error_offset i64 | 48 first_error
 */
export function decodeTraceStats(u8: Uint8Array, i32: Int32Array, at: number, format: string, bytes: number):
  TraceDecodeStats & { status: number } {
  const w = at >>> 2
  const errorOffset = i32[w + 10] + i32[w + 11] * 4294967296
  return {
    format, bytes, lines: i32[w + 7] >>> 0, events: i32[w + 2] >>> 0, genericEvents: i32[w + 3] >>> 0,
    malformed: i32[w + 4] >>> 0, lostEvents: i32[w + 5] >>> 0, nrCpus: i32[w + 6], uname: '', traceClock: '',
    firstError: parseProblem(u8, i32, at + 48, errorOffset), status: i32[w + 1],
  }
}

export function decodeTracedatStats(u8: Uint8Array, i32: Int32Array, at: number, format: string, bytes: number):
  TraceDecodeStats & { status: number; version: number } {
  const w = at >>> 2
  const errorOffset = i32[w + 12] + i32[w + 13] * 4294967296
  return {
    format, bytes, lines: 0, events: i32[w] >>> 0, genericEvents: i32[w + 1] >>> 0,
    malformed: i32[w + 2] >>> 0, lostEvents: i32[w + 3] >>> 0, nrCpus: i32[w + 6],
    uname: cString(u8, at + 72, 96), traceClock: cString(u8, at + 168, 32),
    firstError: parseProblem(u8, i32, at + 200, errorOffset),
    status: i32[w + 11], version: i32[w + 7],
  }
}

/**
 * The "# ..." lines at the top of a text trace (kscope's capture metadata
 * "# kscope: kernel=...", "# kscope-sysfs: cpuN/cache/...", tracefs headers):
 * the decoders skip them as comments; core/traces/trace_meta.ts reads them.
 * Stops at the first non-comment line or after maxLines.
 */
export function headerLines(text: string, maxLines = 20000): { lines: string[]; done: boolean } {
  const lines: string[] = []
  let start = 0
  while (lines.length < maxLines) {
    const nl = text.indexOf('\n', start)
    if (nl < 0) return { lines, done: false }
    const line = text.slice(start, nl).replace(/\r$/, '')
    if (!line.startsWith('#') && line.trim() !== '') return { lines, done: true }
    if (line.startsWith('#')) lines.push(line)
    start = nl + 1
  }
  return { lines, done: true }
}
