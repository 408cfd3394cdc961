// The mask line as the views draw it, from hand-made c2c rows: words by line offset, the
// hot level, cycles per sampled load, and the owner socket from the owner core (else the LLC).
import { describe, expect, it } from 'vitest'
import type { CpupriC2cRow, CpupriView } from '../../models/cpupri/types'
import type { Topology } from '../../core/shared/types'
import { cpusBySocket, hotLevel, maskLines } from './mask_line'

const topology = {
  name: 't', summary: {} as Topology['summary'],
  cpus: [0, 1, 2, 3].map((cpu) => ({ cpu, core: cpu % 2 === 0 ? cpu : cpu - 1, llc: cpu < 2 ? 0 : 1, node: cpu < 2 ? 0 : 1, socket: cpu < 2 ? 0 : 1, smt_index: cpu % 2 })),
} as unknown as Topology

const row = (o: Partial<CpupriC2cRow>): CpupriC2cRow => ({
  object: 'cpupri_vec[99].mask', symbol: 'cpupri_set', level: 99, node: -1, offset: 0, line_offset: 0, loads: 0, sampled_loads: 0,
  local_hitm: 0, remote_hitm: 0, stores: 0, store_l1_hit: 0, store_l1_miss: 0, load_cycles_sum: 0, wait_cycles_sum: 0, ...o,
})

function view(rows: CpupriC2cRow[], places: CpupriView['places'] = []): CpupriView {
  return { summary: {} as CpupriView['summary'], rows, levels: [], places }
}

describe('maskLines', () => {
  it('sums symbols per word, divides cycles by sampled loads, and finds the owner socket', () => {
    const v = view([
      row({ loads: 4, sampled_loads: 2, load_cycles_sum: 600, remote_hitm: 1, stores: 4 }),
      row({ symbol: '_find_first_and_bit', loads: 6, sampled_loads: 4, load_cycles_sum: 400 }),
      row({ offset: 8, line_offset: 8, loads: 1, local_hitm: 1 }),
      row({ object: 'cpupri_vec[0].mask', level: 0, loads: 100 }),
    ], [{ object: 'cpupri_vec[99].mask', owner_core: 2, owner_llc: 1, sharers: 1, state: 3 }])
    expect(hotLevel(v)).toBe(99)
    const [line] = maskLines(v, topology)
    expect(line.words[0]).toEqual({ loads: 10, stores: 4, local_hitm: 0, remote_hitm: 1 })
    expect(line.words[1]).toEqual({ loads: 1, stores: 0, local_hitm: 1, remote_hitm: 0 })
    expect(line.words.slice(2).every((w) => w.loads + w.stores === 0)).toBe(true)
    expect(line.cyclesPerLoad).toBeCloseTo(1000 / 6)
    expect([line.ownerSocket, line.state]).toEqual([1, 'M'])
  })

  it('one line per node with per-node masks; an uncached line has no owner; the last LLC when no core owns it', () => {
    const v = view([
      row({ object: 'cpupri_vec[99].masks[1]', node: 1, loads: 2 }),
      row({ object: 'cpupri_vec[99].masks[0]', node: 0, loads: 2 }),
    ], [{ object: 'cpupri_vec[99].masks[1]', owner_core: -1, owner_llc: 0, sharers: 0, state: 0 }])
    const lines = maskLines(v, topology)
    expect(lines.map((l) => [l.node, l.ownerSocket])).toEqual([[0, null], [1, 0]])
    expect(maskLines(view([]), topology)).toEqual([])
    expect(cpusBySocket(topology)).toEqual([{ socket: 0, cpus: [0, 1] }, { socket: 1, cpus: [2, 3] }])
  })
})
