// Open locally with compressed files: gzip, xz, zstd (two frames) and zip decompress in the
// browser's way (decompress.ts, then the C decoders in wasm) to the counts the repository's
// expected.json files give; decompression bombs are refused under the server's limits (the
// shared backend/kscope/data/decompression.json) with the file, the offset and why.
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import shared from '../../../backend/kscope/data/decompression.json'
import { DECOMPRESS_LIMITS, compressionOf } from './compression'
import { decompressToBlob } from './decompress'
import { TraceOpenError } from './core_errors'
import { openTraceLocally } from './trace_open_local'

const root = new URL('../../../', import.meta.url)
const wasmBinary = readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root))
const bytesOf = (rel: string) => new Uint8Array(readFileSync(new URL(rel, root)))
const expected = (rel: string) => JSON.parse(readFileSync(new URL(rel, root), 'utf-8'))
const open = (data: Uint8Array, name: string) => openTraceLocally(new Blob([data as BlobPart]), undefined, { wasmBinary, name })
const TEXT = 'traces/threads4-linux6.18.txt'

describe('compressed traces opened locally', () => {
  it('reads the limits and magics of the one shared definition', () => {
    expect(DECOMPRESS_LIMITS).toEqual({ maxBytes: 16 * 2 ** 30, maxRatio: 500, ratioAfter: 1 << 20 })
    expect(DECOMPRESS_LIMITS.maxRatio).toBe(shared.max_compression_ratio)
    expect(compressionOf(bytesOf('traces/threads4-linux6.18.dat.xz'))).toBe('xz')
    expect(compressionOf(bytesOf('traces/compressed/threads4-linux6.18.txt.zst'))).toBe('zstd')
    expect(compressionOf(bytesOf('traces/compressed/threads4-linux6.18.txt.zip'))).toBe('zip')
    expect(compressionOf(gzipSync(Buffer.from('x')))).toBe('gzip')
    expect(compressionOf(bytesOf(TEXT))).toBeNull()
  })

  it.each([
    ['xz trace.dat', 'traces/threads4-linux6.18.dat.xz', 'traces/threads4-linux6.18.dat.expected.json', 'xz'],
    ['xz text', 'traces/intermittent2-pinned-10ms-linux6.18.txt.xz', 'traces/intermittent2-pinned-10ms-linux6.18.txt.expected.json', 'xz'],
    ['zstd, two frames', 'traces/compressed/threads4-linux6.18.txt.zst', `${TEXT}.expected.json`, 'zstd'],
    ['zip', 'traces/compressed/threads4-linux6.18.txt.zip', `${TEXT}.expected.json`, 'zip'],
  ])('%s decodes to the expected counts', async (_, file, exp, kind) => {
    const want = expected(exp)
    const t = await open(bytesOf(file), file.split('/').pop()!)
    expect(t.compressed).toBe(kind)
    expect(t.columns.count).toBe(want.events)
    expect(t.stats.malformed).toBe(0)
    expect(t.columns.ts[0]).toBe(want.t_first_ns)
    expect(t.columns.ts[t.columns.count - 1]).toBe(want.t_last_ns)
  })

  it('gzip decodes to the same events as the plain file', async () => {
    const plain = await open(bytesOf(TEXT), 't.txt')
    const gz = await open(gzipSync(bytesOf(TEXT)), 't.txt.gz')
    expect(gz.compressed).toBe('gzip')
    expect(gz.columns.count).toBe(expected(`${TEXT}.expected.json`).events)
    expect(Array.from(gz.columns.ts)).toEqual(Array.from(plain.columns.ts))
  })

  it.each([
    ['zeros-64MiB.xz', 'traces/compressed/zeros-64MiB.xz', 'xz'],
    ['zeros-64MiB.zst', 'traces/compressed/zeros-64MiB.zst', 'zstd'],
    ['zeros-64MiB.zip', 'traces/compressed/zeros-64MiB.zip', 'zip'],
  ])('refuses the bomb %s past 500x, naming the file and offset', async (name, file, kind) => {
    const err = await open(bytesOf(file), name).catch((e) => e)
    expect(err).toBeInstanceOf(TraceOpenError)
    expect(err.message).toMatch(new RegExp(`^${name.replace('.', '\\.')}(:zeros)?: offset \\d+ ${kind} data expands more than 500x \\(a decompression bomb\\?\\)$`))
  })

  it('refuses a gzip bomb, and output over the size limit', async () => {
    const bomb = gzipSync(new Uint8Array(32 << 20))
    const err = await open(bomb, 'bomb.gz').catch((e) => e)
    expect(err).toBeInstanceOf(TraceOpenError)
    expect(err.message).toContain('gzip data expands more than 500x')
    const big = await decompressToBlob(new Blob([gzipSync(bytesOf(TEXT))]), 'big.gz', 'gzip', undefined,
      { ...DECOMPRESS_LIMITS, maxBytes: 100_000 }).catch((e) => e)
    expect(big.message).toMatch(/^big\.gz: offset \d+ gzip data decompresses to more than the 100000 byte limit$/)
  })

  it('refuses truncated xz and zip data with the offset', async () => {
    const xz = bytesOf('traces/intermittent2-pinned-10ms-linux6.18.txt.xz')
    const err = await open(xz.subarray(0, 8000), 'cut.xz').catch((e) => e)
    expect(err).toBeInstanceOf(TraceOpenError)
    expect(err.message).toMatch(/^cut\.xz: offset \d+ corrupt or truncated xz data/)
    const zip = bytesOf('traces/compressed/threads4-linux6.18.txt.zip')
    const zerr = await open(zip.subarray(0, 10000), 'cut.zip').catch((e) => e)
    expect(zerr).toBeInstanceOf(TraceOpenError)
    expect(zerr.message).toMatch(/^cut\.zip:threads4-linux6\.18\.txt: offset \d+ corrupt or truncated zip data/)
  })
})
