// The Simulate page's store against the real C core, with a fake window: the URL
// reproduces the view, Back/Forward follow it, playback runs on animation frames
// within the call budget.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { SimController, type SimHost } from './sim_controller'
import { searchForSimState } from './sim_state'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

/** A window with history, popstate and a hand-cranked requestAnimationFrame. */
function fakeHost(url: string) {
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

function open(url: string) {
  const host = fakeHost(url)
  const c = new SimController(host)
  const stop = c.start(core)
  return { host, c, stop, snap: () => c.getSnapshot() }
}

const URL0 = '/simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1'

describe('SimController', () => {
  it('runs the mm_cid model where the workload registers rseq: seed 000\'s rseq_updates carry real cids (issue 13)', () => {
    for (const workload of ['seed000-8core-200ms', 'seed000-librseq-8core-200ms']) {
      const { c, snap, stop } = open(`/simulate?preset=classroom-8&workload=${workload}&seed=1`)
      expect(snap().view.algo).toBe('mm_cid:v6.18')
      const cids: number[] = []
      for (let i = 0; i < 400 && !snap().state.finished; i++) {
        c.actions.step()
        const ev = snap().view.events.at(-1)
        if (ev?.type === 'rseq_update') cids.push(ev.mm_cid)
      }
      expect(cids.length, workload).toBeGreaterThan(8)
      expect(cids.every((cid) => cid >= 0 && cid < 8), `${workload}: ${cids.join(',')}`).toBe(true)
      stop()
    }
  })

  it('a workload with no rseq process runs no mm_cid model, and says so (no rseq_update at all)', () => {
    const a = open('/simulate?workload=hackbench-2g')
    expect(a.snap().view.algo).toBe('mm_cid:v6.18') // hackbench threads register rseq (glibc's default)
    a.stop()
    const json = JSON.stringify({ name: 'old-glibc', duration_ms: 50, processes: [{ kind: 'intermittent', comm: 'old', rseq: false, threads: 2, cpus: [0, 1] }] })
    const b = open('/simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1')
    expect(b.c.actions.checkWorkload(json)).toBeNull()
    b.c.actions.newRun({ workload: 'custom', customJson: json })
    expect(b.snap().view.problem).toBeNull()
    expect(b.snap().view.algo).toBe('none')
    for (let i = 0; i < 50; i++) b.c.actions.step()
    expect(b.snap().view.events.some((e) => e.type === 'rseq_update')).toBe(false)
    b.stop()
  })

  it('makes the URL explicit on load without a history step, then edits it as you step', () => {
    const { host, c, snap, stop } = open('/simulate')
    expect(host.writes).toEqual(['replace /simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=1&step=0'])
    for (let i = 0; i < 5; i++) c.actions.step()
    expect(snap().state.step).toBe(5)
    expect(snap().view.frame?.step).toBe(5)
    expect(host.location.search).toMatch(/step=5$/)
    expect(host.writes.every((w) => w.startsWith('replace'))).toBe(true)
    c.actions.newRun({ seed: 2 })
    expect(host.writes.at(-1)).toBe('push /simulate?preset=classroom-8&workload=seed000-8core-200ms&seed=2&step=0')
    stop()
  })

  it('a link with &step=30 shows the same frame and events as 30 presses of →', () => {
    const a = open(URL0)
    for (let i = 0; i < 30; i++) a.c.actions.step()
    const b = open(`${URL0}&step=30`)
    expect(b.snap().view.frame).toEqual(a.snap().view.frame)
    expect(b.snap().view.events).toEqual(a.snap().view.events)
    expect(searchForSimState(b.snap().state)).toBe(a.host.location.search)
    // ← 10, → 10: the same view again.
    for (let i = 0; i < 10; i++) a.c.actions.stepBack()
    for (let i = 0; i < 10; i++) a.c.actions.step()
    expect(a.snap().view.frame).toEqual(b.snap().view.frame)
    a.stop()
    b.stop()
  })

  it('animates one-step changes from the previous frame, not jumps', () => {
    const { c, snap, stop } = open('/simulate?workload=hackbench-2g')
    c.actions.step()
    expect(snap().view.previous?.step).toBe(0)
    expect(snap().view.moveMs).toBe(300)
    c.actions.seek(400)
    expect(snap().view.previous).toBeNull()
    stop()
  })

  it('follows Back to an earlier step and run', () => {
    const { host, c, snap, stop } = open(URL0)
    c.actions.seek(12)
    c.actions.newRun({ workload: 'hackbench-2g' })
    host.pop(`${URL0}&step=12`)
    expect(snap().state).toMatchObject({ workload: 'seed000-8core-200ms', step: 12 })
    expect(snap().view.frame?.step).toBe(12)
    stop()
  })

  it('plays on animation frames: one advance and one frame read per frame, stops at the end', () => {
    const { host, c, snap, stop } = open(`/simulate?preset=classroom-8&workload=hackbench-2g&seed=1`)
    c.actions.setSpeed(1000)
    c.actions.play()
    expect(snap().state.playing).toBe(true)
    host.frame(0) // the first frame shows one event at once
    expect(snap().state.step).toBe(1)
    let ms = 0
    for (let i = 0; i < 30; i++) host.frame((ms += 1000 / 60))
    expect(snap().state.step).toBeGreaterThan(450)
    expect(snap().state.step).toBeLessThan(560)
    expect(host.location.search).toMatch(/step=0$/) // the URL is not written while playing
    c.actions.pause()
    expect(host.location.search).toMatch(new RegExp(`step=${snap().state.step}$`))
    expect(host.frame(ms + 16)).toBe(false)

    // The budget: an animation frame costs 2 wasm calls, one event due or many.
    c.actions.setSpeed(5)
    c.actions.play()
    host.frame((ms += 16))
    const perFrame: number[] = []
    for (let i = 0; i < 40; i++) {
      const before = c.wasmCalls()
      const stepBefore = snap().state.step
      host.frame((ms += 1000 / 60))
      if (snap().state.step !== stepBefore) perFrame.push(c.wasmCalls() - before)
    }
    expect(perFrame.length).toBeGreaterThanOrEqual(3)
    expect(new Set(perFrame)).toEqual(new Set([2]))
    c.actions.setSpeed(1000)
    const before = c.wasmCalls()
    host.frame((ms += 1000 / 60))
    expect(c.wasmCalls() - before).toBe(2)
    c.actions.pause()

    const end = open(`${URL0}&step=45`)
    end.c.actions.setSpeed(1000)
    end.c.actions.play()
    for (let i = 0; i < 10 && end.host.frame(i * 17); i++);
    expect(end.snap().state).toMatchObject({ step: 50, playing: false, finished: true })
    end.stop()
    stop()
  })

  it('runs to the next event of the chosen type, or says the run ended first', () => {
    const { c, snap, stop } = open(`/simulate?preset=epyc-9654-2s&workload=fork-churn&seed=1`)
    c.actions.setRunTo('sched_process_exit')
    c.actions.runToNext()
    expect(snap().view.events.at(-1)?.type).toBe('sched_process_exit')
    expect(snap().view.notice).toBeNull()
    c.actions.setRunTo('sched_migrate_task')
    c.actions.runToNext()
    expect(snap().view.notice).toMatch(/No sched_migrate_task before the run ended/)
    expect(snap().state.finished).toBe(true)
    stop()
  })

  it('shows a bad custom workload as a problem with line and field, and checks drafts', () => {
    const json = '{\n  "name": "x",\n  "duration_ms": 0,\n  "processes": []\n}'
    const { c, snap, stop } = open(`/simulate?preset=classroom-8&workload=custom&json=${encodeURIComponent(json)}`)
    const p = snap().view.problem
    expect(p).toMatchObject({ kind: 'workload', line: 3, field: 'duration_ms' })
    expect(snap().view.frame).toBeNull()
    expect(c.actions.checkWorkload(json)).toMatchObject({ kind: 'workload', line: 3 })
    const good = json.replace('"duration_ms": 0', '"duration_ms": 10').replace('[]', '[{ "kind": "fork_churn", "comm": "f", "children": 3, "child_runtime_us": 100, "concurrency": 1 }]')
    expect(c.actions.checkWorkload(good)).toBeNull()
    c.actions.newRun({ workload: 'custom', customJson: good })
    expect(snap().view.problem).toBeNull()
    expect(snap().view.frame?.tasks[0].comm).toBe('f')
    stop()
  })

  it('an unknown preset or workload name is a problem, not a crash', () => {
    const a = open('/simulate?preset=nope')
    expect(a.snap().view.problem).toMatchObject({ kind: 'preset' })
    a.stop()
    const b = open('/simulate?workload=nope')
    expect(b.snap().view.problem).toMatchObject({ kind: 'unknown-workload' })
    b.stop()
  })
})
