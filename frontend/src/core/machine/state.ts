/*
 * App state and the named actions that change it.
 *
 * Views never mutate state: they call an action (through the store), and each
 * action is a pure function (state, args) -> new state. The part of the state
 * that defines what is on screen (the machine preset) is mirrored in the URL,
 * so a link such as ?preset=epyc-9654-2s reproduces the view on another screen.
 */

/** The machine shown when the URL names none: small enough for a projector. */
export const DEFAULT_PRESET = 'classroom-8'

/** The URL query parameter that holds the preset. */
export const PRESET_PARAM = 'preset'

export interface AppState {
  /** Name of the topology preset on screen (may be unknown to the core: the app shows an error). */
  readonly preset: string
  /** The CPU whose details the side panel shows (hovered or keyboard-focused), if any. */
  readonly focusedCpu: number | null
}

/** State described by a URL query string ("?preset=..."); defaults for what it lacks. */
export function stateFromSearch(search: string): AppState {
  const preset = new URLSearchParams(search).get(PRESET_PARAM)?.trim()
  return { preset: preset || DEFAULT_PRESET, focusedCpu: null }
}

/** The query string for a state, keeping any other parameters of `search`. */
export function searchForState(state: AppState, search = ''): string {
  const params = new URLSearchParams(search)
  params.set(PRESET_PARAM, state.preset)
  return `?${params.toString()}`
}

/** Action: show another machine. The focused CPU belonged to the old one, so it is cleared. */
export function selectPreset(state: AppState, preset: string): AppState {
  if (preset === state.preset) return state
  return { ...state, preset, focusedCpu: null }
}

/** Action: show one CPU's details (null: none). */
export function focusCpu(state: AppState, cpu: number | null): AppState {
  if (cpu === state.focusedCpu) return state
  return { ...state, focusedCpu: cpu }
}

/** Action: the URL changed under us (back/forward): adopt what it describes. */
export function followUrl(state: AppState, search: string): AppState {
  return selectPreset(state, stateFromSearch(search).preset)
}

export type Action =
  | { type: 'selectPreset'; preset: string }
  | { type: 'focusCpu'; cpu: number | null }
  | { type: 'followUrl'; search: string }

/** The reducer: dispatches each action to its named function. */
export function reduce(state: AppState, action: Action): AppState {
  switch (action.type) {
    case 'selectPreset':
      return selectPreset(state, action.preset)
    case 'focusCpu':
      return focusCpu(state, action.cpu)
    case 'followUrl':
      return followUrl(state, action.search)
  }
}

/** Minimal view of window.history + location, so URL syncing is testable without a DOM. */
export interface UrlHost {
  readonly location: { readonly search: string; readonly pathname: string; readonly hash: string }
  readonly history: {
    pushState(data: unknown, unused: string, url: string): void
    replaceState(data: unknown, unused: string, url: string): void
  }
}

/**
 * Writes the state's preset into the URL when it differs from what the URL says:
 * a new history entry (so Back returns to the previous machine), or with
 * `replace` an edit of the current one (first load: "/" becomes
 * "/?preset=classroom-8" without adding a step). Returns whether it wrote.
 */
export function syncUrl(state: AppState, host: UrlHost, { replace = false } = {}): boolean {
  const { search, pathname, hash } = host.location
  if (new URLSearchParams(search).get(PRESET_PARAM) === state.preset) return false
  const url = `${pathname}${searchForState(state, search)}${hash}`
  if (replace) host.history.replaceState(null, '', url)
  else host.history.pushState(null, '', url)
  return true
}
