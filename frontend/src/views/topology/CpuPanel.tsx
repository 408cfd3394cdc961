/* The side panel: one CPU's place in the machine, and who shares what with it. */
import type { Topology } from '../../core/shared/types'
import { cpuDetails } from './details'

export function CpuPanel({ topology, cpu }: { topology: Topology; cpu: number | null }) {
  const d = cpu === null ? null : cpuDetails(topology, cpu)
  if (!d) {
    return (
      <section className="panel cpu-panel" aria-label="CPU details" data-testid="cpu-panel">
        <h2>CPU details</h2>
        <p className="hint">Hover over a CPU, or press Tab to walk through them, to see where it sits and what it shares.</p>
      </section>
    )
  }
  const c = d.cpu
  const siblings = d.siblings.length ? d.siblings.map((n) => `CPU ${n}`).join(', ') : 'none (no SMT)'
  return (
    <section className="panel cpu-panel" aria-label="CPU details" data-testid="cpu-panel">
      <h2>
        CPU <span data-testid="panel-cpu">{c.cpu}</span>
      </h2>
      <dl>
        <dt>Core</dt>
        <dd>
          core {c.core}, thread {c.smt_index} of {d.threadsPerCore}
        </dd>
        <dt>SMT sibling{d.siblings.length === 1 ? '' : 's'}</dt>
        <dd data-testid="panel-siblings">{siblings}</dd>
        <dt>L1d, L2</dt>
        <dd>
          {d.l1d}, {d.l2} (this core only)
        </dd>
        <dt>L3</dt>
        <dd>
          L3 #{c.llc} · {d.l3}, shared by {d.llcCount} CPUs: <code>{d.llcCpus}</code>
        </dd>
        <dt>NUMA node</dt>
        <dd>
          Node {c.node}, {d.nodeCount} CPUs: <code>{d.nodeCpus}</code>
        </dd>
        <dt>Socket</dt>
        <dd>
          Socket {c.socket}, {d.socketCount} CPUs: <code>{d.socketCpus}</code>
        </dd>
      </dl>
    </section>
  )
}
