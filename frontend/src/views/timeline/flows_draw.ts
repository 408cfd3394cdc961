/*
 * Flows on the trace timeline's canvas (core/traces/trace_latency.ts Flow):
 *
 *   woke        waker → woken: a solid ink arrow from the sched_waking on the
 *               waker's lane to the switch-in on the woken task's lane (an arc
 *               over the lane when both are on one CPU), its label boxed
 *   waited      the wait: a dashed bracket along the woken task's lane, from
 *               runnable to running, labelled with its length
 *   woke-other  tasks the selected slice woke: thinner dotted arrows
 *
 * Line style and labels carry the kind, not colour (all in ink).
 */
import type { Flow } from '../../core/traces/trace_latency'
import { THEME } from '../palette'
import { timeToX, type TimeWindow } from './layout'

const LABEL_FONT = 'bold 18px system-ui, sans-serif'

function arrowHead(ctx: CanvasRenderingContext2D, x: number, y: number, angle: number, size = 10) {
  ctx.beginPath()
  ctx.moveTo(x, y)
  ctx.lineTo(x - size * Math.cos(angle - 0.45), y - size * Math.sin(angle - 0.45))
  ctx.lineTo(x - size * Math.cos(angle + 0.45), y - size * Math.sin(angle + 0.45))
  ctx.closePath()
  ctx.fill()
}

function boxedLabel(ctx: CanvasRenderingContext2D, text: string, x: number, y: number, width: number) {
  ctx.font = LABEL_FONT
  ctx.textBaseline = 'middle'
  const tw = ctx.measureText(text).width
  const left = Math.max(2, Math.min(width - tw - 10, x))
  ctx.fillStyle = 'rgba(255,255,255,0.92)'
  ctx.fillRect(left - 3, y - 12, tw + 6, 24)
  ctx.strokeStyle = THEME.ink
  ctx.lineWidth = 1
  ctx.strokeRect(left - 3 + 0.5, y - 12 + 0.5, tw + 6 - 1, 24 - 1)
  ctx.fillStyle = THEME.ink
  ctx.fillText(text, left, y)
}

/** `lane(end)`: the lane of a flow's end (a CPU's, or a task's), null when it has none on screen. */
export function drawFlows(ctx: CanvasRenderingContext2D, flows: readonly Flow[], w: TimeWindow, width: number,
  lane: (end: Flow['from']) => { y: number; height: number } | null) {
  ctx.save()
  for (const f of flows) {
    const a = lane(f.from)
    const b = lane(f.to)
    if (!a || !b) continue
    const x0 = timeToX(f.from.t, w, width)
    const x1 = timeToX(f.to.t, w, width)
    ctx.strokeStyle = THEME.ink
    ctx.fillStyle = THEME.ink
    if (f.kind === 'waited') {
      const y = b.y + b.height - 7
      ctx.lineWidth = 2
      ctx.setLineDash([5, 3])
      ctx.beginPath()
      ctx.moveTo(x0, y); ctx.lineTo(x1, y)
      ctx.stroke()
      ctx.setLineDash([])
      ctx.beginPath()
      ctx.moveTo(x0, y - 6); ctx.lineTo(x0, y + 6)
      ctx.moveTo(x1, y - 6); ctx.lineTo(x1, y + 6)
      ctx.stroke()
      boxedLabel(ctx, f.label, Math.max(x0, 0) + 4, y - 16, width)
      continue
    }
    const y0 = a.y + a.height / 2
    const y1 = b.y + b.height / 2
    ctx.lineWidth = f.kind === 'woke' ? 2.5 : 1.5
    ctx.setLineDash(f.kind === 'woke' ? [] : [2, 3])
    ctx.beginPath()
    ctx.moveTo(x0, y0)
    let angle: number
    if (a === b || Math.abs(y1 - y0) < 1) {
      // One lane: an arc over its top edge.
      const cy = a.y - Math.min(28, a.height * 0.6)
      const cx = (x0 + x1) / 2
      ctx.quadraticCurveTo(cx, cy, x1, y1)
      angle = Math.atan2(y1 - cy, x1 - cx)
    } else {
      ctx.lineTo(x1, y1)
      angle = Math.atan2(y1 - y0, x1 - x0)
    }
    ctx.stroke()
    ctx.setLineDash([])
    arrowHead(ctx, x1, y1, angle, f.kind === 'woke' ? 12 : 8)
    ctx.beginPath()
    ctx.arc(x0, y0, f.kind === 'woke' ? 4 : 3, 0, Math.PI * 2)
    ctx.fill()
    if (f.kind === 'woke') boxedLabel(ctx, f.label, x0 + 6, y0 + (y1 >= y0 ? -14 : 14), width)
  }
  ctx.restore()
}
