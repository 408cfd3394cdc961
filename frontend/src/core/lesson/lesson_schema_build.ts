/*
 * Build time (vite.config.ts, vite.export.config.ts) and tests only: composes each model's lesson
 * schema (lesson_schema.ts) and compiles it with ajv, either to a function
 * (tests) or to standalone ES module code (the "virtual:lesson-validators"
 * module the app imports: no ajv compiler and no eval in the browser).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import * as ajvStandalone from 'ajv/dist/standalone/index.js'
import type { Plugin } from 'vite'
import { AJV_OPTIONS, type CompiledValidator, type LessonSchemaFragment } from './lesson_schema.ts'
import base from './lesson_schema.json' with { type: 'json' }

type Schema = Record<string, unknown>

/** The $defs each model's fragment must define (the generic schema refers to them). */
export const MODEL_DEFS = ['runVariant', 'scenarioVariant', 'toggle', 'view', 'highlight', 'eventTarget', 'quizCompute', 'quizRules', 'claim'] as const

/**
 * The generic schema with one model's fragment: its $defs added, the generic claims the
 * fragment names by $ref (claimTime, claimBurst) written in place (so the claim list reads
 * as one), and "model" one of modelIds (sorted).
 */
export function composeLessonSchema(fragment: LessonSchemaFragment, modelIds: readonly string[]): Schema {
  const ids = [...modelIds].sort()
  const generic = structuredClone(base) as Schema & { $defs: Record<string, Schema>; properties: Schema }
  const own = structuredClone(fragment.$defs) as Record<string, Schema>
  for (const d of MODEL_DEFS) if (!(d in own)) throw new Error(`lesson schema fragment: $defs.${d} is missing`)
  const claim = own.claim as { oneOf?: Schema[] }
  claim.oneOf = (claim.oneOf ?? []).map((c) => {
    const ref = typeof c.$ref === 'string' ? /^#\/\$defs\/(\w+)$/.exec(c.$ref)?.[1] : undefined
    return ref && generic.$defs[ref] ? structuredClone(generic.$defs[ref]) : c
  })
  return {
    ...generic,
    properties: { ...generic.properties, model: { ...(generic.properties.model as Schema), enum: ids } },
    $defs: { ...generic.$defs, ...own },
  }
}


// ajv's standalone module is CommonJS with exports.default: a bundler's default import is the
// function, Node's (vite.config.ts loads this file natively) the module object.
type Standalone = (ajv: Ajv2020, validate: ValidateFunction) => string
const standaloneModule = ajvStandalone as unknown as { default: Standalone | { default: Standalone } }
const standaloneCode: Standalone = typeof standaloneModule.default === 'function' ? standaloneModule.default : standaloneModule.default.default

function newAjv(source: boolean) {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, ...(source ? { code: { source: true, esm: true } } : {}) })
  ajv.addKeyword({ keyword: 'x-messages', schemaType: 'object' })
  return ajv
}

const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples'])
const NAME_MAPS = new Set(['properties', '$defs', 'patternProperties', 'dependentSchemas'])
const VALUES = new Set(['enum', 'const', 'required', 'x-messages', 'discriminator'])

/**
 * A schema without its annotations (description, title, ...): what the browser's validator
 * needs (the editors' copy keeps them). Keys of properties/$defs are names, not keywords.
 */
export function stripAnnotations(s: unknown, names = false): unknown {
  if (Array.isArray(s)) return s.map((x) => stripAnnotations(x))
  if (typeof s !== 'object' || s === null) return s
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(s)) {
    if (names) out[k] = stripAnnotations(v)
    else if (ANNOTATIONS.has(k) && (typeof v === 'string' || Array.isArray(v))) continue
    else out[k] = VALUES.has(k) ? v : stripAnnotations(v, NAME_MAPS.has(k))
  }
  return out
}

/** Compiles a composed schema now (tests; the app uses the precompiled module). */
export function compileLessonSchema(schema: Schema): CompiledValidator {
  return newAjv(false).compile(schema)
}

/** Each model's composed schema, by model id. */
export function composeAll(fragments: Readonly<Record<string, LessonSchemaFragment>>): Record<string, Schema> {
  const ids = Object.keys(fragments).sort()
  return Object.fromEntries(ids.map((id) => [id, composeLessonSchema(fragments[id], ids)]))
}

/**
 * The ES module of every model's validator: `export default { <id>: { schema, validate } }`
 * (the schema without annotations: the browser needs no descriptions).
 * ajv's standalone code requires its runtime helpers; they become imports here.
 */
export function validatorsModule(fragments: Readonly<Record<string, LessonSchemaFragment>>): string {
  const schemas = Object.fromEntries(Object.entries(composeAll(fragments)).map(([id, s]) => [id, stripAnnotations(s) as Schema]))
  const runtime = new Map<string, string>() // module -> local name
  const bodies: string[] = []
  const entries: string[] = []
  Object.entries(schemas).forEach(([id, schema], n) => {
    const ajv = newAjv(true)
    const code = standaloneCode(ajv, ajv.compile(schema))
      .replace(/^"use strict";/, '')
      .replace(/export const validate = (\w+);export default \w+;/, 'const validate = $1;')
      .replace(/const (\w+) = require\("([^"]+)"\)\.default;/g, (_m: string, name: string, mod: string) => {
        if (!runtime.has(mod)) runtime.set(mod, `ajvRuntime${runtime.size}`)
        return `const ${name} = ${runtime.get(mod)};`
      })
    if (/\brequire\(/.test(code)) throw new Error(`lesson validator of ${id}: ajv's standalone code still requires a module`)
    // Each model's code in its own function scope (ajv names its functions alike in each).
    bodies.push(`const model${n} = (() => {${code}\nreturn validate })();`)
    entries.push(`${JSON.stringify(id)}: { schema: ${JSON.stringify(schema)}, validate: model${n} }`)
  })
  const imports = [...runtime].map(([mod, name]) => `import ${name} from ${JSON.stringify(`${mod}.js`)};`)
  return `${imports.join('\n')}\n${bodies.join('\n')}\nexport default { ${entries.join(', ')} }\n`
}

/**
 * Two modules the build derives from src/models/'s folders, for vite.config.ts and
 * vite.export.config.ts (src: the app's src/ folder):
 *
 *   "virtual:models"             MODEL_IDS: the model folders (with an index.ts), in
 *                                models/order.json's order (modelOrder: the first is the default
 *                                lesson; unlisted ones after, by id); core
 *                                code reads the models' names from here, never from the registry
 *                                (which imports their views: an import cycle back into core);
 *   "virtual:lesson-validators"  each model's lesson schema (core/lesson/lesson_schema.json with
 *                                models/<id>/lesson.schema.json) compiled by ajv into standalone
 *                                code: the browser neither ships ajv's compiler nor evaluates
 *                                generated code.
 */
/** Model ids in src/models/order.json's order; ids it does not list come after, sorted. */
export function modelOrder(ids: readonly string[], orderFile: string): string[] {
  const order: unknown = existsSync(orderFile) ? JSON.parse(readFileSync(orderFile, 'utf8')).order : []
  const listed = Array.isArray(order) ? order.filter((x): x is string => typeof x === 'string') : []
  const rank = (id: string) => { const i = listed.indexOf(id); return i < 0 ? listed.length : i }
  return [...ids].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}

export function lessonValidators(src: URL): Plugin {
  const id = 'virtual:lesson-validators'
  const idsId = 'virtual:models'
  const modelsDir = fileURLToPath(new URL('./models/', src))
  const baseFile = fileURLToPath(new URL('./core/lesson/lesson_schema.json', src))
  const fragmentFile = (model: string) => `${modelsDir}${model}/lesson.schema.json`
  return {
    name: 'kscope-lesson-validators',
    resolveId: (source) => (source === id || source === idsId ? `\0${source}` : null),
    load(resolved) {
      if (resolved === `\0${idsId}`) {
        const ids = modelOrder(readdirSync(modelsDir, { withFileTypes: true })
          .filter((d) => d.isDirectory() && existsSync(`${modelsDir}${d.name}/index.ts`)).map((d) => d.name), `${modelsDir}order.json`)
        return `export const MODEL_IDS = ${JSON.stringify(ids)}\n`
      }
      if (resolved !== `\0${id}`) return null
      const models = readdirSync(modelsDir, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(fragmentFile(d.name))).map((d) => d.name)
      this.addWatchFile(baseFile)
      const fragments: Record<string, LessonSchemaFragment> = {}
      for (const m of models) {
        this.addWatchFile(fragmentFile(m))
        fragments[m] = JSON.parse(readFileSync(fragmentFile(m), 'utf8'))
      }
      return validatorsModule(fragments)
    },
  }
}

