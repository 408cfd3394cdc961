import { describe, expect, it } from 'vitest'
import { StringInterner } from './string_interner'

describe('StringInterner', () => {
  it('gives each distinct string one id, in order of first sight', () => {
    const t = new StringInterner()
    expect(t.id('sh')).toBe(0)
    expect(t.id('')).toBe(1)
    expect(t.id('sh')).toBe(0)
    expect(t.id('<script>')).toBe(2)
    expect(t.strings).toEqual(['sh', '', '<script>'])
  })
})
