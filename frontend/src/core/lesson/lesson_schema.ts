/*
 * The lesson format as JSON Schema, composed per model and checked with ajv.
 *
 *   core/lesson_schema.json            the generic format (steps, scenario, at, quiz, views...)
 *   models/<model>/lesson.schema.json  the model's $defs: its variants, toggles, views,
 *                                      highlights, event targets, quiz kinds and claims
 *        └── composeLessonSchema (lesson_schema_build.ts) ──> one schema per model ──> ajv ──> LessonProblem[]
 *
 * The composition and ajv's compilation run at build time (vite.config.ts,
 * lesson_schema_build.ts: "virtual:lesson-validators" holds each model's
 * precompiled standalone validator), so the browser ships neither ajv's
 * compiler nor runs generated code through new Function (no 'unsafe-eval'),
 * and the first lesson opens without a compile (about 1 s on these machines).
 *
 * ajv's errors are turned into kscope's "<JSON path>: <what is wrong>" lines
 * (problemsOf): the same words for every keyword, or the schema's own
 * "x-messages" text for that keyword ({value} is the value found, {enum} the
 * allowed values, {keys} the object's keys). lessons/lesson.schema.json is the
 * composed schema written out for editors (scripts/gen-lesson-schema.mjs; a
 * test keeps it equal to composeLessonSchema's).
 */
import type { ErrorObject } from 'ajv/dist/2020.js'

type Schema = Record<string, unknown>
type Json = unknown

/** What a model adds to the generic format: JSON Schema $defs (models/<model>/lesson.schema.json). */
export interface LessonSchemaFragment {
  $defs: Record<string, unknown>
}

export interface LessonProblem {
  /** JSON path, e.g. "$.steps[2].scenario.seed". */
  path: string
  message: string
}

/** ajv's options for lesson schemas (build time and tests): every error, with the schema and data it is about. */
export const AJV_OPTIONS = { allErrors: true, inlineRefs: false, verbose: true, discriminator: true, strict: true, strictTypes: false, strictRequired: false } as const

/** A compiled validator as ajv (or its standalone code) makes it. */
export interface CompiledValidator {
  (data: unknown): boolean
  errors?: ErrorObject[] | null
}

export interface LessonSchemaValidator {
  schema: Schema
  /** Every problem of a parsed lesson file, in kscope's words (none: the data fits the schema). */
  problems: (data: Json) => LessonProblem[]
}

/** A validator of a composed schema from its compiled (precompiled at build time) check. */
export function lessonSchemaValidator(schema: Schema, validate: CompiledValidator): LessonSchemaValidator {
  return {
    schema,
    problems: (data) => (validate(data) ? [] : problemsOf(validate.errors ?? [], data, schema)),
  }
}

const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** A value as an error message quotes it (strings quoted, long values cut). */
export const show = (v: Json) => (typeof v === 'string' ? JSON.stringify(v) : v === undefined ? 'nothing' : JSON.stringify(v)?.slice(0, 40))
export const oneOfList = (list: readonly unknown[]) => list.map((x) => JSON.stringify(x)).join(', ')
const A: Record<string, string> = { integer: 'an integer', number: 'a number', object: 'an object', array: 'an array', string: 'a string', boolean: 'a boolean' }

/** A JSON pointer ("/steps/4/quiz") as kscope's JSON path ("$.steps[4].quiz"): array indexes in brackets. */
export function jsonPath(pointer: string, data: Json): string {
  let out = '$'
  let at: Json = data
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (Array.isArray(at)) {
      out += `[${key}]`
      at = at[Number(key)]
    } else {
      out += `.${key}`
      at = isObj(at) && Object.hasOwn(at, key) ? at[key] : undefined
    }
  }
  return out
}

/** A $ref'd schema ("#/$defs/x") as its target, other schemas as they are. */
function deref(s: Json, root: Schema): Schema {
  let cur = isObj(s) ? s : {}
  for (let i = 0; i < 8 && typeof cur.$ref === 'string'; i++) {
    const name = /^#\/\$defs\/(\w+)$/.exec(cur.$ref)?.[1]
    const defs = root.$defs as Record<string, Schema>
    if (!name || !defs[name]) break
    cur = { ...defs[name], ...Object.fromEntries(Object.entries(cur).filter(([k]) => k !== '$ref')) }
  }
  return cur
}

const fill = (template: string, vars: Record<string, string>) => template.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m)

/** ajv's errors in kscope's words; errors inside a failed anyOf/if are the anyOf's one message. */
export function problemsOf(errors: readonly ErrorObject[], data: Json, root: Schema): LessonProblem[] {
  const covered = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/`)
  const out: LessonProblem[] = []
  for (const e of errors) {
    if (covered.some((p) => e.schemaPath.startsWith(p))) continue
    const p = problemOf(e, data, root)
    if (p) out.push(p)
  }
  return out
}

function problemOf(e: ErrorObject, data: Json, root: Schema): LessonProblem | null {
  const path = jsonPath(e.instancePath, data)
  const parent = (isObj(e.parentSchema) ? e.parentSchema : {}) as Schema
  const own = (isObj(parent['x-messages']) ? parent['x-messages'] : {}) as Record<string, string>
  const value = e.data
  const params = e.params as Record<string, unknown>
  const vars = { value: show(value), keys: isObj(value) ? Object.keys(value).join(', ') : '' }
  const mine = own[e.keyword] !== undefined ? fill(own[e.keyword], { ...vars, enum: Array.isArray(parent.enum) ? oneOfList(parent.enum) : '' }) : null
  switch (e.keyword) {
    case 'if':
    case 'oneOf': // with a discriminator, the branch's own errors say it
      return null
    case 'required': {
      const key = String(params.missingProperty)
      const props = (isObj(parent.properties) ? parent.properties : {}) as Record<string, Json>
      const type = deref(props[key], root).type
      const message = mine ?? (type === 'string' || type === 'array' || type === 'object' ? `must be ${A[type]}, got nothing` : 'is required')
      return { path: `${path}.${key}`, message }
    }
    case 'additionalProperties': {
      const allowed = Object.keys((isObj(parent.properties) ? parent.properties : {}) as object).filter((k) => k !== 'answer')
      return { path: `${path}.${String(params.additionalProperty)}`, message: `unknown field (allowed: ${allowed.join(', ')})` }
    }
    case 'type': {
      const types = ([] as unknown[]).concat(params.type).map((t) => A[String(t)] ?? String(t))
      return { path, message: mine ?? `must be ${types.join(' or ')}, got ${show(value)}` }
    }
    case 'enum':
      return { path, message: mine ?? `must be one of ${oneOfList((params.allowedValues as unknown[]) ?? [])}, got ${show(value)}` }
    case 'const':
      return { path, message: mine ?? `must be ${JSON.stringify(params.allowedValue)}, got ${show(value)}` }
    case 'minimum':
    case 'maximum': {
      const lo = parent.minimum as number | undefined
      const hi = parent.maximum as number | undefined
      const range = lo !== undefined && hi !== undefined ? `between ${lo} and ${hi}` : lo !== undefined ? `at least ${lo}` : `at most ${hi}`
      return { path, message: mine ?? `must be ${range}, got ${show(value)}` }
    }
    case 'minLength':
      return { path, message: mine ?? 'must not be empty' }
    case 'maxLength':
      return { path, message: mine ?? `must be at most ${String(params.limit)} characters, got ${typeof value === 'string' ? value.length : '?'}` }
    case 'minItems': {
      const n = Number(params.limit)
      return { path, message: mine ?? `must have at least ${n} entr${n === 1 ? 'y' : 'ies'}, got ${Array.isArray(value) ? value.length : '?'}` }
    }
    case 'maxItems':
      return { path, message: mine ?? `must have at most ${String(params.limit)} entries, got ${Array.isArray(value) ? value.length : '?'}` }
    case 'uniqueItems': {
      const i = Math.max(Number(params.i), Number(params.j))
      return { path: `${path}[${i}]`, message: `repeats ${show(Array.isArray(value) ? value[i] : undefined)}` }
    }
    case 'discriminator': {
      const kinds = ((parent.oneOf as Schema[] | undefined) ?? []).map((b) => deref((deref(b, root).properties as Schema | undefined)?.kind, root).const)
      return { path: `${path}.${String(params.tag)}`, message: `must be one of ${oneOfList(kinds)}, got ${show(params.tagValue)}` }
    }
    default:
      return { path, message: mine ?? e.message ?? `fails "${e.keyword}"` }
  }
}
