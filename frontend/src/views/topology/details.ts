/*
 * What the side panel says about one CPU: pure, from the Topology alone.
 * Cache sharing is the point of the lesson, so each level lists the CPUs that
 * share it in Linux's cpulist format (as sysfs shared_cpu_list prints it).
 */
import { formatCpuList, formatKib } from '../../core/shared/cpulist'
import type { CpuInfo, Topology } from '../../core/shared/types'

export interface CpuDetails {
  cpu: CpuInfo
  /** The other hardware threads of the same core. */
  siblings: number[]
  threadsPerCore: number
  /** CPUs sharing the L3 (this one included), as a cpulist, and how many. */
  llcCpus: string
  llcCount: number
  nodeCpus: string
  nodeCount: number
  socketCpus: string
  socketCount: number
  l1d: string
  l2: string
  l3: string
}

export function cpuDetails(topology: Topology, cpuNumber: number): CpuDetails | null {
  const cpu = topology.cpus[cpuNumber]
  if (!cpu) return null
  const where = (same: (c: CpuInfo) => boolean) => topology.cpus.filter(same).map((c) => c.cpu)
  const llc = where((c) => c.llc === cpu.llc)
  const node = where((c) => c.node === cpu.node)
  const socket = where((c) => c.socket === cpu.socket)
  const { summary } = topology
  return {
    cpu,
    siblings: where((c) => c.core === cpu.core && c.cpu !== cpu.cpu),
    threadsPerCore: summary.threads_per_core,
    llcCpus: formatCpuList(llc),
    llcCount: llc.length,
    nodeCpus: formatCpuList(node),
    nodeCount: node.length,
    socketCpus: formatCpuList(socket),
    socketCount: socket.length,
    l1d: formatKib(summary.l1d_kib),
    l2: formatKib(summary.l2_kib),
    l3: formatKib(summary.l3_kib),
  }
}
