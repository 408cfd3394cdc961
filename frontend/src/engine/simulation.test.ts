// The Simulation wrapper against the real C core (the browser's wasm, its bytes
// read here) on the example workloads the app ships.
import { readFileSync } from 'node:fs'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { KscopeError, KsStatus, WorkloadError } from './core_errors'
import { EVENT_TYPES, eventTypeMask } from './sim_records'
import { RECENT_EVENTS, type SimulationOptions } from './simulation'
import { loadCore, type KscopeCore, type Simulation } from './wasm_bridge'

const wasmBinary = readFileSync(new URL('../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
const workload = (name: string) => readFileSync(new URL(`../../../wasm-core/workloads/${name}.json`, import.meta.url), 'utf8')

let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

const open: Simulation[] = []
afterEach(() => {
  while (open.length) open.pop()!.free()
})

function simulate(options: Partial<SimulationOptions> & { workload?: string } = {}): Simulation {
  const sim = core.simulate({
    preset: options.preset ?? 'classroom-8',
    workloadJson: options.workloadJson ?? workload(options.workload ?? 'hackbench-2g'),
    seed: options.seed ?? 1,
    algo: options.algo,
    costModel: options.costModel,
  })
  open.push(sim)
  return sim
}

function caught(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}

describe('Simulation: stepping', () => {
  it('names event types as the core does', () => {
    EVENT_TYPES.forEach((name, i) => expect(core.eventTypeName(i)).toBe(name))
  })

  it('starts at step 0 with every CPU idle', () => {
    const sim = simulate({ workload: 'seed000-8core-200ms' })
    const f = sim.frame()
    expect(f).toMatchObject({ step: 0, now_ns: 0 })
    expect(f.cpus).toHaveLength(8)
    expect(f.cpus.every((c) => c.curr_tid === -1 && c.nr_running === 0)).toBe(true)
    expect(f.tasks.map((t) => t.comm)).toEqual(Array(8).fill('rseq-bench'))
    expect(sim.lastEvent()).toBeNull()
  })

  it('step 50, back 20, forward 20: the same frame and the same last events', () => {
    for (const name of ['seed000-8core-200ms', 'hackbench-2g']) {
      const sim = simulate({ workload: name })
      for (let i = 0; i < 50; i++) expect(sim.step()).not.toBeNull()
      const frame = sim.frame()
      const last = sim.lastEvent()
      const recent = [...sim.recentEvents()]
      expect(frame.step).toBe(50)
      expect(recent).toHaveLength(RECENT_EVENTS)

      for (let i = 0; i < 20; i++) sim.stepBack()
      expect(sim.currentStep).toBe(30)
      expect(sim.frame().step).toBe(30)
      expect(sim.lastEvent()).toEqual(recent[recent.length - 21])
      for (let i = 0; i < 20; i++) sim.step()

      expect(sim.frame()).toEqual(frame)
      expect(sim.lastEvent()).toEqual(last)
      expect(sim.recentEvents()).toEqual(recent)
    }
  })

  it('seek(n) lands on the same frame as n steps, from either side', () => {
    const a = simulate()
    for (let i = 0; i < 300; i++) a.step()
    const b = simulate()
    b.seek(1000)
    expect(b.seek(300)).toBe(300)
    expect(b.frame()).toEqual(a.frame())
    expect(b.recentEvents()).toEqual(a.recentEvents())
    b.seek(0)
    expect(b.lastEvent()).toBeNull()
    expect(b.frame().step).toBe(0)
  })

  it('the same seed gives the same events; another seed another order', () => {
    const run = (seed: number) => {
      const sim = simulate({ workload: 'seed000-8core-200ms', seed })
      const events = []
      for (let ev = sim.step(); ev; ev = sim.step()) events.push(ev)
      return events
    }
    const first = run(7)
    expect(first).toHaveLength(50)
    expect(run(7)).toEqual(first)
    const pids = (events: typeof first) => events.filter((e) => e.type === 'sched_switch').map((e) => e.pid)
    expect(pids(run(8))).not.toEqual(pids(first))
  })

  it('decodes events as the tracepoints print them', () => {
    const sim = simulate({ workload: 'seed000-8core-200ms' })
    const [waking, wakeup, sw, rseq, sleep] = [sim.step(), sim.step(), sim.step(), sim.step(), sim.step()]
    expect(waking).toMatchObject({ type: 'sched_waking', ts_ns: 0, pid: 0, comm: 'swapper/0', target_comm: 'rseq-bench' })
    expect(wakeup?.type).toBe('sched_wakeup')
    if (waking?.type !== 'sched_waking' || sw?.type !== 'sched_switch' || sleep?.type !== 'sched_switch') throw new Error('types')
    expect(sw).toMatchObject({ cpu: waking.target_cpu, prev_pid: 0, prev_state: 0, next_pid: waking.target_pid, next_comm: 'rseq-bench' })
    expect(rseq).toMatchObject({ type: 'rseq_update', cpu: waking.target_cpu, cpu_id: waking.target_cpu, mm_cid: -1 })
    expect(sleep).toMatchObject({ prev_pid: waking.target_pid, prev_state: 1, next_pid: 0, next_comm: `swapper/${waking.target_cpu}` })
    expect(sleep.ts_ns).toBeGreaterThan(0)
  })

  it('frames agree with themselves: running tasks are on their CPU, queues match nr_running', () => {
    const sim = simulate({ workload: 'hackbench-2g' })
    sim.seek(2000)
    const f = sim.frame()
    const byTid = new Map(f.tasks.map((t) => [t.tid, t]))
    let running = 0
    for (const c of f.cpus) {
      expect(c.nr_running).toBe(c.queued.length + (c.curr_tid >= 0 ? 1 : 0))
      if (c.curr_tid >= 0) {
        running++
        expect(byTid.get(c.curr_tid)).toMatchObject({ state: 'running', cpu: c.cpu })
      }
      for (const tid of c.queued) expect(byTid.get(tid)).toMatchObject({ state: 'runnable', cpu: c.cpu })
    }
    expect(running).toBeGreaterThan(0)
    expect(f.now_ns).toBeGreaterThan(0)
    expect(f.tasks.every((t) => t.comm === 'hackbench' && t.policy === 'normal' && t.prio === 120)).toBe(true)
  })

  it('runs to the end: step returns null, seek past the end clamps', () => {
    const sim = simulate({ workload: 'seed000-8core-200ms' })
    expect(sim.seek(10_000)).toBe(50)
    expect(sim.finished).toBe(true)
    expect(sim.frame().step).toBe(50)
    expect(sim.step()).toBeNull()
    expect(sim.lastEvent()?.type).toBe('sched_switch')
    expect(sim.stepBack()).not.toBeNull()
    expect(sim.finished).toBe(false)
  })
})

describe('Simulation: running', () => {
  it('advance(n) is n steps in one call', () => {
    const a = simulate()
    const b = simulate()
    for (let i = 0; i < 37; i++) a.step()
    const tail = b.advance(37)
    expect(b.currentStep).toBe(37)
    expect(tail).toEqual(a.recentEvents())
    expect(b.frame()).toEqual(a.frame())
  })

  it('a playback frame costs 2 wasm calls, one event or many', () => {
    const sim = simulate()
    let before = sim.wasmCalls()
    sim.advance(1)
    sim.frame()
    expect(sim.wasmCalls() - before).toBe(2)
    before = sim.wasmCalls()
    sim.advance(17)
    sim.frame()
    expect(sim.wasmCalls() - before).toBe(2)
    before = sim.wasmCalls()
    sim.runUntil({ maxEvents: 100_000 })
    sim.frame()
    expect(sim.wasmCalls() - before).toBe(2)
  })

  it('runUntil stops after the first event of a type, about a tid, or at a time', () => {
    const sim = simulate({ workload: 'fork-churn', preset: 'epyc-9654-2s' })
    const byType = sim.runUntil({ typeMask: eventTypeMask(['sched_process_exit']) })
    expect(byType).toMatchObject({ stoppedBy: 'type', last: { type: 'sched_process_exit' } })
    expect(sim.lastEvent()).toEqual(byType.last)
    expect(sim.currentStep).toBeGreaterThan(byType.events - 1)

    const byTime = sim.runUntil({ untilNs: 5_000_000 })
    expect(byTime.stoppedBy).toBe('time')
    expect(byTime.last!.ts_ns).toBeGreaterThanOrEqual(5_000_000)

    const byCount = sim.runUntil({ maxEvents: 5 })
    expect(byCount).toMatchObject({ events: 5, stoppedBy: 'max' })

    const rest = sim.runUntil({ typeMask: eventTypeMask(['generic']) })
    expect(rest.stoppedBy).toBe('end')
    expect(sim.finished).toBe(true)
  })

  it('reads stats and burst costs', () => {
    const sim = simulate({ workload: 'seed000-8core-200ms' })
    sim.seek(1000)
    const stats = sim.stats()
    expect(stats.events).toBe(50)
    expect(stats.events_by_type.sched_switch).toBe(20)
    expect(stats.now_ns).toBe(sim.frame().now_ns)
    const bursts = sim.burstCosts()
    expect(bursts).toHaveLength(10)
    for (const b of bursts) {
      expect(b.cost_ns).toBeGreaterThan(0)
      expect(b.tid).toBeGreaterThanOrEqual(1000)
    }
  })

  it('cost model v2: each burst has parts (named by the core) that add up to its cost; v1 has none', () => {
    const names = core.costPartNames()
    expect(names[0]).toBe('core')
    expect(names).toContain('first_touch')
    const v2 = simulate({ workload: 'seed000-8core-200ms', costModel: 'v2' })
    expect(v2.costModel).toBe('v2')
    v2.seek(1000)
    const bursts = v2.burstCosts()
    const parts = v2.burstParts()
    expect(parts).toHaveLength(bursts.length)
    expect(parts[0]).toHaveLength(names.length)
    bursts.forEach((b, i) => expect(Math.abs(parts[i].reduce((s, x) => s + x, 0) - b.cost_ns)).toBeLessThanOrEqual(0.5 + 1e-6))
    // the first touch of each area faults (never written before)
    expect(parts[0][names.indexOf('first_touch')]).toBeGreaterThan(0)
    expect(v2.burstParts(bursts.length - 2)).toEqual(parts.slice(-2))
    const v1 = simulate({ workload: 'seed000-8core-200ms' })
    expect(v1.costModel).toBe('v1')
    v1.seek(1000)
    expect(v1.burstParts().flat().every((x) => x === 0)).toBe(true)
  })

  it('an EPYC run puts hackbench tasks into more than one LLC', () => {
    const sim = simulate({ preset: 'epyc-9654-2s', workload: 'hackbench-2g' })
    sim.seek(400)
    const llcs = new Set(sim.frame().cpus.filter((c) => c.curr_tid >= 0).map((c) => sim.topology.cpus[c.cpu].llc))
    expect(llcs.size).toBeGreaterThan(1)
  })
})

describe('Simulation: errors and memory', () => {
  it('a bad field is a WorkloadError naming line, column and field path', () => {
    const json = workload('seed000-8core-200ms').replace('"threads": 8', '"threads": 0')
    const err = caught(() => simulate({ workloadJson: json }))
    expect(err).toBeInstanceOf(WorkloadError)
    const e = err as WorkloadError
    expect(e.status).toBe(KsStatus.PARSE)
    expect(e.line).toBe(9)
    expect(e.field).toBe('processes[0].threads')
    expect(e.column).toBeGreaterThan(0)
    expect(e.message).toMatch(/^workload line 9, column \d+, field "processes\[0\]\.threads": .+/)
  })

  it('a JSON syntax error says where', () => {
    const err = caught(() => simulate({ workloadJson: '{\n  "name": "x",\n  "duration_ms": 10,,\n}' })) as WorkloadError
    expect(err).toBeInstanceOf(WorkloadError)
    expect(err.line).toBe(3)
    expect(err.message).toMatch(/line 3/)
  })

  it('an unknown field and an unknown algorithm are named', () => {
    const typo = workload('hackbench-2g').replace('"messages"', '"mesages"')
    expect((caught(() => simulate({ workloadJson: typo })) as WorkloadError).field).toMatch(/mesages/)
    expect((caught(() => simulate({ algo: 'no-such-algo' })) as WorkloadError).field).toBe('algo')
  })

  it('an unknown preset is a KscopeError', () => {
    const err = caught(() => simulate({ preset: 'nope' }))
    expect(err).toBeInstanceOf(KscopeError)
    expect(err).not.toBeInstanceOf(WorkloadError)
    expect((err as KscopeError).status).toBe(KsStatus.NOT_FOUND)
  })

  it('frees what it allocates', () => {
    const warm = simulate({ preset: 'epyc-9654-2s' })
    warm.seek(5000)
    warm.free()
    open.pop()
    const before = core.memoryBytes()
    for (let i = 0; i < 30; i++) {
      const sim = core.simulate({ preset: 'epyc-9654-2s', workloadJson: workload('hackbench-2g'), seed: i })
      sim.seek(5000)
      sim.free()
      expect(() => core.simulate({ preset: 'classroom-8', workloadJson: '{}', seed: 1 })).toThrow(WorkloadError)
    }
    expect(core.memoryBytes()).toBe(before)
    expect(() => warm.step()).toThrow(/freed/)
  })
})
