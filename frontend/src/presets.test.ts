// Every machine the C core ships, end to end minus the DOM: wasm -> Topology ->
// layout. One box per socket, NUMA node and LLC, whatever the nesting.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadCore } from './engine/wasm_bridge'
import { flattenLayout, layoutTopology } from './views/topology/layout'

const core = await loadCore({
  wasmBinary: readFileSync(new URL('../../wasm-core/build/wasm/kscope_core.wasm', import.meta.url)),
})

describe.each(core.presets().map((p) => p.name))('preset %s', (name) => {
  const topology = core.topology(name)
  const s = topology.summary

  it('has dense ids whose counts match the summary', () => {
    const distinct = (key: 'core' | 'llc' | 'node' | 'socket') => new Set(topology.cpus.map((c) => c[key])).size
    expect(topology.cpus).toHaveLength(s.cpus)
    expect([distinct('core'), distinct('llc'), distinct('node'), distinct('socket')]).toEqual([s.cores, s.llcs, s.nodes, s.sockets])
  })

  it('lays out with one box per socket, node, LLC and CPU', () => {
    for (const viewport of [{ width: 1240, height: 840 }, { width: 940, height: 560 }]) {
      const boxes = flattenLayout(layoutTopology(topology, viewport))
      expect([boxes.sockets.length, boxes.nodes.length, boxes.llcs.length, boxes.cores.length, boxes.cpus.length]).toEqual([
        s.sockets, s.nodes, s.llcs, s.cores, s.cpus,
      ])
    }
  })
})
