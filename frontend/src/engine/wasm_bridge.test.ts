// The bridge against the real C core: the same wasm the browser loads, its bytes
// read here (Node cannot fetch a file: URL the way the browser fetches the asset).
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { KscopeError, KsStatus } from './core_errors'
import { loadCore, type KscopeCore } from './wasm_bridge'

const wasmBinary = readFileSync(new URL('../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

describe('wasm bridge', () => {
  it('reports the core version', () => {
    expect(core.version()).toMatch(/^\d+\.\d+\.\d+/)
  })

  it('lists the presets with descriptions', () => {
    const presets = core.presets()
    expect(presets.map((p) => p.name)).toEqual(expect.arrayContaining(['classroom-8', 'epyc-9654-2s']))
    for (const p of presets) expect(p.description.length).toBeGreaterThan(0)
  })

  it('reads the 384-CPU EPYC summary', () => {
    const t = core.topology('epyc-9654-2s')
    expect(t.name).toBe('epyc-9654-2s')
    expect(t.summary).toMatchObject({ cpus: 384, cores: 192, llcs: 24, nodes: 2, sockets: 2, threads_per_core: 2 })
    expect(t.summary.l3_kib).toBe(32 * 1024)
    expect(t.cpus).toHaveLength(384)
    t.cpus.forEach((c, i) => expect(c.cpu).toBe(i))
  })

  it('numbers SMT siblings thread-major: CPU 5 and 197 share core 5', () => {
    const { cpus } = core.topology('epyc-9654-2s')
    expect(cpus[5]).toEqual({ cpu: 5, core: 5, llc: 0, node: 0, socket: 0, smt_index: 0 })
    expect(cpus[197]).toEqual({ cpu: 197, core: 5, llc: 0, node: 0, socket: 0, smt_index: 1 })
    expect(cpus[383]).toMatchObject({ core: 191, llc: 23, node: 1, socket: 1, smt_index: 1 })
  })

  it('reads the classroom machine', () => {
    const t = core.topology('classroom-8')
    expect(t.summary).toMatchObject({ cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1 })
    expect(new Set(t.cpus.map((c) => c.llc))).toEqual(new Set([0, 1]))
  })

  it('turns an unknown preset into a KscopeError saying "not found"', () => {
    let caught: unknown
    try {
      core.topology('no-such-machine')
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(KscopeError)
    const err = caught as KscopeError
    expect(err.status).toBe(KsStatus.NOT_FOUND)
    expect(err.statusMessage).toBe('not found')
    expect(err.message).toMatch(/not found/)
  })

  it('frees what it allocates: memory does not grow over many calls', () => {
    // 3000 x 384 CPU records (9 KiB each) would need ~27 MiB if leaked: more than the 16 MiB heap.
    const before = core.memoryBytes()
    for (let i = 0; i < 3000; i++) {
      core.topology('epyc-9654-2s')
      expect(() => core.topology('nope')).toThrow(KscopeError)
    }
    expect(core.memoryBytes()).toBe(before)
    expect(core.topology('classroom-8').cpus).toHaveLength(8)
  })
})
