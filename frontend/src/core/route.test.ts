// Pages by URL path.
import { describe, expect, it } from 'vitest'
import { hrefFor, pageOf } from './route'

describe('routes', () => {
  it('maps /simulate to the simulation and anything else to the topology', () => {
    expect(pageOf('/simulate')).toBe('simulate')
    expect(pageOf('/simulate/')).toBe('simulate')
    expect(pageOf('/')).toBe('topology')
    expect(pageOf('/nope')).toBe('topology')
  })
  it('carries the machine across pages', () => {
    expect(hrefFor('simulate', 'epyc-9654-2s')).toBe('/simulate?preset=epyc-9654-2s')
    expect(hrefFor('topology')).toBe('/')
  })
})
