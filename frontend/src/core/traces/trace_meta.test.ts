// What a trace's header says about where its events come from (issue 13 item 11): a kscope
// simulator export says "# kscope: source=modelled" (MODELLED, with its run); anything else
// is a real kernel's trace (MEASURED). The server path rebuilds the same lines from its metadata.
import { describe, expect, it } from 'vitest'
import { parseTraceMeta, provenanceLines, provenanceOf } from './trace_meta'

const EXPORT_HEAD = [
  '# kscope: source=modelled', '# kscope: generator=kscope sim', '# kscope: workload=seed000-8core-200ms',
  '# kscope: seed=3', '# kscope: algo=mm_cid:v6.18', '# kscope: preset=classroom-8', '# kscope: until_ns=2000000000',
  '# tracer: nop', '#', '# entries-in-buffer/entries-written: 50/50   #P:8',
]

describe('trace provenance', () => {
  it('a simulator export is MODELLED, with its workload, seed, model and machine', () => {
    expect(parseTraceMeta(EXPORT_HEAD).provenance).toEqual({
      kind: 'modelled', workload: 'seed000-8core-200ms', seed: '3', algo: 'mm_cid:v6.18', preset: 'classroom-8', generator: 'kscope sim',
    })
    expect(parseTraceMeta(EXPORT_HEAD).nrCpus).toBe(8)
  })

  it('a kscope capture, or a plain tracefs header, is MEASURED', () => {
    expect(parseTraceMeta(['# kscope: capture=1', '# kscope: kernel=6.18.0', '# tracer: nop']).provenance).toEqual({ kind: 'measured' })
    expect(parseTraceMeta(['# tracer: nop']).provenance).toEqual({ kind: 'measured' })
    expect(provenanceOf({ source: 'measured' })).toEqual({ kind: 'measured' })
  })

  it('the server path: the stored provenance rebuilds the same header lines, so both paths label alike', () => {
    const stored = { kind: 'modelled', workload: 'seed000-8core-200ms', seed: '3', algo: 'mm_cid:v6.18', preset: 'classroom-8', generator: null }
    expect(parseTraceMeta(provenanceLines(stored)).provenance).toEqual({
      kind: 'modelled', workload: 'seed000-8core-200ms', seed: '3', algo: 'mm_cid:v6.18', preset: 'classroom-8',
    })
    expect(provenanceLines({ kind: 'measured' })).toEqual([])
  })
})
