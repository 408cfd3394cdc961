/*
 * The Traces page's view in its URL, so a link reopens the same view:
 *
 *   /traces?trace=ID[&vs=ID2]&from=NS&to=NS[&cursor=NS][&comm=..][&pid=..][&type=..][&open=KEY,KEY][&mark=K]
 *          [&area=NS-NS:CPUS][&marks=NS,NS][&share=TOKEN][&vsshare=TOKEN]
 *
 *   trace, vs   stored trace ids (the second: "compare two"); a trace opened
 *               locally is never in a URL (it is not stored anywhere)
 *   from, to    the visible window, absolute trace-clock ns (integers); with vs
 *               (two traces lined up at their starts): ns since the starts
 *   cursor      the cursor, absolute ns (with vs: since the starts)
 *   comm, pid, type   the filter (type by event name)
 *   open        expanded CPU groups (layout.ts keys)
 *   area        a selected area: its time span (absolute ns) and its CPUs ("0-3,8")
 *   marks       the two markers A and B (absolute ns; one of them may be "-", unset)
 *   sql         saved SQL queries (repeated, at most SQL_MAX_SAVED of SQL_MAX_CHARS each)
 *   share, vsshare   read-only share tokens of trace and vs (a share link: the
 *               owner made them; without them another browser gets a 404)
 *
 * Pure: parse and format only; anything malformed is dropped, never thrown
 * (a hand-edited link still opens what it can).
 */
import { EVENT_TYPES } from './trace_store'
import { formatCpuList, parseCpuList } from '../shared/cpulist'
import { SQL_MAX_CHARS, SQL_MAX_SAVED } from './trace_sql'

export interface TraceUrlState {
  trace: string | null
  vs: string | null
  window: { start: number; end: number } | null
  cursor: number | null
  filter: { comm: string; pid: string; types: number[] }
  expanded: string[]
  /** A selected area (time span, absolute ns, × CPUs); absent: none. */
  area?: { start: number; end: number; cpus: number[] } | null
  /** Markers A and B, absolute ns (null: that one is unset); absent: none. */
  markers?: [number | null, number | null] | null
  /** Saved SQL queries (absent: none). */
  queries?: string[]
  /** Read-only share tokens of `trace` and `vs` (absent: none). */
  share?: string | null
  vsShare?: string | null
}

const ID = /^[0-9a-f]{1,64}$/
const INT = /^-?\d{1,19}$/
const SHARE = /^[\w-]{16,128}$/

export function parseTraceUrl(search: string): TraceUrlState {
  const p = new URLSearchParams(search)
  const id = (k: string) => {
    const v = p.get(k)
    return v && ID.test(v) ? v : null
  }
  const ns = (k: string) => {
    const v = p.get(k)
    return v && INT.test(v) ? Number(v) : null
  }
  const from = ns('from'), to = ns('to')
  const type = p.get('type')
  const typeId = type ? (EVENT_TYPES as readonly string[]).indexOf(type) : -1
  return {
    trace: id('trace'),
    vs: id('vs'),
    window: from !== null && to !== null && to > from ? { start: from, end: to } : null,
    cursor: ns('cursor'),
    filter: { comm: (p.get('comm') ?? '').slice(0, 200), pid: /^\d{1,10}$/.test(p.get('pid') ?? '') ? p.get('pid')! : '',
      types: typeId >= 0 ? [typeId] : [] },
    expanded: (p.get('open') ?? '').split(',').filter((k) => /^[\w./-]{1,40}$/.test(k)),
    area: parseArea(p.get('area')),
    markers: parseMarkers(p.get('marks')),
    queries: (() => {
      const q = p.getAll('sql').filter((x) => x.trim() && x.length <= SQL_MAX_CHARS).slice(0, SQL_MAX_SAVED)
      return q.length ? q : undefined
    })(),
    share: SHARE.test(p.get('share') ?? '') ? p.get('share') : undefined,
    vsShare: SHARE.test(p.get('vsshare') ?? '') ? p.get('vsshare') : undefined,
  }
}

export function formatTraceUrl(s: TraceUrlState): string {
  const p = new URLSearchParams()
  if (s.trace) p.set('trace', s.trace)
  if (s.vs) p.set('vs', s.vs)
  if (s.window) {
    p.set('from', String(Math.floor(s.window.start)))
    p.set('to', String(Math.ceil(s.window.end)))
  }
  if (s.cursor !== null) p.set('cursor', String(Math.round(s.cursor)))
  if (s.filter.comm) p.set('comm', s.filter.comm)
  if (s.filter.pid) p.set('pid', s.filter.pid)
  if (s.filter.types.length) p.set('type', EVENT_TYPES[s.filter.types[0]])
  if (s.expanded.length) p.set('open', s.expanded.join(','))
  if (s.area) p.set('area', `${Math.floor(s.area.start)}-${Math.ceil(s.area.end)}:${formatCpuList(s.area.cpus)}`)
  if (s.markers && (s.markers[0] !== null || s.markers[1] !== null)) {
    p.set('marks', s.markers.map((m) => (m === null ? '-' : String(Math.round(m)))).join(','))
  }
  for (const q of (s.queries ?? []).slice(0, SQL_MAX_SAVED)) p.append('sql', q)
  if (s.share) p.set('share', s.share)
  if (s.vsShare) p.set('vsshare', s.vsShare)
  const q = p.toString()
  return q ? `/traces?${q}` : '/traces'
}

function parseArea(v: string | null): TraceUrlState['area'] {
  const m = v ? /^(\d{1,19})-(\d{1,19}):([\d,-]{1,400})$/.exec(v) : null
  if (!m || Number(m[2]) <= Number(m[1])) return undefined
  try {
    const cpus = parseCpuList(m[3])
    return cpus.length && cpus.length <= 8192 ? { start: Number(m[1]), end: Number(m[2]), cpus } : undefined
  } catch {
    return undefined
  }
}

function parseMarkers(v: string | null): TraceUrlState['markers'] {
  const parts = (v ?? '').split(',')
  if (parts.length !== 2) return undefined
  const one = (x: string) => (/^\d{1,19}$/.test(x) ? Number(x) : x === '-' ? null : undefined)
  const a = one(parts[0]), b = one(parts[1])
  if (a === undefined || b === undefined || (a === null && b === null)) return undefined
  return [a, b]
}
