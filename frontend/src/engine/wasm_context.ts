/*
 * What every part of the engine needs from one instantiated C core: the
 * module, its strings, status checking, C strings and typed views over its
 * memory. wasm_bridge.ts makes one per loaded module and hands it to the
 * topology, simulation, trace-opening and per-model bridges.
 *
 * Views must be made after the last call that could grow memory (growth
 * detaches the old ArrayBuffer); views() re-makes them when it has.
 */
import type { KscopeCoreModule } from '../../../wasm-core/build/wasm/kscope_core.mjs'
import { KscopeError, KsStatus } from './core_errors'
import { viewsOf, type Views } from './sim_records'

export type { KscopeCoreModule }

export interface WasmContext {
  readonly mod: KscopeCoreModule
  /** The NUL-terminated string at ptr ('' for NULL). */
  text(ptr: number): string
  /** Throws a KscopeError with ks_status_message()'s text for a non-zero status. */
  check(status: number, context: string): void
  /** Runs fn with a NUL-terminated copy of str in wasm memory, then frees it. */
  withCString<T>(str: string, fn: (ptr: number) => T): T
  /** Typed views over the whole memory, re-made when a call has grown (and detached) it. */
  views(): Views
}

export function createContext(mod: KscopeCoreModule): WasmContext {
  const text = (ptr: number): string => (ptr ? mod.UTF8ToString(ptr) : '')

  function check(status: number, context: string): void {
    if (status !== KsStatus.OK) throw new KscopeError(status, text(mod._ks_status_message(status)), context)
  }

  function withCString<T>(str: string, fn: (ptr: number) => T): T {
    const size = mod.lengthBytesUTF8(str) + 1
    const ptr = mod._malloc(size)
    if (!ptr) throw new KscopeError(KsStatus.NO_MEMORY, 'out of memory', 'malloc')
    try {
      mod.stringToUTF8(str, ptr, size)
      return fn(ptr)
    } finally {
      mod._free(ptr)
    }
  }

  let cachedViews: Views | null = null
  function views(): Views {
    if (!cachedViews || cachedViews.u8.buffer !== mod.HEAPU8.buffer) cachedViews = viewsOf(mod.HEAPU8.buffer)
    return cachedViews
  }

  return { mod, text, check, withCString, views }
}
