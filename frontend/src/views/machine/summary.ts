/*
 * View data derived from a frame, pure and unit-tested: the per-process
 * colours, a closed L3's one-line summary, and the digest the tests compare.
 */
import { OKABE_ITO } from '../palette'
import type { SimFrame, SimTask } from '../../core/shared/types'

/**
 * Okabe–Ito hues for processes, each with the text colour that reads on it
 * (black except on blue). Black itself is kept for ink. A colour never speaks
 * alone: every chip also prints the task's name and pid.
 */
export const PROCESS_COLOURS: readonly { fill: string; text: string; name: string }[] = [
  { fill: OKABE_ITO.skyBlue, text: '#000000', name: 'sky blue' },
  { fill: OKABE_ITO.orange, text: '#000000', name: 'orange' },
  { fill: OKABE_ITO.bluishGreen, text: '#000000', name: 'bluish green' },
  { fill: OKABE_ITO.reddishPurple, text: '#000000', name: 'reddish purple' },
  { fill: OKABE_ITO.yellow, text: '#000000', name: 'yellow' },
  { fill: OKABE_ITO.blue, text: '#ffffff', name: 'blue' },
  { fill: OKABE_ITO.vermillion, text: '#000000', name: 'vermillion' },
]

/**
 * A colour index per process (tgid): processes numbered in tgid order, modulo
 * the palette. Tasks are never removed from a frame (exited ones stay, dead),
 * and new processes get larger tgids, so a process keeps its colour for the run.
 */
export function processColours(tasks: readonly SimTask[]): Map<number, number> {
  const tgids = [...new Set(tasks.map((t) => t.tgid))].sort((a, b) => a - b)
  return new Map(tgids.map((tgid, i) => [tgid, i % PROCESS_COLOURS.length]))
}

export interface LlcSummary {
  busy: number
  total: number
  /** Running tasks by name, most first: [["hackbench", 3], ["rseq-bench", 1]]. */
  comms: [string, number][]
  /** Tasks waiting on these CPUs' runqueues. */
  queued: number
}

/** What a closed L3 box says: busy CPUs of total, which programs run, how many wait. */
export function llcSummary(frame: SimFrame, cpus: readonly number[], tasks: ReadonlyMap<number, SimTask>): LlcSummary {
  const counts = new Map<string, number>()
  let busy = 0
  let queued = 0
  for (const cpu of cpus) {
    const c = frame.cpus[cpu]
    if (!c) continue
    queued += c.queued.length
    if (c.curr_tid < 0) continue
    busy++
    const comm = tasks.get(c.curr_tid)?.comm ?? `tid ${c.curr_tid}`
    counts.set(comm, (counts.get(comm) ?? 0) + 1)
  }
  const comms = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  return { busy, total: cpus.length, comms, queued }
}

/** "3/16 busy" for a closed L3's header. */
export const busyText = (s: LlcSummary) => `${s.busy}/${s.total} busy`

/** "hackbench ×3, rseq-bench · 2 waiting": what runs there, cut ("+N more") to `maxChars`. */
export function commsText(s: LlcSummary, maxChars = 40): string {
  const tail = s.queued ? ` · ${s.queued} waiting` : ''
  if (!s.comms.length) return `all idle${tail}`
  const names = s.comms.map(([comm, n]) => (n > 1 ? `${comm} ×${n}` : comm))
  let shown = names[0]
  for (let i = 1; i < names.length; i++) {
    const rest = names.length - i - 1
    const next = `${shown}, ${names[i]}`
    if ((next + (rest ? `, +${rest} more` : '') + tail).length > maxChars) {
      shown += `, +${names.length - i} more`
      break
    }
    shown = next
  }
  return shown + tail
}

/**
 * A compact, exact description of a frame for tests and links:
 * "step 30 · now 200031513 ns · 1 of 8 CPUs busy · 4:1004" (each busy CPU with its task's tid).
 */
export function frameDigest(frame: SimFrame): string {
  const busy = frame.cpus.filter((c) => c.curr_tid >= 0)
  const running = busy.map((c) => `${c.cpu}:${c.curr_tid}`).join(' ')
  return `step ${frame.step} · now ${frame.now_ns} ns · ${busy.length} of ${frame.cpus.length} CPUs busy · ${running}`
}
