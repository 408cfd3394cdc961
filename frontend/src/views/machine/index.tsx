/*
 * The machine view: (topology, frame, open L3s, viewport) -> SVG.
 *
 * layout.ts places every box; this file draws them in three layers: the
 * machine (boxes and card frames, memoised per layout), what the frame says
 * about each CPU (rq depth, "idle", closed-L3 summaries), and the task chips.
 * Chips are keyed by tid, so when a task shows up on another CPU its chip is
 * the same element, and a D3 transition glides it from the old place to the
 * new one (~300 ms; none when the user prefers reduced motion). The view
 * never changes state: opening an L3 is a call to onToggleLlc.
 */
// interrupt comes from d3-transition: using it keeps that module (and the
// selection.transition() it installs) in the bundle, which d3's sideEffects:false would drop.
import { easeCubicInOut, interrupt, select } from 'd3'
import { memo, useLayoutEffect, useMemo, useRef, type KeyboardEvent } from 'react'
import type { SimFrame, SimTask, Topology } from '../../core/shared/types'
import { THEME } from '../palette'
import { useElementSize, usePrefersReducedMotion } from '../size'
import { MACHINE_METRICS as M, layoutMachine, type CardBox, type GroupBox, type MachineLayout, type Rect } from './layout'
import { PROCESS_COLOURS, busyText, commsText, llcSummary, processColours } from './summary'

export interface MachineViewProps {
  topology: Topology
  frame: SimFrame
  /** The frame before, when the change should be animated. */
  previous: SimFrame | null
  moveMs: number
  openLlcs: ReadonlySet<number>
  onToggleLlc: (llc: number) => void
}

export function MachineView({ topology, frame, previous, moveMs, openLlcs, onToggleLlc }: MachineViewProps) {
  const [ref, viewport] = useElementSize<HTMLDivElement>()
  const layout = useMemo(
    () => (viewport ? layoutMachine(topology, openLlcs, viewport) : null),
    [topology, openLlcs, viewport],
  )
  const tasks = useMemo(() => new Map(frame.tasks.map((t) => [t.tid, t])), [frame])
  const colours = useMemo(() => processColours(frame.tasks), [frame])
  const busy = frame.cpus.filter((c) => c.curr_tid >= 0).length

  return (
    <div className={`machine${layout?.overflows ? ' scrolls' : ''}`} ref={ref}>
      {layout && (
        <svg
          width={layout.width * layout.scale}
          height={layout.height * layout.scale}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="img"
          aria-label={`Modelled machine ${topology.name}: ${busy} of ${frame.cpus.length} CPUs running a task`}
          data-testid="machine"
        >
          <Boxes layout={layout} onToggleLlc={onToggleLlc} />
          <CpuStates layout={layout} frame={frame} tasks={tasks} colours={colours} />
          <Chips layout={layout} frame={frame} previous={previous} moveMs={moveMs} tasks={tasks} colours={colours} />
        </svg>
      )}
    </div>
  )
}

// ---- layer 1: boxes ----------------------------------------------------------------

const Boxes = memo(function Boxes({ layout, onToggleLlc }: { layout: MachineLayout; onToggleLlc: (llc: number) => void }) {
  return (
    <g className="boxes">
      {layout.groups.map((g) => (
        <Group key={`${g.kind}${g.id}`} box={g} onToggleLlc={onToggleLlc} />
      ))}
    </g>
  )
})

const LOOK = {
  socket: { fill: THEME.socketFill, width: 2.5, dash: undefined, weight: 700 },
  node: { fill: THEME.nodeFill, width: 1.5, dash: '8 5', weight: 600 },
  llc: { fill: THEME.llcFill, width: 1.5, dash: undefined, weight: 600 },
} as const

function Group({ box, onToggleLlc }: { box: GroupBox; onToggleLlc: (llc: number) => void }) {
  const look = LOOK[box.look]
  const isLlc = box.kind === 'llc'
  const linked = box.tab !== null // an open L3 drawn below the row where its closed siblings are
  return (
    <g data-testid={box.kind} {...{ [`data-${box.kind}`]: box.id }} data-collapsed={isLlc ? String(box.collapsed) : undefined}>
      {box.tab && (
        <>
          <rect {...rect(box.tab)} rx={6} fill={THEME.llcFill} stroke={OPEN_ACCENT} strokeWidth={3} />
          <LlcToggle box={box.tab} open onToggle={onToggleLlc} title={box.title} />
        </>
      )}
      <rect
        {...rect(box)}
        rx={6}
        fill={look.fill}
        stroke={linked ? OPEN_ACCENT : THEME.ink}
        strokeWidth={linked ? 3 : look.width}
        strokeDasharray={look.dash}
      />
      {isLlc ? (
        <LlcToggle box={box} open={!box.collapsed} onToggle={onToggleLlc} title={box.title} weight={look.weight} />
      ) : (
        <text x={box.x + 10} y={box.y + box.header / 2 + 1} dominantBaseline="central" fontSize={box.font} fontWeight={look.weight} className="box-label">
          {box.label}
        </text>
      )}
      {box.groups.map((g) => (
        <Group key={`${g.kind}${g.id}`} box={g} onToggleLlc={onToggleLlc} />
      ))}
      {box.cards.map((c) => (
        <CardFrame key={c.cpu.cpu} card={c} />
      ))}
    </g>
  )
}

/** Okabe–Ito blue: an open L3's place in the grid and its panel below share this thick outline. */
const OPEN_ACCENT = '#0072B2'

/** An L3's header strip as a button: click or Enter (or Space) opens or closes it. */
function LlcToggle(props: { box: GroupBox; open: boolean; onToggle: (llc: number) => void; title: string; weight?: number }) {
  const { box, open, onToggle, title, weight = 700 } = props
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault()
      e.stopPropagation()
      onToggle(box.id)
    }
  }
  return (
    <g
      className="llc-toggle"
      role="button"
      tabIndex={0}
      aria-expanded={open}
      aria-label={`${title}: ${open ? 'open, press Enter to close it to a summary' : 'closed, press Enter to show its CPUs'}`}
      data-testid="llc-toggle"
      onClick={() => onToggle(box.id)}
      onKeyDown={onKey}
    >
      <title>{title}</title>
      <rect className="hit" x={box.x + 3} y={box.y + 3} width={box.width - 6} height={box.header - 4} rx={4} />
      <text x={box.x + (box.collapsed ? 7 : 10)} y={box.y + box.header / 2 + 1} dominantBaseline="central" fontSize={box.font} fontWeight={weight}>
        {open ? '▾' : '▸'} {box.label}
      </text>
    </g>
  )
}

function CardFrame({ card }: { card: CardBox }) {
  return (
    <g data-testid="cpu-card" data-cpu={card.cpu.cpu}>
      <rect {...rect(card)} rx={5} fill="#ffffff" stroke={THEME.coreStroke} strokeWidth={1.5} />
      <text x={card.x + M.card.pad} y={card.y + M.title.y + M.title.height / 2} dominantBaseline="central" fontSize={M.title.font} fontWeight={700}>
        CPU {card.cpu.cpu}
      </text>
    </g>
  )
}

// ---- layer 2: what the frame says about each CPU -------------------------------------

function CpuStates(props: { layout: MachineLayout; frame: SimFrame; tasks: Map<number, SimTask>; colours: Map<number, number> }) {
  const { layout, frame, tasks, colours } = props
  return (
    <g className="cpu-states">
      {layout.cards.map((card) => {
        if (!card) return null
        const c = frame.cpus[card.cpu.cpu]
        if (!c) return null
        const hidden = c.queued.length - visibleQueue(card, c.queued.length)
        return (
          <g key={card.cpu.cpu} data-testid="cpu-state" data-cpu={c.cpu} data-curr={c.curr_tid}>
            <text
              x={card.x + card.width - M.card.pad}
              y={card.y + M.title.y + M.title.height / 2}
              dominantBaseline="central"
              textAnchor="end"
              fontSize={M.queue.font}
              fill={THEME.muted}
            >
              rq {c.nr_running}
            </text>
            {c.curr_tid < 0 && (
              <g data-testid="idle">
                <rect {...rect(card.run)} rx={5} fill="none" stroke={THEME.muted} strokeWidth={1.5} strokeDasharray="5 4" />
                <text x={card.run.x + card.run.width / 2} y={card.run.y + card.run.height / 2} dominantBaseline="central" textAnchor="middle" fontSize={M.run.font} fontStyle="italic" fill={THEME.muted}>
                  idle
                </text>
              </g>
            )}
            {c.queued.length === 0 ? (
              <text x={card.queue[0].x} y={card.queue[0].y + M.queue.height / 2} dominantBaseline="central" fontSize={M.queue.font} fill={THEME.muted}>
                queue empty
              </text>
            ) : (
              hidden > 0 && (
                <text
                  x={card.queue.at(-1)!.x + 4}
                  y={card.queue.at(-1)!.y + M.queue.height / 2}
                  dominantBaseline="central"
                  fontSize={M.queue.font}
                  fontWeight={700}
                >
                  +{hidden}
                </text>
              )
            )}
          </g>
        )
      })}
      {layout.llcs.map((l) =>
        l.collapsed || l.tab ? <ClosedLlc key={l.id} box={l.tab ?? l} frame={frame} tasks={tasks} colours={colours} /> : null,
      )}
    </g>
  )
}

/** Queue slots used by tasks (the last slot says "+N" when more wait than fit). */
function visibleQueue(card: CardBox, queued: number): number {
  return queued <= card.queue.length ? queued : card.queue.length - 1
}

/** Below this cell width a closed L3's strip becomes one bar (fraction busy). */
const MIN_CELL = 4
const CELL_GAP = 2

/** A closed L3: "3/16 busy" in its header, a strip with one cell per CPU (filled: running, in its process's colour), what runs. */
function ClosedLlc(props: { box: GroupBox; frame: SimFrame; tasks: Map<number, SimTask>; colours: Map<number, number> }) {
  const { box, frame, tasks, colours } = props
  const strip = box.strip!
  const summary = box.summary!
  const s = llcSummary(frame, box.cpus, tasks)
  const n = box.cpus.length
  const cell = Math.min(14, (strip.width + CELL_GAP) / n - CELL_GAP)
  const maxChars = Math.floor(summary.width / (M.collapsed.font * 0.56))
  return (
    <g data-testid="llc-summary" data-llc={box.id} data-busy={s.busy}>
      <text x={box.x + box.width - 7} y={box.y + box.header / 2 + 1} dominantBaseline="central" textAnchor="end" fontSize={box.font} fontWeight={700}>
        {busyText(s)}
      </text>
      {cell >= MIN_CELL ? (
        box.cpus.map((cpu, i) => {
          const tid = frame.cpus[cpu]?.curr_tid ?? -1
          const colour = tid >= 0 ? PROCESS_COLOURS[colours.get(tasks.get(tid)?.tgid ?? -1) ?? 0].fill : '#ffffff'
          return (
            <rect key={cpu} x={strip.x + i * (cell + CELL_GAP)} y={strip.y + 1} width={cell} height={strip.height - 2} rx={2} fill={colour} stroke={THEME.ink} strokeWidth={1}>
              <title>{`CPU ${cpu}: ${tid >= 0 ? `${tasks.get(tid)?.comm ?? '?'} (pid ${tid})` : 'idle'}`}</title>
            </rect>
          )
        })
      ) : (
        <>
          <rect x={strip.x} y={strip.y + 1} width={strip.width} height={strip.height - 2} fill="#ffffff" stroke={THEME.ink} strokeWidth={1} />
          <rect x={strip.x} y={strip.y + 1} width={(strip.width * s.busy) / Math.max(1, n)} height={strip.height - 2} fill={THEME.ink} />
        </>
      )}
      <text x={summary.x} y={summary.y + summary.height / 2} dominantBaseline="central" fontSize={M.collapsed.font}>
        {commsText(s, maxChars)}
      </text>
    </g>
  )
}

// ---- layer 3: task chips -----------------------------------------------------------

interface Chip {
  tid: number
  task: SimTask | undefined
  kind: 'run' | 'queue'
  at: Rect
  cpu: number
}

/** Every chip the frame shows: the running task and the visible queue of each open CPU card. */
function chipsOf(layout: MachineLayout, frame: SimFrame, tasks: Map<number, SimTask>): Chip[] {
  const chips: Chip[] = []
  for (const card of layout.cards) {
    if (!card) continue
    const c = frame.cpus[card.cpu.cpu]
    if (!c) continue
    if (c.curr_tid >= 0) chips.push({ tid: c.curr_tid, task: tasks.get(c.curr_tid), kind: 'run', at: card.run, cpu: c.cpu })
    const shown = visibleQueue(card, c.queued.length)
    for (let i = 0; i < shown; i++) {
      chips.push({ tid: c.queued[i], task: tasks.get(c.queued[i]), kind: 'queue', at: card.queue[i], cpu: c.cpu })
    }
  }
  return chips
}

/** "hackbench 1003", the name cut (…) so the pid always shows. */
export function chipLabel(comm: string, tid: number, width: number, font: number): string {
  const fits = Math.floor((width - 14) / (font * 0.58))
  const pid = String(tid)
  const room = fits - pid.length - 1
  const name = comm.length <= room ? comm : `${comm.slice(0, Math.max(1, room - 1))}…`
  return `${name} ${pid}`
}

function Chips(props: {
  layout: MachineLayout
  frame: SimFrame
  previous: SimFrame | null
  moveMs: number
  tasks: Map<number, SimTask>
  colours: Map<number, number>
}) {
  const { layout, frame, previous, moveMs, tasks, colours } = props
  // Tasks that changed CPU are drawn last, so their glide passes over the other chips.
  const chips = useMemo(() => {
    const prevCpu = new Map(previous?.tasks.map((t) => [t.tid, t.cpu]) ?? [])
    const moved = (c: Chip) => prevCpu.has(c.tid) && prevCpu.get(c.tid) !== c.cpu
    const all = chipsOf(layout, frame, tasks)
    return [...all.filter((c) => !moved(c)), ...all.filter(moved)]
  }, [layout, frame, tasks, previous])
  const layer = useRef<SVGGElement>(null)
  const shownAt = useRef(new Map<number, Rect>())
  const shownFrame = useRef<SimFrame | null>(null)
  const reduced = usePrefersReducedMotion()

  // After React has put each chip at its new place: glide the ones that moved from where they were.
  useLayoutEffect(() => {
    const was = shownAt.current
    const prevCpu = new Map(previous?.tasks.map((t) => [t.tid, t.cpu]) ?? [])
    // Only a new frame moves chips; a resize or an opened L3 just redraws them in place.
    const animate = previous !== null && moveMs > 0 && !reduced && frame !== shownFrame.current
    shownFrame.current = frame
    const now = new Map<number, Rect>()
    for (const el of layer.current?.querySelectorAll<SVGGElement>('[data-chip]') ?? []) {
      const chip = chips[Number(el.dataset.index)]
      if (!chip) continue
      now.set(chip.tid, chip.at)
      if (!animate) continue
      // From its last place on screen; a chip new to the screen flies in from the CPU it last ran on.
      let from = was.get(chip.tid)
      const lastCpu = prevCpu.get(chip.tid)
      if (!from && lastCpu !== undefined && lastCpu !== chip.cpu) from = layout.anchors[lastCpu]
      if (!from || (from.x === chip.at.x && from.y === chip.at.y)) continue
      const moved = lastCpu !== undefined && lastCpu !== chip.cpu
      interrupt(el)
      const sel = select(el)
      sel.attr('transform', `translate(${from.x},${from.y})`).classed('moving', moved)
      sel.transition().duration(moveMs).ease(easeCubicInOut)
        .attr('transform', `translate(${chip.at.x},${chip.at.y})`)
        .on('end interrupt', () => sel.classed('moving', false))
    }
    shownAt.current = now
  }, [chips, frame, previous, moveMs, reduced, layout])

  return (
    <g className="chips" ref={layer}>
      {chips.map((chip, i) => {
        const colour = PROCESS_COLOURS[colours.get(chip.task?.tgid ?? -1) ?? 0]
        const comm = chip.task?.comm ?? '?'
        const big = chip.kind === 'run'
        const font = big ? M.run.font : M.queue.font
        const label = big ? chipLabel(comm, chip.tid, chip.at.width, font) : String(chip.tid)
        return (
          <g
            key={chip.tid}
            data-chip=""
            data-index={i}
            data-testid={big ? 'task-chip' : 'queued-chip'}
            data-tid={chip.tid}
            data-cpu={chip.cpu}
            transform={`translate(${chip.at.x},${chip.at.y})`}
            className={`chip chip-${chip.kind}`}
          >
            <title>{`${comm} (pid ${chip.tid}) ${big ? 'running on' : 'waiting on'} CPU ${chip.cpu}`}</title>
            <rect width={chip.at.width} height={chip.at.height} rx={big ? 6 : 4} fill={colour.fill} stroke={THEME.ink} strokeWidth={big ? 1.5 : 1} />
            <text
              x={big ? 8 : chip.at.width / 2}
              y={chip.at.height / 2}
              dominantBaseline="central"
              textAnchor={big ? 'start' : 'middle'}
              fontSize={font}
              fontWeight={big ? 700 : 600}
              fill={colour.text}
            >
              {label}
            </text>
          </g>
        )
      })}
    </g>
  )
}

const rect = (r: Rect) => ({ x: r.x, y: r.y, width: r.width, height: r.height })
