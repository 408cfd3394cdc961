/*
 * The Traces page's view in its URL, so a link reopens the same view:
 *
 *   /traces?trace=ID[&vs=ID2]&from=NS&to=NS[&cursor=NS][&comm=..][&pid=..][&type=..][&open=KEY,KEY][&mark=K]
 *          [&share=TOKEN][&vsshare=TOKEN]
 *
 *   trace, vs   stored trace ids (the second: "compare two"); a trace opened
 *               locally is never in a URL (it is not stored anywhere)
 *   from, to    the visible window, absolute trace-clock ns (integers); with vs
 *               (two traces lined up at their starts): ns since the starts
 *   cursor      the cursor, absolute ns (with vs: since the starts)
 *   comm, pid, type   the filter (type by event name)
 *   open        expanded CPU groups (layout.ts keys)
 *   share, vsshare   read-only share tokens of trace and vs (a share link: the
 *               owner made them; without them another browser gets a 404)
 *
 * Pure: parse and format only; anything malformed is dropped, never thrown
 * (a hand-edited link still opens what it can).
 */
import { EVENT_TYPES } from './trace_store'

export interface TraceUrlState {
  trace: string | null
  vs: string | null
  window: { start: number; end: number } | null
  cursor: number | null
  filter: { comm: string; pid: string; types: number[] }
  expanded: string[]
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
  if (s.share) p.set('share', s.share)
  if (s.vsShare) p.set('vsshare', s.vsShare)
  const q = p.toString()
  return q ? `/traces?${q}` : '/traces'
}
