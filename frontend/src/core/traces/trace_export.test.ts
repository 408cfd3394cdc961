import { describe, expect, it } from 'vitest'
import { downloadName, exportUrl } from './trace_export'

describe('trace export URLs', () => {
  it('names the whole trace or an integer-ns window', () => {
    expect(exportUrl('ab12', 'ftrace')).toBe('/api/traces/ab12/export?format=ftrace')
    expect(exportUrl('ab12', 'chrome-json', { t0: 1273158974123.4, t1: 1273158975000.2 }))
      .toBe('/api/traces/ab12/export?format=chrome-json&t0=1273158974123&t1=1273158975001')
  })
  it('takes the file name from Content-Disposition', () => {
    expect(downloadName('attachment; filename="rt16.json"', 'x.json')).toBe('rt16.json')
    expect(downloadName(null, 'x.json')).toBe('x.json')
  })
})
