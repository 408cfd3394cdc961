/* Shared view hooks: an element's measured size, and the user's motion preference. */
import { useLayoutEffect, useRef, useState, useSyncExternalStore, type RefObject } from 'react'

export interface Size {
  width: number
  height: number
}

/** The element's content-box size, tracked with a ResizeObserver (null until measured). */
export function useElementSize<T extends HTMLElement>(): [RefObject<T | null>, Size | null] {
  const ref = useRef<T>(null)
  const [size, setSize] = useState<Size | null>(null)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const update = (width: number, height: number) => {
      if (width < 1 || height < 1) return
      // Round so sub-pixel jitter does not re-run a layout search.
      const next = { width: Math.round(width), height: Math.round(height) }
      setSize((prev) => (prev && prev.width === next.width && prev.height === next.height ? prev : next))
    }
    update(el.clientWidth, el.clientHeight)
    const observer = new ResizeObserver(([entry]) => update(entry.contentRect.width, entry.contentRect.height))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  return [ref, size]
}

const REDUCED = '(prefers-reduced-motion: reduce)'

/** Whether the user asked the system for reduced motion (moves then jump instead of glide). */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const q = window.matchMedia(REDUCED)
      q.addEventListener('change', onChange)
      return () => q.removeEventListener('change', onChange)
    },
    () => window.matchMedia(REDUCED).matches,
    () => false,
  )
}

/** The element's content width alone (for boxes whose height their content sets): null until measured. */
export function useElementWidth<T extends HTMLElement>(): [RefObject<T | null>, number | null] {
  const ref = useRef<T>(null)
  const [width, setWidth] = useState<number | null>(null)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    const update = (w: number) => {
      if (w < 1) return
      const next = Math.round(w)
      setWidth((prev) => (prev === next ? prev : next))
    }
    update(el.clientWidth)
    const observer = new ResizeObserver(([entry]) => update(entry.contentRect.width))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  return [ref, width]
}
