/*
 * d3-zoom (x only) on a timeline canvas, mirrored into the page's zoom state: the
 * CPU lanes and the task lanes share one {k, x}, so both show the same window.
 * A gesture is rendered within its own event (flushSync), so the frame it
 * belongs to shows it; a programmatic change (keyboard, reset) is pushed back
 * into d3's own transform.
 */
import { select, zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3'
import { useEffect, useRef, type RefObject } from 'react'
import { flushSync } from 'react-dom'
import type { ZoomState } from '../../core/traces/trace_session'

export function useTimeZoom(canvasRef: RefObject<HTMLCanvasElement | null>, plotW: number, canvasH: number, kMax: number,
  zoom: ZoomState, onZoom: (z: ZoomState) => void) {
  const zoomRef = useRef<ZoomBehavior<HTMLCanvasElement, unknown> | null>(null)
  useEffect(() => {
    const canvas = canvasRef.current
    if (!canvas) return
    const behaviour = d3zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([1, kMax])
      .translateExtent([[0, 0], [plotW, canvasH]])
      .extent([[0, 0], [plotW, canvasH]])
      // Shift+drag is an area selection, not a pan (the wheel zooms with or without Shift).
      .filter((e: Event) => (e.type === 'wheel' || e.type === 'mousedown' || e.type === 'touchstart') && !(e as MouseEvent).button
        && !(e.type === 'mousedown' && (e as MouseEvent).shiftKey))
      .on('zoom', (e: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        const z = { k: e.transform.k, x: e.transform.x }
        if (e.sourceEvent) flushSync(() => onZoom(z))
        else onZoom(z)
      })
    zoomRef.current = behaviour
    select(canvas).call(behaviour).on('dblclick.zoom', null)
    return () => {
      select(canvas).on('.zoom', null)
    }
  }, [canvasRef, plotW, canvasH, kMax, onZoom])

  useEffect(() => {
    const canvas = canvasRef.current
    const behaviour = zoomRef.current
    if (!canvas || !behaviour) return
    const current = (canvas as unknown as { __zoom?: { k: number; x: number } }).__zoom
    if (current && Math.abs(current.k - zoom.k) < 1e-9 && Math.abs(current.x - zoom.x) < 1e-6) return
    select(canvas).call(behaviour.transform, zoomIdentity.translate(zoom.x, 0).scale(zoom.k))
  }, [canvasRef, zoom])
}
