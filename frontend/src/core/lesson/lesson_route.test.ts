// Lesson positions in the URL, lesson routes (path and hash), and the notes channel's messages.
import { describe, expect, it } from 'vitest'
import { parseChannelMessage } from './lesson_channel'
import { positionFromSearch, sameStep, searchForPosition } from './lesson_route'
import { appLocation, hashRouting, lessonRouteOf, pageOf } from '../shared/route'

describe('lesson position in the URL', () => {
  it('round-trips step, toggles and view; the pointer never goes in the URL', () => {
    const p = { lesson: 'mm_cid', step: 11, toggles: { no_recent_cid: true, task_nr_cpus_allowed: false }, view: 'picture' }
    const q = searchForPosition({ ...p, pointer: { x: 0.1, y: 0.2 } })
    expect(q).toBe('?step=11&toggles=no_recent_cid&view=picture')
    expect(positionFromSearch('mm_cid', q)).toEqual({ lesson: 'mm_cid', step: 11, toggles: { no_recent_cid: true }, view: 'picture' })
  })
  it('a bad step is step 0; junk toggles are dropped', () => {
    expect(positionFromSearch('mm_cid', '?step=-2&toggles=a%20b,ok_1')).toEqual({ lesson: 'mm_cid', step: 0, toggles: { ok_1: true } })
    expect(positionFromSearch('mm_cid', '?step=2.5').step).toBe(0)
    expect(positionFromSearch('mm_cid', '').step).toBe(0)
  })
  it('sameStep ignores the pointer and the view, not the toggles', () => {
    const a = { lesson: 'mm_cid', step: 3, toggles: {} }
    expect(sameStep(a, { ...a, pointer: { x: 1, y: 1 }, view: 'costs' })).toBe(true)
    expect(sameStep(a, { ...a, toggles: { no_recent_cid: true } })).toBe(false)
  })
})

describe('lesson routes', () => {
  it('maps /learn, /present, /notes and /embed/<id>/<step>', () => {
    expect(lessonRouteOf('/learn/mm_cid')).toEqual({ page: 'learn', lesson: 'mm_cid', step: null })
    expect(lessonRouteOf('/present/mm_cid/')).toEqual({ page: 'present', lesson: 'mm_cid', step: null })
    expect(lessonRouteOf('/notes/mm_cid')).toEqual({ page: 'notes', lesson: 'mm_cid', step: null })
    expect(lessonRouteOf('/embed/mm_cid/7')).toEqual({ page: 'embed', lesson: 'mm_cid', step: 7 })
    expect(lessonRouteOf('/embed/mm_cid')).toBeNull()
    expect(lessonRouteOf('/learn/Bad Name')).toBeNull()
    expect(pageOf('/present/mm_cid')).toBe('present')
    expect(pageOf('/lesson/mm_cid')).toBe('lesson')
  })
  it('reads the route from the hash in an exported lesson', () => {
    expect(appLocation({ pathname: '/x/index.html', search: '', hash: '#/present/mm_cid?step=3' })).toEqual({ pathname: '/present/mm_cid', search: '?step=3' })
    expect(appLocation({ pathname: '/learn/mm_cid', search: '?step=1', hash: '' })).toEqual({ pathname: '/learn/mm_cid', search: '?step=1' })
    expect(appLocation({ pathname: '/learn/mm_cid', search: '', hash: '#section' })).toEqual({ pathname: '/learn/mm_cid', search: '' })
    expect(hashRouting({ hash: '', protocol: 'file:' })).toBe(true)
    expect(hashRouting({ hash: '', protocol: 'http:' })).toBe(false)
  })
})

describe('the notes channel', () => {
  it('accepts this lesson\'s well-formed messages only', () => {
    const position = { lesson: 'mm_cid', step: 2, toggles: {} }
    expect(parseChannelMessage({ type: 'hello' }, 'mm_cid')).toEqual({ type: 'hello' })
    expect(parseChannelMessage({ type: 'position', position }, 'mm_cid')).toEqual({ type: 'position', position })
    expect(parseChannelMessage({ type: 'navigate', position }, 'mm_cid')).toEqual({ type: 'navigate', position })
    expect(parseChannelMessage({ type: 'position', position }, 'cpupri')).toBeNull()
    expect(parseChannelMessage({ type: 'position', position: { ...position, step: -1 } }, 'mm_cid')).toBeNull()
    expect(parseChannelMessage({ type: 'position', position: { ...position, toggles: null } }, 'mm_cid')).toBeNull()
    expect(parseChannelMessage('hello', 'mm_cid')).toBeNull()
  })
})
