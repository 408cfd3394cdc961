/*
 * FitBox: shows its children whole inside its own box, with no scroll bar, by
 * scaling them down, or up to `max` (default 1: never up) — for presenter mode,
 * where a projector shows 1280x720 or 1920x1080 and nobody scrolls a slide, and
 * the one view on the stage grows to fill it (issue 13).
 *
 * Scaling by s lays the children out at width W/s (W the box's width) and
 * shrinks the result with a CSS transform, so a smaller scale also buys
 * width: the lesson's panels flow beside the picture instead of below it. A
 * wider layout is never taller (panels wrap less, the picture's rows wrap
 * less), so the largest s whose layout fits is found by bisection between
 * `min` and `max`, measuring synchronously. Views that lay themselves out from a
 * measured width (the picture, the chart) re-render a frame later; the
 * ResizeObserver on the content sees their new size and fits again; the
 * search is deterministic, so once the views stop changing it settles.
 *
 * When even `min` does not fit, `min` is kept and the box scrolls (the
 * presenter e2e check, e2e/specs/present_fit.spec.ts, fails on that).
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react'

export interface FitBoxProps {
  className?: string
  /** Smallest scale allowed (type below it would not read on a projector). */
  min: number
  /** Largest scale (default 1). */
  max?: number
  /** Off: the children lay out at the box's width, unscaled (solo, follower, embed). */
  enabled: boolean
  children: ReactNode
  testId?: string
}

/** The largest scale in [min, max] for which `fits` holds, assuming fits is monotone (true at small s). */
export function largestFittingScale(min: number, fits: (s: number) => boolean, rounds = 7, max = 1): number {
  if (fits(max)) return max
  if (!fits(min)) return min
  let lo = min
  let hi = max
  for (let k = 0; k < rounds; k++) {
    const mid = (lo + hi) / 2
    if (fits(mid)) lo = mid
    else hi = mid
  }
  return lo
}

export function FitBox({ className, min, max = 1, enabled, children, testId }: FitBoxProps) {
  const outer = useRef<HTMLDivElement>(null)
  const inner = useRef<HTMLDivElement>(null)

  useLayoutEffect(() => {
    const o = outer.current
    const i = inner.current
    if (!o || !i) return
    const set = (s: number) => {
      i.style.width = s === 1 ? '' : `${o.clientWidth / s}px`
      i.style.transform = s === 1 ? '' : `scale(${s})`
      o.dataset.scale = s.toFixed(3)
    }
    if (!enabled) {
      set(1)
      delete o.dataset.scale
      return
    }
    const overflows = () => o.scrollHeight > o.clientHeight + 1 || o.scrollWidth > o.clientWidth + 1
    let busy = false
    const fit = () => {
      if (busy) return
      busy = true
      const W = o.clientWidth
      const H = o.clientHeight
      if (W > 0 && H > 0) {
        const s = largestFittingScale(min, (t) => {
          set(t)
          // 4 px to spare: scrollHeight rounds, and a drawing sized by aspect ratio lands on fractions.
          // The box's own overflow too: a descendant drawn outside the content's box (a badge, an
          // svg a frame from its redraw) would make the box scroll where the content fits.
          return (i.scrollHeight + 4) * t <= H && i.scrollWidth <= W / t + 0.5 && !overflows()
        }, max > 1 ? 9 : 7, max)
        set(s)
      }
      busy = false
    }
    // A view that redraws a frame later (from its new measured width) can leave the
    // content a little taller than measured; check for a few frames after each fit.
    let raf = 0
    let checks = 0
    const check = () => {
      raf = 0
      const t = Number(o.dataset.scale ?? 1)
      if ((i.scrollHeight + 4) * t > o.clientHeight || overflows()) fit()
      if (++checks < 6) raf = requestAnimationFrame(check)
    }
    const fitAndCheck = () => {
      fit()
      checks = 0
      if (!raf) raf = requestAnimationFrame(check)
    }
    fitAndCheck()
    const observer = new ResizeObserver(fitAndCheck)
    observer.observe(o)
    observer.observe(i)
    return () => {
      observer.disconnect()
      cancelAnimationFrame(raf)
    }
  }, [enabled, min, max])

  return (
    <div className={`fit-box${className ? ` ${className}` : ''}`} ref={outer} data-testid={testId}>
      <div className="fit-box-inner" ref={inner}>
        {children}
      </div>
    </div>
  )
}
