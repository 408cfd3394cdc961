// vite.export.config.ts has no default lesson (it once defaulted to one model's): without
// KSCOPE_EXPORT_LESSON the export build stops at once, saying what to set and what is shipped.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { lessonIds } from './core/lesson/lesson_data'

const frontend = fileURLToPath(new URL('..', import.meta.url))
const local = fileURLToPath(new URL('../node_modules/.bin/vite', import.meta.url))
const vite = existsSync(local) ? local : fileURLToPath(new URL('../../node_modules/.bin/vite', import.meta.url))

describe('the exported lesson build', () => {
  it('refuses to build without KSCOPE_EXPORT_LESSON, naming the shipped lessons', () => {
    const env = { ...process.env }
    delete env.KSCOPE_EXPORT_LESSON
    const r = spawnSync(vite, ['build', '-c', 'vite.export.config.ts', '--logLevel', 'error'], { cwd: frontend, env, encoding: 'utf8', timeout: 60_000 })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain(`set KSCOPE_EXPORT_LESSON to the lesson to export (shipped: ${lessonIds().join(', ')})`)
  })
})
