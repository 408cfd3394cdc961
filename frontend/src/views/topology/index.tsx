/*
 * The topology view: (topology, focused CPU, viewport) -> SVG.
 *
 * layout.ts computes every box; this file only draws them. The machine is
 * drawn once per layout (a memoised static layer) and the focus highlight is a
 * thin overlay on top, so hovering across 384 CPUs re-renders a few elements.
 * Hover and keyboard focus are read with one delegated handler on the <svg>
 * and reported through onFocusCpu: the view never changes state itself.
 */
import { memo, useMemo, type FocusEvent, type MouseEvent } from 'react'
import type { Topology } from '../../core/shared/types'
import { THEME } from '../palette'
import { useElementSize } from '../size'
import { Defs, cpuFill } from './marks'
import {
  MAX_SCALE, flattenLayout, layoutTopology, type CpuBox, type GroupBox, type Rect, type TopologyLayout,
} from './layout'

export interface TopologyViewProps {
  topology: Topology
  focusedCpu: number | null
  onFocusCpu: (cpu: number) => void
}

export function TopologyView({ topology, focusedCpu, onFocusCpu }: TopologyViewProps) {
  const [ref, viewport] = useElementSize<HTMLDivElement>()
  const layout = useMemo(() => layoutTopology(topology, viewport ?? undefined), [topology, viewport])

  const cpuFromEvent = (e: MouseEvent | FocusEvent) => {
    const el = (e.target as Element).closest('[data-cpu]')
    if (el) onFocusCpu(Number(el.getAttribute('data-cpu')))
  }

  const s = topology.summary
  return (
    <div className="topology" ref={ref}>
      <svg
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        preserveAspectRatio="xMidYMin meet"
        style={{ maxWidth: layout.width * MAX_SCALE, maxHeight: layout.height * MAX_SCALE }}
        aria-label={`CPU topology of ${topology.name}: ${s.sockets} sockets, ${s.nodes} NUMA nodes, ${s.llcs} L3 caches, ${s.cores} cores, ${s.cpus} CPUs`}
        onMouseOver={cpuFromEvent}
        onFocus={cpuFromEvent}
      >
        <Defs />
        <Machine layout={layout} />
        <Highlight layout={layout} focusedCpu={focusedCpu} />
      </svg>
    </div>
  )
}

const Machine = memo(function Machine({ layout }: { layout: TopologyLayout }) {
  return (
    <g className="machine">
      {layout.groups.map((g) => (
        <Group key={g.id} box={g} layout={layout} />
      ))}
    </g>
  )
})

/** How each kind of group box is drawn: line style carries the kind, not colour. */
const GROUP_LOOK = {
  socket: { rx: 8, fill: THEME.socketFill, strokeWidth: 2.5, dash: undefined, weight: 700 },
  node: { rx: 6, fill: THEME.nodeFill, strokeWidth: 1.5, dash: '8 5', weight: 600 },
  llc: { rx: 4, fill: THEME.llcFill, strokeWidth: 1.5, dash: undefined, weight: 600 },
} as const

function Group({ box, layout }: { box: GroupBox; layout: TopologyLayout }) {
  const look = GROUP_LOOK[box.kind]
  const m = layout.metrics
  const idAttr = { [`data-${box.kind}`]: box.id }
  return (
    <g data-testid={box.kind} {...idAttr}>
      <rect {...rect(box)} rx={look.rx} fill={look.fill} stroke={THEME.ink} strokeWidth={look.strokeWidth} strokeDasharray={look.dash} />
      <Label box={box} style={m[box.kind]} weight={look.weight} text={box.label} />
      {box.groups.map((g) => (
        <Group key={g.id} box={g} layout={layout} />
      ))}
      {box.cores.map((core) => (
        <g key={core.core} data-testid="core" data-core={core.core}>
          <rect {...rect(core)} rx={3} fill={THEME.coreFill} stroke={THEME.coreStroke} strokeWidth={1} />
          {layout.grid.coreLabels && <Label box={core} style={m.core} weight={400} text={core.label} />}
          {core.cpus.map((cpu) => (
            <Cpu key={cpu.cpu.cpu} box={cpu} font={m.cpuFont} />
          ))}
        </g>
      ))}
    </g>
  )
}

function Cpu({ box, font }: { box: CpuBox; font: number }) {
  const c = box.cpu
  return (
    <g
      data-testid="cpu"
      data-cpu={c.cpu}
      tabIndex={0}
      role="button"
      aria-label={`CPU ${c.cpu}: core ${c.core}, SMT thread ${c.smt_index}, L3 #${c.llc}, node ${c.node}, socket ${c.socket}`}
      className="cpu"
    >
      <rect {...rect(box)} rx={3} fill={cpuFill(c.smt_index)} stroke={THEME.ink} strokeWidth={1} />
      <CpuLabel box={box} font={font} />
    </g>
  )
}

function CpuLabel({ box, font }: { box: CpuBox; font: number }) {
  return (
    <text
      x={box.x + box.width / 2}
      y={box.y + box.height / 2}
      dominantBaseline="central"
      textAnchor="middle"
      fontSize={font}
      fontWeight={700}
      className="cpu-label"
    >
      {box.label}
    </text>
  )
}

function Label({ box, style, weight, text }: { box: Rect; style: { header: number; pad: number; font: number }; weight: number; text: string }) {
  return (
    <text
      x={box.x + style.pad + 2}
      y={box.y + style.header / 2 + 1}
      dominantBaseline="central"
      fontSize={style.font}
      fontWeight={weight}
      fill={THEME.ink}
      className="box-label"
    >
      {text}
    </text>
  )
}

/** Outlines for the focused CPU, its SMT siblings and its L3 domain (line styles, not just colour). */
function Highlight({ layout, focusedCpu }: { layout: TopologyLayout; focusedCpu: number | null }) {
  const boxes = useMemo(() => flattenLayout(layout), [layout])
  const box = focusedCpu === null ? undefined : layout.cpus[focusedCpu]
  if (!box) return null
  const c = box.cpu
  const llcs = boxes.llcs.filter((l) => l.id === c.llc)
  const siblings = boxes.cores.filter((k) => k.core === c.core).flatMap((k) => k.cpus).filter((b) => b.cpu.cpu !== c.cpu)
  return (
    <g className="highlight" pointerEvents="none" fill="none" data-testid="highlight">
      {llcs.map((l, i) => (
        <rect key={i} {...rect(l)} rx={4} stroke={THEME.llcHighlight} strokeWidth={4} />
      ))}
      {siblings.map((s) => (
        <rect key={s.cpu.cpu} {...rect(s)} rx={3} stroke={THEME.focus} strokeWidth={3} strokeDasharray="5 3" />
      ))}
      <rect {...rect(box)} rx={3} stroke={THEME.focus} strokeWidth={4} />
      {/* The number again, on top of the outline: it must stay readable where it matters most. */}
      <CpuLabel box={box} font={layout.metrics.cpuFont} />
    </g>
  )
}

const rect = (r: Rect) => ({ x: r.x, y: r.y, width: r.width, height: r.height })
