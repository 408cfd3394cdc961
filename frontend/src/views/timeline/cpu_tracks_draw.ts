/*
 * irq, softirq and idle-state spans and frequency counters (core/traces/trace_cpu_tracks.ts)
 * inside each CPU lane, below the run slices' labels:
 *
 *   irq       a solid ink bar (upper strip near the lane's bottom), "irq 36 …" in white
 *   softirq   a white bar with an ink outline (lowest strip), "softirq RCU" in ink
 *   idle C-n  a light grey bar with a dotted ink top edge (lowest strip), "C1"
 *   frequency a dashed ink step line across the lane, its value written where it fits
 *
 * Fill, outline and line style tell them apart; the labels say what they are.
 */
import { SPAN_IDLE, SPAN_IRQ, formatKhz, type CpuTracks } from '../../core/traces/trace_cpu_tracks'
import { THEME } from '../palette'
import { fitLabel, timeToX, type LaneLayout, type TimeWindow } from './layout'

const STRIP = 14
const FONT = 'bold 12px system-ui, sans-serif'

/** Returns how many spans it drew (the canvas reports it for tests: data-cpu-spans). */
export function drawCpuTracks(ctx: CanvasRenderingContext2D, t: CpuTracks, layout: LaneLayout, w: TimeWindow, width: number): number {
  if (!t.spans.size && !t.freq.size) return 0
  let drawn = 0
  ctx.save()
  ctx.font = FONT
  ctx.textBaseline = 'middle'
  let lo = Infinity, hi = -Infinity
  for (const f of t.freq.values()) for (const v of f.value) { lo = Math.min(lo, v); hi = Math.max(hi, v) }
  for (const lane of layout.lanes) {
    if (lane.height < 40) continue
    const bottom = lane.y + lane.height - 2
    const x = t.spans.get(lane.cpu)
    if (x) {
      // Idle first, then softirq over it, then irq in its own strip above.
      for (const pass of [SPAN_IDLE, 1, SPAN_IRQ]) {
        for (let k = 0; k < x.start.length; k++) {
          if (x.kind[k] !== pass || x.end[k] < w.start || x.start[k] > w.end) continue
          const x0 = Math.max(-2, timeToX(x.start[k], w, width))
          const wpx = Math.max(2, Math.min(width + 2, timeToX(x.end[k], w, width)) - x0)
          drawn++
          const y = pass === SPAN_IRQ ? bottom - 2 * STRIP - 2 : bottom - STRIP
          if (pass === SPAN_IRQ) {
            ctx.fillStyle = THEME.ink
            ctx.fillRect(x0, y, wpx, STRIP)
          } else if (pass === SPAN_IDLE) {
            ctx.fillStyle = '#cfcfcf'
            ctx.fillRect(x0, y, wpx, STRIP)
            ctx.strokeStyle = THEME.ink
            ctx.setLineDash([2, 2])
            ctx.beginPath(); ctx.moveTo(x0, y + 0.5); ctx.lineTo(x0 + wpx, y + 0.5); ctx.stroke()
            ctx.setLineDash([])
          } else {
            ctx.fillStyle = '#ffffff'
            ctx.fillRect(x0, y, wpx, STRIP)
            ctx.strokeStyle = THEME.ink
            ctx.lineWidth = 1.5
            ctx.strokeRect(x0 + 0.75, y + 0.75, Math.max(1, wpx - 1.5), STRIP - 1.5)
          }
          const label = fitLabel(x.label[k], wpx, 7)
          if (label) {
            ctx.fillStyle = pass === SPAN_IRQ ? '#ffffff' : THEME.ink
            ctx.fillText(label, x0 + 3, y + STRIP / 2 + 1)
          }
        }
      }
    }
    const f = t.freq.get(lane.cpu)
    if (f && f.ts.length) {
      const yOf = (v: number) => lane.y + 6 + (1 - (hi > lo ? (v - lo) / (hi - lo) : 0.5)) * (lane.height - 2 * STRIP - 14)
      ctx.strokeStyle = THEME.ink
      ctx.lineWidth = 1.5
      ctx.setLineDash([6, 3])
      ctx.beginPath()
      let started = false
      for (let k = 0; k < f.ts.length; k++) {
        const xk = timeToX(f.ts[k], w, width)
        const xn = k + 1 < f.ts.length ? timeToX(f.ts[k + 1], w, width) : width
        if (xn < 0 || xk > width) continue
        const y = yOf(f.value[k])
        if (!started) { ctx.moveTo(Math.max(0, xk), y); started = true } else ctx.lineTo(Math.max(0, xk), y)
        ctx.lineTo(Math.min(width, xn), y)
        if (xn - Math.max(0, xk) > 70) { ctx.fillStyle = THEME.ink; ctx.fillText(formatKhz(f.value[k]), Math.max(0, xk) + 3, y - 8) }
      }
      ctx.stroke()
      ctx.setLineDash([])
    }
  }
  ctx.restore()
  return drawn
}
