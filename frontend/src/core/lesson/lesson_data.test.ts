// The shipped lessons: one folder per model (lessons/<model>/<id>.lesson.json), each loads.
import { describe, expect, it } from 'vitest'
import { folderProblem, lessonFileOf, lessonIds, loadLesson } from './lesson_data'
import { lessonSummaries } from './lesson_files'
import { loadLessonLazily } from './lesson_load'

describe('shipped lessons', () => {
  it('each sits in its model\'s folder and loads', () => {
    expect(lessonIds().length).toBeGreaterThan(0)
    for (const id of lessonIds()) {
      const l = loadLesson(id)
      expect(lessonFileOf(id)).toBe(`${l.model}/${id}.lesson.json`)
    }
    expect(lessonFileOf('no-such-lesson')).toBeNull()
  })

  it('a lesson in another model\'s folder is refused, naming the folder', () => {
    expect(folderProblem('../../lessons/nosuchmodel/intro.lesson.json', 'nosuchmodel')).toBeNull()
    expect(folderProblem('../../lessons/nosuchmodel/intro.lesson.json', 'sheaves')).toBe('must be "nosuchmodel" (the folder lessons/nosuchmodel/ it is in), got "sheaves"')
  })
})

describe('lesson summaries and the lazy loader', () => {
  it('the landing page\'s summaries (read without the validator) agree with the validated lessons', () => {
    expect(lessonSummaries().map((s) => s.id)).toEqual(lessonIds())
    for (const s of lessonSummaries()) {
      const l = loadLesson(s.id)
      expect(s).toEqual({ id: l.id, title: l.title, steps: l.steps.length, model: l.model })
    }
  })

  it('loads a lesson with its validator on demand, and rejects an unknown one naming the shipped ones', async () => {
    const id = lessonIds()[0]
    expect(await loadLessonLazily(id)).toBe(loadLesson(id))
    await expect(loadLessonLazily('no-such-lesson')).rejects.toThrow(new RegExp(`no-such-lesson\\.lesson\\.json: \\$: no such lesson \\(shipped: ${lessonIds().join(', ')}\\)`))
  })
})
