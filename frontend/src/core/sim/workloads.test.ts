// The example workloads are the C core's own files, imported at build time.
import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_WORKLOAD, EXAMPLE_WORKLOADS, exampleWorkload } from './workloads'

describe('example workloads', () => {
  it('ships every wasm-core/workloads/*.json, named as its "name" field', () => {
    const files = readdirSync(new URL('../../../../wasm-core/workloads/', import.meta.url)).filter((f) => f.endsWith('.json'))
    expect(EXAMPLE_WORKLOADS.map((w) => `${w.name}.json`)).toEqual(files.sort())
    for (const w of EXAMPLE_WORKLOADS) {
      expect((JSON.parse(w.json) as { name: string }).name).toBe(w.name)
      expect(w.description.length).toBeGreaterThan(10)
    }
    expect(exampleWorkload(DEFAULT_WORKLOAD)?.json).toContain('"intermittent"')
  })
})
