import { describe, expect, it } from 'vitest'
import { formatCpuList, formatKib, plural } from './cpulist'

describe('cpulist formatting', () => {
  it('collapses runs like Linux shared_cpu_list', () => {
    expect(formatCpuList([193, 0, 1, 2, 3, 192, 5])).toBe('0-3,5,192-193')
    expect(formatCpuList([7])).toBe('7')
    expect(formatCpuList([])).toBe('')
  })
  it('prints cache sizes and counts for people', () => {
    expect(formatKib(32 * 1024)).toBe('32 MiB')
    expect(formatKib(48)).toBe('48 KiB')
    expect(formatKib(30 * 1920)).toBe('56.25 MiB')
    expect(plural(1, 'socket')).toBe('1 socket')
    expect(plural(2, 'NUMA node')).toBe('2 NUMA nodes')
  })
})
