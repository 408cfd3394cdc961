// The committed api_types.ts is what the backend's OpenAPI document gives now
// (scripts/gen-api-types.mjs --check against `create_app().openapi()`), and the
// check does fail on a file that drifted.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const script = fileURLToPath(new URL('../../../scripts/gen-api-types.mjs', import.meta.url))
const committed = fileURLToPath(new URL('./api_types.ts', import.meta.url))
const tmp = mkdtempSync(path.join(tmpdir(), 'kscope-api-types-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

function run(args: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync('node', [script, ...args], { encoding: 'utf-8', stdio: ['ignore', 'pipe', 'pipe'] }) }
  } catch (err) {
    const e = err as { status: number; stderr: string }
    return { code: e.status, out: e.stderr }
  }
}

describe('generated API types', () => {
  const openapi = path.join(tmp, 'openapi.json')

  it('match the backend’s OpenAPI schema', () => {
    const r = run(['--check'])
    expect(r.out).toContain('matches')
    expect(r.code).toBe(0)
  }, 60_000)

  it('the check fails, naming the line, when a field drifts', () => {
    const drifted = path.join(tmp, 'api_types.ts')
    writeFileSync(drifted, readFileSync(committed, 'utf-8').replace('  t_last_ns: number\n', '  t_last_ns: string\n'))
    // A fixed document keeps this test independent of the backend: one schema with t_last_ns.
    writeFileSync(openapi, JSON.stringify({ info: { title: 't', version: '1' }, paths: { '/a': {} }, components: { schemas: {
      S: { type: 'object', properties: { t_last_ns: { type: 'integer' }, tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
        required: ['t_last_ns'] } } } }))
    const fixed = path.join(tmp, 'fixed.ts')
    expect(run(['--openapi', openapi, '--out', fixed]).code).toBe(0)
    const text = readFileSync(fixed, 'utf-8')
    expect(text).toContain('export interface S {\n  t_last_ns: number\n  tags?: (string | null)[]\n}')
    expect(text).toContain('export type ApiPath =\n  | "/a"')
    writeFileSync(fixed, text.replace('t_last_ns: number', 't_last_ns: string'))
    const r = run(['--check', '--openapi', openapi, '--out', fixed])
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/fixed\.ts:\d+: differs .*t_last_ns: string/)
    expect(run(['--check', '--out', drifted]).code).toBe(1)
  }, 60_000)
})
