// Lesson positions in the URL, lesson routes (path and hash), and the notes channel's messages.
import { describe, expect, it } from 'vitest'
import { parseChannelMessage } from './lesson_channel'
import { positionFromSearch, sameStep, searchForPosition } from './lesson_route'
import { appLocation, hashRouting, lessonRouteOf, pageOf } from '../shared/route'
import { MODEL_IDS } from 'virtual:models'

describe('lesson position in the URL', () => {
  it('round-trips step, toggles and view; the pointer never goes in the URL', () => {
    const p = { lesson: 'intro', step: 11, toggles: { no_recent_cid: true, task_nr_cpus_allowed: false }, view: 'picture' }
    const q = searchForPosition({ ...p, pointer: { x: 0.1, y: 0.2 } })
    expect(q).toBe('?step=11&toggles=no_recent_cid&view=picture')
    expect(positionFromSearch('intro', q)).toEqual({ lesson: 'intro', step: 11, toggles: { no_recent_cid: true }, view: 'picture' })
  })
  it('a bad step is step 0; junk toggles are dropped', () => {
    expect(positionFromSearch('intro', '?step=-2&toggles=a%20b,ok_1')).toEqual({ lesson: 'intro', step: 0, toggles: { ok_1: true } })
    expect(positionFromSearch('intro', '?step=2.5').step).toBe(0)
    expect(positionFromSearch('intro', '').step).toBe(0)
  })
  it('sameStep ignores the pointer and the view, not the toggles', () => {
    const a = { lesson: 'intro', step: 3, toggles: {} }
    expect(sameStep(a, { ...a, pointer: { x: 1, y: 1 }, view: 'costs' })).toBe(true)
    expect(sameStep(a, { ...a, toggles: { no_recent_cid: true } })).toBe(false)
  })
})

describe('lesson routes', () => {
  it('maps /learn, /present, /notes and /embed/<id>/<step>', () => {
    expect(lessonRouteOf('/learn/intro')).toEqual({ page: 'learn', lesson: 'intro', step: null })
    expect(lessonRouteOf('/present/intro/')).toEqual({ page: 'present', lesson: 'intro', step: null })
    expect(lessonRouteOf('/notes/intro')).toEqual({ page: 'notes', lesson: 'intro', step: null })
    expect(lessonRouteOf('/embed/intro/7')).toEqual({ page: 'embed', lesson: 'intro', step: 7 })
    expect(lessonRouteOf('/embed/intro')).toBeNull()
    expect(lessonRouteOf('/learn/Bad Name')).toBeNull()
    expect(pageOf('/present/intro')).toBe('present')
    expect(pageOf(`/lesson/${MODEL_IDS[0]}`)).toBe('lesson')
  })
  it('reads the route from the hash in an exported lesson', () => {
    expect(appLocation({ pathname: '/x/index.html', search: '', hash: '#/present/intro?step=3' })).toEqual({ pathname: '/present/intro', search: '?step=3' })
    expect(appLocation({ pathname: '/learn/intro', search: '?step=1', hash: '' })).toEqual({ pathname: '/learn/intro', search: '?step=1' })
    expect(appLocation({ pathname: '/learn/intro', search: '', hash: '#section' })).toEqual({ pathname: '/learn/intro', search: '' })
    expect(hashRouting({ hash: '', protocol: 'file:' })).toBe(true)
    expect(hashRouting({ hash: '', protocol: 'http:' })).toBe(false)
  })
})

describe('the notes channel', () => {
  it('accepts this lesson\'s well-formed messages only', () => {
    const position = { lesson: 'intro', step: 2, toggles: {} }
    expect(parseChannelMessage({ type: 'hello' }, 'intro')).toEqual({ type: 'hello' })
    expect(parseChannelMessage({ type: 'position', position }, 'intro')).toEqual({ type: 'position', position })
    expect(parseChannelMessage({ type: 'navigate', position }, 'intro')).toEqual({ type: 'navigate', position })
    expect(parseChannelMessage({ type: 'position', position }, 'outro')).toBeNull()
    expect(parseChannelMessage({ type: 'position', position: { ...position, step: -1 } }, 'intro')).toBeNull()
    expect(parseChannelMessage({ type: 'position', position: { ...position, toggles: null } }, 'intro')).toBeNull()
    expect(parseChannelMessage('hello', 'intro')).toBeNull()
  })
})
