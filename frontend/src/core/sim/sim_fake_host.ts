// A fake window for the Simulate page's store in tests (sim_controller.test.ts, and the
// models' tests of what Simulate runs): history, popstate and a hand-cranked
// requestAnimationFrame. Test support only: nothing in the app imports it.
import type { KscopeCore } from '../../engine/wasm_bridge'
import { SimController, type SimHost } from './sim_controller'

/** A window with history, popstate and a hand-cranked requestAnimationFrame. */
export function fakeHost(url: string) {
  const [pathname, search = ''] = url.split('?')
  const frames = new Map<number, (ms: number) => void>()
  const popListeners = new Set<() => void>()
  let nextId = 1
  const writes: string[] = []
  const host = {
    writes,
    location: { pathname, search: search ? `?${search}` : '', hash: '' },
    history: {
      pushState: (_d: unknown, _u: string, to: string) => {
        writes.push(`push ${to}`)
        host.location.search = to.slice(to.indexOf('?'))
      },
      replaceState: (_d: unknown, _u: string, to: string) => {
        writes.push(`replace ${to}`)
        host.location.search = to.slice(to.indexOf('?'))
      },
    },
    requestAnimationFrame: (cb: (ms: number) => void) => {
      frames.set(nextId, cb)
      return nextId++
    },
    cancelAnimationFrame: (id: number) => void frames.delete(id),
    addEventListener: (_t: 'popstate', fn: () => void) => void popListeners.add(fn),
    removeEventListener: (_t: 'popstate', fn: () => void) => void popListeners.delete(fn),
    /** Runs the pending animation frame at time ms; false if none was pending. */
    frame(ms: number): boolean {
      const pending = [...frames.entries()]
      frames.clear()
      pending.forEach(([, cb]) => cb(ms))
      return pending.length > 0
    },
    /** Back/Forward to a URL. */
    pop(to: string) {
      host.location.search = to.slice(to.indexOf('?'))
      popListeners.forEach((fn) => fn())
    },
  }
  return host satisfies SimHost
}

/** A SimController on a fake window at `url`, started on `core`. */
export function openSim(core: KscopeCore, url: string) {
  const host = fakeHost(url)
  const c = new SimController(host)
  const stop = c.start(core)
  return { host, c, stop, snap: () => c.getSnapshot() }
}
