import { describe, expect, it } from 'vitest'
import { POINTER_MS, publishDelay, structuralKey } from './room_publish'

const at = (step: number, pointer: { x: number; y: number } | null = null) => ({ lesson: 'mm_cid', step, toggles: {}, pointer })

describe('publishDelay', () => {
  it('sends steps, toggles and pointer removal at once; throttles pointer-only moves', () => {
    expect(publishDelay(null, at(0), 0)).toBe(0)
    const last = { key: structuralKey(at(1)), at: 1000 }
    expect(publishDelay(last, at(2, { x: 0.5, y: 0.5 }), 1010)).toBe(0) // a new step
    expect(publishDelay(last, { ...at(1), toggles: { no_recent_cid: true } }, 1010)).toBe(0)
    expect(publishDelay(last, at(1, null), 1010)).toBe(0) // pointer left the stage
    expect(publishDelay(last, at(1, { x: 0.1, y: 0.2 }), 1030)).toBe(POINTER_MS - 30)
    expect(publishDelay(last, at(1, { x: 0.1, y: 0.2 }), 1000 + POINTER_MS + 5)).toBe(0)
  })
})
