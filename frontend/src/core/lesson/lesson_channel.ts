/*
 * Presenter window <-> speaker-notes window, on one machine: a BroadcastChannel
 * per lesson ("kscope-lesson:<id>"). The presenter posts its position on every
 * change and answers a notes window's "hello"; the notes window can ask the
 * presenter to move (its own keys). Messages from elsewhere are checked
 * (parseChannelMessage) before use.
 *
 *   presenter ── {type:"position", position} ──> notes
 *   notes     ── {type:"hello"} | {type:"navigate", position} ──> presenter
 */
import type { LessonPosition } from './lesson_position'

export type ChannelMessage =
  | { type: 'position'; position: LessonPosition }
  | { type: 'navigate'; position: LessonPosition }
  | { type: 'hello' }

export const channelName = (lesson: string) => `kscope-lesson:${lesson}`

function isPosition(v: unknown, lesson: string): v is LessonPosition {
  if (typeof v !== 'object' || v === null) return false
  const p = v as Record<string, unknown>
  return p.lesson === lesson && Number.isInteger(p.step) && (p.step as number) >= 0 &&
    typeof p.toggles === 'object' && p.toggles !== null && !Array.isArray(p.toggles)
}

/** A message for this lesson, or null for anything else. */
export function parseChannelMessage(data: unknown, lesson: string): ChannelMessage | null {
  if (typeof data !== 'object' || data === null) return null
  const m = data as Record<string, unknown>
  if (m.type === 'hello') return { type: 'hello' }
  if ((m.type === 'position' || m.type === 'navigate') && isPosition(m.position, lesson)) return { type: m.type, position: m.position }
  return null
}

export interface LessonChannel {
  post(m: ChannelMessage): void
  close(): void
}

/** Opens the lesson's channel; onMessage gets only well-formed messages. Null where BroadcastChannel is missing. */
export function openLessonChannel(lesson: string, onMessage: (m: ChannelMessage) => void): LessonChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null
  const ch = new BroadcastChannel(channelName(lesson))
  ch.onmessage = (e: MessageEvent) => {
    const m = parseChannelMessage(e.data, lesson)
    if (m) onMessage(m)
  }
  return { post: (m) => ch.postMessage(m), close: () => ch.close() }
}
