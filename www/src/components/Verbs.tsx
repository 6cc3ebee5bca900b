// The 2026-08 session verbs in the demo: the slash-command menu, the host's queue with its
// edit/remove/steer actions, image thumbnails read back from the host, and fork.
import { createContext, useContext, useEffect, useState } from 'react'
import type { CommandInfo, QueuedPrompt, Session } from 'agent-session'
import { contentText } from '../model'
import { humanError } from '../errors'

/** What a conversation row needs to read images and fork (the session and the app's fork). */
export const VerbsContext = createContext<{ session: Session; fork: ((atSeq: number) => void) | null } | null>(null)

/** The commands whose name starts with the line's first word (the line starts with `/`). */
export function matchingCommands(commands: readonly CommandInfo[] | null, text: string): readonly CommandInfo[] {
  if (!commands || !text.startsWith('/') || /\s/.test(text)) return []
  const word = text.slice(1).toLowerCase()
  return commands.filter((c) => c.name.startsWith(word))
}

/** The `/` menu above the composer: picking an entry completes the line. */
export function CommandMenu({ items, onPick }: { items: readonly CommandInfo[]; onPick(c: CommandInfo): void }) {
  if (items.length === 0) return null
  return (
    <ul className="command-menu" role="listbox" aria-label="Commands" data-testid="command-menu">
      {items.map((c) => (
        <li key={c.name} role="option" aria-selected={false}>
          <button className="command-item" data-testid="command-item" data-name={c.name} onClick={() => onPick(c)}>
            <span className="command-name">/{c.name}</span>
            {c.input?.hint ? <span className="command-hint"> {c.input.hint}</span> : null}
            {c.description ? <span className="command-desc muted small"> · {c.description}</span> : null}
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The host's queue (the 2026-08 host): each prompt can be edited, removed or steered. */
export function HostQueue({ session, queue }: { session: Session; queue: readonly QueuedPrompt[] }) {
  const [editing, setEditing] = useState<{ id: string; text: string } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const act = async (id: string, action: Parameters<Session['updateQueue']>[1], what: string) => {
    setError(null)
    const r = await session.updateQueue(id, action)
    if (!r.ok) setError(humanError(what, r.error))
    else setEditing(null)
  }
  const shown = queue.filter((q) => q.placement === 'queued')
  if (shown.length === 0 && !error) return null
  return (
    <div className="host-queue" data-testid="host-queue">
      {shown.map((q) => (
        <div key={q.id} className="msg user queued" data-testid="host-queued" data-item-id={q.id}>
          {editing?.id === q.id ? (
            <form
              className="queue-edit"
              onSubmit={(e) => {
                e.preventDefault()
                void act(q.id, { kind: 'edit', content: [{ type: 'text', text: editing.text }] }, 'edit the queued message')
              }}
            >
              <label className="visually-hidden" htmlFor={`edit-${q.id}`}>
                Queued message
              </label>
              <input id={`edit-${q.id}`} data-testid="queue-edit-input" value={editing.text} onChange={(e) => setEditing({ id: q.id, text: e.target.value })} />
              <button className="btn small primary" data-testid="queue-save" type="submit" disabled={!editing.text.trim()}>
                Save
              </button>
            </form>
          ) : (
            <div className="bubble">{contentText(q.message.content)}</div>
          )}
          <div className="queued-tag">
            Queued ·{' '}
            <button className="link" data-testid="queue-edit" onClick={() => setEditing({ id: q.id, text: contentText(q.message.content) })}>
              Edit
            </button>{' '}
            ·{' '}
            <button className="link" data-testid="queue-steer" onClick={() => void act(q.id, { kind: 'steer' }, 'steer with the queued message')}>
              Send now
            </button>{' '}
            ·{' '}
            <button className="link" data-testid="queue-remove" onClick={() => void act(q.id, { kind: 'remove' }, 'remove the queued message')}>
              Remove
            </button>
          </div>
        </div>
      ))}
      {error ? (
        <div className="card-error" role="alert">
          {error}
        </div>
      ) : null}
    </div>
  )
}

/** An image of the conversation, read back from the host by its attachment id. */
export function AttachmentImage({ attachment }: { attachment: { attachmentId: string; mediaType?: string; name?: string } }) {
  const session = useContext(VerbsContext)?.session
  const [src, setSrc] = useState<string | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    if (!session) return
    let live = true
    void session.readAttachment(attachment.attachmentId).then((r) => {
      if (!live) return
      if (r.ok) setSrc(`data:${r.value.attachment.mediaType};base64,${r.value.data}`)
      else setFailed(true)
    })
    return () => {
      live = false
    }
  }, [session, attachment.attachmentId])
  const alt = attachment.name ?? 'Attached image'
  if (failed) return <span className="muted small">[{alt} unavailable]</span>
  return src ? <img className="thumb" data-testid="msg-image" src={src} alt={alt} /> : <span className="thumb loading" aria-label={alt} />
}

/** "Fork from here" on a message: a new session with the history up to that turn. */
export function ForkButton({ seq }: { seq: number }) {
  const fork = useContext(VerbsContext)?.fork
  if (!fork) return null
  return (
    <button className="link small fork" data-testid="fork" title="A new session with the conversation up to here" onClick={() => fork(seq)}>
      Fork from here
    </button>
  )
}

/** Reads a pasted or dropped image file as a prompt part and a thumbnail. */
export function readImage(file: File): Promise<{ part: { type: 'image'; mediaType: string; data: string; name: string }; url: string } | null> {
  return new Promise((resolve) => {
    if (!['image/png', 'image/jpeg', 'image/webp', 'image/gif'].includes(file.type)) return resolve(null)
    const reader = new FileReader()
    reader.onload = () => {
      const url = String(reader.result)
      const data = url.slice(url.indexOf(',') + 1)
      resolve({ part: { type: 'image', mediaType: file.type, data, name: file.name || 'pasted image' }, url })
    }
    reader.onerror = () => resolve(null)
    reader.readAsDataURL(file)
  })
}
