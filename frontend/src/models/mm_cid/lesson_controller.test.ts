// The lesson controller against the real C core with a fake window: URL state,
// lockstep in compare mode, exact step back, the per-frame call budget,
// "next allocation", until_ms, and what the model says about 7e019dc.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { LessonController, type LessonHost, type LessonRunView } from './lesson_controller'
import { lessonStateFromSearch } from './lesson_state'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

interface FakeHost extends LessonHost {
  frames: ((ms: number) => void)[]
  pushes: number
  fire(popTo?: string): void
  popListeners: (() => void)[]
}

function fakeHost(search: string): FakeHost {
  const location = { search, pathname: '/lesson/mm_cid', hash: '' }
  const setUrl = (url: string) => {
    location.search = url.slice(url.indexOf('?'))
  }
  const host: FakeHost = {
    location,
    frames: [],
    pushes: 0,
    popListeners: [],
    history: {
      pushState: (_d, _u, url) => {
        host.pushes++
        setUrl(url)
      },
      replaceState: (_d, _u, url) => setUrl(url),
    },
    requestAnimationFrame: (cb) => host.frames.push(cb),
    cancelAnimationFrame: () => {
      host.frames = []
    },
    addEventListener: (_t, fn) => host.popListeners.push(fn),
    removeEventListener: () => {},
    fire(popTo) {
      if (popTo !== undefined) location.search = popTo
      for (const fn of host.popListeners) fn()
    },
  }
  return host
}

const stops: (() => void)[] = []
afterEach(() => {
  while (stops.length) stops.pop()!()
})

function lesson(search: string) {
  const host = fakeHost(search)
  const c = new LessonController(host)
  stops.push(c.start(core))
  return { c, host, snap: () => c.getSnapshot() }
}

/** What the runs show, exactly (the page's digest compares the same). */
const shown = (runs: readonly LessonRunView[]) =>
  runs.map((r) => ({
    variant: r.variant, step: r.view.step, now: r.view.now_ns, cidmask: r.view.cidmask, pcpu: r.view.pcpu, areas: r.view.areas, mm: r.view.mm,
    bursts: r.bursts, totals: r.totals, narration: r.narration, records: r.records,
  }))

describe('lesson controller', () => {
  it('builds the run the URL names and writes the defaults into it', () => {
    const { snap, host } = lesson('?variant=compare&preset=classroom-8&step=10')
    const { state, view } = snap()
    expect(view.problem).toBeNull()
    expect(state.step).toBe(10)
    expect(view.runs.map((r) => r.variant)).toEqual(['v6.12', 'v6.13'])
    expect(view.time_ns).toBe(600_000_001) // the 10th lockstep instant (the ticks' task_work returns add rseq_updates)
    expect(host.location.search).toBe(
      '?variant=compare&preset=classroom-8&step=10&threads=8&placement=cpus:0-7&delay_ms=200&order=fixed&warmup=20000&loops=5&cache=idle&seed=1',
    )
    expect(lessonStateFromSearch(host.location.search)).toMatchObject({ variant: 'compare', step: 10 })
  })

  it('lockstep: at every step each kernel shows its state after its last event at or before T_k', () => {
    const { c, snap } = lesson('?variant=compare')
    const last = snap().view.lastStep
    expect(last).toBeGreaterThan(100)
    for (let k = 1; k <= 60; k++) {
      c.actions.step()
      const { view } = snap()
      for (const r of view.runs) {
        expect(r.view.now_ns).toBeLessThanOrEqual(view.time_ns)
        expect(r.events.every((e) => e.ts_ns === view.time_ns)).toBe(true)
      }
      // Something happens at T_k in at least one kernel.
      expect(view.runs.some((r) => r.events.length > 0 || r.records.length > 0)).toBe(true)
    }
  })

  it('back then forward shows exactly the same state', () => {
    const { c, snap } = lesson('?variant=compare&step=30')
    const at30 = shown(snap().view.runs)
    for (let i = 0; i < 12; i++) c.actions.stepBack()
    expect(snap().state.step).toBe(18)
    expect(shown(snap().view.runs)).not.toEqual(at30)
    for (let i = 0; i < 12; i++) c.actions.step()
    expect(shown(snap().view.runs)).toEqual(at30)
    // Also by single steps back and forth (runs that do not move at an instant keep their view).
    for (let i = 0; i < 5; i++) {
      c.actions.stepBack()
      c.actions.step()
    }
    expect(shown(snap().view.runs)).toEqual(at30)
    // And a fresh controller at the same URL agrees.
    const fresh = lesson('?variant=compare&step=30')
    expect(shown(fresh.snap().view.runs)).toEqual(at30)
  })

  it('a step costs 2 wasm calls per kernel that moves; a playback frame too, however many steps are due', () => {
    const { c, snap, host } = lesson('?variant=compare&step=5')
    const moving = () => snap().view.runs.filter((r) => r.view !== r.previous).length
    let before = c.wasmCalls()
    c.actions.step()
    expect(c.wasmCalls() - before).toBe(2 * moving())
    expect(c.wasmCalls() - before).toBeLessThanOrEqual(4)
    c.actions.setSpeed(30)
    c.actions.play()
    expect(snap().state.playing).toBe(true)
    host.frames.shift()!(1000) // the first frame shows one step at once
    for (let t = 1016; t < 1200; t += 16) {
      before = c.wasmCalls()
      const stepBefore = snap().state.step
      host.frames.shift()?.(t)
      const moved = snap().state.step !== stepBefore
      expect(c.wasmCalls() - before).toBeLessThanOrEqual(moved ? 4 : 0)
      if (moved) expect(c.wasmCalls() - before).toBeGreaterThanOrEqual(2)
    }
    c.actions.pause()
    expect(host.location.search).toContain(`step=${snap().state.step}`)
  })

  it('"next allocation" stops where a log entry appears; "a cid handed out" skips keeps and scans', () => {
    const { c, snap } = lesson('?variant=v6.13')
    for (let i = 0; i < 6; i++) {
      c.actions.runToNext()
      expect(snap().view.runs[0].records.length).toBeGreaterThan(0)
    }
    c.actions.setRunTo('new-cid')
    for (let i = 0; i < 4; i++) {
      c.actions.runToNext()
      expect(snap().view.runs[0].records.some((r) => ['RECENT_CID', 'EXPAND_MAX_NR_CID', 'FIRST_FREE'].includes(r.path))).toBe(true)
    }
  })

  it('until_ms lands on the last step at or before that time, then the URL says step=', () => {
    const { snap, host } = lesson('?variant=compare&until_ms=1000')
    const { state, view } = snap()
    expect(view.time_ns).toBeLessThanOrEqual(1e9)
    expect(state.untilNs).toBeNull()
    expect(host.location.search).not.toContain('until_ms')
    expect(host.location.search).toContain(`step=${state.step}`)
  })

  it('follows Back/Forward', () => {
    const { c, snap, host } = lesson('?variant=v6.12')
    c.actions.newRun({ variant: 'v6.13' })
    expect(host.pushes).toBe(1)
    host.fire('?variant=v6.12&step=7')
    expect(snap().state).toMatchObject({ variant: 'v6.12', step: 7 })
    expect(snap().view.runs[0].variant).toBe('v6.12')
  })

  it('reports a workload the machine cannot run', () => {
    const { snap } = lesson('?variant=v6.13&threads=3&placement=cpus:0,1,99')
    expect(snap().view.problem?.kind).toBe('workload')
    expect(snap().view.problem?.message).toMatch(/cpu 99 is not in the topology/)
  })
})

describe('what the model says about 7e019dc (seed 000, 200 ms)', () => {
  const totals = (search: string) => {
    const { c, snap } = lesson(search)
    c.actions.runToEnd()
    return Object.fromEntries(snap().view.runs.map((r) => [r.variant, r.totals]))
  }

  it('classroom-8, 8 threads, idle cache (cost model v2): v6.12 pays for the areas its shuffles hand out, v6.13 does not', () => {
    const t = totals('?variant=compare&preset=classroom-8')
    expect(t['v6.12'].measured).toBe(40)
    expect(t['v6.12'].total_ns).toBeGreaterThan(3 * t['v6.13'].total_ns)
    expect(t['v6.12'].transfers).toBeGreaterThan(0)
    expect(t['v6.13'].transfers).toBe(0)
  })

  it('EPYC, one thread per L3: the same, across L3s', () => {
    const cpus = Array.from({ length: 24 }, (_, i) => i * 8).join(',')
    const t = totals(`?variant=compare&preset=epyc-9654-2s&threads=24&placement=cpus:${cpus}`)
    expect(t['v6.12'].measured).toBe(120)
    expect(t['v6.12'].total_ns).toBeGreaterThan(5 * t['v6.13'].total_ns)
  })

  it('busy cache (kscope default eviction): every area goes cold; what v6.12 still pays beyond v6.13 is first-touch faults', () => {
    const { c, snap } = lesson('?variant=compare&preset=classroom-8&cache=busy')
    c.actions.runToEnd()
    const [a, b] = snap().view.runs
    expect([a.variant, b.variant]).toEqual(['v6.12', 'v6.13'])
    const part = (r: typeof a, name: string) => r.bursts.filter((x) => !x.warmup)
      .reduce((s, x) => s + (x.breakdown?.parts.find((p) => p.name === name)?.ns ?? 0), 0)
    expect(part(b, 'first_touch')).toBe(0)
    expect(part(a, 'first_touch')).toBeGreaterThan(0)
    // Without its faults, v6.12 costs what v6.13 does (within 10 %): the caches no longer differ.
    expect(Math.abs(a.totals.total_ns - part(a, 'first_touch') - b.totals.total_ns)).toBeLessThan(0.1 * b.totals.total_ns)
    expect(snap().view.cost).toMatchObject({ model: 'v2', background: { privateBackgroundBytesPerUs: 1000 } })
  })

  it('every burst carries its breakdown, which adds up to its cost; the idle lesson has no background traffic', () => {
    const { c, snap } = lesson('?variant=v6.12&preset=classroom-8')
    c.actions.runToEnd()
    const run = snap().view.runs[0]
    expect(run.bursts.length).toBeGreaterThan(40)
    for (const x of run.bursts) expect(Math.abs(x.breakdown!.shown_total_ns - x.cost_ns)).toBeLessThanOrEqual(1)
    expect(snap().view.cost).toMatchObject({ model: 'v2', background: { privateBackgroundBytesPerUs: 0, llcBackgroundBytesPerUs: 0 } })
    expect(snap().view.cost!.partNames).toContain('first_touch')
  })
})
