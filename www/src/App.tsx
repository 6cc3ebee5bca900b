import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react'
import type { HostClient } from 'agent-session'
import { useConnection } from 'agent-session/react'
import { Sidebar, type Provider, type SessionRow } from './components/Sidebar'
import { ConnectionBanner } from './components/ConnectionBanner'
import { SessionView } from './components/SessionView'
import { remember, subscribeTitles, titlesVersion } from './titles'

function sessionFromHash(): string | null {
  const m = /(?:^#|&)s=([^&]+)/.exec(location.hash)
  return m?.[1] ? decodeURIComponent(m[1]) : null
}

export function App({ host, baseUrl }: { host: HostClient; baseUrl: string }) {
  const conn = useConnection(host)
  const [sessions, setSessions] = useState<SessionRow[] | null>(null)
  const [listError, setListError] = useState<string | null>(null)
  const [selected, setSelected] = useState<string | null>(sessionFromHash)
  const [creating, setCreating] = useState(false)
  const [createError, setCreateError] = useState<string | null>(null)
  const [hostInfo, setHostInfo] = useState<string | null>(null)
  useSyncExternalStore(subscribeTitles, titlesVersion)

  const refresh = useCallback(async () => {
    const r = await host.listSessions()
    if (r.ok) {
      const items = [...r.value.items].sort((a, b) => b.updatedAt - a.updatedAt)
      setSessions(items.map((s) => ({ sessionId: s.sessionId, updatedAt: s.updatedAt, running: s.running, cwd: s.cwd })))
      setListError(null)
    } else {
      setListError(r.error.message)
    }
  }, [host])

  // The list has no push channel in the public API: refresh on every (re)connect and poll.
  useEffect(() => {
    if (conn.state !== 'open') return
    void refresh()
    const t = setInterval(() => void refresh(), 4000)
    return () => clearInterval(t)
  }, [conn.state, conn.generation, refresh])

  useEffect(() => {
    if (conn.state !== 'open') return
    let live = true
    void host.describe().then((r) => {
      if (live && r.ok) setHostInfo(`${r.value.model || r.value.provider} · v${r.value.version}`)
    })
    return () => {
      live = false
    }
  }, [host, conn.state, conn.generation])

  useEffect(() => {
    const onHash = () => setSelected(sessionFromHash())
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])

  const select = useCallback((id: string) => {
    setSelected(id)
    history.replaceState(null, '', `${location.pathname}${location.search}#s=${encodeURIComponent(id)}`)
  }, [])

  const create = useCallback(
    async (provider: Provider) => {
      setCreating(true)
      setCreateError(null)
      const options: { cwd?: string; provider?: Provider } = provider === 'default' ? {} : { provider }
      const r = await host.createSession(options as Parameters<HostClient['createSession']>[0])
      setCreating(false)
      if (r.ok) {
        remember(r.value.sessionId, { provider })
        select(r.value.sessionId)
        void refresh()
      } else {
        setCreateError(r.error.message)
      }
    },
    [host, refresh, select],
  )

  const session = useMemo(() => (selected ? host.session(selected) : null), [host, selected])

  return (
    <div className="app">
      <Sidebar
        sessions={sessions}
        listError={listError}
        selected={selected}
        onSelect={select}
        onCreate={create}
        creating={creating}
        createError={createError}
        connState={conn.state}
        hostLabel={hostInfo ?? baseUrl.replace(/^https?:\/\//, '')}
      />
      <main className="main">
        <ConnectionBanner conn={conn} />
        {session ? (
          <SessionView key={session.sessionId} session={session} />
        ) : (
          <div className="empty-state">
            <div className="empty-card">
              <h2>Start a conversation</h2>
              <p>Pick a session on the left, or create a new one with the provider of your choice.</p>
              <button className="btn primary" disabled={creating} onClick={() => void create('default')}>
                New session
              </button>
            </div>
          </div>
        )}
      </main>
    </div>
  )
}
