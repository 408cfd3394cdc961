/*
 * One table of distinct strings, each with a stable small id (its index), for
 * the trace columns' string columns (comm, generic names, field text). Shared
 * by the local decoder's TraceColumnsBuilder (trace_records.ts) and the Arrow
 * reader of server traces (core/traces/trace_arrow.ts), so both give the same shape.
 *
 * The strings are untrusted file content: kept as plain strings.
 */

export class StringInterner {
  /** The distinct strings, by id. */
  readonly strings: string[] = []
  private readonly ids = new Map<string, number>()

  /** The id of s, adding it on first sight. */
  id(s: string): number {
    let id = this.ids.get(s)
    if (id === undefined) {
      id = this.strings.length
      this.strings.push(s)
      this.ids.set(s, id)
    }
    return id
  }
}
