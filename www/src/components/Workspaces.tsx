import { useCallback, useEffect, useState, useSyncExternalStore } from 'react'
import type { HostClient, HostRpcResult, SessionListSnapshot, WorkspaceStore, WorkspacesSnapshot } from 'agent-session'
import { humanError } from '../errors'

const none = () => () => {}

/** The host's workspaces and archive set, kept live by the package (`host.workspaces()`: the
 *  host's `host/workspace-*` frames, whoever made the change). `onArchived` tells the app which
 *  sessions to hide. */
export function Workspaces({
  host,
  list,
  selected,
  onSelect,
  onArchived,
  onCreateIn,
}: {
  host: HostClient
  list: SessionListSnapshot
  selected: string | null
  onSelect(id: string): void
  onArchived(ids: readonly string[]): void
  /** A new session in the workspace (`createSession({workspaceId})`); resolves its id. */
  onCreateIn(workspaceId: string): Promise<string | null>
}) {
  const [store, setStore] = useState<WorkspaceStore | null>(null)
  useEffect(() => {
    let live = true
    void host.workspaces().then((s) => live && setStore(s))
    return () => {
      live = false
    }
  }, [host])
  const subscribe = useCallback((l: () => void) => (store ? store.subscribe(l) : none()), [store])
  const snap: WorkspacesSnapshot | null = useSyncExternalStore(subscribe, () => store?.getSnapshot() ?? null)
  const [error, setError] = useState<string | null>(null)
  const [path, setPath] = useState<string | null>(null)
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null)
  const archivedIds = snap?.archivedSessionIds
  useEffect(() => {
    if (archivedIds) onArchived(archivedIds)
  }, [archivedIds, onArchived])
  const listError = snap?.state === 'error' && snap.error ? humanError('list the workspaces', snap.error) : null

  const change = async (what: string, method: string, payload: object) => {
    setError(null)
    const r: HostRpcResult<unknown> = await host.call(method as string, payload)
    if (!r.ok) setError(humanError(what, r.error))
    return r.ok
  }
  const title = (id: string) => list.items.find((i) => i.sessionId === id)?.title ?? 'New session'
  const archived = new Set(archivedIds ?? [])
  const items = snap?.items ?? []

  return (
    <section className="workspaces" data-testid="workspaces" aria-labelledby="workspaces-label">
      <div className="section-row">
        <h2 className="section-label" id="workspaces-label">
          Workspaces
        </h2>
        <button className="link small" data-testid="workspace-add" onClick={() => setPath('')}>
          Add
        </button>
      </div>
      {path !== null ? (
        <form
          className="workspace-form"
          onSubmit={(e) => {
            e.preventDefault()
            void change('add the workspace', 'workspace.create', { path }).then((ok) => ok && setPath(null))
          }}
        >
          <label className="visually-hidden" htmlFor="workspace-path">
            Folder on the host
          </label>
          <input id="workspace-path" data-testid="workspace-path" autoFocus placeholder="/path/to/project" value={path} onChange={(e) => setPath(e.target.value)} />
          <button className="btn small primary" data-testid="workspace-create" type="submit" disabled={!path.trim()}>
            Add
          </button>
          <button className="btn small ghost" type="button" onClick={() => setPath(null)}>
            Cancel
          </button>
        </form>
      ) : null}
      {error || listError ? (
        <div className="sidebar-error" role="alert" data-testid="workspace-error">
          {error ?? listError}
        </div>
      ) : null}
      {items.map((w, i) => (
        <div className="workspace" key={w.workspaceId} data-testid="workspace" data-workspace-id={w.workspaceId} title={w.path}>
          <div className="workspace-head">
            {renaming?.id === w.workspaceId ? (
              <form
                onSubmit={(e) => {
                  e.preventDefault()
                  void change('rename the workspace', 'workspace.rename', { workspaceId: w.workspaceId, title: renaming.title }).then(() => setRenaming(null))
                }}
              >
                <label className="visually-hidden" htmlFor="workspace-title">
                  Workspace title
                </label>
                <input id="workspace-title" data-testid="workspace-title-input" autoFocus value={renaming.title} onChange={(e) => setRenaming({ id: w.workspaceId, title: e.target.value })} />
              </form>
            ) : (
              <span className="workspace-title" data-testid="workspace-title">
                {w.title}
              </span>
            )}
            <button className="link small" data-testid="workspace-rename" onClick={() => setRenaming({ id: w.workspaceId, title: w.title })}>
              Rename
            </button>
            <button className="link small" data-testid="workspace-new-session" aria-label={`New session in ${w.title}`} onClick={() => void onCreateIn(w.workspaceId)}>
              + session
            </button>
            <button
              className="link small"
              data-testid="workspace-up"
              disabled={i === 0}
              aria-label={`Move ${w.title} up`}
              onClick={() => void change('move the workspace', 'workspace.insertBefore', { workspaceId: w.workspaceId, beforeWorkspaceId: items[i - 1]?.workspaceId })}
            >
              ↑
            </button>
          </div>
          {w.sessionIds
            .filter((id) => !archived.has(id))
            .map((id) => (
              <div className="workspace-session" key={id}>
                <button className={`link small${id === selected ? ' current' : ''}`} data-testid="workspace-session" data-session-id={id} onClick={() => onSelect(id)}>
                  {title(id)}
                </button>
                <button className="link small muted" data-testid="workspace-archive" aria-label={`Archive ${title(id)}`} onClick={() => void change('archive the session', 'workspace.archiveSession', { sessionId: id })}>
                  Archive
                </button>
              </div>
            ))}
        </div>
      ))}
    </section>
  )
}
