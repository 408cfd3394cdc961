// The cpupri bridge against the real C core (the browser's wasm build): the classroom
// workload on classroom-2s-16 under the global and per-node masks, read through the one
// view call; a run of another model answers NOT_FOUND.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KscopeError } from '../core_errors'
import { loadCore, type KscopeCore, type Simulation } from '../wasm_bridge'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
const CLASSROOM = readFileSync(new URL('../../../../wasm-core/workloads/rt-instances-classroom-2s-16.json', import.meta.url), 'utf8')

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})
const open: Simulation[] = []
afterEach(() => {
  while (open.length) open.pop()!.free()
})
function run(algo: string, ms: number): Simulation {
  const sim = core.simulate({ preset: 'classroom-2s-16', workloadJson: CLASSROOM, seed: 1, algo })
  open.push(sim)
  sim.runUntil({ untilNs: ms * 1e6 })
  return sim
}

describe('cpupriView on the classroom workload', () => {
  it('global: one bitmap per level, FIFO 99 CPUs at level 99, remote HITM on the hot mask line', () => {
    const v = run('cpupri:global', 5).cpupriView()
    expect(v.summary).toMatchObject({ variant: 'global', flags: 0, nr_cpus: 16, nr_nodes: 2 })
    expect(v.summary.finds).toBeGreaterThan(0)
    expect(v.levels).toHaveLength(16)
    expect(v.levels.every((l) => l >= -1 && l <= 100)).toBe(true)
    const mask = v.rows.filter((r) => r.object === 'cpupri_vec[99].mask')
    expect(mask.length).toBeGreaterThan(0)
    expect(mask.reduce((n, r) => n + r.remote_hitm, 0)).toBeGreaterThan(0)
    expect(v.rows.every((r) => r.line_offset === r.offset % 64)).toBe(true)
    const place = v.places.find((p) => p.object === 'cpupri_vec[99].mask')
    expect(place).toBeDefined()
    expect(place!.owner_llc).toBeGreaterThanOrEqual(0)
  })

  it('pernode: one bitmap per (level, node), and the toggle shows in the flags', () => {
    const v = run('cpupri:pernode+unordered_set', 5).cpupriView()
    expect(v.summary).toMatchObject({ variant: 'pernode', flags: 1, nr_nodes: 2 })
    const objects = new Set(v.rows.filter((r) => r.level === 99).map((r) => r.node))
    expect([...objects].sort()).toEqual([0, 1])
  })

  it('the view follows the run (more finds later) and a run of another model has none', () => {
    const sim = run('cpupri:global', 2)
    const early = sim.cpupriView().summary.finds
    sim.runUntil({ untilNs: 8e6 })
    expect(sim.cpupriView().summary.finds).toBeGreaterThan(early)
    const other = core.simulate({ preset: 'classroom-2s-16', workloadJson: CLASSROOM, seed: 1, algo: 'none' })
    open.push(other)
    expect(() => other.cpupriView()).toThrow(KscopeError)
  })
})
