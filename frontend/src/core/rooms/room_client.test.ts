import { describe, expect, it } from 'vitest'
import type { LessonPosition } from '../lesson/lesson_position'
import { backoffMs, RoomClient, roomSocketUrl, type SocketLike, type Timers } from './room_client'
import { applyFrame, explore, initialRoomState, resync, stepsBehind } from './room_state'

const pos = (step: number): LessonPosition => ({ lesson: 'mm_cid', step, toggles: {} })

class FakeSocket implements SocketLike {
  readyState = 0
  sent: string[] = []
  closed: { code?: number; reason?: string } | null = null
  onopen: ((ev: unknown) => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  onclose: ((ev: { code: number; reason: string }) => void) | null = null
  onerror: ((ev: unknown) => void) | null = null
  readonly url: string
  constructor(url: string) {
    this.url = url
  }
  send(data: string) {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open')
    this.sent.push(data)
  }
  close(code?: number, reason?: string) {
    this.closed = { code, reason }
    this.readyState = 3
    this.onclose?.({ code: code ?? 1005, reason: reason ?? '' })
  }
  // server side of the fake
  accept() {
    this.readyState = 1
    this.onopen?.({})
  }
  push(frame: object) {
    this.onmessage?.({ data: JSON.stringify(frame) })
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3
    this.onclose?.({ code, reason })
  }
  frames() {
    return this.sent.map((s) => JSON.parse(s))
  }
}

class FakeTimers implements Timers {
  queue: { fn: () => void; ms: number; id: number }[] = []
  private next = 1
  setTimeout(fn: () => void, ms: number) {
    const id = this.next++
    this.queue.push({ fn, ms, id })
    return id
  }
  clearTimeout(id: unknown) {
    this.queue = this.queue.filter((t) => t.id !== id)
  }
  fireNext(): number {
    const t = this.queue.shift()
    if (!t) throw new Error('no timer pending')
    t.fn()
    return t.ms
  }
}

function setup(role: 'presenter' | 'follower' = 'follower') {
  const sockets: FakeSocket[] = []
  const timers = new FakeTimers()
  const client = new RoomClient({
    wsOrigin: 'ws://h:1', code: 'ACK43M', role, token: 'tok/+', clientId: 'c-1',
    socket: (url) => { const s = new FakeSocket(url); sockets.push(s); return s },
    timers, random: () => 1,
  })
  client.connect()
  return { client, sockets, timers, last: () => sockets[sockets.length - 1] }
}

describe('roomSocketUrl', () => {
  it('carries the role and the token or client id, escaped', () => {
    expect(roomSocketUrl({ wsOrigin: 'ws://h:1', code: 'ACK43M', role: 'presenter', token: 'a+b/c' }))
      .toBe('ws://h:1/api/rooms/ACK43M/ws?role=presenter&token=a%2Bb%2Fc')
    expect(roomSocketUrl({ wsOrigin: 'wss://h', code: 'ACK43M', role: 'follower', clientId: 'x y' }))
      .toBe('wss://h/api/rooms/ACK43M/ws?role=follower&client=x%20y')
  })
})

describe('backoffMs', () => {
  it('doubles from 250 ms to an 8 s cap, jittered down to half', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((a) => backoffMs(a, () => 1))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000, 8000])
    expect(backoffMs(3, () => 0)).toBe(1000)
  })
})

describe('RoomClient', () => {
  it('says hello since 0 on first open and applies states in seq order only', () => {
    const { client, last } = setup()
    expect(client.getState().status).toBe('connecting')
    last().accept()
    expect(last().frames()).toEqual([{ type: 'hello', since: 0 }])
    last().push({ type: 'welcome', role: 'follower', code: 'ACK43M', lesson: 'mm_cid', seq: 0 })
    last().push({ type: 'state', seq: 2, state: pos(2), sent_at_ms: 5 })
    last().push({ type: 'state', seq: 1, state: pos(1), sent_at_ms: 4 }) // stale: ignored
    last().push({ type: 'state', seq: 2, state: pos(2), sent_at_ms: 5 }) // duplicate: ignored
    const s = client.getState()
    expect([s.status, s.lesson, s.seq, s.applied?.step, s.latest?.step]).toEqual(['open', 'mm_cid', 2, 2, 2])
  })

  it('reconnects with backoff after a drop and catches up with hello since <seq>', () => {
    const { client, sockets, timers, last } = setup()
    last().accept()
    last().push({ type: 'state', seq: 3, state: pos(3), sent_at_ms: 1 })
    last().drop()
    expect(client.getState().status).toBe('reconnecting')
    expect(timers.fireNext()).toBe(250)
    expect(sockets).toHaveLength(2)
    last().drop() // the server is still away
    expect(timers.fireNext()).toBe(500)
    last().accept()
    expect(last().frames()).toEqual([{ type: 'hello', since: 3 }])
    expect(client.getState()).toMatchObject({ status: 'open', attempts: 0 })
    last().push({ type: 'state', seq: 7, state: pos(7), sent_at_ms: 2 }) // the catch-up reply
    expect(client.getState().applied?.step).toBe(7)
    last().drop()
    expect(timers.fireNext()).toBe(250) // attempts were reset by the successful open
  })

  it('stops for good on 4404 (expired room) and 4403 (wrong token), keeping the reason', () => {
    for (const code of [4404, 4403, 4400]) {
      const { client, timers, last } = setup()
      last().accept()
      last().push({ type: 'error', message: 'no room ACK43M: it expired or never existed' })
      last().drop(code, 'room expired')
      expect(client.getState()).toMatchObject({ status: 'closed', error: 'no room ACK43M: it expired or never existed' })
      expect(timers.queue).toHaveLength(0)
    }
  })

  it('retries after 4408 (fell behind) and 4429 (room full)', () => {
    for (const code of [4408, 4429]) {
      const { client, timers, last } = setup()
      last().accept()
      last().drop(code, '')
      expect(client.getState().status).toBe('reconnecting')
      expect(timers.queue).toHaveLength(1)
    }
  })

  it('detached followers keep receiving the presenter but do not apply it; resync jumps to the latest', () => {
    const { client, last } = setup()
    last().accept()
    last().push({ type: 'state', seq: 1, state: pos(1) })
    client.explore(pos(5))
    last().push({ type: 'state', seq: 2, state: pos(2) })
    last().push({ type: 'state', seq: 3, state: pos(3) })
    expect(client.getState()).toMatchObject({ detached: true, applied: pos(5), latest: pos(3), seq: 3 })
    client.resync()
    expect(client.getState()).toMatchObject({ detached: false, applied: pos(3) })
    last().push({ type: 'state', seq: 4, state: pos(4) })
    expect(client.getState().applied).toEqual(pos(4))
  })

  it('a detached follower stays detached across a reconnect', () => {
    const { client, timers, last } = setup()
    last().accept()
    last().push({ type: 'state', seq: 1, state: pos(1) })
    client.explore(pos(9))
    last().drop()
    timers.fireNext()
    last().accept()
    last().push({ type: 'state', seq: 2, state: pos(2) })
    expect(client.getState()).toMatchObject({ detached: true, applied: pos(9), latest: pos(2) })
  })

  it('queues answers while down and sends them (latest per quiz) after hello', () => {
    const { client, timers, last } = setup()
    last().accept()
    last().push({ type: 'quiz', quiz: { id: 'q', choices: ['a', 'b'] } })
    last().drop()
    client.answer('q', 'a')
    client.answer('q', 'b')
    expect(client.getState().answers).toEqual({ q: 'b' })
    timers.fireNext()
    last().accept()
    expect(last().frames()).toEqual([{ type: 'hello', since: 0 }, { type: 'answer', quiz_id: 'q', choice: 'b' }])
  })

  it('answers the open quiz again when a new socket catches up (the server counts one vote per socket)', () => {
    const { client, timers, last } = setup()
    last().accept()
    last().push({ type: 'quiz', quiz: { id: 'q', choices: ['a', 'b'] } })
    client.answer('q', 'b')
    expect(last().frames()).toEqual([{ type: 'hello', since: 0 }, { type: 'answer', quiz_id: 'q', choice: 'b' }])
    last().drop() // the server withdraws this socket's vote
    timers.fireNext()
    last().accept()
    last().push({ type: 'quiz', quiz: { id: 'q', choices: ['a', 'b'] } }) // the catch-up names the open quiz
    expect(last().frames()).toEqual([{ type: 'hello', since: 0 }, { type: 'answer', quiz_id: 'q', choice: 'b' }])
    last().push({ type: 'quiz', quiz: { id: 'q2', choices: ['x', 'y'] } }) // a new quiz: nothing to re-send
    expect(last().frames()).toHaveLength(2)
  })

  it('presenter publishes states, opens a quiz once, reveals, and reads tally and followers', () => {
    const { client, last } = setup('presenter')
    expect(last().url).toBe('ws://h:1/api/rooms/ACK43M/ws?role=presenter&token=tok%2F%2B')
    client.publish(pos(0)) // before open: waits
    last().accept()
    client.publish(pos(1))
    client.openQuiz({ id: 'q', choices: ['0', '1'] })
    client.openQuiz({ id: 'q', choices: ['0', '1'] }) // same quiz: not sent again
    client.reveal('q', '1')
    expect(last().frames().map((f) => f.type)).toEqual(['hello', 'state', 'state', 'quiz_open', 'reveal'])
    last().push({ type: 'tally', quiz_id: 'q', counts: { 0: 1, 1: 2 } })
    last().push({ type: 'followers', count: 3 })
    last().push({ type: 'reveal', quiz_id: 'q', answer: '1' })
    expect(client.getState()).toMatchObject({ followers: 3, tally: { quizId: 'q', counts: { 0: 1, 1: 2 } },
      revealed: { quizId: 'q', answer: '1' } })
  })

  it('close() ends it: no reconnect, listeners told', () => {
    const { client, timers, last } = setup()
    let calls = 0
    client.subscribe(() => { calls++ })
    last().accept()
    client.close()
    expect(client.getState().status).toBe('closed')
    expect(last().closed?.code).toBe(1000)
    expect(timers.queue).toHaveLength(0)
    expect(calls).toBeGreaterThan(0)
  })

  it('ignores frames that are not JSON', () => {
    const { client, last } = setup()
    last().accept()
    const before = client.getState()
    last().onmessage?.({ data: 'not json' })
    expect(client.getState()).toBe(before)
  })
})

describe('room_state', () => {
  it('a new quiz clears an old reveal; stepsBehind measures the gap', () => {
    let s = initialRoomState('follower', 'ACK43M')
    s = applyFrame(s, { type: 'quiz', quiz: { id: 'a', choices: ['x'] } })
    s = applyFrame(s, { type: 'reveal', quiz_id: 'a', answer: 'x' })
    expect(s.revealed).toEqual({ quizId: 'a', answer: 'x' })
    expect(applyFrame(s, { type: 'quiz', quiz: { id: 'a', choices: ['x'] } }).revealed).not.toBeNull()
    expect(applyFrame(s, { type: 'quiz', quiz: { id: 'b', choices: ['y'] } }).revealed).toBeNull()
    s = applyFrame(s, { type: 'state', seq: 1, state: pos(6) })
    s = explore(s, pos(2))
    expect(stepsBehind(s)).toBe(4)
    expect(stepsBehind(resync(s))).toBe(0)
  })
})
