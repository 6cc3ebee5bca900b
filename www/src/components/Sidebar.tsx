import { useCallback, useState } from 'react'
import type { HostClient, SessionListSnapshot } from 'agent-session'
import { SessionSearch } from './Search'
import { Workspaces } from './Workspaces'
import { relativeTime } from '../model'
import { humanError } from '../errors'

/** A provider id the host's `session.create` takes (`default` sends none). */
export type Provider = string
export interface ProviderOption {
  id: Provider
  label: string
}

/** The reference host's scripted profiles (a `provider: "scripted"` host). */
export const SCRIPTED_PROVIDERS: ProviderOption[] = [
  { id: 'default', label: 'Default' },
  { id: 'codex', label: 'Codex' },
  { id: 'claude', label: 'Claude' },
  { id: 'cursor', label: 'Cursor' },
]

/** What "New session" offers on a host: the scripted profiles on the scripted host, else only
 *  the agent the host runs (`host.describe().provider`). Null while the host is not known. */
export function providerOptions(hostProvider: string | null): ProviderOption[] | null {
  if (hostProvider === null) return null
  if (hostProvider === 'scripted' || hostProvider === '') return SCRIPTED_PROVIDERS
  return [{ id: hostProvider, label: hostProvider.charAt(0).toUpperCase() + hostProvider.slice(1) }]
}

interface Props {
  host: HostClient
  /** The host speaks the 2026-08 wire (its description or an open session says so): it has
   *  workspaces and renames sessions (the seed host has neither, and the client does not ask it). */
  upstream: boolean
  /** A new session in a workspace; resolves its id. */
  onCreateIn(workspaceId: string): Promise<string | null>
  list: SessionListSnapshot
  /** The agents this host offers (null until `host.describe()` answered). */
  providers: ProviderOption[] | null
  selected: string | null
  onSelect(id: string): void
  onCreate(provider: Provider): void
  creating: boolean
  createError: string | null
  connState: string
  hostLabel: string
  /** Renames a session; resolves with an error message, or null when the host took it. */
  onRename?(sessionId: string, title: string): Promise<string | null>
}

/** Rename for the selected session: a link that opens a one-line form. */
function Rename({ id, title, onRename }: { id: string; title: string | null; onRename(id: string, t: string): Promise<string | null> }) {
  const [value, setValue] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  if (value === null)
    return (
      <div className="session-rename">
        <button className="link small" data-testid="rename" onClick={() => setValue(title ?? '')}>
          Rename
        </button>
        {error ? (
          <span className="small" role="alert">
            {error}
          </span>
        ) : null}
      </div>
    )
  return (
    <form
      className="session-rename"
      onSubmit={(e) => {
        e.preventDefault()
        void onRename(id, value).then((err) => {
          setError(err)
          setValue(null)
        })
      }}
    >
      <label className="visually-hidden" htmlFor="rename-input">
        Session title
      </label>
      <input id="rename-input" data-testid="rename-input" autoFocus value={value} onChange={(e) => setValue(e.target.value)} />
      <button className="btn small primary" data-testid="rename-save" type="submit" disabled={!value.trim()}>
        Save
      </button>
      <button className="btn small ghost" type="button" onClick={() => setValue(null)}>
        Cancel
      </button>
    </form>
  )
}

export const CONN_WORD: Record<string, string> = {
  open: 'Connected',
  connecting: 'Connecting…',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
}

/** The running dot with its meaning in words (never colour alone). */
function Activity({ running, waiting }: { running: boolean; waiting: boolean }) {
  if (!running) return null
  return waiting ? (
    <span className="activity waiting" data-testid="session-waiting">
      <span className="dot waiting" aria-hidden /> Needs your answer
    </span>
  ) : (
    <span className="activity running" data-testid="session-running">
      <span className="dot running" aria-hidden /> Working
    </span>
  )
}

type Item = SessionListSnapshot['items'][number]

/** The list with each child (a fork, a subagent) right under its parent, one level in per
 *  generation; a child whose parent is not listed stands as a root. Order is the list's. */
function nested(items: readonly Item[]): { item: Item; depth: number }[] {
  const ids = new Set(items.map((i) => i.sessionId))
  const kids = new Map<string, Item[]>()
  for (const i of items) if (i.parentSessionId && ids.has(i.parentSessionId)) kids.set(i.parentSessionId, [...(kids.get(i.parentSessionId) ?? []), i])
  const out: { item: Item; depth: number }[] = []
  const seen = new Set<string>()
  const walk = (i: Item, depth: number) => {
    if (seen.has(i.sessionId)) return
    seen.add(i.sessionId)
    out.push({ item: i, depth })
    for (const k of kids.get(i.sessionId) ?? []) walk(k, Math.min(depth + 1, 4))
  }
  for (const i of items) if (!(i.parentSessionId && ids.has(i.parentSessionId))) walk(i, 0)
  // A host that names parents in a circle: those stand as roots, none is lost.
  for (const i of items) walk(i, 0)
  return out
}

export function Sidebar(p: Props) {
  const [picked, setPicked] = useState<Provider | null>(null)
  // Archived sessions leave every grouping surface (upstream's rule): the list too.
  const [archived, setArchived] = useState<ReadonlySet<string>>(new Set())
  const onArchived = useCallback((ids: readonly string[]) => setArchived(new Set(ids)), [])
  const list = archived.size ? { ...p.list, items: p.list.items.filter((i) => !archived.has(i.sessionId)) } : p.list
  const offered = p.providers ?? []
  // The pick stays while the host offers it; otherwise the host's first agent.
  const provider = offered.find((x) => x.id === picked)?.id ?? offered[0]?.id ?? 'default'
  return (
    <aside className="sidebar" aria-label="Sessions">
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
          disabled={p.providers === null}
          title={p.providers === null ? 'Asking the host which agents it runs' : undefined}
          onChange={(e) => setPicked(e.target.value)}
        >
          {p.providers === null ? <option value="default">Agent…</option> : null}
          {offered.map((x) => (
            <option key={x.id} value={x.id}>
              {x.label}
            </option>
          ))}
        </select>
        <button className="btn primary" data-testid="new-session" disabled={p.creating} onClick={() => p.onCreate(provider)}>
          {p.creating ? 'Creating…' : 'New session'}
        </button>
      </div>
      {p.createError ? (
        <div className="sidebar-error" role="alert" data-testid="create-error">
          {p.createError}
        </div>
      ) : null}
      <SessionSearch host={p.host} list={list} selected={p.selected} onSelect={p.onSelect} />
      {p.upstream ? (
        <Workspaces host={p.host} list={list} selected={p.selected} onSelect={p.onSelect} onArchived={onArchived} onCreateIn={p.onCreateIn} />
      ) : null}
      <h2 className="section-label" id="sessions-label">
        Sessions
      </h2>
      <nav className="session-list" data-testid="session-list" data-state={list.state} aria-labelledby="sessions-label">
        {list.state === 'error' ? (
          <div className="muted pad small" role="status" data-testid="list-error">
            {humanError('refresh the list', list.error)}
          </div>
        ) : null}
        {list.items.length === 0 ? (
          <div className="muted pad">{list.state === 'loading' ? 'Loading sessions…' : list.state === 'ready' ? 'No sessions yet.' : null}</div>
        ) : (
          nested(list.items).map(({ item: s, depth }) => [
            <button
              key={s.sessionId}
              className={`session-item${s.sessionId === p.selected ? ' selected' : ''}`}
              style={depth ? { paddingLeft: 10 + 14 * depth } : undefined}
              data-depth={depth}
              data-session-id={s.sessionId}
              data-running={s.running}
              data-waiting={s.waiting}
              aria-current={s.sessionId === p.selected ? 'page' : undefined}
              onClick={() => p.onSelect(s.sessionId)}
            >
              <span className={`session-title${s.title ? '' : ' untitled'}`} data-testid="session-title">
                {s.title ?? 'New session'}
              </span>
              <span className="session-meta">
                {/* What made a child: the host's `origin` ('subagent'), else a fork. */}
                {s.parentSessionId ? (
                  <span className="tag subtle" data-testid="session-origin">
                    {s.origin === 'subagent' ? 'subagent' : 'fork'}
                  </span>
                ) : null}
                <Activity running={s.running} waiting={s.waiting} />
                <span>{relativeTime(s.updatedAt)}</span>
              </span>
            </button>,
            s.sessionId === p.selected && p.onRename && p.upstream ? <Rename key={`${s.sessionId}-rename`} id={s.sessionId} title={s.title} onRename={p.onRename} /> : null,
          ])
        )}
      </nav>
      <div className="sidebar-foot" data-testid="conn-status" data-state={p.connState}>
        <span className={`dot conn-${p.connState}`} aria-hidden />
        <span className="small">{CONN_WORD[p.connState] ?? p.connState}</span>
        <span className="muted small host-label">{p.hostLabel}</span>
      </div>
    </aside>
  )
}
