/* /join: type the room code the presenter shows; checked with the server before going to /room/<CODE>. */
import { useState, type FormEvent } from 'react'
import { normalizeCode, readRoom, RoomApiError } from '../core/rooms/rooms_api'
import '../views/room/room.css'

export function JoinPage({ navigate }: { navigate: (href: string) => void }) {
  const [text, setText] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const code = normalizeCode(text)
    if (!code) {
      setError('A room code is 6 letters and digits, like ACK43M.')
      return
    }
    setBusy(true)
    readRoom(code)
      .then(() => navigate(`/room/${code}`))
      .catch((err: Error) => setError(err instanceof RoomApiError && err.status === 404 ? `No room ${code}: check the code, or the room has ended.` : err.message))
      .finally(() => setBusy(false))
  }
  return (
    <main className="join-page" data-testid="join-page">
      <h1>Join a kscope room</h1>
      <p>Type the code your presenter shows.</p>
      <form className="join-form" onSubmit={submit}>
        <label htmlFor="room-code-input">Room code</label>
        <input id="room-code-input" data-testid="join-code" autoFocus autoComplete="off" spellCheck={false} maxLength={9}
               value={text} onChange={(e) => { setText(e.target.value); setError(null) }} />
        <button type="submit" disabled={busy} data-testid="join-submit">Join</button>
      </form>
      {error ? <p className="room-error" role="alert" data-testid="join-error">{error}</p> : null}
    </main>
  )
}
