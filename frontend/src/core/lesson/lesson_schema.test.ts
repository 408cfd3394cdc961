// The lesson format as composed JSON Schema: the editors' copy is the composition, each
// model's fragment agrees with its decoder, and ajv's errors read as kscope's.
import { describe, expect, it } from 'vitest'
import { jsonPath, lessonSchemaValidator } from './lesson_schema'
import { compileLessonSchema, composeLessonSchema, MODEL_DEFS, stripAnnotations } from './lesson_schema_build'
import { MODELS } from '../../models/registry'
import base from './lesson_schema.json'

describe('the composed lesson schema', () => {
  it('lessons/<model>/lesson.schema.json (for editors, beside the model\'s lessons) is the composition of the generic schema and that model\'s fragment (update: npx vitest run -u)', async () => {
    for (const m of MODELS) {
      const composed = composeLessonSchema(m.lesson.schema, [m.id])
      await expect(`${JSON.stringify(composed, null, 2)}\n`).toMatchFileSnapshot(`../../lessons/${m.id}/lesson.schema.json`)
    }
  })

  it('the generic lesson schema names no model: "model" is filled in from the registry when composed', () => {
    const generic = JSON.stringify(base)
    for (const m of MODELS) expect(generic).not.toContain(`"${m.id}"`)
    const ids = ['b_model', 'a_model']
    const composed = composeLessonSchema(MODELS[0].lesson.schema, ids) as { properties: { model: { enum: string[] } } }
    expect(composed.properties.model.enum).toEqual(['a_model', 'b_model'])
  })

  it('each fragment defines every $def the generic schema leaves to the model; its paths are its decoder\'s', () => {
    for (const m of MODELS) {
      const defs = m.lesson.schema.$defs as Record<string, { enum?: string[] }>
      for (const d of MODEL_DEFS) expect(defs[d], `${m.id}: $defs.${d}`).toBeDefined()
      if (defs.path) expect(defs.path.enum).toEqual([...m.decoder.paths])
      expect(defs.toggle.enum).toEqual([...m.toggles.ids])
      expect(defs.runVariant.enum).toEqual([...m.variants.runs])
      expect(defs.view.enum).toEqual([...m.views.ids])
      expect((defs.quizCompute as { properties: { kind: { enum: string[] } } }).properties.kind.enum).toEqual([...m.quiz.kinds])
    }
    const { $defs, ...rest } = structuredClone(MODELS[0].lesson.schema) as { $defs: Record<string, unknown> }
    delete $defs.claim
    expect(() => composeLessonSchema({ ...rest, $defs }, ['x'])).toThrow(/\$defs\.claim is missing/)
  })

  it('the precompiled validators (vite.config.ts) are the composition of the same files, one per registered model', async () => {
    const { default: precompiled } = await import('virtual:lesson-validators')
    expect(Object.keys(precompiled).sort()).toEqual(MODELS.map((m) => m.id).sort())
    for (const m of MODELS) expect(precompiled[m.id]!.schema).toEqual(stripAnnotations(composeLessonSchema(m.lesson.schema, MODELS.map((x) => x.id))))
  })

  it('annotations are stripped for the browser, names that look like them are not', () => {
    const s = { description: 'x', type: 'object', properties: { description: { type: 'string', description: 'y' }, title: { enum: ['description'] } } }
    expect(stripAnnotations(s)).toEqual({ type: 'object', properties: { description: { type: 'string' }, title: { enum: ['description'] } } })
  })

  it('quiz kinds are unique across models (the quiz engine finds the model by kind)', () => {
    const kinds = MODELS.flatMap((m) => m.quiz.kinds)
    expect(new Set(kinds).size).toBe(kinds.length)
  })

  it('JSON pointers read as kscope paths: array indexes in brackets, keys after dots', () => {
    const data = { steps: [{ quiz: { '4': 1, 'a/b': 2 } }] }
    expect(jsonPath('', data)).toBe('$')
    expect(jsonPath('/steps/0/quiz/4', data)).toBe('$.steps[0].quiz.4')
    expect(jsonPath('/steps/0/quiz/a~1b', data)).toBe('$.steps[0].quiz.a/b')
    // A key with a newline in it is quoted: an error stays on one line (the fuzz test found "narrat\n").
    expect(jsonPath('/steps/0/narrat\n', { steps: [{}] })).toBe('$.steps[0]["narrat\\n"]')
  })

  it('an unknown field whose name holds a newline is one line, its name quoted', () => {
    const schema = composeLessonSchema(MODELS[0].lesson.schema, MODELS.map((m) => m.id))
    const v = lessonSchemaValidator(schema, compileLessonSchema(schema))
    const p = v.problems({ kscope_lesson: 1, 'bad\nkey': 1 }).map((x) => `${x.path}: ${x.message}`)
    expect(p.some((x) => x.startsWith('$["bad\\nkey"]: unknown field'))).toBe(true)
    for (const x of p) expect(x.includes('\n')).toBe(false)
  })

  it('an anyOf failure is one message, not one per branch; required fields say what is missing', () => {
    const schema = composeLessonSchema(MODELS[0].lesson.schema, MODELS.map((m) => m.id))
    const v = lessonSchemaValidator(schema, compileLessonSchema(schema))
    const p = v.problems({ kscope_lesson: 1, id: 'x', title: 't', summary: 's', model: 'nope', steps: [{ id: 'a', title: 't', views: { show: [] }, narration: ' ', notes: 'n', expect: [{ kind: 'cids' }] }] })
      .map((x) => `${x.path}: ${x.message}`)
    // composeLessonSchema lists the ids sorted, whatever the registry's order
    expect(p).toContain(`$.model: must be one of ${MODELS.map((m) => JSON.stringify(m.id)).sort().join(', ')}, got "nope"`)
    expect(p).toContain('$.steps[0].views.show: must have at least 1 entry, got 0')
    expect(p).toContain('$.steps[0].narration: must not be empty')
    expect(p).toContain('$.steps[0].expect[0]: a "cids" claim needs at least one of taken, free')
    expect(p.filter((x) => x.startsWith('$.steps[0].expect[0]'))).toHaveLength(1)
  })
})
