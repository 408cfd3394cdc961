import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CODE_ALPHABET, normalizeCode } from '../../core/rooms/rooms_api'
import { COUNT_TEXT_PX, histogramLayout } from './histogram'
import { qrSymbol } from './qr'

describe('qrSymbol', () => {
  it('encodes the join URL itself and draws the three finder patterns', () => {
    const url = 'http://127.0.0.1:8780/room/ACK43M'
    const qr = qrSymbol(url)
    expect(qr.encoded).toBe(url)
    expect((qr.size - 17) % 4).toBe(0)
    // Finder patterns in three corners: a dark 7x7 ring around a light ring around a dark 3x3 core.
    const dark = (x: number, y: number) => qr.path.includes(`M${x} ${y}h1v1h-1z`)
    for (const [x, y] of [[0, 0], [qr.size - 7, 0], [0, qr.size - 7]]) {
      expect([dark(x, y), dark(x + 1, y + 1), dark(x + 2, y + 2), dark(x + 3, y + 3), dark(x + 6, y + 6)])
        .toEqual([true, false, true, true, true])
    }
    expect(qrSymbol('http://x/room/TTTTTT').encoded).toBe('http://x/room/TTTTTT')
  })
})

describe('histogramLayout', () => {
  it('one bar per choice in order, widths by count, counts and shares as text, the answer marked', () => {
    const h = histogramLayout(['cid 0', 'cid 1', 'cid 2'], { 'cid 0': 1, 'cid 1': 3 }, 500, 'cid 1')
    expect(h.total).toBe(4)
    expect(h.bars.map((b) => [b.choice, b.count, b.label, b.correct])).toEqual([
      ['cid 0', 1, '1 (25 %)', false], ['cid 1', 3, '3 (75 %)', true], ['cid 2', 0, '0 (0 %)', false],
    ])
    expect(h.bars[1].width).toBeCloseTo(h.plotWidth)
    expect(h.bars[0].width).toBeCloseTo(h.plotWidth / 3)
    expect(h.bars[2].width).toBe(0)
    expect(h.bars[0].y).toBeLessThan(h.bars[1].y)
    expect(h.labelWidth + h.plotWidth + COUNT_TEXT_PX).toBe(500) // the count text fits right of a full bar
  })
  it('rows get shorter past four choices; labels fit the longest choice', () => {
    const eight = histogramLayout(['0', '1', '2', '3', '4', '5', '6', '7'], {}, 420, null)
    expect(eight.height).toBe(8 * 24)
    const named = histogramLayout(['KEEP_PCPU_CID', 'RECENT_CID'], {}, 420, null)
    expect(named.height).toBe(2 * 32)
    expect(named.labelWidth).toBe(28 + 9 * 13)
  })
  it('no answers yet: zero-width bars, no division by zero', () => {
    const h = histogramLayout(['a', 'b'], {}, 300, null)
    expect(h.bars.map((b) => [b.width, b.percent])).toEqual([[0, 0], [0, 0]])
  })
})

describe('room codes', () => {
  it('the frontend alphabet is the backend one', () => {
    const model = readFileSync(new URL('../../../../backend/kscope/rooms/model.py', import.meta.url), 'utf8')
    expect(model).toContain(`CODE_ALPHABET = "${CODE_ALPHABET}"`)
  })
  it('normalizes what people type', () => {
    expect(normalizeCode(' ack 4-3m ')).toBe('ACK43M')
    expect(normalizeCode('ACK43O')).toBeNull()
    expect(normalizeCode('ACK43')).toBeNull()
  })
})
