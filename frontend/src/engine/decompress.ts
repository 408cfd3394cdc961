/*
 * Compressed traces opened locally: gzip, xz, zstd and zip (recognised by their
 * magic bytes, compression.ts) decompressed in the browser under the server's limits
 * (the one definition in backend/kscope/data/decompression.json, which the server's
 * kscope/ingest/sources.py reads too): at most max_decompressed_bytes out, and
 * once more than ratio_checked_after_bytes came out, at most max_compression_ratio
 * times the compressed bytes read so far (a decompression bomb stops early).
 *
 * Streamed: the file is read in pieces, each decompressed piece is checked and
 * appended to a Blob (the browser's blob store, not the JS heap), so neither the
 * compressed nor the decompressed file is ever held whole in a JS array.
 *
 *   gzip  the browser's DecompressionStream
 *   xz    xz-decompress (xz-embedded in WebAssembly)
 *   zstd  fzstd (pure JS, streaming, concatenated frames)
 *   zip   fflate's streaming Unzip (stored or deflated; exactly one file, as on the server)
 *
 * Loaded on demand (trace_open.ts imports it when a compressed file is opened).
 */
import { Decompress as ZstdDecompress } from 'fzstd'
import { Unzip, UnzipInflate, type UnzipFile } from 'fflate'
import { XzReadableStream } from 'xz-decompress'
import { DECOMPRESS_LIMITS, type Compression, type DecompressLimits } from './compression'
import { KsStatus, TraceOpenError } from './core_errors'

/** Compressed bytes given to a push decoder at a time (at most ~16 MiB out of deflate's worst ratio). */
const PUSH_BYTES = 16 << 10

/** Bytes kept in JS before they are folded into the Blob. */
const FOLD_BYTES = 8 << 20

/**
 * Decompresses `file` (of compression `kind`) into a Blob, within `limits`.
 * Errors are TraceOpenErrors naming the file and the compressed byte offset.
 */
export async function decompressToBlob(file: Blob, name: string, kind: Compression,
  onProgress: (compressedRead: number, bytesOut: number) => void = () => {},
  limits: DecompressLimits = DECOMPRESS_LIMITS): Promise<Blob> {
  let read = 0
  /** Compressed bytes handed to a push decoder so far (-1: a stream decoder, `read` counts). */
  let fed = -1
  const inputAt = () => (fed >= 0 ? fed : read)
  let source = name
  const fail = (problem: string): never => {
    throw new TraceOpenError(KsStatus.RANGE, 'over a limit', source, problem, { offset: inputAt() })
  }
  const counted = file.stream().pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, ctl) {
      read += chunk.length
      ctl.enqueue(chunk)
    },
  }))

  let out: Blob = new Blob([])
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  let total = 0
  const take = (piece: Uint8Array) => {
    if (!piece.length) return
    total += piece.length
    if (total > limits.maxBytes) fail(`${kind} data decompresses to more than the ${limits.maxBytes} byte limit`)
    if (total > limits.ratioAfter && total > limits.maxRatio * Math.max(inputAt(), 1)) {
      fail(`${kind} data expands more than ${limits.maxRatio}x (a decompression bomb?)`)
    }
    pending.push(piece)
    pendingBytes += piece.length
    if (pendingBytes >= FOLD_BYTES) fold()
  }
  const fold = () => {
    if (!pending.length) return
    out = new Blob([out, ...pending as BlobPart[]])
    pending = []
    pendingBytes = 0
  }
  const corrupt = (err: unknown): never => {
    if (err instanceof TraceOpenError) throw err
    throw new TraceOpenError(KsStatus.PARSE, 'parse error', source, `corrupt or truncated ${kind} data (${describe(err)})`,
      { offset: inputAt() })
  }

  try {
    if (kind === 'gzip' || kind === 'xz') {
      const stream = kind === 'gzip'
        ? counted.pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
        : new XzReadableStream(counted)
      const reader = stream.getReader()
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) break
          take(value)
          onProgress(read, total)
        }
      } catch (err) {
        await reader.cancel().catch(() => {})
        throw err
      }
    } else {
      // fzstd and fflate are push decoders: feed them the file's pieces.
      let members = 0
      let memberDone = false
      fed = 0
      const push = kind === 'zstd'
        ? (() => {
          const z = new ZstdDecompress((piece) => take(piece))
          return (chunk: Uint8Array, final: boolean) => z.push(chunk, final)
        })()
        : (() => {
          const unzip = new Unzip((f: UnzipFile) => {
            if (f.name.endsWith('/')) return // a folder entry
            members++
            if (members > 1) {
              fail(`a zip must hold exactly one trace file, this one holds more (${f.name} is the second)`)
            }
            source = `${name}:${f.name}`
            f.ondata = (err, piece, final) => {
              if (err) corrupt(err)
              take(piece)
              if (final) memberDone = true
            }
            f.start()
          })
          unzip.register(UnzipInflate)
          return (chunk: Uint8Array, final: boolean) => unzip.push(chunk, final)
        })()
      const reader = counted.getReader()
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) {
            push(new Uint8Array(0), true)
            break
          }
          // Small pushes: a push decoder inflates all it is given before we can look (deflate
          // reaches ~1000x), so the limits are checked every PUSH_BYTES of input.
          for (let at = 0; at < value.length; at += PUSH_BYTES) {
            const piece = value.subarray(at, at + PUSH_BYTES)
            fed += piece.length
            push(piece, false)
          }
          onProgress(read, total)
        }
      } catch (err) {
        await reader.cancel().catch(() => {})
        throw err
      }
      if (kind === 'zip' && members === 0) fail('a zip must hold exactly one trace file, this one holds none')
      if (kind === 'zip' && !memberDone) corrupt(new Error('the archive ends inside its file'))
    }
  } catch (err) {
    corrupt(err)
  }
  fold()
  if (total === 0) {
    throw new TraceOpenError(KsStatus.PARSE, 'parse error', source, `the ${kind} data decompresses to nothing`, { offset: read })
  }
  return out
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err)
}
