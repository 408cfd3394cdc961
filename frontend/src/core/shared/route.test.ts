// Pages by URL path.
import { describe, expect, it } from 'vitest'
import { hrefFor, pageOf } from './route'

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
  it('maps /lesson/mm_cid to the mm_cid lesson', () => {
    expect(pageOf('/lesson/mm_cid')).toBe('lesson')
    expect(pageOf('/lesson/mm_cid/')).toBe('lesson')
    expect(pageOf('/lesson')).toBe('notfound')
    expect(pageOf('/lesson/cpupri')).toBe('notfound')
    expect(hrefFor('lesson', 'classroom-8')).toBe('/lesson/mm_cid?preset=classroom-8')
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
