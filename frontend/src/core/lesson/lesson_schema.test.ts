// The lesson format as composed JSON Schema: the editors' copy is the composition, each
// model's fragment agrees with its decoder, and ajv's errors read as kscope's.
import { describe, expect, it } from 'vitest'
import { jsonPath, lessonSchemaValidator } from './lesson_schema'
import { compileLessonSchema, composeLessonSchema, MODEL_DEFS, stripAnnotations } from './lesson_schema_build'
import { MODELS } from '../../models/registry'

describe('the composed lesson schema', () => {
  it('lessons/lesson.schema.json (for editors) is the composition of the generic schema and the models\' fragments (update: npx vitest run -u)', async () => {
    expect(MODELS.length).toBe(1) // with a second model, write one file per model (<model>.schema.json) here
    const composed = composeLessonSchema(MODELS[0].lesson.schema, MODELS.map((m) => m.id))
    await expect(`${JSON.stringify(composed, null, 2)}\n`).toMatchFileSnapshot('../../lessons/lesson.schema.json')
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
  })

  it('an anyOf failure is one message, not one per branch; required fields say what is missing', () => {
    const schema = composeLessonSchema(MODELS[0].lesson.schema, MODELS.map((m) => m.id))
    const v = lessonSchemaValidator(schema, compileLessonSchema(schema))
    const p = v.problems({ kscope_lesson: 1, id: 'x', title: 't', summary: 's', model: 'nope', steps: [{ id: 'a', title: 't', views: { show: [] }, narration: ' ', notes: 'n', expect: [{ kind: 'cids' }] }] })
      .map((x) => `${x.path}: ${x.message}`)
    expect(p).toContain(`$.model: must be one of ${MODELS.map((m) => JSON.stringify(m.id)).join(', ')}, got "nope"`)
    expect(p).toContain('$.steps[0].views.show: must have at least 1 entry, got 0')
    expect(p).toContain('$.steps[0].narration: must not be empty')
    expect(p).toContain('$.steps[0].expect[0]: a "cids" claim needs at least one of taken, free')
    expect(p.filter((x) => x.startsWith('$.steps[0].expect[0]'))).toHaveLength(1)
  })
})
