/* The follower pages' paths: /join (type a code) and /room/<CODE> (follow a room). */
export type RoomPageName = 'join' | 'room'

export function roomRouteOf(pathname: string): { page: 'join' } | { page: 'room'; code: string } | null {
  if (/^\/join\/?$/.test(pathname)) return { page: 'join' }
  const m = /^\/room\/([A-Za-z0-9-]{1,16})\/?$/.exec(pathname)
  return m ? { page: 'room', code: m[1].toUpperCase() } : null
}
