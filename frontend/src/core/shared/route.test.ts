// Pages by URL path.
import { describe, expect, it } from 'vitest'
import { hrefFor, pageOf } from './route'
import { MODEL_IDS } from 'virtual:models'

/** The registry's first model (its lesson page is /lesson/<id>). */
const FIRST = MODEL_IDS[0]

describe('routes', () => {
  it('maps / to the landing page (topology), /simulate to the simulation and anything else to "not found"', () => {
    expect(pageOf('/simulate')).toBe('simulate')
    expect(pageOf('/simulate/')).toBe('simulate')
    expect(pageOf('/')).toBe('topology')
    expect(pageOf('/index.html')).toBe('topology')
    expect(pageOf('/nope')).toBe('notfound')
    expect(pageOf('/simulatex')).toBe('notfound')
    expect(pageOf('/learn')).toBe('notfound')
  })
  it('maps /lesson/<model> to the first model\'s lesson page (models/registry.ts)', () => {
    expect(pageOf(`/lesson/${FIRST}`)).toBe('lesson')
    expect(pageOf(`/lesson/${FIRST}/`)).toBe('lesson')
    expect(pageOf('/lesson')).toBe('notfound')
    expect(pageOf('/lesson/nosuchmodel')).toBe('notfound')
    expect(hrefFor('lesson', 'classroom-8')).toBe(`/lesson/${FIRST}?preset=classroom-8`)
  })
  it('maps /traces to the real-trace page', () => {
    expect(pageOf('/traces')).toBe('traces')
    expect(pageOf('/traces/')).toBe('traces')
    expect(hrefFor('traces')).toBe('/traces')
  })
  it('carries the machine across pages', () => {
    expect(hrefFor('simulate', 'epyc-9654-2s')).toBe('/simulate?preset=epyc-9654-2s')
    expect(hrefFor('topology')).toBe('/')
  })
})
