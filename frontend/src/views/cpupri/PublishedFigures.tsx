/*
 * Seed 001's MEASURED figures (backend/kscope/data/published.json "cpupri_per_node": perf
 * c2c on a 2-socket, 480-CPU machine, 60 FFmpeg instances) beside this lesson's MODELLED
 * ones (the classroom workload on classroom-2s-16). Different machines and workloads:
 * compare the direction and the order of magnitude, not the numbers (`kscope repro
 * cpupri` runs the seed's own workload on hcc-2s-480).
 */
import published from '../../../../backend/kscope/data/published.json'
import type { Topology } from '../../core/shared/types'
import type { CpupriRunView } from '../../models/cpupri/lesson_store'
import { maskLines } from './mask_line'

interface Seed001 {
  source: string
  machine: { sockets: number; cpus: number }
  results: {
    c2c_cycles_per_load_before: [number, number]
    c2c_cycles_per_load_after: [number, number]
    kernel_cycles_pct_before: number
    kernel_cycles_pct_after: number
    fps_gain_pct: number
  }
}

export const SEED_001 = (published as unknown as Record<string, Seed001>).cpupri_per_node

/** A run's modelled cycles per load on its hot mask line(s) (loads-weighted over the nodes' lines), or null. */
export function modelledCyclesPerLoad(run: CpupriRunView, topology: Topology): number | null {
  const lines = maskLines(run.view, topology)
  const loads = lines.reduce((n, l) => n + l.total.loads, 0)
  if (!loads) return null
  return lines.reduce((n, l) => n + l.cyclesPerLoad * l.total.loads, 0) / loads
}

const range = (r: [number, number]) => `${r[0].toLocaleString('en')}–${r[1].toLocaleString('en')}`

export function PublishedFigures({ runs, topology }: { runs: readonly CpupriRunView[]; topology: Topology }) {
  const r = SEED_001.results
  const modelled = (variant: string) => {
    const run = runs.find((x) => x.variant === variant)
    const c = run ? modelledCyclesPerLoad(run, topology) : null
    return c === null ? 'not in this step' : `${Math.round(c).toLocaleString('en')}`
  }
  return (
    <table className="cp-published" data-testid="cp-published">
      <caption>cycles per load on the cpupri mask line (perf c2c "Load cycles")</caption>
      <thead>
        <tr>
          <th scope="col">masks</th>
          <th scope="col">MEASURED: seed 001, {SEED_001.machine.sockets} sockets, {SEED_001.machine.cpus} CPUs, 60 FFmpeg</th>
          <th scope="col">MODELLED: {topology.name}, classroom RT workload</th>
        </tr>
      </thead>
      <tbody>
        <tr><th scope="row">one global mask (before)</th><td>{range(r.c2c_cycles_per_load_before)} cycles</td><td>{modelled('global')} cycles</td></tr>
        <tr><th scope="row">per-node masks (after)</th><td>{range(r.c2c_cycles_per_load_after)} cycles</td><td>{modelled('pernode')} cycles</td></tr>
        <tr><th scope="row">kernel cycles</th><td>{r.kernel_cycles_pct_before}% → {r.kernel_cycles_pct_after}% (FPS +{r.fps_gain_pct}%)</td><td>not modelled (only the cpupri accesses are timed)</td></tr>
      </tbody>
    </table>
  )
}
