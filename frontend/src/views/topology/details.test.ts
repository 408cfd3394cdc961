import { describe, expect, it } from 'vitest'
import type { CpuInfo, Topology } from '../../core/shared/types'
import { cpuDetails } from './details'

// classroom-8 as the C core numbers it: 4 cores, SMT2, cpu = core + thread * 4, 2 cores per LLC.
const cpus: CpuInfo[] = Array.from({ length: 8 }, (_, cpu) => {
  const core = cpu % 4
  return { cpu, core, llc: Math.floor(core / 2), node: 0, socket: 0, smt_index: Math.floor(cpu / 4) }
})
const classroom: Topology = {
  name: 'classroom-8',
  summary: { cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 32768 },
  cpus,
}

describe('CPU details', () => {
  it('names the SMT sibling and the CPUs sharing each level', () => {
    const d = cpuDetails(classroom, 5)!
    expect(d.cpu).toMatchObject({ core: 1, llc: 0, smt_index: 1 })
    expect(d.siblings).toEqual([1])
    expect(d.llcCpus).toBe('0-1,4-5')
    expect(d.llcCount).toBe(4)
    expect(d.nodeCpus).toBe('0-7')
    expect([d.l1d, d.l2, d.l3]).toEqual(['32 KiB', '1 MiB', '32 MiB'])
  })
  it('is null for a CPU the machine does not have', () => {
    expect(cpuDetails(classroom, 8)).toBeNull()
  })
})
