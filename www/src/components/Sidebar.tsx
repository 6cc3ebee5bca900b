import { useState } from 'react'
import { getEntry } from '../titles'
import { relativeTime } from '../model'

export type Provider = 'default' | 'codex' | 'claude' | 'cursor'
export const PROVIDERS: { id: Provider; label: string }[] = [
  { id: 'default', label: 'Default' },
  { id: 'codex', label: 'Codex' },
  { id: 'claude', label: 'Claude' },
  { id: 'cursor', label: 'Cursor' },
]

export interface SessionRow {
  sessionId: string
  updatedAt: number
  running: boolean
  cwd?: string
}

interface Props {
  sessions: SessionRow[] | null
  listError: string | null
  selected: string | null
  onSelect(id: string): void
  onCreate(provider: Provider): void
  creating: boolean
  createError: string | null
  connState: string
  hostLabel: string
}

function shortId(id: string): string {
  const tail = id.replace(/^session-/, '')
  return `Session ${tail.slice(0, 8)}`
}

export function Sidebar(p: Props) {
  const [provider, setProvider] = useState<Provider>('default')
  return (
    <aside className="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden />
        <span className="brand-name">Agent Session</span>
      </div>
      <div className="new-session">
        <label className="visually-hidden" htmlFor="provider">
          Provider
        </label>
        <select
          id="provider"
          className="select"
          data-testid="provider-select"
          value={provider}
          onChange={(e) => setProvider(e.target.value as Provider)}
        >
          {PROVIDERS.map((x) => (
            <option key={x.id} value={x.id}>
              {x.label}
            </option>
          ))}
        </select>
        <button className="btn primary" data-testid="new-session" disabled={p.creating} onClick={() => p.onCreate(provider)}>
          {p.creating ? 'Creating…' : 'New session'}
        </button>
      </div>
      {p.createError ? <div className="sidebar-error">{p.createError}</div> : null}
      <div className="section-label">Sessions</div>
      <nav className="session-list" data-testid="session-list">
        {p.sessions === null ? (
          <div className="muted pad">{p.listError ? `Could not load sessions: ${p.listError}` : 'Loading…'}</div>
        ) : p.sessions.length === 0 ? (
          <div className="muted pad">No sessions yet.</div>
        ) : (
          p.sessions.map((s) => {
            const entry = getEntry(s.sessionId)
            return (
              <button
                key={s.sessionId}
                className={`session-item${s.sessionId === p.selected ? ' selected' : ''}`}
                data-session-id={s.sessionId}
                onClick={() => p.onSelect(s.sessionId)}
              >
                <span className="session-title">{entry?.title || shortId(s.sessionId)}</span>
                <span className="session-meta">
                  {s.running ? <span className="dot running" title="running" /> : null}
                  {entry?.provider && entry.provider !== 'default' ? <span className="tag">{entry.provider}</span> : null}
                  <span>{relativeTime(s.updatedAt)}</span>
                </span>
              </button>
            )
          })
        )}
      </nav>
      <div className="sidebar-foot">
        <span className={`dot conn-${p.connState}`} />
        <span className="muted small">{p.hostLabel}</span>
      </div>
    </aside>
  )
}
