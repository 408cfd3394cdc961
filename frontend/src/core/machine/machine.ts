/*
 * Getting machines from the C core: loads the wasm once for the page and turns
 * a preset name into a Topology (or an error message for the error panel).
 */
import { useEffect, useState } from 'react'
import { KscopeError } from '../../engine/core_errors'
import { loadCore } from '../../engine/wasm_bridge'
import type { KscopeCore, PresetInfo, Topology } from '../shared/types'

export type CoreState =
  | { status: 'loading' }
  | { status: 'ready'; core: KscopeCore; presets: PresetInfo[]; version: string }
  | { status: 'error'; message: string }

let corePromise: Promise<KscopeCore> | null = null

/** The page's one instance of the C core (loaded on first use). */
function sharedCore(): Promise<KscopeCore> {
  corePromise ??= loadCore()
  return corePromise
}

/** Loads the C core; re-renders with 'ready' or 'error'. */
export function useKscopeCore(): CoreState {
  const [state, setState] = useState<CoreState>({ status: 'loading' })
  useEffect(() => {
    let live = true
    sharedCore().then(
      (core) => live && setState({ status: 'ready', core, presets: core.presets(), version: core.version() }),
      (err: unknown) => live && setState({ status: 'error', message: describeError(err) }),
    )
    return () => {
      live = false
    }
  }, [])
  return state
}

export type TopologyResult = { topology: Topology; error?: undefined } | { topology?: undefined; error: string }

/** The named preset's topology, or why there is none (e.g. `preset "x": not found`). */
export function topologyFor(core: KscopeCore, preset: string): TopologyResult {
  try {
    return { topology: core.topology(preset) }
  } catch (err) {
    return { error: describeError(err) }
  }
}

function describeError(err: unknown): string {
  if (err instanceof KscopeError) return err.message
  if (err instanceof Error) return err.message
  return String(err)
}
