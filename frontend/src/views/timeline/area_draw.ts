/*
 * The selected area and the two markers on the CPU lanes' canvas:
 *
 *   area     a light wash over the chosen lanes in its time span, outlined in
 *            solid ink (2.5 px) and labelled "area" at its bottom left
 *   markers  solid ink lines with a flag "A" / "B" (white on ink) at the top;
 *            with both, a double-headed arrow between them and "Δ <time>"
 *
 * Shapes and letters carry the meaning; the wash's hue adds nothing needed.
 */
import type { Area } from '../../core/traces/trace_area'
import { formatDuration } from '../../core/shared/units'
import { THEME } from '../palette'
import { timeToX, type LaneLayout, type TimeWindow } from './layout'

export type Markers = readonly [number | null, number | null] | null | undefined

const FLAG_FONT = 'bold 18px system-ui, sans-serif'

export function drawArea(ctx: CanvasRenderingContext2D, area: Area, layout: LaneLayout, w: TimeWindow, width: number, _t0: number) {
  const x0 = Math.max(-2, timeToX(area.start, w, width))
  const x1 = Math.min(width + 2, timeToX(area.end, w, width))
  if (x1 < 0 || x0 > width) return
  const cpus = new Set(area.cpus)
  const lanes = layout.lanes.filter((l) => cpus.has(l.cpu))
  if (!lanes.length) return
  ctx.save()
  ctx.fillStyle = 'rgba(0,114,178,0.14)'
  for (const l of lanes) ctx.fillRect(x0, l.y, Math.max(1, x1 - x0), l.height)
  const top = Math.min(...lanes.map((l) => l.y))
  const bottom = Math.max(...lanes.map((l) => l.y + l.height))
  ctx.strokeStyle = THEME.ink
  ctx.lineWidth = 2.5
  ctx.strokeRect(x0 + 1.25, top + 1.25, Math.max(1, x1 - x0 - 2.5), bottom - top - 2.5)
  if (x1 - x0 > 60) {
    ctx.font = FLAG_FONT
    ctx.textBaseline = 'top'
    const tw = ctx.measureText('area').width
    // Bottom-left, so the markers' flags and delta on top stay readable.
    ctx.fillStyle = THEME.ink
    ctx.fillRect(Math.max(0, x0) + 3, bottom - 25, tw + 8, 22)
    ctx.fillStyle = '#ffffff'
    ctx.fillText('area', Math.max(0, x0) + 7, bottom - 23)
  }
  ctx.restore()
}

/** `top`: where the lanes begin (below any group header drawn over the canvas). */
export function drawMarkers(ctx: CanvasRenderingContext2D, markers: Markers, height: number, w: TimeWindow, width: number, top = 0) {
  if (!markers) return
  ctx.save()
  const xs: (number | null)[] = markers.map((m) => (m === null ? null : timeToX(m, w, width)))
  xs.forEach((x, i) => {
    if (x === null || x < -1 || x > width + 1) return
    ctx.strokeStyle = THEME.ink
    ctx.lineWidth = 2
    ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, height); ctx.stroke()
    const label = i === 0 ? 'A' : 'B'
    ctx.font = FLAG_FONT
    ctx.textBaseline = 'top'
    ctx.fillStyle = THEME.ink
    ctx.fillRect(x - (i === 0 ? 22 : 0), top, 22, 22)
    ctx.fillStyle = '#ffffff'
    ctx.fillText(label, x - (i === 0 ? 17 : -5), top + 2)
  })
  const [a, b] = markers
  const [xa, xb] = xs
  if (a !== null && b !== null && xa !== null && xb !== null) {
    const l = Math.max(0, Math.min(xa, xb)), r = Math.min(width, Math.max(xa, xb))
    const y = top + 34
    ctx.strokeStyle = THEME.ink
    ctx.fillStyle = THEME.ink
    ctx.lineWidth = 1.5
    ctx.beginPath(); ctx.moveTo(l, y); ctx.lineTo(r, y); ctx.stroke()
    for (const [x, dir] of [[l, 1], [r, -1]] as const) {
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + dir * 8, y - 5); ctx.lineTo(x + dir * 8, y + 5); ctx.closePath(); ctx.fill()
    }
    const text = `Δ ${formatDuration(Math.abs(b - a))}`
    ctx.font = FLAG_FONT
    ctx.textBaseline = 'middle'
    const tw = ctx.measureText(text).width
    const cx = Math.max(4, Math.min(width - tw - 8, (l + r) / 2 - tw / 2))
    ctx.fillStyle = '#ffffff'
    ctx.fillRect(cx - 4, y + 6, tw + 8, 24)
    ctx.strokeRect(cx - 4 + 0.5, y + 6.5, tw + 7, 23)
    ctx.fillStyle = THEME.ink
    ctx.fillText(text, cx, y + 18)
  }
  ctx.restore()
}
