// The lesson's sentences, on records the real C core logs (the wasm the browser
// runs): one record of every allocator path from a handful of runs, and the
// exact sentences of the benchmark's key moments.
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore } from '../../engine/wasm_bridge'
import { burstSource } from '../../core/lesson/lesson_timeline'
import {
  areaPhrase, burstInfos, costTotals, narrateBurst, narrateRecord, narrateStep, ratioText, whyNoCid, type BurstInfo,
} from './lesson_narrate'
import { type Topology } from '../../core/shared/types'
import { MM_CID_PATHS, type MmCidPath, type MmCidRecord } from './types'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
const example = (n: string) => readFileSync(new URL(`../../../../wasm-core/workloads/${n}.json`, import.meta.url), 'utf8')
const bench = (extra: object) =>
  JSON.stringify({ name: 'b', duration_ms: 8000, processes: [{ kind: 'intermittent', comm: 'rseq-bench', index_by: 'mm_cid', delay_ms: 200, order: 'fixed', warmup_sweeps: 20000, loops: 5, ...extra }] })
const IDLE = { privateBackgroundBytesPerUs: 0, llcBackgroundBytesPerUs: 0 }

interface Run {
  variant: string
  records: MmCidRecord[]
  bursts: BurstInfo[]
}

/** Real runs, and the first record of each path with the run it came from. */
const runs: Record<string, Run> = {}
const firstOf = new Map<MmCidPath, { r: MmCidRecord; run: Run }>()
let topology: Topology

beforeAll(async () => {
  const core = await loadCore({ wasmBinary })
  topology = core.topology('classroom-8')
  const specs: [string, string, string, boolean][] = [
    ['bench612', 'v6.12', bench({ cpus: [0, 1, 2, 3, 4, 5, 6, 7] }), true],
    ['bench613', 'v6.13', bench({ cpus: [0, 1, 2, 3, 4, 5, 6, 7] }), true],
    ['race', 'v6.13+race', bench({ threads: 6, placement: 'free', delay_ms: 30 }), true],
    ['shrink', 'v6.18', example('hackbench-2g'), false],
    ['compact', 'v6.18', bench({ threads: 6, placement: 'free', delay_ms: 30 }), true],
    ['fork', 'v6.18', example('fork-churn'), false],
    ['rt', 'v6.13', example('rt-periodic'), false],
    ['own', 'v6.19', bench({ threads: 6, placement: 'free', delay_ms: 30 }), true],
    ['percpu', 'v6.19', bench({ threads: 12, placement: 'free', delay_ms: 5 }), true],
    ['fork619', 'v6.19', example('fork-churn'), false],
  ]
  for (const [name, algo, workloadJson, idle] of specs) {
    const sim = core.simulate({ preset: 'classroom-8', workloadJson, seed: 1, algo: `mm_cid:${algo}`, cache: idle ? IDLE : {} })
    const t = sim.timeline(400_000)
    sim.seek(t.ts.length)
    const view = sim.mmCidView(1000)
    const run = { variant: algo.slice(0, 5), records: t.records, bursts: burstInfos(view.bursts, t.burstLines.map(burstSource)) }
    runs[name] = run
    for (const r of t.records) if (!firstOf.has(r.path)) firstOf.set(r.path, { r, run })
    sim.free()
  }
})

describe('allocator sentences', () => {
  it('real runs log every path but MIGRATE_SRC_DROPPED and two 6.19 ones', () => {
    // HANDOVER and CONVERGE need threads forked or exiting while others run, past max_cids:
    // wasm-core/tests/mm_cid/test_mm_cid_v619.c replays a trace that takes both
    expect(MM_CID_PATHS.filter((p) => !firstOf.has(p))).toEqual(['MIGRATE_SRC_DROPPED', 'HANDOVER', 'CONVERGE'])
  })

  it('every path names the CPU and the cid it is about, in words that match the branch', () => {
    const says: Record<MmCidPath, RegExp> = {
      KEEP_PCPU_CID: /still owns cid \d+ .* keeps cid \d+: no cidmask access/,
      RECENT_CID: /tried recent_cid (\d+) first — free — so it got cid \1 back/,
      EXPAND_MAX_NR_CID: /max_nr_cid (\d+) < min\(nr_cpus_allowed, mm_users\) = \d+, so it took the never-used cid \d+ and max_nr_cid grew to \d+/,
      FIRST_FREE: /lowest free cid below nr_cpu_ids \(8\): cid \d+/,
      PUT_LAZY: /carried LAZY_PUT .* freed now/,
      MIGRATE_TAKEN_FROM_SRC: /moved from CPU \d+ to CPU \d+; CPU \d+ had no cid, so cid \d+ moved with it/,
      MIGRATE_SRC_DROPPED: /./,
      MIGRATE_KEPT_SRC: /had a cid or a recent_cid and mm_users \d+ >= \d+ \(the process's allowed CPUs\), so CPU \d+ keeps cid \d+/,
      MIGRATE_SRC_IN_USE: /another thread of the process runs on CPU \d+ and uses cid \d+: nothing moves/,
      SCAN: /the 100 ms scan ran \(task_mm_cid_work, from the tick on CPU \d+ while thread \d+ ran there\)/,
      SCAN_DROPPED_OLD: /the scan took cid \d+ back from CPU \d+: unused for \d+\.\d{3} ms >= 100 ms by that CPU's rq clock/,
      COMPACT_DROPPED: /it is >= \d+, the number of cids still taken \(compaction\)/,
      MARKED_LAZY: /the scan only marked its cid \d+ LAZY_PUT/,
      EXIT_PUT: /thread \d+ exits: CPU \d+ gives cid \d+ back at once/,
      REMOTE_CLEAR_HELD: /emptied CPU \d+'s slot but still holds cid \d+/,
      REMOTE_CLEAR_DONE: /cid \d+ is free again/,
      MAX_NR_CID_SHRUNK: /max_nr_cid is cut from \d+ to \d+ = min\(nr_cpus_allowed, mm_users\)/,
      KEEP_TASK_CID: /with its own cid \d+: since 6.19 a thread owns its cid from fork to exit/,
      HANDOVER: /passes between thread \d+ and CPU \d+/,
      CONVERGE: /swapped it for the lower free cid \d+/,
      MODE_PER_CPU: /\d+ threads > max_cids \d+ as thread \d+ starts \(CPU \d+\): the process switches to per-CPU mode/,
      MODE_PER_TASK: /below pcpu_thrs \d+: the process switches back to per-task mode/,
      DROPPED: /cid \d+ goes back to the process's pool/,
    }
    for (const [path, { r, run }] of firstOf) {
      const text = narrateRecord(r, run.variant, run.records)
      expect(text, path).toMatch(says[path])
      if (r.cpu >= 0) expect(text, path).toContain(`CPU ${r.cpu}`)
      if (r.cid >= 0) expect(text, path).toContain(`cid ${r.cid}`)
    }
  })

  it('MIGRATE_SRC_DROPPED (no run above logs it): compaction at migration', () => {
    const r = { ...firstOf.get('MIGRATE_KEPT_SRC')!.r, path: 'MIGRATE_SRC_DROPPED' as const, mm_users: 2, bound: 8, other_cpu: 3, cpu: 5, cid: 4 }
    expect(narrateRecord(r, 'v6.13', [])).toBe(
      `thread ${r.tid} moved from CPU 3 to CPU 5, which already had a cid; mm_users 2 < 8, so CPU 3's cid 4 was freed (compaction)`,
    )
  })

  it("the benchmark's key moment: after the scan, v6.12 hands CPU 1 cid 0, v6.13 its own cid 1 back", () => {
    const at = (run: Run) => run.records.find((r) => r.cpu === 1 && r.ts_ns === 800_000_001)!
    const r12 = at(runs.bench612)
    const r13 = at(runs.bench613)
    expect(narrateRecord(r12, 'v6.12', runs.bench612.records)).toBe(
      'thread 1001 woke on CPU 1; CPU 1 had no cid (dropped by the 100 ms scan at t=204.000 ms: unused for 196.000 ms by CPU 1\'s rq clock); ' +
        'v6.12 takes the lowest free cid below nr_cpu_ids (8): cid 0',
    )
    expect(narrateRecord(r13, 'v6.13', runs.bench613.records)).toBe(
      'thread 1001 woke on CPU 1; CPU 1 had no cid (dropped by the 100 ms scan at t=204.000 ms: unused for 196.000 ms by CPU 1\'s rq clock); ' +
        'v6.13 tried recent_cid 1 first — free — so it got cid 1 back',
    )
    // The step adds where the area was: v6.12's cid 0 area was CPU 0's, in the same L3.
    const b12 = runs.bench612.bursts.find((b) => b.ts_ns === r12.ts_ns)!
    expect(b12).toMatchObject({ cpu: 1, index: 0, fromCpu: 0, source: 'same-llc-core', warmup: true })
    expect(areaPhrase(b12, topology)).toBe("its 16 KiB area[0] was last written in CPU 0's cache in L3 #0: the burst pulls its 256 lines across")
    const lines = narrateStep({ variant: 'v6.12', time_ns: r12.ts_ns, records: [r12], history: runs.bench612.records, bursts: [b12], events: [], topology, warmupSweeps: 20000 })
    expect(lines.map((l) => l.kind)).toEqual(['record', 'burst'])
    expect(lines[0].text).toMatch(/cid 0: its 16 KiB area\[0\] was last written in CPU 0's cache in L3 #0/)
    expect(lines[1].text).toBe(
      "warm-up (not measured): thread 1001 swept area[0] (16 KiB, 256 lines) 20000 times on CPU 1 in 11.531 ms; " +
        "the first sweep's data came from CPU 0's cache (L3 #0): another core's cache in the same L3",
    )
  })

  it('says why a CPU had no cid: the scan, or never having run there', () => {
    const first = runs.bench613.records.find((r) => r.path === 'EXPAND_MAX_NR_CID')!
    expect(whyNoCid(first, runs.bench613.records)).toBe('the process had never run on CPU 0')
  })
})

describe('bursts and totals', () => {
  it('each burst knows the CPU that swept its area before', () => {
    const b = burstInfos(
      [
        { ts_ns: 1, tid: 1, cpu: 0, index: 0, cost_ns: 30000, warmup: true },
        { ts_ns: 2, tid: 2, cpu: 1, index: 0, cost_ns: 9000, warmup: false },
        { ts_ns: 3, tid: 1, cpu: 0, index: 1, cost_ns: 500, warmup: false },
      ],
      ['dram', 'same-llc-core', 'core'],
    )
    expect(b.map((x) => x.fromCpu)).toEqual([null, 0, null])
    expect(costTotals(b)).toEqual({ measured: 2, total_ns: 9500, mean_ns: 4750, warmups: 1, transfers: 1, dram: 0 })
    expect(narrateBurst(b[1])).toBe("burst: thread 2 swept area[0] (16 KiB, 256 lines) on CPU 1 in 9.000 µs — data from CPU 0's cache: another core's cache in the same L3")
  })

  it("says why a burst cost what it did, from its parts (cost model v2), not from a fixed sentence", () => {
    const names = ['core', 'l2', 'llc', 'remote', 'dram', 'rfo', 'idle_flush', 'capacity', 'bandwidth', 'tlb',
      'cstate_exit', 'contention', 'lock_handoff', 'lock_spin', 'first_touch']
    const parts = (set: Record<string, number>) => names.map((n) => set[n] ?? 0)
    const b = burstInfos(
      [
        { ts_ns: 1, tid: 1, cpu: 0, index: 3, cost_ns: 12236, warmup: false },
        { ts_ns: 2, tid: 1, cpu: 0, index: 3, cost_ns: 300, warmup: false },
      ],
      ['core', 'core'],
      { names, ns: [parts({ core: 288, tlb: 60, first_touch: 11888 }), parts({ core: 290, tlb: 10 })] },
    )
    expect(narrateBurst(b[0])).toMatch(/in 12\.236 µs — data from .*; why: 12\.236 µs: 11\.888 µs first touch \(page faults on the first write to each page\)$/)
    expect(narrateBurst(b[1])).toMatch(/; why: 300 ns: the sweep's own work \(290 ns\); .*hidden under that work$/)
  })

  it("the benchmark's totals: v6.12 pays for the pulled areas, v6.13 does not", () => {
    const t12 = costTotals(runs.bench612.bursts)
    const t13 = costTotals(runs.bench613.bursts)
    expect(t12.measured).toBe(40)
    expect(t13.measured).toBe(40)
    expect(t12.total_ns).toBeGreaterThan(t13.total_ns)
    expect(t13.transfers).toBe(0)
    expect(ratioText(t12, t13, 'v6.12', 'v6.13')).toMatch(/^v6\.12 costs \d+\.\dx v6\.13 per burst so far$/)
  })

  it('a run with nothing at the instant says so', () => {
    expect(narrateStep({ variant: 'v6.13', time_ns: 5e6, records: [], history: [], bursts: [], events: [] })).toEqual([
      { kind: 'quiet', text: 'nothing happens in v6.13 at t=5.000 ms' },
    ])
  })
})
