import { useEffect, useState } from 'react'
import type { ConnectionSnapshot } from 'agent-session'

/** Shows the connection when it is not open, with the retry countdown. */
export function ConnectionBanner({ conn }: { conn: ConnectionSnapshot }) {
  const [now, setNow] = useState(() => Date.now())
  const counting = conn.state === 'reconnecting' && conn.retryAt !== null
  useEffect(() => {
    if (!counting) return
    const t = setInterval(() => setNow(Date.now()), 250)
    return () => clearInterval(t)
  }, [counting])

  if (conn.state === 'open') return null
  let text: string
  let tone = 'warn'
  if (conn.state === 'connecting') {
    text = conn.generation === 0 ? 'Connecting to the agent host…' : 'Reconnecting…'
    tone = 'info'
  } else if (conn.state === 'reconnecting') {
    const secs = conn.retryAt !== null ? Math.max(0, Math.ceil((conn.retryAt - now) / 1000)) : null
    text =
      secs === null || secs === 0
        ? `Connection lost. Reconnecting now… (attempt ${conn.attempt + 1})`
        : `Connection lost. Retrying in ${secs}s (attempt ${conn.attempt + 1})`
  } else {
    text = 'Disconnected from the agent host.'
    tone = 'error'
  }
  return (
    <div className={`banner ${tone}`} role="status" data-testid="connection-banner" data-state={conn.state}>
      <span className="banner-spinner" aria-hidden />
      <span>{text}</span>
      {conn.lastError ? <span className="banner-detail">{conn.lastError}</span> : null}
    </div>
  )
}
