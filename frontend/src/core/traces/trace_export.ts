/*
 * Export a stored trace, or the window on screen, from the server
 * (GET /api/traces/{id}/export, backend/kscope/api/routes/exports.py):
 * Chrome trace-event JSON (opens in Perfetto UI and chrome://tracing) or ftrace
 * text (the C exporter's tracefs `trace` file). The request carries this page's
 * owner or share token as headers, like every other read, so the file is fetched
 * here and handed to the browser as a download named by Content-Disposition.
 */
import { requestHeaders, TraceApiError } from './traces_api'
import type { ApiPath } from '../shared/api_types'

const EXPORT_PATH: ApiPath = '/api/traces/{trace_id}/export' // a schema path: fails to compile if the route goes

export type ExportFormat = 'chrome-json' | 'ftrace'

export const EXPORT_FORMATS: { id: ExportFormat; label: string }[] = [
  { id: 'chrome-json', label: 'Perfetto / Chrome JSON' },
  { id: 'ftrace', label: 'ftrace text' },
]

/** The export URL: the whole trace, or events with t0 <= ts < t1 (integer ns of the trace's clock). */
export function exportUrl(id: string, format: ExportFormat, span?: { t0: number; t1: number } | null): string {
  const q = new URLSearchParams({ format })
  if (span) {
    q.set('t0', String(Math.floor(span.t0)))
    q.set('t1', String(Math.ceil(span.t1)))
  }
  return `${EXPORT_PATH.replace('{trace_id}', encodeURIComponent(id))}?${q}`
}

/** The file name of a Content-Disposition header, or a fallback. */
export function downloadName(disposition: string | null, fallback: string): string {
  const m = disposition && /filename="([^"]+)"/.exec(disposition)
  return m ? m[1] : fallback
}

/** Fetches the export and saves it as a download; resolves to its file name and size. */
export async function downloadExport(id: string, format: ExportFormat, span?: { t0: number; t1: number } | null,
): Promise<{ name: string; bytes: number }> {
  const url = exportUrl(id, format, span)
  const res = await fetch(url, { headers: requestHeaders(url) })
  if (!res.ok) {
    let detail = `${res.status} ${res.statusText}`
    try {
      const body = await res.json()
      detail = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail)
    } catch { /* not JSON */ }
    throw new TraceApiError(res.status, detail)
  }
  const blob = await res.blob()
  const name = downloadName(res.headers.get('content-disposition'), `trace-${id}${format === 'ftrace' ? '.txt' : '.json'}`)
  const href = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = href
  a.download = name
  document.body.appendChild(a)
  a.click()
  a.remove()
  window.setTimeout(() => URL.revokeObjectURL(href), 60_000)
  return { name, bytes: blob.size }
}
