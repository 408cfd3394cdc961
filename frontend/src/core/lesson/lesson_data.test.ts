// The shipped lessons: one folder per model (lessons/<model>/<id>.lesson.json), each loads.
import { describe, expect, it } from 'vitest'
import { folderProblem, lessonFileOf, lessonIds, loadLesson } from './lesson_data'

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
    expect(folderProblem('../../lessons/cpupri/intro.lesson.json', 'cpupri')).toBeNull()
    expect(folderProblem('../../lessons/cpupri/intro.lesson.json', 'sheaves')).toBe('must be "cpupri" (the folder lessons/cpupri/ it is in), got "sheaves"')
  })
})
