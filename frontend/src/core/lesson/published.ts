/*
 * Published figures (measured on real kernels, transcribed from the patch
 * write-ups): backend/kscope/data/published.json, the file `kscope repro`
 * prints beside the model. A lesson step names a row by (entry, table, row's
 * "config"); the lesson player shows it beside the modelled figures, each
 * labelled as what it is.
 */
import published from '../../../../backend/kscope/data/published.json'

export interface PublishedRow {
  /** Where the figures come from (the seed file names). */
  source: string
  machine: string
  config: string
  /** The row's numeric fields, as the entry's table has them. */
  values: Record<string, number>
}

/** A published table row, or a message saying what is missing (entry, table, row). */
export function publishedRow(entry: string, table: string, row: string): PublishedRow | { missing: string } {
  const e = (published as Record<string, unknown>)[entry] as Record<string, unknown> | undefined
  if (!e || typeof e !== 'object') return { missing: `published.json has no entry "${entry}"` }
  const t = e[table]
  if (!Array.isArray(t)) return { missing: `published.json "${entry}" has no table "${table}"` }
  const r = t.find((x: Record<string, unknown>) => x.config === row) as Record<string, unknown> | undefined
  if (!r) return { missing: `published.json "${entry}.${table}" has no row "${row}"` }
  const values: Record<string, number> = {}
  for (const [k, v] of Object.entries(r)) if (typeof v === 'number') values[k] = v
  const m = e.machine as Record<string, unknown> | undefined
  return { source: String(e.source ?? ''), machine: String(m?.model ?? ''), config: row, values }
}
