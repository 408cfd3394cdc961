/*
 * Compressed trace files: which compression a file uses (its magic bytes), the limits a
 * decompression must keep, and the file names the pickers offer. One definition with the
 * server: backend/kscope/data/decompression.json (read by kscope/ingest/sources.py and
 * kscope/core/config.py). The decompressing itself is in decompress.ts, loaded only when
 * a compressed file is opened.
 */
import shared from '../../../backend/kscope/data/decompression.json'

export type Compression = 'gzip' | 'xz' | 'zstd' | 'zip'

export interface DecompressLimits {
  maxBytes: number
  maxRatio: number
  /** The ratio is checked once more than this many bytes came out. */
  ratioAfter: number
}

export const DECOMPRESS_LIMITS: DecompressLimits = {
  maxBytes: shared.max_decompressed_bytes,
  maxRatio: shared.max_compression_ratio,
  ratioAfter: shared.ratio_checked_after_bytes,
}

const MAGICS = Object.entries(shared.magics).map(([kind, hex]) => ({
  kind: kind as Compression,
  bytes: Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16))),
}))

/** The compression of a file from its first bytes, null when none kscope reads. */
export function compressionOf(head: Uint8Array): Compression | null {
  for (const m of MAGICS) {
    if (head.length >= m.bytes.length && m.bytes.every((b, i) => head[i] === b)) return m.kind
  }
  return null
}

/** The file names the open-file pickers offer (the formats, plain or compressed). */
export const TRACE_FILE_ACCEPT = [
  '.txt', '.dat', '.html', '.htm', '.perf', '.trace', '.gz', '.xz', '.zst', '.zstd', '.zip',
  'text/plain', 'text/html', 'application/octet-stream', 'application/gzip', 'application/x-xz',
  'application/zstd', 'application/zip',
].join(',')
