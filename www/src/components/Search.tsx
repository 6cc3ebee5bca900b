import { useEffect, useState } from 'react'
import type { HostClient, SessionListSnapshot, SessionSearchItem } from 'agent-session'
import { humanError } from '../errors'

type Found = { items: SessionSearchItem[]; hasMore: boolean } | { error: string } | null

/** Searches the host's sessions by their messages as the user types. Each keystroke's search
 *  gives up the one before it (`host.search`), so a slow answer never overwrites a newer one. */
export function SessionSearch({ host, list, selected, onSelect }: { host: HostClient; list: SessionListSnapshot; selected: string | null; onSelect(id: string): void }) {
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<Found>(null)
  useEffect(() => {
    const q = query.trim()
    if (!q) return setFound(null)
    let live = true
    void host.search(q).then((r) => {
      if (!live || (!r.ok && r.error.code === 'cancelled')) return
      if (r.ok) setFound(r.value)
      else setFound({ error: r.error.code === 'unsupported' ? 'This host has no search.' : humanError('search', r.error) })
    })
    return () => {
      live = false
    }
  }, [host, query])
  const title = (id: string) => list.items.find((i) => i.sessionId === id)?.title ?? 'New session'
  return (
    <div className="session-search">
      <label className="visually-hidden" htmlFor="session-search">
        Search sessions
      </label>
      <input id="session-search" type="search" data-testid="session-search" placeholder="Search messages…" value={query} onChange={(e) => setQuery(e.target.value)} />
      {found === null ? null : 'error' in found ? (
        <div className="muted small pad" role="status" data-testid="search-error">
          {found.error}
        </div>
      ) : (
        <div className="search-results" data-testid="search-results" role="list" aria-label="Search results">
          {found.items.length === 0 ? <div className="muted small pad">No session mentions that.</div> : null}
          {found.items.map((i) => (
            <button
              key={i.sessionId}
              role="listitem"
              className={`session-item${i.sessionId === selected ? ' selected' : ''}`}
              data-testid="search-result"
              data-session-id={i.sessionId}
              onClick={() => onSelect(i.sessionId)}
            >
              <span className="session-title">{title(i.sessionId)}</span>
              <span className="muted small snippet">{i.snippet}</span>
            </button>
          ))}
          {found.hasMore ? <div className="muted small pad">More sessions match: narrow the search.</div> : null}
        </div>
      )}
    </div>
  )
}
