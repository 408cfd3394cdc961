// Published figures are read from backend/kscope/data/published.json, never retyped.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { publishedRow } from './published'

const file = JSON.parse(readFileSync(new URL('../../../../backend/kscope/data/published.json', import.meta.url), 'utf8'))

describe('published rows', () => {
  it('reads the seed 000 200 ms row as the file has it', () => {
    const r = publishedRow('mm_cid_7e019dc', 'delay_200ms', '8-core/1-L3')
    expect('missing' in r).toBe(false)
    const row = file.mm_cid_7e019dc.delay_200ms.find((x: { config: string }) => x.config === '8-core/1-L3')
    if (!('missing' in r)) {
      expect(r.values).toEqual({ per_cpu_ns: row.per_cpu_ns, mm_cid_ns: row.mm_cid_ns, cache_local_ns: row.cache_local_ns, speedup: row.speedup })
      expect(r.machine).toMatch(/EPYC 9654/)
    }
  })
  it('says which part is missing', () => {
    expect(publishedRow('nope', 'a', 'b')).toEqual({ missing: 'published.json has no entry "nope"' })
    expect(publishedRow('mm_cid_7e019dc', 'delay_10ms', 'x')).toEqual({ missing: 'published.json "mm_cid_7e019dc" has no table "delay_10ms"' })
    expect(publishedRow('mm_cid_7e019dc', 'delay_200ms', '9-core')).toEqual({ missing: 'published.json "mm_cid_7e019dc.delay_200ms" has no row "9-core"' })
  })
})
