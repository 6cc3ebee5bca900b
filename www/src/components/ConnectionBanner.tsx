import { useEffect, useState } from 'react'
import type { ConnectionSnapshot } from 'agent-session'
import { humanConnError } from '../errors'

/** Shows the connection when it is not open, with the retry countdown. */
export function ConnectionBanner({ conn, everOpen }: { conn: ConnectionSnapshot; everOpen: boolean }) {
  const [, setTick] = useState(0)
  const counting = conn.state === 'reconnecting' && conn.retryAt !== null
  useEffect(() => {
    if (!counting) return
    const t = setInterval(() => setTick((n) => n + 1), 250)
    return () => clearInterval(t)
  }, [counting, conn.retryAt])

  if (conn.state === 'open') return null
  let text: string
  let tone = 'warn'
  if (conn.state === 'connecting') {
    text = everOpen ? 'Reconnecting to the agent host…' : 'Connecting to the agent host…'
    tone = 'info'
  } else if (conn.state === 'reconnecting') {
    // Read the clock now, not from a stored tick: a new retryAt never shows an old countdown.
    const secs = conn.retryAt !== null ? Math.max(0, Math.ceil((conn.retryAt - Date.now()) / 1000)) : null
    const lead = everOpen ? 'Connection lost.' : 'Could not reach the agent host.'
    const attempt = conn.attempt > 0 ? ` (attempt ${conn.attempt})` : ''
    text = secs === null || secs === 0 ? `${lead} Reconnecting now…${attempt}` : `${lead} Retrying in ${secs}s${attempt}`
  } else {
    text = 'Disconnected from the agent host.'
    tone = 'error'
  }
  const detail = humanConnError(conn.lastError)
  return (
    <div className={`banner ${tone}`} role="status" data-testid="connection-banner" data-state={conn.state}>
      <span className="banner-spinner" aria-hidden />
      <span data-testid="banner-text">{text}</span>
      {detail ? (
        <span className="banner-detail" title={conn.lastError ?? undefined}>
          {detail}
        </span>
      ) : null}
    </div>
  )
}
