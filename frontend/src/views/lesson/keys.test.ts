// Presenter keys as a pure function: moves, jumps (one and two digits), the toggle, help, full screen.
import { describe, expect, it } from 'vitest'
import type { LessonPosition } from '../../core/lesson/lesson_position'
import { DIGIT_MS, isForeignKey, keyCommand, stepKeyCommand, type DigitBuffer } from './keys'

const at = (step: number, toggles: Record<string, boolean> = {}): LessonPosition => ({ lesson: 'mm_cid', step, toggles, pointer: { x: 0.5, y: 0.5 } })
const none: DigitBuffer = { text: '', at: 0 }
const press = (key: string, p: LessonPosition, digits = none, now = 10_000, steps = 16, toggles: string[] = []) =>
  keyCommand({ key, now }, p, steps, toggles, digits)

describe('presenter keys', () => {
  it('space, → and PageDown go on; ← and PageUp back; never past either end', () => {
    for (const k of [' ', 'ArrowRight', 'PageDown']) expect(press(k, at(3))[0]).toEqual({ kind: 'move', position: { ...at(4), pointer: null } })
    for (const k of ['ArrowLeft', 'PageUp']) expect(press(k, at(3))[0]).toEqual({ kind: 'move', position: { ...at(2), pointer: null } })
    expect(press('ArrowRight', at(15))[0]).toEqual({ kind: 'none' })
    expect(press('ArrowLeft', at(0))[0]).toEqual({ kind: 'none' })
    expect(press('Home', at(7))[0]).toMatchObject({ kind: 'move', position: { step: 0 } })
    expect(press('End', at(7))[0]).toMatchObject({ kind: 'move', position: { step: 15 } })
  })

  it('digits jump to the step numbered on screen (from 1); two typed quickly combine', () => {
    const [c1, buf] = press('1', at(5))
    expect(c1).toMatchObject({ kind: 'move', position: { step: 0 } })
    const [c2, buf2] = press('2', at(0), buf, 10_000 + DIGIT_MS - 1)
    expect(c2).toMatchObject({ kind: 'move', position: { step: 11 } })
    expect(buf2.text).toBe('') // 12 * 10 > 16: no third digit can follow
    // too slow: a fresh number
    expect(press('2', at(0), buf, 10_000 + DIGIT_MS + 1)[0]).toMatchObject({ kind: 'move', position: { step: 1 } })
    // beyond the lesson: the last step; 0 alone does nothing
    expect(press('9', at(0), none, 0, 5)[0]).toMatchObject({ kind: 'move', position: { step: 4 } })
    expect(press('0', at(3))[0]).toEqual({ kind: 'none' })
  })

  it('t flips the step\'s first toggle (keeping the step); nothing when the step has none', () => {
    expect(press('t', at(11), none, 0, 16, ['no_recent_cid'])[0]).toEqual({ kind: 'move', position: at(11, { no_recent_cid: true }) })
    expect(press('t', at(11, { no_recent_cid: true }), none, 0, 16, ['no_recent_cid'])[0]).toEqual({ kind: 'move', position: at(11, { no_recent_cid: false }) })
    expect(press('t', at(3))[0]).toEqual({ kind: 'none' })
  })

  it('f, ? and Escape are commands; other keys do nothing', () => {
    expect(press('f', at(1))[0]).toEqual({ kind: 'fullscreen' })
    expect(press('?', at(1))[0]).toEqual({ kind: 'help', open: 'toggle' })
    expect(press('Escape', at(1))[0]).toEqual({ kind: 'help', open: false })
    expect(press('x', at(1))[0]).toEqual({ kind: 'none' })
  })
})

describe('page key handling', () => {
  const ev = (o: Partial<Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey'>>, tagName?: string) =>
    ({ ctrlKey: false, metaKey: false, altKey: false, ...o, target: tagName ? ({ tagName } as unknown as EventTarget) : null })

  it('keys with a modifier held or typed into a form field are not the lesson\'s', () => {
    expect(isForeignKey(ev({}))).toBe(false)
    expect(isForeignKey(ev({}, 'DIV'))).toBe(false)
    expect(isForeignKey(ev({ ctrlKey: true }))).toBe(true)
    expect(isForeignKey(ev({ metaKey: true }))).toBe(true)
    expect(isForeignKey(ev({ altKey: true }))).toBe(true)
    for (const tag of ['INPUT', 'SELECT', 'TEXTAREA']) expect(isForeignKey(ev({}, tag))).toBe(true)
  })

  it('uses the toggles of the position\'s step (the last step past the end) and keeps the digit buffer', () => {
    const steps = [{ toggles: [] }, { toggles: ['bug'] }]
    const digits = { current: none }
    expect(stepKeyCommand('t', at(0), steps, digits)).toEqual({ kind: 'none' })
    expect(stepKeyCommand('t', at(1), steps, digits)).toEqual({ kind: 'move', position: { ...at(1), toggles: { bug: true } } })
    expect(stepKeyCommand('t', at(5), steps, digits)).toEqual({ kind: 'move', position: { ...at(5), toggles: { bug: true } } })
    expect(stepKeyCommand('2', at(0), steps, digits)).toEqual({ kind: 'move', position: { ...at(0), step: 1, pointer: null } })
    expect(digits.current.text).toBe('')   // 2 * 10 > 2 steps: no second digit can follow
    const many = Array.from({ length: 16 }, () => ({ toggles: [] }))
    expect(stepKeyCommand('1', at(4), many, digits)).toEqual({ kind: 'move', position: { ...at(4), step: 0, pointer: null } })
    expect(digits.current.text).toBe('1')
  })
})
