/*
 * The follower's line above the lesson: the connection (live / reconnecting /
 * closed, as words and a shaped dot) and whether this view follows the
 * presenter or the student is exploring, with Re-sync (key R).
 */
import type { RoomState } from '../../core/rooms/room_state'
import './room.css'

const STATUS_TEXT = { connecting: 'Connecting…', open: 'Live', reconnecting: 'Reconnecting…', closed: 'Disconnected' } as const

export function FollowBanner({ state, onResync }: { state: RoomState; onResync: () => void }) {
  const presenterStep = state.latest ? state.latest.step + 1 : null
  return (
    <div className={`follow-banner${state.detached ? ' detached' : ''}`} data-testid="follow-banner"
         data-detached={state.detached ? 'true' : 'false'} role="status">
      <span data-testid="room-status" data-status={state.status}>
        <span className={`room-dot room-dot-${state.status}`} aria-hidden="true" />
        {STATUS_TEXT[state.status]}
        {state.status === 'reconnecting' && state.attempts > 1 ? ` (attempt ${state.attempts})` : ''}
      </span>
      <span>Room <strong>{state.code}</strong></span>
      {state.detached ? (
        <>
          <span data-testid="follow-mode">
            Exploring on your own{presenterStep !== null ? ` — the presenter is on step ${presenterStep}` : ''}
          </span>
          <button type="button" onClick={onResync} data-testid="room-resync" title="Jump to the presenter's step (R)">
            Re-sync (R)
          </button>
        </>
      ) : (
        <span data-testid="follow-mode">
          {presenterStep !== null ? `Following the presenter — step ${presenterStep}` : 'Waiting for the presenter to start…'}
        </span>
      )}
      {state.status === 'closed' && state.error ? <span className="room-error" role="alert">{state.error}</span> : null}
    </div>
  )
}
