/*
 * The playback clock's arithmetic: how many events are due this animation
 * frame at a speed in events per second. Fractions carry over, so 5 events/s
 * at 60 frames/s gives one event every 12th frame, exactly 5 per second.
 * A long gap (a background tab, a slow frame) is capped: playback resumes
 * where it was instead of leaping ahead.
 */

/** Longest gap between two frames the clock honours, ms. */
export const MAX_FRAME_GAP_MS = 100

export interface ClockState {
  /** Timestamp of the previous frame (requestAnimationFrame's), ms; null before the first. */
  lastMs: number | null
  /** Fraction of an event owed from previous frames. */
  carry: number
}

export const startClock = (): ClockState => ({ lastMs: null, carry: 0 })

/** Events due at `nowMs`, and the clock for the next frame. */
export function tick(clock: ClockState, nowMs: number, eventsPerSecond: number): { due: number; clock: ClockState } {
  if (clock.lastMs === null) {
    // The first frame after pressing play shows one event at once: the press has an effect.
    return { due: 1, clock: { lastMs: nowMs, carry: 0 } }
  }
  const gap = Math.min(Math.max(0, nowMs - clock.lastMs), MAX_FRAME_GAP_MS)
  const owed = clock.carry + (gap * eventsPerSecond) / 1000
  const due = Math.floor(owed)
  return { due, clock: { lastMs: nowMs, carry: owed - due } }
}

/**
 * How long a task's move between CPUs should take on screen, ms: 300 ms when
 * stepping, shorter when events come faster (so one move ends before the next
 * starts), none when they come faster than the eye can follow.
 */
export function moveDurationMs(playing: boolean, eventsPerSecond: number): number {
  if (!playing) return 300
  const interval = 1000 / eventsPerSecond
  const d = Math.min(300, interval * 0.8)
  return d < 60 ? 0 : Math.round(d)
}
