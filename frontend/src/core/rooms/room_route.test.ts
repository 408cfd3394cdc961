import { describe, expect, it } from 'vitest'
import { pageOf } from '../shared/route'
import { roomRouteOf } from './room_route'

describe('room routes', () => {
  it('/join and /room/<CODE> are the follower pages', () => {
    expect(roomRouteOf('/join')).toEqual({ page: 'join' })
    expect(roomRouteOf('/room/ack43m')).toEqual({ page: 'room', code: 'ACK43M' })
    expect(roomRouteOf('/room/')).toBeNull()
    expect(roomRouteOf('/rooms/ACK43M')).toBeNull()
    expect(pageOf('/join')).toBe('join')
    expect(pageOf('/room/ACK43M/')).toBe('room')
    expect(pageOf('/simulate')).toBe('simulate')
  })
})
