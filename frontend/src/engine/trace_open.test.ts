// Opening real traces in the browser's way (Blob slices -> the C decoders in
// wasm), checked against counts taken from the files independently.
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { beforeAll, describe, expect, it } from 'vitest'
import { TraceOpenError } from './core_errors'
import { openTraceLocally } from './trace_open_local'
import { TYPE_KMEM_ALLOC, TYPE_KMEM_FREE, TYPE_SWITCH } from './trace_records'
import { loadCore, type KscopeCore } from './wasm_bridge'

const root = new URL('../../../', import.meta.url)
const wasmBinary = readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root))
const blobOf = (rel: string) => new Blob([readFileSync(new URL(rel, root))])
const textOf = (rel: string) => readFileSync(new URL(rel, root), 'utf-8')
/** Event lines of an ftrace text file: not a comment, not blank. */
const eventLines = (text: string) => text.split('\n').filter((l) => l.trim() && !l.startsWith('#'))

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

describe('openTrace (local decoding)', () => {
  it('decodes the 6.18 capture in small chunks with the expected counts and header', async () => {
    const expected = JSON.parse(textOf('traces/threads4-linux6.18.txt.expected.json'))
    const progress: number[] = []
    const t = await core.openTrace(blobOf('traces/threads4-linux6.18.txt'), 'threads4.txt',
      (p) => progress.push(p.bytesDone), { chunkBytes: 64 << 10 })
    expect(t.format).toBe('ftrace-text')
    expect(t.columns.count).toBe(expected.events)
    expect(t.columns.count).toBe(eventLines(textOf('traces/threads4-linux6.18.txt')).length)
    expect(t.stats.events).toBe(expected.events)
    expect(t.stats.malformed).toBe(0)
    expect(t.stats.firstError).toBeNull()
    let switches = 0
    for (let i = 0; i < t.columns.count; i++) if (t.columns.type[i] === TYPE_SWITCH) switches++
    expect(switches).toBe(expected.by_type.sched_switch)
    expect(t.columns.ts[0]).toBe(expected.t_first_ns)
    expect(t.columns.ts[t.columns.count - 1]).toBe(expected.t_last_ns)
    expect(new Set(t.columns.cpu).size).toBe(expected.cpus)
    expect(t.header.some((l) => l.includes('kernel=6.18'))).toBe(true)
    expect(progress.length).toBeGreaterThan(10)
    expect(progress.at(-1)).toBe(t.stats.bytes)
  })

  it('reads sched_switch fields out of the records', async () => {
    const t = await core.openTrace(blobOf('traces/threads4-linux6.18.txt'), 'threads4.txt')
    const line = eventLines(textOf('traces/threads4-linux6.18.txt')).find((l) => l.includes('sched_switch:'))!
    const m = /prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) .* next_comm=(.*) next_pid=(\d+) next_prio=(\d+)/.exec(line)!
    const c = t.columns
    const i = Array.from(c.type).indexOf(TYPE_SWITCH)
    expect(c.strings[c.s1[i]]).toBe(m[1])
    expect(c.f0[i]).toBe(Number(m[2]))
    expect(c.f1[i]).toBe(Number(m[3]))
    expect(c.strings[c.s2[i]]).toBe(m[4])
    expect(c.f3[i]).toBe(Number(m[5]))
    expect(c.f4[i]).toBe(Number(m[6]))
  })

  it('reads kmem_cache_alloc/free fields out of a real 6.18 kmem trace', async () => {
    const rel = 'wasm-core/tests/fixtures/ftrace_6.18_kmem.txt'
    const t = await core.openTrace(blobOf(rel), 'kmem.txt')
    const lines = eventLines(textOf(rel))
    const c = t.columns
    expect(t.stats.malformed).toBe(0)
    expect(c.count).toBe(lines.length)
    const types = Array.from(c.type)
    expect(types.filter((x) => x === TYPE_KMEM_ALLOC).length).toBe(lines.filter((l) => l.includes(' kmem_cache_alloc: ')).length)
    expect(types.filter((x) => x === TYPE_KMEM_FREE).length).toBe(lines.filter((l) => l.includes(' kmem_cache_free: ')).length)
    const i = types.indexOf(TYPE_KMEM_ALLOC)
    const m = /ptr=([0-9a-f]+) name=(\S+) bytes_req=(\d+) bytes_alloc=(\d+) .* node=(-?\d+) accounted=(\w+)/.exec(lines[i])!
    expect(c.strings[c.s2[i]]).toBe('0x' + m[1].replace(/^0+/, ''))
    expect(c.strings[c.s1[i]]).toBe(m[2])
    expect(c.f0[i]).toBe(Number(m[3]))
    expect(c.f1[i]).toBe(Number(m[4]))
    expect(c.f3[i]).toBe(Number(m[5]))
    expect(c.f4[i]).toBe(m[6] === 'true' ? 1 : 0)
    const f = types.indexOf(TYPE_KMEM_FREE)
    expect(c.strings[c.s1[f]]).toBe(/name=(\S+)/.exec(lines[f])![1])
  })

  it('reads trace.dat v6 and v7 by offset, inflating gzip in the browser way', async () => {
    for (const v of ['v6', 'v7']) {
      const t = await openTraceLocally(blobOf(`wasm-core/tests/fixtures/tracecmd_6.18_${v}.dat.gz`), undefined,
        { wasmBinary, name: `tracecmd_${v}.dat.gz` })
      expect(t.compressed).toBe('gzip')
      expect(t.format).toBe('trace.dat')
      expect(t.columns.count).toBe(130)
      expect(t.stats.nrCpus).toBeGreaterThan(0)
    }
  })

  it('keeps unknown events generic with their name and fields text', async () => {
    const t = await core.openTrace(blobOf('wasm-core/tests/fixtures/tracecmd_6.18_v7.dat.gz'), 'v7.dat.gz')
    const c = t.columns
    const names = new Set<string>()
    for (let i = 0; i < c.count; i++) if (c.type[i] === 0) names.add(c.strings[c.s1[i]])
    expect(names.size).toBeGreaterThan(0)
  })

  it('counts a malformed line with its line number and keeps going', async () => {
    const lines = textOf('wasm-core/tests/fixtures/ftrace_6.18_tgid_irq.txt').split('\n')
    const first = lines.findIndex((l) => l.trim() && !l.startsWith('#'))
    lines.splice(first + 1, 0, '   this is not an ftrace line at all')
    const t = await core.openTrace(new Blob([lines.join('\n')]), 'bad.txt')
    expect(t.stats.malformed).toBe(1)
    expect(t.stats.firstError?.line).toBe(first + 2)
    expect(t.columns.count).toBe(eventLines(lines.join('\n')).length - 1)
  })

  it('refuses perf report and unknown bytes with a typed error naming the file', async () => {
    const report = new Blob([readFileSync('/work/shared/corpus/public/perf-report__catapult__perf_report_output.txt')])
    await expect(core.openTrace(report, 'report.txt')).rejects.toThrow(/report\.txt.*perf script/)
    const err = await core.openTrace(new Blob([new Uint8Array([0, 1, 2, 3, 4, 5])]), 'junk.bin').catch((e) => e)
    expect(err).toBeInstanceOf(TraceOpenError)
    expect(err.file).toBe('junk.bin')
    expect(err.message).toMatch(/^junk\.bin:/)
    await expect(core.openTrace(new Blob([]), 'empty.txt')).rejects.toThrow(/empty/)
  })

  it('opens a gzip text trace and the public corpus formats', async () => {
    const gz = new Blob([gzipSync(readFileSync(new URL('traces/threads4-linux6.18.txt', root)))])
    expect((await core.openTrace(gz, 't.txt.gz')).columns.count).toBe(6136)
    for (const f of ['trace-cmd-report__lisa__trace_txt.txt', 'systrace-html__trappy__trace_surfaceflinger.html',
      'perf-script__speedscope__system-wide.linux-perf.txt']) {
      const t = await core.openTrace(new Blob([readFileSync(`/work/shared/corpus/public/${f}`)]), f)
      expect(t.columns.count, f).toBeGreaterThan(0)
      expect(t.columns.count, f).toBe(t.stats.events)
    }
  })
})
