/*
 * cpupri's narration: what the model's state and the run's RT placements say, in plain
 * words (the lesson player's narration view and the page's caption).
 */
import type { Topology } from '../../core/shared/types'
import { levelLabel } from '../../engine/cpupri/cpupri_records'
import type { CpupriLessonView, CpupriRecord, CpupriRunView } from './lesson_store'
import { VARIANT_LOOK } from './runs'
import { hotLevel, maskLines } from '../../views/cpupri/mask_line'

/** One placement in words. */
export function narrateRecord(r: CpupriRecord): string {
  const t = `${(r.ts_ns / 1e6).toFixed(3)} ms`
  const who = `${r.comm} (thread ${r.tid}, RT ${99 - r.prio})`
  return r.path === 'WAKEUP'
    ? `${t}: ${who} woke on CPU ${r.cpu} (select_task_rq_rt)`
    : `${t}: push_rt_task / pull_rt_task moved ${who} from CPU ${r.from_cpu} to CPU ${r.cpu} (find_lowest_rq)`
}

/** What one run's view says: the search's counts and the hot mask line's state. */
export function narrateRun(run: CpupriRunView, topology: Topology): string[] {
  const s = run.view.summary
  const lines: string[] = []
  const rt = run.view.levels.map((l, cpu) => ({ l, cpu })).filter((x) => x.l >= 1 && x.l < 100)
  lines.push(`${VARIANT_LOOK[run.variant]?.name ?? run.variant}: ${rt.length} of ${s.nr_cpus} CPUs run an RT task` +
    (rt.length ? ` (${rt.map((x) => `CPU ${x.cpu} ${levelLabel(x.l)}`).slice(0, 4).join(', ')}${rt.length > 4 ? ', ...' : ''})` : '') + '.')
  lines.push(`cpupri_find ran ${s.finds} times (${s.finds_found} found a lower level) and loaded ${s.nodes_scanned} bitmaps; cpupri_set changed a level ${s.sets} times.`)
  const level = hotLevel(run.view)
  for (const m of maskLines(run.view, topology, level)) {
    const where = m.ownerSocket === null ? 'not cached' : `owned by socket ${m.ownerSocket}`
    const moved = run.previous ? movedFrom(run, topology, m.object, m.ownerSocket) : ''
    lines.push(`${m.object}: ${m.total.loads} loads, ${m.total.stores} stores, ${m.total.remote_hitm} remote HITM, ` +
      `${Math.round(m.cyclesPerLoad)} cycles per load (MODELLED); ${where}${moved}.`)
  }
  if (s.flags & 1) lines.push(`Bug injected: cpupri_set's ordering dropped; ${s.finds_changed_by_inflight} searches saw a half-done update.`)
  return lines
}

function movedFrom(run: CpupriRunView, topology: Topology, object: string, now: number | null): string {
  if (!run.previous) return ''
  const before = maskLines(run.previous, topology).find((m) => m.object === object)
  return before && before.ownerSocket !== null && now !== null && before.ownerSocket !== now
    ? `, moved from socket ${before.ownerSocket} since the last step`
    : ''
}

/** The step's narration: each run's lines, then the latest placements. */
export function narrateStep(view: CpupriLessonView): string[] {
  if (!view.topology) return []
  const out = view.runs.flatMap((r) => narrateRun(r, view.topology!))
  const latest = view.runs[0]?.recent.slice(-3) ?? []
  return [...out, ...latest.map(narrateRecord)]
}
