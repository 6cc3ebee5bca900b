import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react'
import type { CommandInfo, RpcError, Session } from 'agent-session'
import { humanError } from '../errors'
import { rec } from '../model'
import { CommandMenu, matchingCommands, readImage } from './Verbs'

type Attached = { part: { type: 'image'; mediaType: string; data: string; name: string }; url: string }

interface Props {
  session: Session
  running: boolean
  promptError: { op: 'send' | 'stop'; error: RpcError } | null
  disabled: boolean
  /** The established connection generation (-1 while down): a new one clears old errors. */
  connGeneration: number
  /** Unused since the outbox shows a queued prompt itself (kept for callers). */
  onQueued(text: string): void
  onStopped(): void
  /** The session's slash commands (today's upstream host), or null. */
  commands: readonly CommandInfo[] | null
}

// What was typed and not sent yet, per session, kept in this tab's sessionStorage: a reload
// (or a switch to another session and back) finds the draft where it was left.
const draftKey = (s: Session) => `agent-session-demo:draft:${s.sessionId}`
function readDraft(s: Session): string {
  try {
    return sessionStorage.getItem(draftKey(s)) ?? ''
  } catch {
    return ''
  }
}
function keepDraft(s: Session, text: string) {
  try {
    if (text) sessionStorage.setItem(draftKey(s), text)
    else sessionStorage.removeItem(draftKey(s))
  } catch {
    // Storage refused (private mode, quota): the draft lives in the page only.
  }
}

export function Composer({ session, running, promptError, disabled, connGeneration, onStopped, commands }: Props) {
  const [text, setTextState] = useState(() => readDraft(session))
  const setText = (t: string | ((t: string) => string)) =>
    setTextState((old) => {
      const next = typeof t === 'function' ? t(old) : t
      keepDraft(session, next)
      return next
    })
  const [images, setImages] = useState<Attached[]>([])
  const [note, setNote] = useState<string | null>(null)
  const [sending, setSending] = useState(false)
  const [stopping, setStopping] = useState(false)
  const [localError, setLocalError] = useState<string | null>(null)
  // Errors of the snapshot are shown until the connection recovers or the next op succeeds.
  const [dismissed, setDismissed] = useState<unknown>(null)
  const ref = useRef<HTMLTextAreaElement>(null)

  // The composer takes focus when a session opens (after "New session" in particular), with
  // that session's draft.
  useEffect(() => {
    setTextState(readDraft(session))
    ref.current?.focus()
  }, [session])

  useEffect(() => {
    if (connGeneration < 0) return
    setLocalError(null)
    setDismissed(promptError)
    // Only a recovery clears: not every new promptError.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connGeneration])

  // A line naming one of the session's commands runs it (`commands/execute`), not a prompt.
  const command = commands && /^\/\S/.test(text.trim()) ? commands.find((c) => text.trim().slice(1).split(/\s/)[0] === c.name) : undefined

  const runCommand = async (line: string) => {
    setSending(true)
    setLocalError(null)
    setNote(null)
    const r = await session.command(line)
    setSending(false)
    if (!r.ok) return setLocalError(humanError('run the command', r.error))
    setText('')
    setNote(r.value?.result.text ?? (r.value ? 'Done.' : `No command takes “${line}”.`))
    ref.current?.focus()
  }

  const attach = async (files: Iterable<File>) => {
    const read = (await Promise.all([...files].map(readImage))).filter((x): x is Attached => x !== null)
    if (read.length) setImages((l) => [...l, ...read])
  }
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...e.clipboardData.files].filter((f) => f.type.startsWith('image/'))
    if (files.length) {
      e.preventDefault()
      void attach(files)
    }
  }
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    const files = [...e.dataTransfer.files].filter((f) => f.type.startsWith('image/'))
    if (files.length) {
      e.preventDefault()
      void attach(files)
    }
  }

  const send = async (mode: 'queue' | 'steer') => {
    const body = text.trim()
    if ((!body && images.length === 0) || sending) return
    if (command && images.length === 0) return runCommand(body)
    setSending(true)
    setLocalError(null)
    setNote(null)
    const parts = [...(body ? [{ type: 'text', text: body }] : []), ...images.map((i) => i.part)]
    // The message is in the conversation at once (the outbox keeps it through a disconnect),
    // so the composer is free at once; only a prompt the outbox refused comes back to it.
    const p = session.prompt(parts, mode)
    setSending(false)
    setText('')
    setImages([])
    setDismissed(promptError)
    ref.current?.focus()
    const r = await p
    if (!r.ok && rec(r.error.details)?.reason === 'outbox-full') {
      setText((t) => (t === '' ? body : t))
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
  const menu = matchingCommands(commands, text)
  return (
    <div className="composer" onDrop={onDrop} onDragOver={(e) => e.preventDefault()}>
      {note ? (
        <div className="composer-note" role="status" data-testid="command-result">
          {note}
        </div>
      ) : null}
      <CommandMenu
        items={menu}
        onPick={(c) => {
          setText(`/${c.name}${c.input ? ' ' : ''}`)
          ref.current?.focus()
        }}
      />
      {images.length ? (
        <div className="composer-images" data-testid="composer-images">
          {images.map((i, k) => (
            <span key={k} className="composer-image">
              <img className="thumb" src={i.url} alt={i.part.name} data-testid="composer-image" />
              <button className="link small" aria-label={`Remove ${i.part.name}`} onClick={() => setImages((l) => l.filter((_, j) => j !== k))}>
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
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
          onPaste={onPaste}
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
              <button className="btn primary" data-testid="send" disabled={(!text.trim() && !images.length) || sending} onClick={() => void send('queue')}>
                Queue
              </button>
            </>
          ) : (
            <button className="btn primary" data-testid="send" disabled={(!text.trim() && !images.length) || sending || disabled} onClick={() => void send('queue')}>
              {sending ? 'Sending…' : command ? 'Run' : 'Send'}
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
