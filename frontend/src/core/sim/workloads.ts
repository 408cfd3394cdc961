/*
 * The example workloads the app ships: wasm-core/workloads/*.json, imported as
 * text at build time (the C core's own examples, so the tests and the app run
 * the same files). Kept as text, not parsed objects, so an edited copy in the
 * custom editor has the line numbers the C parser's errors refer to.
 */
const files = import.meta.glob('../../../../wasm-core/workloads/*.json', {
  eager: true,
  query: '?raw',
  import: 'default',
}) as Record<string, string>

export interface ExampleWorkload {
  /** The file's name without .json, which is also its "name" field: the URL names it. */
  name: string
  /** Its "description" field (one sentence for the picker's tooltip). */
  description: string
  /** The JSON text as written. */
  json: string
}

/** The workload a URL without ?workload= runs. */
export const DEFAULT_WORKLOAD = 'seed000-8core-200ms'

/** The name the custom editor's workload goes by in the URL. */
export const CUSTOM_WORKLOAD = 'custom'

function describe(json: string): string {
  try {
    const parsed = JSON.parse(json) as { description?: unknown }
    return typeof parsed.description === 'string' ? parsed.description : ''
  } catch {
    return ''
  }
}

/** The examples, sorted by name. */
export const EXAMPLE_WORKLOADS: readonly ExampleWorkload[] = Object.entries(files)
  .map(([path, json]) => ({ name: path.replace(/^.*\//, '').replace(/\.json$/, ''), description: describe(json), json }))
  .sort((a, b) => a.name.localeCompare(b.name))

export function exampleWorkload(name: string): ExampleWorkload | undefined {
  return EXAMPLE_WORKLOADS.find((w) => w.name === name)
}
