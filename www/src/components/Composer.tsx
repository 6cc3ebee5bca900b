import { useRef, useState, type KeyboardEvent } from 'react'
import type { Session } from 'agent-session'

interface Props {
  session: Session
  running: boolean
  promptError: { op: 'send' | 'stop'; error: { message: string } } | null
  disabled: boolean
}

export function Composer({ session, running, promptError, disabled }: Props) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [stopping, setStopping] = useState(false)
  const [localError, setLocalError] = useState<string | null>(null)
  const ref = useRef<HTMLTextAreaElement>(null)

  const send = async (mode: 'queue' | 'steer') => {
    const body = text.trim()
    if (!body || sending) return
    setSending(true)
    setLocalError(null)
    const r = await session.prompt([{ type: 'text', text: body }], mode)
    setSending(false)
    if (r.ok) {
      setText('')
      ref.current?.focus()
    } else {
      setLocalError(r.error.message)
    }
  }

  const stop = async () => {
    setStopping(true)
    const r = await session.cancel()
    setStopping(false)
    if (!r.ok) setLocalError(r.error.message)
  }

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send(running && (e.altKey || e.metaKey || e.ctrlKey) ? 'steer' : 'queue')
    }
  }

  const error = localError ?? (promptError ? `${promptError.op === 'stop' ? 'Stop' : 'Send'} failed: ${promptError.error.message}` : null)
  return (
    <div className="composer">
      {error ? (
        <div className="composer-error" role="alert">
          {error}
        </div>
      ) : null}
      <div className="composer-box">
        <textarea
          ref={ref}
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
