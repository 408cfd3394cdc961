/*
 * Presenter keys, as a pure function: a key press and the position give the
 * next position or a command. space / → / PageDown next, ← / PageUp back,
 * Home / End first / last, digits jump (typed quickly they combine: 1 then 2 is
 * step 12; steps are numbered from 1 on screen), t flips the step's first
 * toggle, f full screen, ? help, Escape closes help.
 */
import type { LessonPosition } from '../../core/lesson/lesson_position'

export type KeyCommand =
  | { kind: 'move'; position: LessonPosition }
  | { kind: 'fullscreen' }
  | { kind: 'help'; open: boolean | 'toggle' }
  | { kind: 'none' }

/** Digits typed so far and when (a second digit within DIGIT_MS extends the number). */
export interface DigitBuffer {
  text: string
  at: number
}
export const DIGIT_MS = 900

export interface KeyInput {
  key: string
  /** Time of the press, ms (for the digit buffer). */
  now: number
}

const moveTo = (p: LessonPosition, step: number, last: number): KeyCommand =>
  step === p.step || step < 0 || step > last ? { kind: 'none' } : { kind: 'move', position: { ...p, step, pointer: null } }

/** What a key does at a position in a lesson of `steps` steps; toggles: the step's toggle ids. */
export function keyCommand(input: KeyInput, p: LessonPosition, steps: number, toggles: readonly string[], digits: DigitBuffer): [KeyCommand, DigitBuffer] {
  const last = steps - 1
  const { key, now } = input
  const cleared: DigitBuffer = { text: '', at: 0 }
  if (/^[0-9]$/.test(key)) {
    const text = (now - digits.at <= DIGIT_MS ? digits.text : '') + key
    const n = Number(text)
    const buf = { text: n * 10 > steps ? '' : text, at: now }
    if (n === 0) return [{ kind: 'none' }, cleared]
    return [moveTo(p, Math.min(n, steps) - 1, last), buf]
  }
  switch (key) {
    case ' ':
    case 'ArrowRight':
    case 'PageDown':
      return [moveTo(p, Math.min(p.step + 1, last), last), cleared]
    case 'ArrowLeft':
    case 'PageUp':
      return [moveTo(p, Math.max(p.step - 1, 0), last), cleared]
    case 'Home':
      return [moveTo(p, 0, last), cleared]
    case 'End':
      return [moveTo(p, last, last), cleared]
    case 'f':
    case 'F':
      return [{ kind: 'fullscreen' }, cleared]
    case '?':
      return [{ kind: 'help', open: 'toggle' }, cleared]
    case 'Escape':
      return [{ kind: 'help', open: false }, cleared]
    case 't':
    case 'T': {
      const t = toggles[0]
      if (!t) return [{ kind: 'none' }, cleared]
      return [{ kind: 'move', position: { ...p, toggles: { ...p.toggles, [t]: !p.toggles[t] } } }, cleared]
    }
  }
  return [{ kind: 'none' }, cleared]
}

/** Ctrl, Meta or Alt held, or typing into a form field: not a lesson key (the page leaves it alone). */
export function isForeignKey(e: Pick<KeyboardEvent, 'ctrlKey' | 'metaKey' | 'altKey' | 'target'>): boolean {
  const t = e.target as { tagName?: string } | null
  return e.ctrlKey || e.metaKey || e.altKey || (!!t && /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName ?? ''))
}

/** keyCommand at p in a lesson of these steps (the toggles of p's step, clamped to the last);
 *  advances the digit buffer held in `digits`. */
export function stepKeyCommand(key: string, p: LessonPosition, steps: readonly { toggles: readonly string[] }[],
  digits: { current: DigitBuffer }): KeyCommand {
  const step = steps[Math.min(p.step, steps.length - 1)]
  const [cmd, buf] = keyCommand({ key, now: performance.now() }, p, steps.length, step.toggles, digits.current)
  digits.current = buf
  return cmd
}

/** The help overlay's lines. */
export const KEY_HELP: [string, string][] = [
  ['Space, →, PageDown', 'next step'],
  ['←, PageUp', 'previous step'],
  ['1 … 9 (two digits quickly: 10 …)', 'jump to that step'],
  ['Home / End', 'first / last step'],
  ['t', "turn the step's bug toggle on or off"],
  ['f', 'full screen on / off'],
  ['?', 'this help; Esc closes it'],
]
