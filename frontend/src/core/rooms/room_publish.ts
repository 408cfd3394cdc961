/*
 * When the presenter's position goes to the room. A new step, toggle or view
 * goes out at once; the pointer moves 60 times a second, so pointer-only
 * changes go out at most every POINTER_MS (the last one always goes: trailing
 * send), which keeps a 300-follower room at <= 10 pointer frames/s each.
 */
import type { LessonPosition } from '../lesson/lesson_position'

export const POINTER_MS = 100

/** Step, toggles and view: what must never be delayed. */
export function structuralKey(p: LessonPosition): string {
  return JSON.stringify([p.lesson, p.step, p.toggles, p.view ?? null])
}

export interface LastSent {
  key: string
  at: number
}

/** 0: send now; > 0: send the latest after that many ms (pointer-only change too soon after the last send). */
export function publishDelay(last: LastSent | null, next: LessonPosition, now: number): number {
  if (!last || last.key !== structuralKey(next) || !next.pointer) return 0
  return Math.max(0, POINTER_MS - (now - last.at))
}
