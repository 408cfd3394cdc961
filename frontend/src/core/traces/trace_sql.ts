/*
 * The SQL console's answers (POST /api/traces/{id}/sql: { columns, rows, truncated }) read
 * for the page:
 *
 *   rowTime      the time of a result row (its ts / ts_ns column), to jump the cursor there
 *   queryTrack   a result with ts (or ts_ns) [, dur | dur_ns] [, cpu] [, name | label]
 *                as slices to draw on the CPU lanes ("show as track"); without dur, instants;
 *                without cpu, on every lane
 *   saved queries are kept in the URL (trace_url.ts `sql=`), each at most SQL_MAX_CHARS
 *
 * Pure; anything not a number where a number is needed makes a clear error naming the
 * column and the row, never a silent drop.
 */

export interface SqlAnswer {
  columns: string[]
  rows: unknown[][]
  truncated: boolean
}

export const SQL_MAX_CHARS = 2000
export const SQL_MAX_SAVED = 5
/** Rows a track draws at most (a larger answer is cut, and says so). */
export const TRACK_MAX_ROWS = 20_000

export interface QueryTrack {
  ts: Float64Array
  /** 0 for an instant. */
  dur: Float64Array
  /** -1: not tied to a CPU (drawn on every lane). */
  cpu: Int32Array
  label: string[]
  /** The answer had more rows than the track holds. */
  cut: boolean
}

function columnIndex(a: SqlAnswer, names: readonly string[]): number {
  const lower = a.columns.map((c) => c.toLowerCase())
  for (const n of names) {
    const i = lower.indexOf(n)
    if (i >= 0) return i
  }
  return -1
}

/** The ts of row `k` (ns), or null when the answer has no ts / ts_ns column or the value is not a number. */
export function rowTime(a: SqlAnswer, k: number): number | null {
  const i = columnIndex(a, ['ts', 'ts_ns'])
  if (i < 0) return null
  const v = a.rows[k]?.[i]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** Can this answer be shown as a track (it has a ts or ts_ns column)? */
export function canTrack(a: SqlAnswer): boolean {
  return columnIndex(a, ['ts', 'ts_ns']) >= 0
}

export class TrackError extends Error {}

export function queryTrack(a: SqlAnswer): QueryTrack {
  const its = columnIndex(a, ['ts', 'ts_ns'])
  if (its < 0) throw new TrackError(`a track needs a ts (or ts_ns) column; this answer has ${a.columns.join(', ') || 'no columns'}`)
  const idur = columnIndex(a, ['dur', 'dur_ns'])
  const icpu = columnIndex(a, ['cpu'])
  const ilabel = columnIndex(a, ['name', 'label'])
  const n = Math.min(a.rows.length, TRACK_MAX_ROWS)
  const order = Array.from({ length: n }, (_, k) => k)
  const num = (k: number, i: number, what: string, dflt: number | null): number => {
    const v = a.rows[k][i]
    if (v === null || v === undefined) {
      if (dflt !== null) return dflt
      throw new TrackError(`row ${k + 1}: ${what} is empty`)
    }
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new TrackError(`row ${k + 1}: ${what} is ${JSON.stringify(v)}, not a number`)
    return v
  }
  const ts = new Float64Array(n), dur = new Float64Array(n), cpu = new Int32Array(n), label: string[] = []
  const tsOf = order.map((k) => num(k, its, a.columns[its], null))
  order.sort((x, y) => tsOf[x] - tsOf[y] || x - y)
  order.forEach((k, j) => {
    ts[j] = tsOf[k]
    const d = idur >= 0 ? num(k, idur, a.columns[idur], 0) : 0
    if (d < 0) throw new TrackError(`row ${k + 1}: ${a.columns[idur]} is negative (${d})`)
    dur[j] = d
    cpu[j] = icpu >= 0 ? num(k, icpu, 'cpu', -1) : -1
    label.push(ilabel >= 0 ? String(a.rows[k][ilabel] ?? '') : '')
  })
  return { ts, dur, cpu, label, cut: a.rows.length > n }
}
