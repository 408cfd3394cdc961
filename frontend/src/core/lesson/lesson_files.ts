/*
 * The lesson files the app ships: every frontend/src/lessons/<model>/<id>.lesson.json
 * (one folder per model; a lesson's "model" must be its folder's name), bundled at
 * build time (so an exported static lesson needs no fetch), not yet validated.
 * This module carries no validator: the ajv-compiled one is loaded with the
 * first lesson a page opens (lesson_load.ts -> lesson_data.ts), so the app's
 * first script stays small.
 */
const FILES = import.meta.glob('../../lessons/*/*.lesson.json', { eager: true, import: 'default' }) as Record<string, unknown>

const fileOf = (path: string) => path.slice(path.lastIndexOf('/') + 1)
/** The model folder a lesson file sits in (lessons/<model>/). */
const folderOf = (path: string) => path.split('/').at(-2) ?? ''
const idOf = (path: string) => fileOf(path).replace(/\.lesson\.json$/, '')

/** A shipped lesson file's bundle path, its file name and its parsed data (unvalidated), or null. */
export function lessonFile(id: string): { path: string; file: string; data: unknown } | null {
  const path = Object.keys(FILES).find((p) => idOf(p) === id)
  return path ? { path, file: fileOf(path), data: FILES[path] } : null
}

/** Why a lesson of `model` may not sit at `path` (its folder must be the model's), or null. */
export function folderProblem(path: string, model: string): string | null {
  const folder = folderOf(path)
  return folder === model ? null : `must be "${folder}" (the folder lessons/${folder}/ it is in), got "${model}"`
}

/** Where lesson `id` is, relative to src/lessons/ ("<model>/<id>.lesson.json"), or null. */
export function lessonFileOf(id: string): string | null {
  const path = Object.keys(FILES).find((p) => idOf(p) === id)
  return path ? `${folderOf(path)}/${fileOf(path)}` : null
}

/** The ids of the shipped lessons, sorted. */
export function lessonIds(): string[] {
  return Object.keys(FILES).map(idOf).sort()
}

/** What a lesson list shows of a shipped lesson, read from its file without validating it. */
export interface LessonSummary {
  id: string
  title: string
  steps: number
  /** Its model: the lesson's "model", which must be its folder's name. */
  model: string
}

/**
 * The shipped lessons' titles, step counts and models, read from the files as they are
 * (no validation: the lesson's own page validates it and shows its problems). A file
 * without a string title, a steps list or a model that is its folder is left out.
 */
export function lessonSummaries(): LessonSummary[] {
  const out: LessonSummary[] = []
  for (const id of lessonIds()) {
    const { path, data } = lessonFile(id)!
    const o = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>
    if (typeof o.title !== 'string' || !Array.isArray(o.steps) || typeof o.model !== 'string' || folderProblem(path, o.model)) continue
    out.push({ id, title: o.title, steps: o.steps.length, model: o.model })
  }
  return out
}
