/*
 * The C core's status codes and the errors the engine throws for them: a
 * KscopeError for any non-zero ks_status, a WorkloadError naming the line,
 * column and field of a rejected workload, a TraceOpenError naming the file,
 * place and problem of a trace that could not be opened.
 *
 * No wasm here: decompress.ts and the trace worker's messages use these
 * without loading the module.
 */
import type { ParseErrorRecord } from './sim_records'

/** The C core's ks_status codes (kscope/status.h). */
export const KsStatus = {
  OK: 0,
  INVALID_ARG: 1,
  NOT_FOUND: 2,
  NO_MEMORY: 3,
  PARSE: 4,
  RANGE: 5,
} as const

/** A non-zero ks_status from the C core, with ks_status_message()'s text. */
export class KscopeError extends Error {
  readonly status: number
  /** The C core's own message, e.g. "not found". */
  readonly statusMessage: string

  constructor(status: number, statusMessage: string, context: string) {
    super(`${context}: ${statusMessage}`)
    this.name = 'KscopeError'
    this.status = status
    this.statusMessage = statusMessage
  }
}

/**
 * A workload the C parser rejected (ks_sim_new returned KS_ERR_PARSE, or named
 * a bad configuration field): where, which field, and why, e.g.
 * `workload line 7, column 20, field "processes[0].threads": must be between 1 and 1024, got 0`.
 */
export class WorkloadError extends KscopeError {
  /** 1-based line of the JSON text; 0 when the error is about the input as a whole. */
  readonly line: number
  /** 1-based column (0 when unknown). */
  readonly column: number
  /** Field path, e.g. "processes[0].threads" ("" when none). */
  readonly field: string
  /** The parser's own words, e.g. "must be between 1 and 1024, got 0". */
  readonly detail: string

  constructor(status: number, statusMessage: string, where: ParseErrorRecord) {
    super(status, statusMessage, 'workload')
    const parts = [where.line > 0 ? `line ${where.line}` : '', where.column > 0 ? `column ${where.column}` : '',
      where.field ? `field "${where.field}"` : ''].filter(Boolean)
    this.message = `workload${parts.length ? ` ${parts.join(', ')}` : ''}: ${where.message || statusMessage}`
    this.name = 'WorkloadError'
    this.line = where.line
    this.column = where.column
    this.field = where.field
    this.detail = where.message || statusMessage
  }
}

/**
 * A trace file that could not be opened: which file, where (byte offset
 * and/or line, when known) and what was wrong, e.g.
 * `threads4.dat: offset 4096 (header_page): truncated file`.
 */
export class TraceOpenError extends KscopeError {
  readonly file: string
  /** Byte offset in the file, -1 when not known. */
  readonly offset: number
  /** 1-based line of a text trace, 0 when not known. */
  readonly line: number
  readonly problem: string

  constructor(status: number, statusMessage: string, file: string, problem: string, where: { offset?: number; line?: number; field?: string } = {}) {
    super(status, statusMessage, file)
    const offset = where.offset ?? -1
    const line = where.line ?? 0
    const parts = [line > 0 ? `line ${line}` : '', offset >= 0 ? `offset ${offset}` : ''].filter(Boolean)
    const place = parts.length ? ` ${parts.join(', ')}${where.field ? ` (${where.field})` : ''}` : where.field ? ` (${where.field})` : ''
    this.message = `${file}:${place} ${problem}`
    this.name = 'TraceOpenError'
    this.file = file
    this.offset = offset
    this.line = line
    this.problem = problem
  }
}
