/*
 * The rooms REST API (backend/kscope/api/routes/rooms.py; schemas RoomCreated,
 * RoomPublic in backend/kscope/api/schemas.py), hand-written like traces_api.ts.
 *
 * The presenter token is kept in sessionStorage under the room code, so a
 * reload of the presenter's tab keeps driving its room; it never goes into a
 * URL that could be shared.
 */

export interface RoomCreated {
  code: string
  presenter_token: string
  join_url: string
  /** ms since the Unix epoch. */
  expires_at: number
}

export interface RoomPublic {
  code: string
  lesson: string
  expires_at: number
  followers: number
}

export class RoomApiError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

async function detail(response: Response): Promise<string> {
  try {
    const body = await response.json()
    return typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail)
  } catch {
    return `${response.status} ${response.statusText}`
  }
}

export async function createRoom(lesson: string, fetcher: typeof fetch = fetch): Promise<RoomCreated> {
  const response = await fetcher('/api/rooms', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lesson }),
  })
  if (!response.ok) throw new RoomApiError(response.status, await detail(response))
  return response.json()
}

export async function readRoom(code: string, fetcher: typeof fetch = fetch): Promise<RoomPublic> {
  const response = await fetcher(`/api/rooms/${encodeURIComponent(code)}`)
  if (!response.ok) throw new RoomApiError(response.status, await detail(response))
  return response.json()
}

/** Room codes as the server makes them: 6 of these characters (no look-alikes). */
export const CODE_ALPHABET = 'ACDEFGHJKMNPQRTWXY34679'

/** What a person typed ("ack 4-3m") as a code ("ACK43M"), or null if it cannot be one. */
export function normalizeCode(text: string): string | null {
  const code = text.toUpperCase().replace(/[\s-]/g, '')
  if (code.length !== 6 || [...code].some((ch) => !CODE_ALPHABET.includes(ch))) return null
  return code
}

const TOKEN_KEY = (code: string) => `kscope.room.${code}.presenter_token`

export function rememberPresenterToken(code: string, token: string, storage: Storage = sessionStorage): void {
  storage.setItem(TOKEN_KEY(code), token)
}

export function presenterToken(code: string, storage: Storage = sessionStorage): string | null {
  return storage.getItem(TOKEN_KEY(code))
}

/** A stable id for this browser, so a follower's answers replace each other instead of adding up. */
export function followerClientId(storage: Storage = localStorage, random: () => string = () => crypto.randomUUID()): string {
  const key = 'kscope.room.client_id'
  let id = storage.getItem(key)
  if (!id) {
    id = random()
    storage.setItem(key, id)
  }
  return id
}
