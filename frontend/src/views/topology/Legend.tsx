/* The key to the topology drawing: each entry shows the mark itself, so colour is never the only cue. */
import type { ReactNode } from 'react'
import { THEME } from '../palette'
import { Defs, cpuFill } from './marks'

const LEGEND_STRIPES = 'kscope-smt-stripes-legend'

function Entry({ mark, children }: { mark: ReactNode; children: ReactNode }) {
  return (
    <li>
      <svg className="swatch" viewBox="0 0 28 20" width={28} height={20} aria-hidden="true">
        {mark}
      </svg>
      <span>{children}</span>
    </li>
  )
}

const box = { x: 1, y: 2, width: 26, height: 16, rx: 2 }
const cpu = { x: 5, y: 1, width: 18, height: 18, rx: 2 }

export function Legend() {
  return (
    <section className="panel legend" aria-label="Legend" data-testid="legend">
      <h2>Legend</h2>
      <p className="legend-note">Numbers are Linux CPU ids.</p>
      <ul>
        <Entry mark={<rect {...cpu} fill={cpuFill(0)} stroke={THEME.ink} />}>SMT thread 0 (solid)</Entry>
        <Entry
          mark={
            <>
              <Defs id={LEGEND_STRIPES} />
              <rect {...cpu} fill={cpuFill(1, LEGEND_STRIPES)} stroke={THEME.ink} />
            </>
          }
        >
          SMT thread 1 (striped)
        </Entry>
        <Entry mark={<rect {...box} fill={THEME.coreFill} stroke={THEME.coreStroke} />}>Core (thin grey)</Entry>
        <Entry mark={<rect {...box} fill={THEME.llcFill} stroke={THEME.ink} strokeWidth={1.5} />}>L3 / LLC (black)</Entry>
        <Entry mark={<rect {...box} fill={THEME.nodeFill} stroke={THEME.ink} strokeWidth={1.5} strokeDasharray="5 3" />}>
          NUMA node (dashed)
        </Entry>
        <Entry mark={<rect {...box} fill={THEME.socketFill} stroke={THEME.ink} strokeWidth={2.5} />}>Socket (thick)</Entry>
      </ul>
      <h3>When a CPU is selected</h3>
      <ul>
        <Entry mark={<rect {...cpu} fill="none" stroke={THEME.focus} strokeWidth={3.5} />}>the CPU (thick outline)</Entry>
        <Entry mark={<rect {...cpu} fill="none" stroke={THEME.focus} strokeWidth={2.5} strokeDasharray="4 2" />}>
          its SMT sibling (dashed)
        </Entry>
        <Entry mark={<rect {...box} fill="none" stroke={THEME.llcHighlight} strokeWidth={3.5} />}>
          its L3: CPUs sharing that cache (thick vermillion)
        </Entry>
      </ul>
    </section>
  )
}
