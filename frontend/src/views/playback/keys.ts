/*
 * The playback pages' keyboard: Space play/pause, → step, ← back, N run to
 * next, as PlaybackControls prints them. Keys typed into a form field are the
 * field's, and a key with a modifier is the browser's.
 */
import { useEffect } from 'react'

export interface PlaybackKeyActions {
  togglePlay(): void
  step(): void
  stepBack(): void
  runToNext(): void
}

/** Whether a key press belongs to a form field (typing, choosing), not to the page's shortcuts. */
function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  if (!el || !el.tagName) return false
  return ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName) || el.isContentEditable
}

/** Binds the playback keys on the window while the page is shown. */
export function usePlaybackKeys(actions: PlaybackKeyActions) {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return
      if (e.key === ' ') actions.togglePlay()
      else if (e.key === 'ArrowRight') actions.step()
      else if (e.key === 'ArrowLeft') actions.stepBack()
      else if (e.key === 'n' || e.key === 'N') actions.runToNext()
      else return
      e.preventDefault()
    }
    // A focused button would also "click" on Space's key-up: the shortcut has already acted.
    const onKeyUp = (e: KeyboardEvent) => {
      if (e.key === ' ' && !isTyping(e.target)) e.preventDefault()
    }
    window.addEventListener('keydown', onKeyDown)
    window.addEventListener('keyup', onKeyUp)
    return () => {
      window.removeEventListener('keydown', onKeyDown)
      window.removeEventListener('keyup', onKeyUp)
    }
  }, [actions])
}
