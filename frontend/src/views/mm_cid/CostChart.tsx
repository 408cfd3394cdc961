/*
 * Cost of each measured burst over simulated time (MODELLED): one mark per
 * 16 KiB burst, its shape the source of the data (same core, same L3, other
 * L3, other socket, DRAM), its style the kernel (hollow v6.12, filled v6.13),
 * a log scale because a cache-missing burst costs 10-100x a hot one. Hollow
 * marks are drawn bigger, so a v6.12 ring stays visible around a v6.13 dot. D3's
 * scales come from layout.ts (chartScales); React draws the SVG.
 */
import { symbol } from 'd3'
import { useMemo } from 'react'
import type { LessonRunView } from '../../core/lesson/lesson_controller'
import { SOURCE_LABELS, type BurstSource } from '../../core/lesson/lesson_timeline'
import { useElementWidth } from '../size'
import { chartScales } from './layout'
import { INK, MUTED, SOURCE_GLYPH, SOURCE_SYMBOL, VARIANT_LOOK } from './marks'

export interface CostChartProps {
  runs: readonly LessonRunView[]
  /** The step's time, ns (a vertical "now" line). */
  timeNs: number
  /** The whole run's length, ms (the time axis does not jump while stepping). */
  endMs: number
}

const MARGIN = { top: 6, right: 12, bottom: 24, left: 62 }

export function CostChart({ runs, timeNs, endMs }: CostChartProps) {
  const [ref, boxWidth] = useElementWidth<HTMLDivElement>()
  const width = boxWidth ?? 0
  const height = 128
  const measured = useMemo(() => runs.map((r) => r.bursts.filter((b) => !b.warmup)), [runs])
  const scales = useMemo(
    () => (width > 0 ? chartScales(measured.flat().map((b) => b.cost_ns), endMs, { width, height, margin: MARGIN }) : null),
    [measured, endMs, width],
  )
  const usedSources = [...new Set(measured.flat().map((b) => b.source))] as BurstSource[]
  return (
    <figure className="panel cost-chart" aria-label="Modelled cost of each burst over time">
      <figcaption>
        <strong>ns per 16 KiB burst</strong> over simulated time <span className="modelled-tag">MODELLED</span>
        <span className="chart-legend">
          {runs.map((r) => (
            <span key={r.variant} className="legend-item">
              <svg width="22" height="14" aria-hidden="true">
                <line x1="1" y1="7" x2="21" y2="7" stroke={VARIANT_LOOK[r.variant].colour} strokeWidth="3" strokeDasharray={VARIANT_LOOK[r.variant].dash} />
                <circle cx="11" cy="7" r="4.5" fill={VARIANT_LOOK[r.variant].hollow ? '#fff' : VARIANT_LOOK[r.variant].colour} stroke={VARIANT_LOOK[r.variant].colour} strokeWidth="2" />
              </svg>
              {VARIANT_LOOK[r.variant].hollow ? 'hollow' : 'filled'}: {r.variant}
            </span>
          ))}
          {usedSources.map((s) => (
            <span key={s} className="legend-item">
              {SOURCE_GLYPH[s]} {SOURCE_LABELS[s]}
            </span>
          ))}
        </span>
      </figcaption>
      <div className="chart-box" ref={ref}>
        {scales && (
          <svg width={width} height={height} role="img" aria-label={chartSummary(runs)} data-testid="cost-chart">
            {scales.yTicks.map((t) => (
              <g key={t.value}>
                <line x1={MARGIN.left} x2={width - MARGIN.right} y1={scales.y(t.value)} y2={scales.y(t.value)} stroke="#e2e2e2" />
                <text x={MARGIN.left - 6} y={scales.y(t.value)} textAnchor="end" dominantBaseline="central" fontSize={13}>
                  {t.label}
                </text>
              </g>
            ))}
            {scales.xTicks.map((t) => (
              <text key={t.value} x={scales.x(t.value)} y={height - MARGIN.bottom + 15} textAnchor="middle" fontSize={13}>
                {t.label}
              </text>
            ))}
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={height - MARGIN.bottom} y2={height - MARGIN.bottom} stroke={INK} />
            <line
              x1={scales.x(timeNs / 1e6)} x2={scales.x(timeNs / 1e6)} y1={MARGIN.top} y2={height - MARGIN.bottom}
              stroke={MUTED} strokeWidth={1.5} strokeDasharray="3 3" data-testid="chart-now"
            />
            {runs.map((r, i) => ({ r, i })).sort((a, b) => Number(VARIANT_LOOK[b.r.variant].hollow) - Number(VARIANT_LOOK[a.r.variant].hollow)).map(({ r, i }) => {
              const look = VARIANT_LOOK[r.variant]
              return (
                <g key={r.variant} data-testid={`chart-${r.variant}`}>
                  {measured[i].map((b) => (
                    <path
                      key={b.n}
                      d={symbol(SOURCE_SYMBOL[b.source], look.hollow ? 150 : 55)() ?? ''}
                      transform={`translate(${scales.x(b.ts_ns / 1e6)},${scales.y(Math.max(b.cost_ns, scales.y.domain()[0]))})`}
                      fill={look.hollow ? '#ffffff' : look.colour}
                      stroke={look.colour}
                      strokeWidth={2}
                    >
                      <title>{`${r.variant}: burst ${b.n} by thread ${b.tid} on CPU ${b.cpu}, area[${b.index}], ${Math.round(b.cost_ns)} ns, data from ${SOURCE_LABELS[b.source]}`}</title>
                    </path>
                  ))}
                </g>
              )
            })}
          </svg>
        )}
      </div>
    </figure>
  )
}

function chartSummary(runs: readonly LessonRunView[]): string {
  return runs.map((r) => `${r.variant}: ${r.totals.measured} measured bursts, mean ${Math.round(r.totals.mean_ns)} ns`).join('; ')
}
