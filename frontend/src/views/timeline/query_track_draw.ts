/*
 * An SQL answer shown as a track (core/traces/trace_sql.ts QueryTrack) over the CPU lanes:
 * each row a solid ink bar along the top of its CPU's lane (every lane when the row has no
 * cpu), outlined in white, its name written in white when it fits; a row without a
 * duration is a downward ink triangle. Shape and place carry it, not colour.
 */
import type { QueryTrack } from '../../core/traces/trace_sql'
import { THEME } from '../palette'
import { fitLabel, timeToX, type LaneLayout, type TimeWindow } from './layout'

export function drawQueryTrack(ctx: CanvasRenderingContext2D, t: QueryTrack, layout: LaneLayout, w: TimeWindow, width: number) {
  const lanes = new Map(layout.lanes.map((l) => [l.cpu, l]))
  ctx.save()
  for (let k = 0; k < t.ts.length; k++) {
    if (t.ts[k] > w.end || t.ts[k] + t.dur[k] < w.start) continue
    const targets = t.cpu[k] < 0 ? layout.lanes : lanes.has(t.cpu[k]) ? [lanes.get(t.cpu[k])!] : []
    const x0 = timeToX(t.ts[k], w, width)
    for (const lane of targets) {
      const h = Math.max(8, Math.min(24, lane.height * 0.25))
      const y = lane.y + 2
      ctx.fillStyle = THEME.ink
      if (t.dur[k] <= 0) {
        ctx.beginPath(); ctx.moveTo(x0 - 6, y); ctx.lineTo(x0 + 6, y); ctx.lineTo(x0, y + h); ctx.closePath(); ctx.fill()
        ctx.strokeStyle = '#ffffff'; ctx.lineWidth = 1; ctx.stroke()
        continue
      }
      const x1 = timeToX(t.ts[k] + t.dur[k], w, width)
      const left = Math.max(-2, x0), wpx = Math.max(2, Math.min(width + 2, x1) - left)
      ctx.fillRect(left, y, wpx, h)
      if (wpx > 4) { ctx.strokeStyle = '#ffffff'; ctx.lineWidth = 1; ctx.strokeRect(left + 0.5, y + 0.5, wpx - 1, h - 1) }
      const label = h >= 18 && t.label[k] ? fitLabel(t.label[k], wpx, 8.5) : ''
      if (label) {
        ctx.fillStyle = '#ffffff'
        ctx.font = '15px system-ui, sans-serif'
        ctx.textBaseline = 'middle'
        ctx.fillText(label, left + 4, y + h / 2 + 1)
      }
    }
  }
  ctx.restore()
}
