// View data from frames: process colours, closed-L3 summaries, the digest, chip labels.
import { describe, expect, it } from 'vitest'
import type { SimCpu, SimFrame, SimTask } from '../../core/shared/types'
import { chipLabel } from '.'
import { PROCESS_COLOURS, busyText, commsText, frameDigest, llcSummary, processColours } from './summary'

const task = (tid: number, tgid: number, comm: string, cpu: number, state: SimTask['state'] = 'running'): SimTask => ({
  tid, tgid, comm, cpu, state, policy: 'normal', prio: 120, nr_cpus_allowed: 8, mm_cid: -1, vruntime_ns: 0, sum_exec_ns: 0,
})
const cpu = (n: number, curr: number, queued: number[] = []): SimCpu => ({
  cpu: n, curr_tid: curr, nr_running: queued.length + (curr >= 0 ? 1 : 0), queued, busy_ns: 0,
})

const frame: SimFrame = {
  step: 30,
  now_ns: 200031513,
  cpus: [cpu(0, 1000, [1003]), cpu(1, -1), cpu(2, 1001), cpu(3, 1020, [1021, 1022])],
  tasks: [
    task(1000, 1000, 'hackbench', 0), task(1001, 1000, 'hackbench', 2), task(1003, 1000, 'hackbench', 0, 'runnable'),
    task(1020, 1020, 'rseq-bench', 3), task(1021, 1020, 'rseq-bench', 3, 'runnable'), task(1022, 1020, 'rseq-bench', 3, 'runnable'),
    task(1030, 1030, 'forker', 1, 'dead'),
  ],
}
const byTid = new Map(frame.tasks.map((t) => [t.tid, t]))

describe('machine view data', () => {
  it('gives each process a stable Okabe–Ito colour, by tgid order', () => {
    const colours = processColours(frame.tasks)
    expect([...colours.entries()]).toEqual([[1000, 0], [1020, 1], [1030, 2]])
    // A process forked later does not repaint the ones before it.
    const later = processColours([...frame.tasks, task(1040, 1040, 'late', 1)])
    expect(later.get(1000)).toBe(0)
    expect(later.get(1020)).toBe(1)
    expect(PROCESS_COLOURS.map((c) => c.fill)).not.toContain('#000000')
  })

  it('summarises a closed L3: busy of total, who runs, who waits', () => {
    const s = llcSummary(frame, [0, 1, 2, 3], byTid)
    expect(s).toEqual({ busy: 3, total: 4, comms: [['hackbench', 2], ['rseq-bench', 1]], queued: 3 })
    expect(busyText(s)).toBe('3/4 busy')
    expect(commsText(s)).toBe('hackbench ×2, rseq-bench · 3 waiting')
    expect(commsText(llcSummary(frame, [1], byTid))).toBe('all idle')
  })

  it('cuts a long list of programs with "+N more"', () => {
    const s = { busy: 4, total: 4, queued: 0, comms: [['alpha', 1], ['bravo', 1], ['charlie', 1], ['delta', 1]] as [string, number][] }
    expect(commsText(s, 100)).toBe('alpha, bravo, charlie, delta')
    expect(commsText(s, 21)).toBe('alpha, bravo, +2 more')
    expect(commsText(s, 5)).toBe('alpha, +3 more')
  })

  it('digests a frame: step, time, busy CPUs with their tids', () => {
    expect(frameDigest(frame)).toBe('step 30 · now 200031513 ns · 3 of 4 CPUs busy · 0:1000 2:1001 3:1020')
  })

  it('labels a chip with name and pid, cutting the name, never the pid', () => {
    expect(chipLabel('hackbench', 1003, 196, 17)).toBe('hackbench 1003')
    const cut = chipLabel('a-very-long-comm', 104321, 120, 17)
    expect(cut.endsWith(' 104321')).toBe(true)
    expect(cut).toContain('…')
  })
})
