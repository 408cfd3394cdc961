/*
 * The React side of core/state.ts: holds the AppState, exposes the named
 * actions, and keeps the URL in step (write on change, follow Back/Forward).
 */
import { useEffect, useMemo, useReducer, useRef } from 'react'
import { reduce, stateFromSearch, syncUrl, type AppState } from './state'

export interface AppActions {
  selectPreset(preset: string): void
  focusCpu(cpu: number | null): void
}

export function useAppStore(): { state: AppState; actions: AppActions } {
  const [state, dispatch] = useReducer(reduce, undefined, () => stateFromSearch(window.location.search))

  const firstSync = useRef(true)
  useEffect(() => {
    syncUrl(state, window, { replace: firstSync.current })
    firstSync.current = false
  }, [state])

  useEffect(() => {
    const onPopState = () => dispatch({ type: 'followUrl', search: window.location.search })
    window.addEventListener('popstate', onPopState)
    return () => window.removeEventListener('popstate', onPopState)
  }, [])

  const actions = useMemo<AppActions>(
    () => ({
      selectPreset: (preset) => dispatch({ type: 'selectPreset', preset }),
      focusCpu: (cpu) => dispatch({ type: 'focusCpu', cpu }),
    }),
    [],
  )
  return { state, actions }
}
