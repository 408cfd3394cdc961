/*
 * fetch, retried while the server answers 429 (its SQL or event-page threads and queue are
 * full, or this token has its share running: backend/kscope/api/gate.py), after the
 * Retry-After it names (1..5 s), a few times; any other answer is returned as is.
 */
export async function fetchRetrying(url: string, init: RequestInit = {}, tries = 3,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(url, init)
    if (res.status !== 429 || attempt >= tries || init.signal?.aborted) return res
    const wait = Math.min(5, Math.max(1, Number(res.headers.get('Retry-After')) || 1))
    await sleep(wait * 1000)
  }
}
