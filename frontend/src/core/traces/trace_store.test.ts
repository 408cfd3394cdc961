// The trace store over a real 6.18 capture, checked against numbers computed
// here independently from the text (a regex over the lines, no decoder).
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { EVENT_TYPES } from '../../engine/sim_records'
import { loadCore } from '../../engine/wasm_bridge'
import { parseCpuList } from '../shared/cpulist'
import { parseTraceMeta } from './trace_meta'
import {
  countByType, dominantProcess, eventsIn, occupancy, openTraceStore, runnableAt, runningAt, type TraceStore,
} from './trace_store'

const root = new URL('../../../../', import.meta.url)
const FILE = 'traces/threads4-linux6.18.txt'
const text = readFileSync(new URL(FILE, root), 'utf-8')

/** Independent reading: [ts_ns, cpu, event, fields] per event line. */
const LINE = /^\s*(.+?)-(\d+)\s+\(\s*[-\d]+\)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$/
const rows = text.split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => {
  const m = LINE.exec(l)
  if (!m) throw new Error(`unexpected line ${l}`)
  return { comm: m[1], pid: Number(m[2]), ts: Number(m[4]) * 1e9 + Number(m[5].padEnd(9, '0')), cpu: Number(m[3]), event: m[6], fields: m[7] }
})
const switches = rows.filter((r) => r.event === 'sched_switch').map((r) => {
  const f = /prev_comm=(.*) prev_pid=(\d+) .* prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)/.exec(r.fields)!
  return { ...r, prevPid: Number(f[2]), prevState: f[3], nextComm: f[4], nextPid: Number(f[5]) }
})

let store: TraceStore
beforeAll(async () => {
  const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
  const t = await core.openTrace(new Blob([text]), 'threads4.txt')
  store = openTraceStore({ ...t, origin: { kind: 'local' } })
})

describe('trace store', () => {
  it('indexes every event per CPU in time order', () => {
    expect(store.cpus).toEqual([...new Set(rows.map((r) => r.cpu))].sort())
    for (const cpu of store.cpus) {
      const idx = store.byCpu.get(cpu)!
      expect(idx.length).toBe(rows.filter((r) => r.cpu === cpu).length)
      for (let k = 1; k < idx.length; k++) expect(store.columns.ts[idx[k]]).toBeGreaterThanOrEqual(store.columns.ts[idx[k - 1]])
    }
    expect(store.t0).toBe(rows[0].ts)
    expect(store.t1).toBe(rows.at(-1)!.ts)
    expect(store.meta.kernel).toBe('6.18.44-fc-v669')
  })

  it('finds the events of a window, by CPU and by type', () => {
    const t0 = store.t0 + (store.t1 - store.t0) * 0.25
    const t1 = store.t0 + (store.t1 - store.t0) * 0.5
    const inWin = rows.filter((r) => r.ts >= t0 && r.ts < t1)
    expect(eventsIn(store, t0, t1).length).toBe(inWin.length)
    expect(eventsIn(store, t0, t1, [1]).length).toBe(inWin.filter((r) => r.cpu === 1).length)
    const sw = new Set([EVENT_TYPES.indexOf('sched_switch')])
    expect(eventsIn(store, t0, t1, undefined, { types: sw }).length).toBe(inWin.filter((r) => r.event === 'sched_switch').length)
    const mentions = rows.filter((r) => r.comm.includes('rcu_preempt') || /comm=rcu_preempt /.test(r.fields))
    expect(eventsIn(store, store.t0, store.t1 + 1, undefined, { comm: 'rcu_preempt' }).length).toBe(mentions.length)
    const pid = 25278
    const aboutPid = rows.filter((r) => r.pid === pid || new RegExp(`(^| )(prev_|next_|child_)?pid=${pid}( |$)`).test(r.fields))
    expect(eventsIn(store, store.t0, store.t1 + 1, undefined, { pid }).length).toBe(aboutPid.length)
  })

  /**
   * Who ran when on `cpu`, from the text alone: between two switches the task
   * switched in; when the next switch names another prev task (the trace lacks
   * a switch), that task from its first line on this CPU (else the switch itself).
   */
  function textSlices(cpu: number): { a: number; b: number; pid: number }[] {
    const lines = rows.filter((r) => r.cpu === cpu)
    const out: { a: number; b: number; pid: number }[] = []
    let last: (typeof switches)[number] | null = null
    let seen = new Map<number, number>()
    for (const r of lines) {
      if (r.event !== 'sched_switch') {
        if (!seen.has(r.pid)) seen.set(r.pid, r.ts)
        continue
      }
      const sw = switches.find((x) => x.ts === r.ts && x.cpu === cpu && x.fields === r.fields)!
      if (last) {
        if (last.nextPid === sw.prevPid) out.push({ a: last.ts, b: sw.ts, pid: last.nextPid })
        else {
          const split = Math.min(sw.ts, seen.get(sw.prevPid) ?? sw.ts)
          out.push({ a: last.ts, b: split, pid: last.nextPid }, { a: split, b: sw.ts, pid: sw.prevPid })
        }
      }
      last = sw
      seen = new Map()
    }
    return out
  }

  it('knows who runs on each CPU at any time (checked inside every slice)', () => {
    let gaps = 0
    for (const cpu of store.cpus) {
      const mine = switches.filter((s) => s.cpu === cpu)
      for (let k = 0; k + 1 < mine.length; k++) if (mine[k].nextPid !== mine[k + 1].prevPid) gaps++
      for (const sl of textSlices(cpu)) {
        if (sl.b - sl.a < 2) continue
        expect(runningAt(store, cpu, (sl.a + sl.b) / 2)?.pid, `cpu ${cpu} t ${sl.a}`).toBe(sl.pid)
      }
    }
    expect(store.switchGaps).toBe(gaps)
    expect(runningAt(store, 0, store.t0 - 1)).toBeNull()
  })

  it('sums busy time into occupancy buckets', () => {
    for (const cpu of store.cpus) {
      const slices = textSlices(cpu)
      const busy = slices.filter((x) => x.pid !== 0).reduce((sum, x) => sum + x.b - x.a, 0)
      const a = slices[0].a
      const b = slices.at(-1)!.b
      const occ = occupancy(store, a, b, 50, [cpu])
      const sum = occ.rows[0].reduce((x, y) => x + y, 0) * occ.bucketNs
      expect(Math.abs(sum - busy) / (b - a)).toBeLessThan(1e-5)
    }
  })

  it('names the process that ran longest in each overview bucket', () => {
    for (const cpu of store.cpus) {
      const slices = textSlices(cpu).filter((x) => x.pid !== 0)
      const byPid = new Map<number, number>()
      for (const x of slices) byPid.set(x.pid, (byPid.get(x.pid) ?? 0) + x.b - x.a)
      // One bucket over the whole CPU: the process (tgid) with the most time.
      const byProcess = new Map<number, number>()
      for (const [pid, t] of byPid) {
        const key = store.tgidOf.get(pid) ?? pid
        byProcess.set(key, (byProcess.get(key) ?? 0) + t)
      }
      const best = [...byProcess.entries()].sort((a, b) => b[1] - a[1])[0][0]
      expect(dominantProcess(store, cpu, store.t0, store.t1 + 1, 1)[0]).toBe(best)
    }
  })

  it('rebuilds the runqueues: preempted tasks wait until they run again', () => {
    // Independent replay of the text: the R/R+ prev tasks and woken tasks wait until switched in.
    const preempted = switches.find((s) => s.prevPid !== 0 && /^R\+?$/.test(s.prevState))!
    const nextRun = switches.find((s) => s.ts > preempted.ts && s.nextPid === preempted.prevPid)!
    const t = (preempted.ts + nextRun.ts) / 2
    const q = runnableAt(store, t)
    const all = [...q.values()].flat()
    expect(all.map((w) => w.pid)).toContain(preempted.prevPid)
    expect(all.every((w) => w.pid !== 0)).toBe(true)
    // Nobody waits while running.
    for (const cpu of store.cpus) {
      const run = runningAt(store, cpu, t)
      if (run) expect(all.map((w) => w.pid)).not.toContain(run.pid)
    }
  })

  it('counts events by type as the golden file does', () => {
    const expected = JSON.parse(readFileSync(new URL(`${FILE}.expected.json`, root), 'utf-8'))
    expect(countByType(store, EVENT_TYPES)).toEqual(expected.by_type)
  })
})

describe('trace metadata', () => {
  it('groups CPUs by LLC and node from the capture header', () => {
    // The capture script's header (traces/README.md), as in intermittent8-linux6.12-vm16.txt: 4 nodes x 4 CPUs.
    const header = ['# kscope: kernel=6.12.117+deb12-amd64']
    for (let cpu = 0; cpu < 16; cpu++) {
      const first = cpu & ~3
      header.push(`# kscope-sysfs: cpu${cpu}/cache/index2/level\t2`, `# kscope-sysfs: cpu${cpu}/cache/index2/shared_cpu_list\t${cpu}`,
        `# kscope-sysfs: cpu${cpu}/cache/index3/level\t3`, `# kscope-sysfs: cpu${cpu}/cache/index3/shared_cpu_list\t${first}-${first + 3}`)
    }
    for (let node = 0; node < 4; node++) header.push(`# kscope-sysfs: ../node/node${node}/cpulist\t${node * 4}-${node * 4 + 3}`)
    const meta = parseTraceMeta(header)
    expect(meta.kernel).toBe('6.12.117+deb12-amd64')
    expect(meta.topology?.get(5)).toEqual({ cpu: 5, llc: 1, node: 1 })
    expect(meta.topology?.get(15)).toEqual({ cpu: 15, llc: 3, node: 3 })
    expect(meta.topology?.size).toBe(16)
    expect(parseTraceMeta(['# tracer: nop']).topology).toBeNull()
    // The real capture's header reads the same way.
    const real = readFileSync(new URL('traces/intermittent8-linux6.12-vm16.txt', root), 'utf-8')
      .split('\n').filter((l) => l.startsWith('#'))
    expect(parseTraceMeta(real).topology?.size).toBeGreaterThan(0)
    expect(parseCpuList('0-2,8')).toEqual([0, 1, 2, 8])
    expect(() => parseCpuList('0-x')).toThrow()
  })
})

describe('trace store edges', () => {
  it('puts a CPU in the slice that starts exactly at t', async () => {
    const core = await loadCore({ wasmBinary: readFileSync(new URL('wasm-core/build/wasm/kscope_core.wasm', root)) })
    const lines = ['# tracer: nop',
      '          <idle>-0       [000] d..2.   100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=42 next_prio=120',
      '               a-42      [000] d..2.   100.001500: sched_switch: prev_comm=a prev_pid=42 prev_prio=120 prev_state=R+ ==> next_comm=swapper/0 next_pid=0 next_prio=120',
      '          <idle>-0       [000] d..2.   100.001600: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=42 next_prio=120', '']
    const t = await core.openTrace(new Blob([lines.join('\n')]), 'edges.txt')
    const s = openTraceStore({ ...t, origin: { kind: 'local' } })
    expect(runningAt(s, 0, 100_001_500_000)?.pid).toBe(0)
    expect(runningAt(s, 0, 100_001_499_999)?.pid).toBe(42)
    // Preempted (R+) at 1.5 ms: it waits on CPU 0 from that very instant until 1.6 ms.
    expect(runnableAt(s, 100_001_500_000).get(0)?.map((w) => [w.pid, w.why])).toEqual([[42, 'preempted']])
    expect(runnableAt(s, 100_001_600_000).get(0)).toEqual([])
  })
})
