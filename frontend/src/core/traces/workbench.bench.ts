// `npm run bench:workbench`: what the trace workbench's computations cost on a synthetic
// 1 M-event trace (8 CPUs, a waking before every switch, 4,900 tasks), in Node. Vitest's
// bench prints the figures (mean ms per call); the wait index and the task states are
// rebuilt on every call (a fresh store each time), the rest read the built ones.
import { bench, describe } from 'vitest'
import { openTraceStore, type TraceInput, type TraceStore } from './trace_store'
import { latencyGroups, waitIndex } from './trace_latency'
import { taskTracks } from './trace_tasks'
import { areaAggregates } from './trace_area'
import { listRows } from './trace_event_list'

const N = 1_000_000
const CPUS = 8

function syntheticStore(): TraceStore {
  const c = { count: N, ts: new Float64Array(N), type: new Uint8Array(N), cpu: new Int32Array(N), pid: new Int32Array(N),
    tgid: new Int32Array(N), comm: new Int32Array(N), f0: new Int32Array(N), f1: new Int32Array(N), f2: new Int32Array(N),
    f3: new Int32Array(N), f4: new Int32Array(N), s1: new Int32Array(N), s2: new Int32Array(N), strings: ['swapper', 'task'] }
  const cur = new Int32Array(CPUS)
  let next = 100
  for (let i = 0; i < N; i++) {
    const cpu = i % CPUS
    c.ts[i] = i * 100; c.cpu[i] = cpu; c.comm[i] = 1; c.s1[i] = 1; c.s2[i] = 1
    if (i % 2 === 0) { c.type[i] = 2; c.pid[i] = cur[cpu]; c.f0[i] = next + 1; c.f2[i] = cpu } // sched_waking
    else { // sched_switch, the previous task sleeps
      c.type[i] = 1; c.pid[i] = cur[cpu]; c.f0[i] = cur[cpu]; c.f2[i] = 1; c.f3[i] = ++next; cur[cpu] = next
      if (next > 5000) next = 100
    }
    c.tgid[i] = c.pid[i]
  }
  const stats: TraceInput['stats'] = { format: 'synthetic', bytes: 0, lines: 0, events: N, genericEvents: 0, malformed: 0,
    lostEvents: 0, nrCpus: CPUS, uname: '', traceClock: '', firstError: null }
  return openTraceStore({ name: 'bench', format: 'synthetic', origin: { kind: 'local' }, columns: c, stats, header: [] })
}

const store = syntheticStore()
const fresh = () => ({ ...store }) // a new store object: the WeakMap caches miss
const hundredth = { start: store.t0, end: store.t0 + (store.t1 - store.t0) / 100 }

describe('trace workbench, 1 M events', () => {
  bench('waitIndex (build)', () => { waitIndex(fresh()) }, { iterations: 3, warmupIterations: 1 })
  bench('latencyGroups, whole trace, per task', () => { latencyGroups(store, store.t0, store.t1 + 1, 'task') }, { iterations: 3, warmupIterations: 1 })
  bench('latencyGroups, 1% window, per CPU', () => { latencyGroups(store, hundredth.start, hundredth.end, 'cpu') }, { iterations: 10 })
  bench('taskTracks (build)', () => { taskTracks(fresh()) }, { iterations: 2, warmupIterations: 1 })
  bench('areaAggregates, 1% window, 4 CPUs', () => { areaAggregates(store, { ...hundredth, cpus: [0, 1, 2, 3] }) }, { iterations: 10, warmupIterations: 1 })
  bench('listRows, 1% window', () => { listRows(store, hundredth.start, hundredth.end, {}) }, { iterations: 10 })
})
