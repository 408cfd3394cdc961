// What the Simulate page runs: its "auto" algorithm is the current kernel's mm_cid model
// wherever a process registers rseq (the C core resolves SIM_ALGO), and none elsewhere.
// Moved from core/sim/sim_controller.test.ts (the store itself is generic).
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadCore, type KscopeCore } from '../../engine/wasm_bridge'
import { openSim } from '../../core/sim/sim_fake_host'

const wasmBinary = readFileSync(new URL('../../../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url))
let core: KscopeCore
beforeAll(async () => {
  core = await loadCore({ wasmBinary })
})

function open(url: string) {
  return openSim(core, url)
}

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

})
