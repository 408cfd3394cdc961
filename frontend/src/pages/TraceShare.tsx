/*
 * Share links of stored traces (the owner's side): a read-only share token per
 * trace (core/traces_api.ts createShare / revokeShare), put in a link to the
 * view as it is now (window, cursor, filter, compare partner: the page keeps
 * them in its URL, core/trace_url.ts). Whoever opens the link reads the trace,
 * and cannot change or delete it; revoking ends every such link at once.
 *
 * Also the notes for the other side: a trace opened through a share link, and
 * a trace this browser may not see (PrivateTraceNote).
 */
import { useEffect, useState } from 'react'
import { formatTraceUrl, parseTraceUrl } from '../core/traces/trace_url'
import { createShare, myShareToken, receivedShareToken, revokeShare, shareState } from '../core/traces/traces_api'
import { describeTraceError } from '../core/traces/trace_session'

/** The page's current URL with these share tokens (ids[0] -> share, ids[1] -> vsshare), absolute. */
export function shareLink(ids: readonly string[], tokens: readonly string[]): string {
  const u = parseTraceUrl(window.location.search)
  const href = formatTraceUrl({ ...u, trace: u.trace ?? ids[0], share: tokens[0], vsShare: ids.length > 1 ? tokens[1] : null })
  return `${window.location.origin}${href}`
}

/** The URL's share tokens for the page's own links (kept when the page rewrites its URL). */
export function sharesOf(trace: string | null, vs: string | null): { share: string | null; vsShare: string | null } {
  return { share: trace ? receivedShareToken(trace) || null : null, vsShare: vs ? receivedShareToken(vs) || null : null }
}

type Owner = 'checking' | 'owner' | 'reader'

/** The Share button and its panel; nothing for a reader who came through a share link (a note instead). */
export function SharePanel({ ids }: { ids: readonly string[] }) {
  const [owner, setOwner] = useState<Owner>('checking')
  const [shared, setShared] = useState(false)
  /** A share exists that this browser has no token of (made by `kscope share create`, or elsewhere). */
  const [elsewhere, setElsewhere] = useState(false)
  const [tokens, setTokens] = useState<string[]>([])
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [copied, setCopied] = useState(false)
  const key = ids.join(',')

  useEffect(() => {
    let live = true
    setOwner('checking')
    Promise.all(ids.map((id) => shareState(id))).then((states) => {
      if (!live) return
      setOwner('owner')
      const mine = ids.map((id) => myShareToken(id))
      setShared(states.every((s) => s.shared) && mine.every(Boolean))
      setElsewhere(states.some((s, k) => s.shared && !mine[k]))
      setTokens(mine)
    }, () => { if (live) setOwner('reader') })
    return () => { live = false }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])

  if (owner === 'checking') return null
  if (owner === 'reader') {
    return ids.some((id) => receivedShareToken(id))
      ? <span className="share-note" data-testid="share-reader"
        title="You opened this through its owner's share link: you can look, not change or delete it">read-only share link</span>
      : null
  }

  const create = () => {
    setBusy(true)
    setError('')
    Promise.all(ids.map((id) => createShare(id))).then((made) => {
      setTokens(made.map((m) => m.share))
      setShared(true)
      setElsewhere(false)
      setCopied(false)
    }, (e) => setError(describeTraceError(e))).finally(() => setBusy(false))
  }
  const revoke = () => {
    setBusy(true)
    setError('')
    Promise.all(ids.map((id) => revokeShare(id))).then(() => {
      setShared(false)
      setElsewhere(false)
      setTokens([])
    }, (e) => setError(describeTraceError(e))).finally(() => setBusy(false))
  }
  const link = shared ? shareLink(ids, tokens) : ''
  const copy = () => {
    const link = shareLink(ids, tokens) // the view as it is now (the page writes its URL as the view changes)
    // The async clipboard needs a secure context (https or localhost); elsewhere, select and copy.
    const fallback = () => {
      const input = document.querySelector<HTMLInputElement>('[data-testid="share-link"]')
      if (input) input.value = link
      input?.select()
      setCopied(document.execCommand?.('copy') ?? false)
    }
    if (navigator.clipboard) navigator.clipboard.writeText(link).then(() => setCopied(true), fallback)
    else fallback()
  }
  const what = ids.length > 1 ? 'these two traces' : 'this trace'

  return (
    <div className="share" onKeyDown={(e) => { if (e.key === 'Escape') setOpen(false) }}>
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen((o) => !o)} data-testid="share-open">
        {shared ? 'Shared ▾' : 'Share…'}
      </button>
      {open && (
        <section className="panel share-panel" aria-label="Share link" data-testid="share-panel">
          <p>
            A share link opens {what} read-only, at the view you have now (window, cursor
            {ids.length > 1 ? ', both traces side by side' : ''}). Whoever has it can look, not change or delete.
            Revoking ends it at once. Without a link, your traces stay private to this browser.
          </p>
          {shared ? (
            <>
              <label className="share-link">
                link
                <input type="text" readOnly value={link} onFocus={(e) => e.target.select()} data-testid="share-link" />
              </label>
              <div className="row-actions">
                <button type="button" className="button" onClick={copy} data-testid="share-copy">{copied ? 'Copied' : 'Copy link'}</button>
                <button type="button" className="button" onClick={create} disabled={busy} data-testid="share-renew"
                  title="A new link; the old one stops working">New link</button>
                <button type="button" className="button danger" onClick={revoke} disabled={busy} data-testid="share-revoke">Revoke</button>
              </div>
            </>
          ) : (
            <>
              {elsewhere && (
                <p data-testid="share-elsewhere">
                  A share link made elsewhere (e.g. with <code>kscope share create</code>) works now; this browser
                  does not know it. Revoke it, or make a new one (the old one then stops working).
                </p>
              )}
              <div className="row-actions">
                <button type="button" className="button" onClick={create} disabled={busy} data-testid="share-create">
                  Create a read-only link
                </button>
                {elsewhere && (
                  <button type="button" className="button danger" onClick={revoke} disabled={busy} data-testid="share-revoke">Revoke</button>
                )}
              </div>
            </>
          )}
          {error && <p className="error-text" role="alert">{error}</p>}
        </section>
      )}
    </div>
  )
}

/** Why a stored trace did not open here (404): private to its uploader's browser, and how to share. */
export function PrivateTraceNote({ id, message, viaShare }: { id: string; message: string; viaShare: boolean }) {
  return (
    <section className="panel error-panel private-trace" role="alert" data-testid="private-trace">
      <h2>This trace is not available to this browser</h2>
      <p>
        {viaShare
          ? <>The share link for trace <code>{id}</code> no longer works: its owner revoked it (or deleted the trace).</>
          : <>No trace <code>{id}</code> is visible here.</>}
        {' '}Stored traces are private to the browser that uploaded them: the server shows a trace only to the
        owner token kept in that browser, or to a read-only share link its owner made.
      </p>
      <p>
        To share a trace, its owner opens it, presses <strong>Share…</strong> and sends the link (or runs
        {' '}<code>kscope share create {id}</code> on the server). Ask them for {viaShare ? 'a new link' : 'a link'}.
      </p>
      <p className="hint">Server: {message}</p>
    </section>
  )
}
