/*
 * One kernel's picture: CPUs grouped by L3 with their cid badges, the mm's
 * cidmask, the per-cid data areas and DRAM (layout.ts places, picture.ts says
 * what each mark shows). Motion explains the step:
 *
 *   - a cid handed out: its bit flashes from 0 to 1 and a "cid k" chip flies
 *     from the cidmask cell to the CPU's badge;
 *   - a burst that pulls its lines from elsewhere: an arrow grows from the L3
 *     (or core, or DRAM) that held them to the CPU, labelled with the source;
 *   - a bit cleared (the scan, a lazy put): it flashes as it goes to 0.
 *
 * D3 runs the transitions on elements React rendered; nothing moves when the
 * user prefers reduced motion (the arrows are then simply drawn). The view
 * never changes state.
 */
import { easeCubicInOut, interrupt, select } from 'd3'
import { useLayoutEffect, useMemo, useRef } from 'react'
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import type { Topology } from '../../core/shared/types'
import { useElementSize, useElementWidth, usePrefersReducedMotion } from '../size'
import { arrowGeometry, fitProjectorPicture, layoutPicture, type PictureLayout, type Rect } from './layout'
import { DIFF, INK, MOTION, MUTED, llcHue } from './marks'
import { pictureState, type PictureState } from './picture'

export interface LessonPictureProps {
  run: LessonRunView
  /** The other kernel's run (compare mode): cards whose cid differs are marked. */
  other?: LessonRunView
  topology: Topology
  cpus: readonly number[]
  cells: number
  moveMs: number
  title: string
  /**
   * Projector layout (presenter mode): larger, fewer labels (PROJECTOR_METRICS), laid out
   * for the box's width and height and scaled like an image to fill the box, so the
   * smallest label is 18 px or more on a 1280x720 projector. Off: the picture lays
   * itself out for its measured width, drawn 1:1.
   */
  projector?: boolean
}

export function LessonPicture({ run, other, topology, cpus, cells, moveMs, title, projector = false }: LessonPictureProps) {
  const [widthRef, measured] = useElementWidth<HTMLDivElement>()
  const [boxRef, box] = useElementSize<HTMLDivElement>()
  const ref = projector ? boxRef : widthRef
  const fitted = useMemo(
    () => (projector && box ? fitProjectorPicture({ topology, cpus, cells }, box.width, box.height) : null),
    [projector, topology, cpus, cells, box],
  )
  const width = measured ?? 0
  const layout = useMemo(
    () => (projector ? (fitted?.layout ?? null) : width > 0 ? layoutPicture({ topology, cpus, cells, width }) : null),
    [projector, fitted, topology, cpus, cells, width],
  )
  const state = useMemo(() => pictureState(run, cpus, cells, other, topology), [run, cpus, cells, other, topology])
  const tag = run.variant.replace('.', '_')
  return (
    <div className={`lesson-picture${projector ? ' fit' : ''}`} ref={ref} data-testid={`picture-${run.variant}`}
      data-scale={fitted ? fitted.scale.toFixed(3) : undefined}>
      {layout && (
        <svg
          width={projector ? '100%' : layout.width}
          height={projector ? '100%' : layout.height}
          preserveAspectRatio="xMidYMid meet"
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="img"
          aria-label={`${title}: ${state.bits.filter(Boolean).length} cids allocated`}
        >
          <defs>
            <pattern id={`cold-${tag}`} width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="8" height="8" fill="#f2f2f2" />
              <line x1="0" y1="0" x2="0" y2="8" stroke="#9a9a9a" strokeWidth="3" />
            </pattern>
            <marker id={`head-${tag}`} viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill={INK} />
            </marker>
          </defs>
          <Cpus layout={layout} state={state} />
          <Cells layout={layout} state={state} tag={tag} />
          <Motion layout={layout} state={state} run={run} moveMs={moveMs} tag={tag} />
        </svg>
      )}
    </div>
  )
}

const rect = (r: Rect) => ({ x: r.x, y: r.y, width: r.width, height: r.height })

function Cpus({ layout, state }: { layout: PictureLayout; state: PictureState }) {
  const m = layout.metrics
  const byCpu = new Map(state.cards.map((c) => [c.cpu, c]))
  return (
    <g className="cpus">
      {layout.socketLabels.map((l) => (
        <text key={l.text} x={l.x} y={l.y} dominantBaseline="central" fontSize={m.text.socket} fontWeight={700}>
          {l.text}
        </text>
      ))}
      {layout.groups.map((g) => (
        <g key={g.llc} data-testid="lesson-llc" data-llc={g.llc}>
          <rect {...rect(g)} rx={6} fill="#ffffff" stroke={INK} strokeWidth={1.5} />
          <rect x={g.x} y={g.y} width={g.width} height={g.header} rx={6} fill={llcHue(g.llc).fill} opacity={0.35} />
          <text x={g.x + 7} y={g.y + g.header / 2 + 1} dominantBaseline="central" fontSize={m.text.group} fontWeight={700}>
            {g.label}
          </text>
          {g.cards.map((c) => {
            const s = byCpu.get(c.cpu)
            if (!s) return null
            return (
              <g key={c.cpu} data-testid="lesson-cpu" data-cpu={c.cpu} data-cid={s.cid} data-tid={s.tid} data-differs={s.differs || undefined}>
                <title>{cardTitle(s)}</title>
                <rect {...rect(c)} rx={5} fill="#ffffff" stroke={s.differs ? DIFF : '#8a8a8a'} strokeWidth={s.differs ? 3 : 1.5} strokeDasharray={s.differs ? '5 3' : undefined} />
                <text x={c.x + 4} y={c.y + m.card.head / 2 + 1} dominantBaseline="central" fontSize={c.cpu >= 100 ? m.text.cpuWide : m.text.cpu} fontWeight={700}>
                  CPU {c.cpu}
                </text>
                {s.differs && (
                  <g data-testid="differs-mark">
                    <rect x={c.x + c.width - 2 - m.text.differs} y={c.y + 2} width={m.text.differs} height={m.text.differs + 3} rx={3} fill={DIFF} />
                    <text x={c.x + c.width - 2 - m.text.differs / 2} y={c.y + Math.ceil(2 + (m.text.differs + 3) / 2)} dominantBaseline="central" textAnchor="middle" fontSize={m.text.differs} fontWeight={700} fill="#000">
                      ≠
                    </text>
                  </g>
                )}
                <Badge cx={c.badge.cx} cy={c.badge.cy} r={c.badge.r} cid={s.cid} lazy={s.lazy} font={m.text.cpu} lazyFont={m.text.lazy} />
                {s.recent >= 0 ? (
                  <text x={c.badge.cx + c.badge.r + 4} y={c.badge.cy} dominantBaseline="central" fontSize={m.text.note} fill={INK}>
                    recent {s.recent}
                  </text>
                ) : (
                  s.cid < 0 && (
                    <text x={c.badge.cx + c.badge.r + 4} y={c.badge.cy} dominantBaseline="central" fontSize={m.text.note} fill={MUTED}>
                      no cid
                    </text>
                  )
                )}
                {s.tid >= 0 ? (
                  <g data-testid="lesson-thread">
                    <rect {...rect(c.chip)} rx={4} fill="#56B4E9" stroke={INK} strokeWidth={1} />
                    <text x={c.chip.x + c.chip.width / 2} y={c.chip.y + c.chip.height / 2 + 1} dominantBaseline="central" textAnchor="middle" fontSize={m.text.chip} fontWeight={700}>
                      T{s.tid}
                    </text>
                  </g>
                ) : (
                  <text x={c.chip.x + c.chip.width / 2} y={c.chip.y + c.chip.height / 2 + 1} dominantBaseline="central" textAnchor="middle" fontSize={m.text.chip} fontStyle="italic" fill={MUTED}>
                    idle
                  </text>
                )}
              </g>
            )
          })}
        </g>
      ))}
    </g>
  )
}

function cardTitle(s: PictureState['cards'][number]): string {
  const cid = s.cid >= 0 ? `owns cid ${s.cid}${s.lazy ? ' (LAZY_PUT: a scan wants it back)' : ''}` : 'owns no cid'
  const recent = s.recent >= 0 ? `, recent_cid ${s.recent}` : ''
  const runs = s.tid >= 0 ? `, thread ${s.tid} running` : ', idle'
  return `CPU ${s.cpu}: ${cid}${recent}${runs}`
}

/** The CPU's cid: a dark disc with the number; a dashed empty circle with "–" for none; "L" mark for LAZY_PUT. */
function Badge({ cx, cy, r, cid, lazy, font, lazyFont }: { cx: number; cy: number; r: number; cid: number; lazy: boolean; font: number; lazyFont: number }) {
  if (cid < 0) {
    return (
      <g data-testid="cid-badge" data-cid="-1">
        <circle cx={cx} cy={cy} r={r} fill="#ffffff" stroke={MUTED} strokeWidth={1.5} strokeDasharray="3 3" />
        <text x={cx} y={cy + 1} dominantBaseline="central" textAnchor="middle" fontSize={font} fill={MUTED}>
          –
        </text>
      </g>
    )
  }
  return (
    <g data-testid="cid-badge" data-cid={cid}>
      <circle cx={cx} cy={cy} r={r} fill={INK} stroke={lazy ? MOTION : INK} strokeWidth={lazy ? 3 : 1} strokeDasharray={lazy ? '3 2' : undefined} />
      <text x={cx} y={cy + 1} dominantBaseline="central" textAnchor="middle" fontSize={font} fontWeight={700} fill="#ffffff">
        {cid}
      </text>
      {lazy && (
        <text x={cx + r + 4} y={cy + 1} dominantBaseline="central" fontSize={lazyFont} fontWeight={700}>
          LAZY
        </text>
      )}
    </g>
  )
}

function Cells({ layout, state, tag }: { layout: PictureLayout; state: PictureState; tag: string }) {
  const m = layout.metrics
  return (
    <g className="cells">
      {layout.rowLabels.map((l, i) => (
        <g key={i}>
          <text x={l.cid.x} y={l.cid.y} dominantBaseline="central" fontSize={m.text.row} fontWeight={700}>
            cidmask
          </text>
          <text x={l.area.x} y={l.area.y - (m.projector ? 11 : 8)} dominantBaseline="central" fontSize={m.text.row} fontWeight={700}>
            data
          </text>
          {/* Projector: "16 KiB" fits the gutter at 18 px ("/cid": one area per cid, the cells say it) */}
          <text x={l.area.x} y={l.area.y + (m.projector ? 12 : 9)} dominantBaseline="central" fontSize={m.text.rowNote} fill={MUTED}>
            {m.projector ? '16 KiB' : '16 KiB/cid'}
          </text>
        </g>
      ))}
      {layout.cid.map((c) => {
        const set = state.bits[c.index]
        return (
          <g key={c.index} data-testid="cid-bit" data-cid={c.index} data-set={set ? 1 : 0}>
            <title>{`cid ${c.index}: ${set ? '1 — allocated (owned by a CPU)' : '0 — free'}`}</title>
            <rect {...rect(c)} rx={3} fill={set ? INK : '#ffffff'} stroke={set ? INK : '#8a8a8a'} strokeWidth={1.5} strokeDasharray={set ? undefined : '4 3'} />
            <text x={c.x + c.width / 2} y={c.y + c.height / 2 + 1} dominantBaseline="central" textAnchor="middle" fontSize={m.text.bit} fontWeight={700} fill={set ? '#ffffff' : MUTED}>
              {set ? '1' : '0'}
            </text>
            <text x={c.x + c.width / 2} y={c.y + c.height + m.cell.indexGap / 2} dominantBaseline="central" textAnchor="middle" fontSize={m.text.index} fill={INK}>
              {c.index}
            </text>
          </g>
        )
      })}
      {layout.area.map((c) => {
        const a = state.areas[c.index]
        if (!a) return null
        const hue = a.kind === 'cached' ? llcHue(a.llc) : null
        const fill = hue ? hue.fill : a.kind === 'cold' ? `url(#cold-${tag})` : '#ffffff'
        const text = hue ? hue.text : a.kind === 'cold' ? INK : MUTED
        return (
          <g key={c.index} data-testid="area" data-area={c.index} data-kind={a.kind} data-llc={a.llc}>
            <title>{a.title}</title>
            <rect {...rect(c)} rx={3} fill={fill} stroke={a.kind === 'unused' ? '#8a8a8a' : INK} strokeWidth={1.5} strokeDasharray={a.kind === 'unused' ? '4 3' : undefined} />
            <text x={c.x + c.width / 2} y={c.y + c.height / 2 + (a.lines[1] ? -(m.projector ? 11 : 8) : 1)} dominantBaseline="central" textAnchor="middle" fontSize={m.text.area} fontWeight={700} fill={text}>
              {a.lines[0]}
            </text>
            <text x={c.x + c.width / 2} y={c.y + c.height / 2 + (m.projector ? 12 : 9)} dominantBaseline="central" textAnchor="middle" fontSize={m.text.area} fontWeight={a.kind === 'cached' ? 700 : 400} fill={text}>
              {a.lines[1]}
            </text>
          </g>
        )
      })}
      <g data-testid="dram">
        <rect {...rect(layout.dram)} rx={3} fill={`url(#cold-${tag})`} stroke={INK} strokeWidth={1} />
        <text x={layout.dram.x + 8} y={layout.dram.y + layout.dram.height / 2 + 1} dominantBaseline="central" fontSize={m.text.dram} fontWeight={700}>
          {layout.dram.width > (m.projector ? 36 * m.text.dram : 420) ? 'DRAM — where a line comes from when no cache holds it' : 'DRAM (lines in no cache)'}
        </text>
      </g>
    </g>
  )
}

/** The step's transfer arrows (drawn, then grown in) and the cid chips' flights. */
function Motion({ layout, state, run, moveMs, tag }: { layout: PictureLayout; state: PictureState; run: LessonRunView; moveMs: number; tag: string }) {
  const layer = useRef<SVGGElement>(null)
  const reduced = usePrefersReducedMotion()
  const shownView = useRef<unknown>(null)
  const arrows = state.transfers.flatMap((t) => {
    const to = layout.cards.get(t.cpu)
    if (!to) return []
    const from = t.fromCpu === null ? { ...layout.dram, x: Math.min(Math.max(to.x, layout.dram.x), layout.dram.x + layout.dram.width - 40), width: 40 } : layout.anchorOf(t.fromCpu)
    if (!from) return []
    return [{ ...t, path: arrowGeometry(from, to).d }]
  })

  // A new step (not a resize): flash the changed bits, fly the new cids, grow the arrows.
  useLayoutEffect(() => {
    const g = layer.current
    if (!g) return
    const fresh = shownView.current !== run.view
    shownView.current = run.view
    const animate = fresh && run.previous !== null && moveMs > 0 && !reduced
    const sel = select(g)
    const svg = select(g.ownerSVGElement)
    sel.selectAll('.flight').remove()
    svg.selectAll<SVGGElement, unknown>('[data-testid="cid-badge"]').each(function () {
      interrupt(this)
      select(this).attr('opacity', null)
    })
    // The cid arrives first, then the burst pulls its data: arrows start when the chips land.
    const arrowDelay = state.flights.length ? moveMs : 0
    sel.selectAll<SVGPathElement, unknown>('path.transfer').each(function () {
      interrupt(this)
      const len = this.getTotalLength?.() ?? 0
      const marker = this.dataset.marker ?? null
      if (!animate || !len) {
        select(this).attr('stroke-dasharray', null).attr('stroke-dashoffset', null).attr('marker-end', marker)
        return
      }
      select(this).attr('stroke-dasharray', `${len} ${len}`).attr('stroke-dashoffset', len).attr('marker-end', null)
        .transition().delay(arrowDelay).duration(moveMs).ease(easeCubicInOut).attr('stroke-dashoffset', 0)
        .on('end interrupt', function () {
          select(this).attr('stroke-dasharray', null).attr('stroke-dashoffset', null).attr('marker-end', marker)
        })
    })
    if (!animate) return
    // A CPU's new badge shows when its chip lands.
    for (const f of state.flights) {
      svg.select(`[data-testid="lesson-cpu"][data-cpu="${f.cpu}"] [data-testid="cid-badge"]`)
        .attr('opacity', 0).transition().delay(moveMs).duration(120).attr('opacity', 1)
    }
    for (const [cid, dir] of state.changed) {
      const cell = layout.cid[cid]
      if (!cell) continue
      sel.append('rect').attr('class', 'flight').attr('x', cell.x - 4).attr('y', cell.y - 4)
        .attr('width', cell.width + 8).attr('height', cell.height + 8).attr('rx', 5)
        .attr('fill', 'none').attr('stroke', MOTION).attr('stroke-width', dir > 0 ? 5 : 3).attr('stroke-dasharray', dir > 0 ? null : '4 3')
        .transition().delay(moveMs * 1.2).duration(moveMs).attr('opacity', 0).remove()
    }
    for (const f of state.flights) {
      const cell = layout.cid[f.cid]
      const card = layout.cards.get(f.cpu)
      if (!cell || !card) continue
      const chip = sel.append('g').attr('class', 'flight').attr('transform', `translate(${cell.x + cell.width / 2},${cell.y + cell.height / 2})`)
      const fs = layout.metrics.text.flight
      chip.append('rect').attr('x', -fs * 1.7).attr('y', -fs * 0.93).attr('width', fs * 3.4).attr('height', fs * 1.86).attr('rx', fs * 0.93)
        .attr('fill', MOTION).attr('stroke', INK).attr('stroke-width', 1.5)
      chip.append('text').attr('text-anchor', 'middle').attr('dominant-baseline', 'central').attr('y', 1)
        .attr('font-size', fs).attr('font-weight', 700).text(`cid ${f.cid}`)
      chip.transition().duration(moveMs).ease(easeCubicInOut)
        .attr('transform', `translate(${card.badge.cx},${card.badge.cy})`)
        .transition().duration(moveMs * 0.4).attr('opacity', 0).remove()
    }
  }, [run, state, layout, moveMs, reduced])

  return (
    <g className="motion" ref={layer}>
      {arrows.map((a) => (
        <g key={a.n} data-testid="transfer" data-source={a.source} data-cpu={a.cpu} data-from={a.fromCpu ?? 'dram'}>
          <title>{a.label}</title>
          <path className="transfer halo" d={a.path} fill="none" stroke="#ffffff" strokeWidth={8} strokeLinecap="round" />
          <path className="transfer" d={a.path} fill="none" stroke={INK} strokeWidth={3.5} markerEnd={`url(#head-${tag})`} data-marker={`url(#head-${tag})`} />
        </g>
      ))}
    </g>
  )
}
