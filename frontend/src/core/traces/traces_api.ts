/*
 * The traces API (backend/kscope/api/routes/traces.py) from the browser.
 *
 * Request and response types are generated from the backend's OpenAPI
 * document (api_types.ts, by frontend/scripts/gen-api-types.mjs; the test
 * api_types.test.ts fails when the committed types and the backend drift).
 * The routes' paths are checked against the schema's ApiPath union below.
 *
 * Ownership is a token: the first upload returns one, we keep it in
 * localStorage and send it as X-Kscope-Token; the list shows only the traces
 * of that token.
 *
 * Sharing: the owner makes a trace's read-only share token (POST /{id}/share);
 * a link carries it as ?share= (trace_url.ts), and this browser then sends it as
 * X-Kscope-Share on that trace's reads (setShareToken). The owner's own share
 * links are remembered in localStorage so the page can show and revoke them.
 */
import { fetchRetrying } from '../shared/fetch_retry'
import { TYPE_GENERIC, type TraceColumns, type TraceDecodeStats } from '../../engine/trace_records'
import { EVENT_TYPES } from '../../engine/sim_records'
import type * as api from '../shared/api_types'

/** A route of the schema with its {params} filled in (a typo in a path template fails to compile). */
function route(path: api.ApiPath, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params[k] ?? ''))
}

/** The schemas come from the backend's OpenAPI document (api_types.ts, generated; a test fails on drift). */
export type TracePublic = api.TracePublic
export type TraceProblem = api.ParseProblem

/** One server-sent progress event (GET /{id}/progress; an event stream, so not in the OpenAPI schemas). */
export interface IngestProgress {
  trace_id: string
  name: string
  phase: string
  bytes_done: number
  bytes_total: number
  fraction: number | null
  events: number
  error: string | null
}

const TOKEN_KEY = 'kscope.traceToken'
const BASE = route('/api/traces')

export function ownerToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY)
  } catch {
    return null
  }
}

function rememberToken(token: string): void {
  try {
    localStorage.setItem(TOKEN_KEY, token)
  } catch {
    // Private mode: the token lives as long as the page.
  }
}

/** An API failure with the server's own detail text. */
export class TraceApiError extends Error {
  readonly status: number
  constructor(status: number, detail: string) {
    super(detail)
    this.name = 'TraceApiError'
    this.status = status
  }
}

async function detailOf(res: Response): Promise<string> {
  try {
    const body = await res.json()
    return typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail)
  } catch {
    return `${res.status} ${res.statusText}`
  }
}

/** Share tokens this page was given (by a link) per trace id: sent with that trace's reads only. */
const received = new Map<string, string>()

/** Reads of trace `id` send `token` as its share token from now on ('' forgets it). */
export function setShareToken(id: string, token: string): void {
  if (token) received.set(id, token)
  else received.delete(id)
}

/** The share token this page was given for trace `id`, '' if none. */
export function receivedShareToken(id: string): string {
  return received.get(id) ?? ''
}

function headers(id?: string): Record<string, string> {
  const t = ownerToken()
  const h: Record<string, string> = t ? { 'X-Kscope-Token': t } : {}
  const share = id ? received.get(id) : undefined
  if (share) h['X-Kscope-Share'] = share
  return h
}

/** The headers a read of an /api/traces/{id}/... URL sends (for workers that fetch themselves). */
export function requestHeaders(url: string): Record<string, string> {
  return headers(idOfUrl(url))
}

/** The trace id of an /api/traces/{id}/... URL. */
function idOfUrl(url: string): string | undefined {
  return /\/api\/traces\/([0-9a-f]{1,64})\//.exec(url)?.[1]
}

export async function listTraces(): Promise<TracePublic[]> {
  if (!ownerToken()) return []
  const res = await fetch(BASE, { headers: headers() })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

export async function deleteTrace(id: string): Promise<void> {
  const res = await fetch(route('/api/traces/{trace_id}', { trace_id: id }), { method: 'DELETE', headers: headers() })
  if (!res.ok && res.status !== 404) throw new TraceApiError(res.status, await detailOf(res))
}

export async function getTrace(id: string): Promise<TracePublic> {
  const res = await fetch(route('/api/traces/{trace_id}', { trace_id: id }), { headers: headers(id) })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

export interface UploadProgress {
  /** 'upload' while the body is sent, then the server's ingest phases. */
  phase: string
  fraction: number
  events: number
}

/**
 * Uploads a file (streamed body, background ingest) and follows the ingest's
 * progress events until it is stored; resolves with the stored trace.
 */
/**
 * Uploads a trace; with `topology` (an lscpu -p file or a sysfs tarball, for a trace without
 * kscope's sysfs header) both go in one multipart form, and a bad topology stores nothing.
 */
export function uploadTrace(file: File, onProgress: (p: UploadProgress) => void, topology?: File | null): Promise<TracePublic> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `${BASE}?background=true&name=${encodeURIComponent(file.name)}`)
    for (const [k, v] of Object.entries(headers())) xhr.setRequestHeader(k, v)
    let body: Blob | FormData = file
    if (topology) {
      const form = new FormData()
      form.append('trace', file, file.name)
      form.append('topology', topology, topology.name)
      body = form // the browser sets the multipart Content-Type with its boundary
    } else xhr.setRequestHeader('Content-Type', 'application/octet-stream')
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress({ phase: 'upload', fraction: e.loaded / e.total, events: 0 })
    }
    xhr.onerror = () => reject(new TraceApiError(0, `${file.name}: the upload failed (network)`))
    xhr.onload = () => {
      let body: { id?: string; token?: string; detail?: unknown } = {}
      try {
        body = JSON.parse(xhr.responseText)
      } catch {
        // Not JSON: the status says enough.
      }
      if (xhr.status >= 400 || !body.id || !body.token) {
        const detail = typeof body.detail === 'string' ? body.detail : `${xhr.status} ${xhr.statusText}`
        reject(new TraceApiError(xhr.status, detail))
        return
      }
      rememberToken(body.token)
      if (xhr.status === 201) {
        resolve(body as unknown as TracePublic)
        return
      }
      followIngest(body.id, body.token, onProgress).then(() => getTrace(body.id!)).then(resolve, reject)
    }
    xhr.send(body)
  })
}

function followIngest(id: string, token: string, onProgress: (p: UploadProgress) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const es = new EventSource(`${route('/api/traces/{trace_id}/progress', { trace_id: id })}?token=${encodeURIComponent(token)}`)
    const onData = (e: MessageEvent) => {
      let p: IngestProgress
      try {
        p = JSON.parse(e.data)
      } catch {
        return
      }
      onProgress({ phase: p.phase, fraction: p.fraction ?? (p.bytes_total ? p.bytes_done / p.bytes_total : 0), events: p.events })
      if (p.phase === 'done') {
        es.close()
        resolve()
      } else if (p.phase === 'error') {
        es.close()
        reject(new TraceApiError(422, p.error ?? 'ingest failed'))
      }
    }
    for (const phase of ['upload', 'decompress', 'decode', 'summaries', 'done', 'error']) es.addEventListener(phase, onData)
    es.onmessage = onData
    es.onerror = () => {
      es.close()
      // The stream ends when the job finishes; the trace itself says whether it is stored.
      getTrace(id).then(() => resolve(), () => reject(new TraceApiError(0, 'lost the ingest progress stream')))
    }
  })
}

/* ---------- read-only share links (routes/shares.py) ---------- */

export type ShareCreated = api.ShareCreated
export type ShareState = api.ShareState

const SHARES_KEY = 'kscope.myShares'

/** The share tokens this browser made as owner, by trace id (so the page can show the link again). */
function myShares(): Record<string, string> {
  try {
    const v = JSON.parse(localStorage.getItem(SHARES_KEY) ?? '{}')
    return v && typeof v === 'object' ? v : {}
  } catch {
    return {}
  }
}

function rememberShare(id: string, token: string | null): void {
  const all = myShares()
  if (token) all[id] = token
  else delete all[id]
  try {
    localStorage.setItem(SHARES_KEY, JSON.stringify(all))
  } catch {
    // Private mode: the link is shown once.
  }
}

/** The owner's current share token of trace `id` as this browser remembers it, '' if none. */
export function myShareToken(id: string): string {
  return myShares()[id] ?? ''
}

/** A new read-only share token for `id` (the owner's; it replaces the previous one). */
export async function createShare(id: string): Promise<ShareCreated> {
  const res = await fetch(route('/api/traces/{trace_id}/share', { trace_id: id }), { method: 'POST', headers: headers() })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  const body: ShareCreated = await res.json()
  rememberShare(id, body.share)
  return body
}

/** Whether `id` has a working share token (the owner's view of it). */
export async function shareState(id: string): Promise<ShareState> {
  const res = await fetch(route('/api/traces/{trace_id}/share', { trace_id: id }), { headers: headers() })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  const body: ShareState = await res.json()
  if (!body.shared) rememberShare(id, null)
  return body
}

/** Revokes `id`'s share token: its links open nothing from the next request on. */
export async function revokeShare(id: string): Promise<void> {
  const res = await fetch(route('/api/traces/{trace_id}/share', { trace_id: id }), { method: 'DELETE', headers: headers() })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  rememberShare(id, null)
}

/** Query of GET /{id}/events. */
export interface EventsQuery {
  t0?: number
  t1?: number
  cpus?: number[]
  types?: string[]
  limit?: number
  /** The X-Kscope-Next-Cursor of the page before: the next page (it replaces t0). */
  cursor?: string
}

export function eventsUrl(id: string, q: EventsQuery, format: 'arrow' | 'json' = 'arrow'): string {
  const p = new URLSearchParams()
  if (q.t0 !== undefined) p.set('t0', String(Math.floor(q.t0)))
  if (q.t1 !== undefined) p.set('t1', String(Math.ceil(q.t1)))
  if (q.cpus?.length) p.set('cpus', q.cpus.join(','))
  if (q.types?.length) p.set('types', q.types.join(','))
  if (q.limit !== undefined) p.set('limit', String(q.limit))
  if (q.cursor !== undefined) p.set('cursor', q.cursor)
  p.set('format', format)
  return `${route('/api/traces/{trace_id}/events', { trace_id: id })}?${p}`
}

/** An Arrow IPC stream's bytes (the events route's default format). */
export async function fetchArrow(url: string, signal?: AbortSignal): Promise<Uint8Array> {
  const res = await fetchRetrying(url, { headers: headers(idOfUrl(url)), signal })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return new Uint8Array(await res.arrayBuffer())
}

export type SummaryResponse = api.OccupancySummary

export async function fetchSummary(id: string, t0: number, t1: number, buckets: number, signal?: AbortSignal): Promise<SummaryResponse> {
  const p = new URLSearchParams({ t0: String(Math.floor(t0)), t1: String(Math.ceil(t1)), buckets: String(buckets) })
  const res = await fetch(`${route('/api/traces/{trace_id}/summary', { trace_id: id })}?${p}`, { headers: headers(id), signal })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

/** The capture's sysfs topology dump ("path<TAB>value" lines), "" when the trace had none. */
export async function fetchTopology(id: string): Promise<string> {
  const res = await fetch(route('/api/traces/{trace_id}/topology', { trace_id: id }), { headers: headers(id) })
  if (res.status === 204) return ''
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.text()
}

/** PUT /{id}/topology: attaches an lscpu -p file or sysfs tarball to a stored trace (the server checks it). */
export async function attachTopology(id: string, file: File): Promise<unknown> {
  const res = await fetch(`${route('/api/traces/{trace_id}/topology', { trace_id: id })}?name=${encodeURIComponent(file.name)}`, {
    method: 'PUT', headers: { ...headers(), 'Content-Type': 'application/octet-stream' }, body: file,
  })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

/**
 * POST /{id}/sql: one read-only SELECT over the trace's `events` view. A 429 (the server's SQL
 * threads and queue are full, or this token has its share running) is retried after the
 * Retry-After it names, a few times.
 */
export async function runSql(id: string, sql: string): Promise<api.SqlResult> {
  const body: api.SqlRequest = { sql }
  const res = await fetchRetrying(route('/api/traces/{trace_id}/sql', { trace_id: id }), {
    method: 'POST', headers: { ...headers(id), 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

/**
 * GET /{id}/conform (the contract in /work/briefs/traces-contract.md): the raw JSON (the route
 * declares no response model, so no generated type), checked by trace_conform.ts.
 */
export async function fetchConform(id: string, variant = 'auto', signal?: AbortSignal): Promise<unknown> {
  const p = new URLSearchParams({ algo: 'mm_cid', variant })
  const res = await fetch(`${route('/api/traces/{trace_id}/conform', { trace_id: id })}?${p}`, { headers: headers(id), signal })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return res.json()
}

/** One row of GET /events?format=json (backend/kscope/ingest/records.py SCHEMA). */
export type EventRow = Record<string, string | number | null>

/**
 * One page of GET /events?format=json: at most `limit` rows and at most the server's JSON page
 * (Settings.events_max_json_rows); `next` is the cursor of the next page, null after the last.
 */
export async function fetchEventRows(id: string, q: EventsQuery): Promise<{ rows: EventRow[]; next: string | null }> {
  const res = await fetchRetrying(eventsUrl(id, q, 'json'), { headers: headers(id) })
  if (!res.ok) throw new TraceApiError(res.status, await detailOf(res))
  return { rows: await res.json(), next: res.headers.get('X-Kscope-Next-Cursor') }
}

/** Server rows -> the same columns the local decoder gives. */
export function columnsFromRows(rows: readonly EventRow[]): TraceColumns {
  const n = rows.length
  const strings: string[] = []
  const ids = new Map<string, number>()
  const intern = (v: unknown) => {
    if (v === null || v === undefined) return -1
    const s = String(v)
    let id = ids.get(s)
    if (id === undefined) {
      id = strings.length
      strings.push(s)
      ids.set(s, id)
    }
    return id
  }
  const num = (v: unknown, dflt = 0) => (typeof v === 'number' ? v : v === null || v === undefined ? dflt : Number(v))
  const c: TraceColumns = {
    count: n, ts: new Float64Array(n), type: new Uint8Array(n), cpu: new Int32Array(n), pid: new Int32Array(n),
    tgid: new Int32Array(n), comm: new Int32Array(n), f0: new Int32Array(n), f1: new Int32Array(n),
    f2: new Int32Array(n), f3: new Int32Array(n), f4: new Int32Array(n), s1: new Int32Array(n), s2: new Int32Array(n),
    strings,
  }
  rows.forEach((r, i) => {
    const type = Math.max(0, (EVENT_TYPES as readonly string[]).indexOf(String(r.type)))
    c.ts[i] = num(r.ts_ns); c.type[i] = type; c.cpu[i] = num(r.cpu); c.pid[i] = num(r.pid); c.tgid[i] = num(r.tgid, -1)
    c.comm[i] = intern(r.comm ?? '')
    c.s1[i] = -1; c.s2[i] = -1
    switch (EVENT_TYPES[type]) {
      case 'sched_switch':
        c.f0[i] = num(r.prev_pid); c.f1[i] = num(r.prev_prio); c.f2[i] = num(r.prev_state); c.f3[i] = num(r.next_pid)
        c.f4[i] = num(r.next_prio); c.s1[i] = intern(r.prev_comm); c.s2[i] = intern(r.next_comm)
        break
      case 'sched_waking': case 'sched_wakeup': case 'sched_wakeup_new':
        c.f0[i] = num(r.task_pid); c.f1[i] = num(r.prio); c.f2[i] = num(r.target_cpu); c.s1[i] = intern(r.task_comm)
        break
      case 'sched_migrate_task':
        c.f0[i] = num(r.task_pid); c.f1[i] = num(r.prio); c.f2[i] = num(r.orig_cpu); c.f3[i] = num(r.dest_cpu)
        c.s1[i] = intern(r.task_comm)
        break
      case 'sched_process_fork':
        c.f0[i] = num(r.task_pid); c.f3[i] = num(r.child_pid); c.s1[i] = intern(r.task_comm); c.s2[i] = intern(r.child_comm)
        break
      case 'sched_process_exit': case 'sched_process_free':
        c.f0[i] = num(r.task_pid); c.f1[i] = num(r.prio); c.f2[i] = num(r.group_dead, -1); c.s1[i] = intern(r.task_comm)
        break
      case 'rseq_update':
        c.f0[i] = num(r.cpu_id); c.f1[i] = num(r.node_id, -1); c.f2[i] = num(r.mm_cid, -1)
        break
      default:
        c.type[i] = TYPE_GENERIC
        c.s1[i] = intern(r.name ?? ''); c.s2[i] = intern(r.fields ?? '')
    }
  })
  return c
}

/** Stats for a server trace, in the local decoder's shape. */
export function statsFromPublic(t: TracePublic): TraceDecodeStats {
  return {
    format: t.format, bytes: t.bytes_in, lines: 0, events: t.events, genericEvents: t.by_type?.generic ?? 0,
    malformed: t.malformed_lines, lostEvents: 0, nrCpus: t.cpus, uname: t.kernel, traceClock: '',
    firstError: t.first_error ? { line: t.first_error.line ?? 0, offset: -1,
      field: t.first_error.field ?? '', message: t.first_error.message ?? '' } : null,
  }
}
