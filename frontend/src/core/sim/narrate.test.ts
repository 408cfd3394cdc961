// Events in plain words, with their units.
import { describe, expect, it } from 'vitest'
import { describeEvent, distance, eventDetail, narrate } from './narrate'
import { formatDuration, formatT, msFromNs } from '../shared/units'
import { moveDurationMs, startClock, tick } from '../playback/playback'
import type { CpuInfo, SimEvent, Topology } from '../shared/types'

// Shaped like classroom-8: 1 socket, 2 L3 of 2 cores, SMT2, thread-major numbering
// as Linux does it (CPU 0 and CPU 4 share core 0; L3 #0 holds CPUs 0-1,4-5).
const cpus: CpuInfo[] = [0, 1, 2, 3, 4, 5, 6, 7].map((cpu) => {
  const core = cpu % 4
  return { cpu, core, llc: Math.floor(core / 2), node: 0, socket: 0, smt_index: Math.floor(cpu / 4) }
})

const fixture: { topology: Topology } = {
  topology: {
    name: 'fixture-8',
    cpus,
    summary: { cpus: 8, cores: 4, llcs: 2, nodes: 1, sockets: 1, threads_per_core: 2, l1d_kib: 32, l2_kib: 1024, l3_kib: 32768 },
  },
}

const base = { ts_ns: 12_345_678, cpu: 3, pid: 105, tgid: 100, comm: 'worker-2' }

describe('narration', () => {
  it('says a switch the way the brief does', () => {
    const ev: SimEvent = {
      ...base, type: 'sched_switch', prev_comm: 'worker-2', prev_pid: 105, prev_prio: 120, prev_state: 1,
      next_comm: 'swapper/3', next_pid: 0, next_prio: 120,
    }
    expect(narrate(ev)).toBe('t=12.346 ms: sched_switch on CPU 3: worker-2 (pid 105) sleeps, idle runs')
    expect(eventDetail(ev)).toBe('worker-2/105 S → idle')
    expect(describeEvent({ ...ev, prev_state: 0 })).toBe('worker-2 (pid 105) is preempted (still runnable), idle runs')
    expect(describeEvent({ ...ev, prev_state: 0x20 })).toMatch(/exits/)
  })

  it('says wakeups, migrations, forks and exits', () => {
    const target = { target_comm: 'hackbench', target_pid: 1003, target_prio: 120 }
    expect(describeEvent({ ...base, pid: 0, comm: 'swapper/3', type: 'sched_waking', ...target, target_cpu: 4 })).toBe('a timer wakes hackbench (pid 1003)')
    expect(describeEvent({ ...base, type: 'sched_wakeup', ...target, target_cpu: 4 })).toBe('hackbench (pid 1003) is runnable, queued on CPU 4')
    expect(describeEvent({ ...base, type: 'sched_migrate_task', ...target, orig_cpu: 0, dest_cpu: 6 }, fixture.topology))
      .toBe('hackbench (pid 1003) moves from CPU 0 to CPU 6 (another L3 (#0 → #1), same NUMA node)')
    expect(describeEvent({ ...base, type: 'sched_process_fork', parent_comm: 'forker', parent_pid: 1000, child_comm: 'forker', child_pid: 1001 }))
      .toBe('forker (pid 1000) forks forker (pid 1001)')
    expect(describeEvent({ ...base, type: 'sched_process_exit', ...target })).toBe('hackbench (pid 1003) exits')
    expect(describeEvent({ ...base, type: 'rseq_update', cpu_id: 3, node_id: 0, mm_cid: -1 })).toMatch(/cpu_id 3, node 0, mm_cid=-1 \(none\) in its rseq area/)
  })

  it('says allocator and sheaf events with their cache and sizes', () => {
    const kmem = { call_site: '', ptr: '0x1', cache: 'kmalloc-64', bytes_req: 40, bytes_alloc: 64, gfp_flags: 0, node: -1, accounted: 0 }
    expect(describeEvent({ ...base, type: 'kmem_cache_alloc', ...kmem }))
      .toBe('worker-2 (pid 105) allocates a 64-byte object from kmalloc-64')
    expect(describeEvent({ ...base, type: 'kmem_cache_free', ...kmem })).toBe('worker-2 (pid 105) frees an object to kmalloc-64')
    const sheaf = { cache: 'maple_node', node: 1, objects: 0, size: 32, capacity: 32, full: 1, barn_full: 3, barn_empty: 2 }
    expect(describeEvent({ ...base, type: 'barn_get', ...sheaf }))
      .toBe("maple_node takes a full sheaf from node 1's barn (barn: 3 full, 2 empty)")
    expect(eventDetail({ ...base, type: 'barn_put', ...sheaf, full: 0 })).toBe('maple_node empty (node\u00a01)')
    expect(eventDetail({ ...base, type: 'sheaf_refill', ...sheaf, objects: 30 })).toBe('maple_node 32/32')
  })

  it('names how far a move goes in the cache hierarchy', () => {
    const t = fixture.topology
    expect(distance(t, 0, 4)).toBe('its SMT sibling')
    expect(distance(t, 0, 5)).toBe('the same L3 (#0)')
    expect(distance(t, 5, 2)).toBe('another L3 (#0 → #1), same NUMA node')
  })
})

describe('units and the playback clock', () => {
  it('prints times with their units', () => {
    expect(formatT(200_031_513)).toBe('t=200.032 ms')
    expect(formatDuration(850)).toBe('850 ns')
    expect(formatDuration(31_513)).toBe('31.513 µs')
    expect(formatDuration(3_000_000)).toBe('3.000 ms')
    expect(formatDuration(1_250_000_000)).toBe('1.250 s')
    expect(msFromNs(10_000)).toBe('0.010')
  })

  it('plays exactly `speed` events per second, one at once on the first frame', () => {
    let clock = startClock()
    let total = 0
    for (let frame = 0; frame <= 60; frame++) {
      const r = tick(clock, frame * (1000 / 60), 5)
      total += r.due
      clock = r.clock
    }
    expect(total).toBe(1 + 5)
    const gap = tick({ lastMs: 0, carry: 0 }, 10_000, 1000)
    expect(gap.due).toBe(100) // a background tab does not leap ahead
  })

  it('glides moves for 300 ms when stepping, shorter when playing fast, not at all faster than the eye', () => {
    expect(moveDurationMs(false, 1000)).toBe(300)
    expect(moveDurationMs(true, 1)).toBe(300)
    expect(moveDurationMs(true, 5)).toBe(160)
    expect(moveDurationMs(true, 100)).toBe(0)
  })
})
