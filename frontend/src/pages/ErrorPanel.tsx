/* A problem the user can act on: what failed, and the message that says why. */
import type { ReactNode } from 'react'

export function ErrorPanel({ title, message, children }: { title: string; message: string; children?: ReactNode }) {
  return (
    <div className="error-panel" role="alert" data-testid="error">
      <h2>{title}</h2>
      <p>{message}</p>
      {children}
    </div>
  )
}
