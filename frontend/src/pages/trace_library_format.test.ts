// The library's size and upload-time labels (two uploads of one name differ in them).
import { describe, expect, it } from 'vitest'
import { formatBytes, formatUploadTime } from './trace_library_format'

describe('library labels', () => {
  it('formats sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B')
    expect(formatBytes(1023)).toBe('1023 B')
    expect(formatBytes(830381)).toBe('811 KiB')
    expect(formatBytes(1.5 * 2 ** 30)).toBe('1.50 GiB')
    expect(formatBytes(12.34 * 2 ** 20)).toBe('12.3 MiB')
    expect(formatBytes(-1)).toBe('—')
  })
  it('formats the upload time to the second, in a given zone', () => {
    expect(formatUploadTime('2026-11-27T16:05:09.123456+00:00', 'UTC')).toBe('2026-11-27 16:05:09')
    expect(formatUploadTime('2026-11-27T00:00:01+00:00', 'UTC')).toBe('2026-11-27 00:00:01')
    expect(formatUploadTime('2026-11-27T16:05:09+00:00', 'Europe/Berlin')).toBe('2026-11-27 17:05:09')
    expect(formatUploadTime('not a time')).toBe('not a time')
  })
})
