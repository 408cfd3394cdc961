/* The diagonal white hatch drawn over a process's fill (its second cycle of hues): a pattern, so colour is not the only cue. */
let hatchPattern: CanvasPattern | null = null
export function hatch(ctx: CanvasRenderingContext2D): CanvasPattern | null {
  if (hatchPattern) return hatchPattern
  const c = document.createElement('canvas')
  c.width = c.height = 8
  const g = c.getContext('2d')
  if (!g) return null
  g.strokeStyle = 'rgba(255,255,255,0.75)'
  g.lineWidth = 2
  g.beginPath()
  g.moveTo(0, 8); g.lineTo(8, 0)
  g.moveTo(-2, 2); g.lineTo(2, -2)
  g.moveTo(6, 10); g.lineTo(10, 6)
  g.stroke()
  hatchPattern = ctx.createPattern(c, 'repeat')
  return hatchPattern
}

