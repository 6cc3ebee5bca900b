import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { RpcError, Session } from 'agent-session'
import { humanError } from '../errors'

interface Props {
  session: Session
  running: boolean
  promptError: { op: 'send' | 'stop'; error: RpcError } | null
  disabled: boolean
  /** The established connection generation (-1 while down): a new one clears old errors. */
  connGeneration: number
  onQueued(text: string): void
  onStopped(): void
}

export function Composer({ session, running, promptError, disabled, connGeneration, onQueued, onStopped }: Props) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [stopping, setStopping] = useState(false)
  const [localError, setLocalError] = useState<string | null>(null)
  // Errors of the snapshot are shown until the connection recovers or the next op succeeds.
  const [dismissed, setDismissed] = useState<unknown>(null)
  const ref = useRef<HTMLTextAreaElement>(null)

  // The composer takes focus when a session opens (after "New session" in particular).
  useEffect(() => {
    ref.current?.focus()
  }, [session])

  useEffect(() => {
    if (connGeneration < 0) return
    setLocalError(null)
    setDismissed(promptError)
    // Only a recovery clears: not every new promptError.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connGeneration])

  const send = async (mode: 'queue' | 'steer') => {
    const body = text.trim()
    if (!body || sending) return
    setSending(true)
    setLocalError(null)
    const wasRunning = running
    const r = await session.prompt([{ type: 'text', text: body }], mode)
    setSending(false)
    if (r.ok) {
      setText('')
      setDismissed(promptError)
      if (wasRunning && mode === 'queue') onQueued(body)
      ref.current?.focus()
    } else {
      setLocalError(humanError('send the message', r.error))
    }
  }

  const stop = async () => {
    setStopping(true)
    setLocalError(null)
    const r = await session.cancel()
    setStopping(false)
    if (r.ok) {
      // The host drops queued follow-ups with the turn.
      onStopped()
      setDismissed(promptError)
    } else setLocalError(humanError('stop the turn', r.error))
  }

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send(running && (e.altKey || e.metaKey || e.ctrlKey) ? 'steer' : 'queue')
    }
  }

  const shownPromptError = promptError && promptError !== dismissed ? promptError : null
  const error =
    localError ?? (shownPromptError ? humanError(shownPromptError.op === 'stop' ? 'stop the turn' : 'send the message', shownPromptError.error) : null)
  return (
    <div className="composer">
      {error ? (
        <div className="composer-error" role="alert" data-testid="composer-error">
          {error}
        </div>
      ) : null}
      <div className="composer-box">
        <label className="visually-hidden" htmlFor="composer-input">
          Message to the agent
        </label>
        <textarea
          ref={ref}
          id="composer-input"
          data-testid="composer-input"
          rows={1}
          value={text}
          disabled={disabled}
          placeholder={running ? 'Queue a follow-up, or steer the running turn…' : 'Ask the agent…'}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
        />
        <div className="composer-actions">
          {running ? (
            <>
              <button className="btn ghost" data-testid="stop" onClick={() => void stop()} disabled={stopping}>
                <span className="stop-square" aria-hidden />
                {stopping ? 'Stopping…' : 'Stop'}
              </button>
              <button
                className="btn"
                data-testid="steer"
                disabled={!text.trim() || sending}
                title="Interrupt the running turn with this message"
                onClick={() => void send('steer')}
              >
                Steer
              </button>
              <button className="btn primary" data-testid="send" disabled={!text.trim() || sending} onClick={() => void send('queue')}>
                Queue
              </button>
            </>
          ) : (
            <button className="btn primary" data-testid="send" disabled={!text.trim() || sending || disabled} onClick={() => void send('queue')}>
              {sending ? 'Sending…' : 'Send'}
            </button>
          )}
        </div>
      </div>
      <div className="composer-hint muted small">
        Enter to send{running ? ' (queued) · Ctrl+Enter to steer' : ''} · Shift+Enter for a new line
      </div>
    </div>
  )
}
