import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { HostClient } from 'agent-session'
import { useConnection, useSessions } from 'agent-session/react'
import { Sidebar, providerOptions, type Provider } from './components/Sidebar'
import { ConnectionBanner } from './components/ConnectionBanner'
import { SessionView } from './components/SessionView'
import { Examples, type Example } from './components/Examples'
import { humanError } from './errors'

function sessionFromHash(): string | null {
  const m = /(?:^#|&)s=([^&]+)/.exec(location.hash)
  return m?.[1] ? decodeURIComponent(m[1]) : null
}

export function App({ host, baseUrl }: { host: HostClient; baseUrl: string }) {
  const conn = useConnection(host)
  // The live list (titles, running/waiting) comes from the host's streams: no polling.
  const list = useSessions(host)
  const [selected, setSelected] = useState<string | null>(sessionFromHash)
  const [creating, setCreating] = useState(false)
  const [createError, setCreateError] = useState<string | null>(null)
  const [hostInfo, setHostInfo] = useState<string | null>(null)
  // The agent the host runs (`scripted` for the reference host's scripted profiles).
  const [hostProvider, setHostProvider] = useState<string | null>(null)
  // A 2026-08 host (its description says so, or an open session of it lists commands) has
  // workspaces and renames sessions.
  const [upstream, setUpstream] = useState(false)
  const providers = useMemo(() => providerOptions(hostProvider), [hostProvider])
  const everOpen = useRef(false)
  if (conn.state === 'open') everOpen.current = true

  // A real agent names its model once it ran a thread: while the host has not named one, ask
  // again whenever no turn runs any more (a turn just ended).
  const [modelKnown, setModelKnown] = useState(false)
  const anyRunning = list.items.some((i) => i.running)
  const refresh = modelKnown ? 'known' : anyRunning ? 'running' : `idle:${list.items.length}`

  useEffect(() => {
    if (conn.state !== 'open') return
    // A recovered connection clears what failed while it was down.
    setCreateError(null)
  }, [conn.state, conn.generation])

  useEffect(() => {
    if (conn.state !== 'open') return
    let live = true
    void host.describe().then((r) => {
      if (!live || !r.ok) return
      setHostInfo(`${r.value.model || r.value.provider || 'agent'} · v${r.value.version}`)
      setHostProvider(r.value.provider ?? null)
      setModelKnown(!!r.value.model)
      // Every 2026-08 description has `canOpenPath`, none of the seed's.
      if (r.value.canOpenPath !== undefined) setUpstream(true)
    })
    return () => {
      live = false
    }
  }, [host, conn.state, conn.generation, refresh])

  useEffect(() => {
    const onHash = () => setSelected(sessionFromHash())
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])

  const select = useCallback((id: string) => {
    setSelected(id)
    history.replaceState(null, '', `${location.pathname}${location.search}#s=${encodeURIComponent(id)}`)
  }, [])

  // A new session (a provider's, or in a workspace), selected once the host made it.
  const createWith = useCallback(
    async (options: Parameters<HostClient['createSession']>[0]): Promise<string | null> => {
      setCreating(true)
      setCreateError(null)
      const r = await host.createSession(options)
      setCreating(false)
      if (!r.ok) {
        setCreateError(humanError('create a session', r.error))
        return null
      }
      select(r.value.sessionId)
      return r.value.sessionId
    },
    [host, select],
  )
  const create = useCallback((provider: Provider) => createWith(provider === 'default' ? {} : { provider }), [createWith])

  // An example from the empty state: a new session, plan mode if it needs it, then the prompt.
  const startExample = useCallback(
    async (e: Example) => {
      const id = await create(providers?.[0]?.id ?? 'default')
      if (!id) return
      const s = host.session(id)
      if (e.plan) await s.setPlanMode(true)
      const r = await s.prompt([{ type: 'text', text: e.text }])
      if (!r.ok) setCreateError(humanError('send the example', r.error))
    },
    [create, host, providers],
  )

  const fork = useCallback(
    async (sessionId: string, atSeq: number) => {
      setCreateError(null)
      const r = await host.fork({ sessionId, atSeq })
      if (r.ok) select(r.value.sessionId)
      else setCreateError(humanError('fork the session', r.error))
    },
    [host, select],
  )

  const rename = useCallback(
    async (sessionId: string, title: string): Promise<string | null> => {
      const r = await host.session(sessionId).rename(title)
      return r.ok ? null : humanError('rename the session', r.error)
    },
    [host],
  )

  const onUpstream = useCallback(() => setUpstream(true), [])
  const createIn = useCallback((workspaceId: string) => createWith({ workspaceId }), [createWith])

  const session = useMemo(() => (selected ? host.session(selected) : null), [host, selected])
  const title = list.items.find((i) => i.sessionId === selected)?.title ?? null

  return (
    <div className="app">
      <Sidebar
        host={host}
        upstream={upstream}
        onCreateIn={createIn}
        list={list}
        providers={providers}
        selected={selected}
        onSelect={select}
        onCreate={(p) => void create(p)}
        creating={creating}
        createError={createError}
        connState={conn.state}
        hostLabel={hostInfo ?? baseUrl.replace(/^https?:\/\//, '')}
        onRename={rename}
      />
      <main className="main">
        <ConnectionBanner conn={conn} everOpen={everOpen.current} />
        {session ? (
          <SessionView
            key={session.sessionId}
            host={host}
            onUpstream={onUpstream}
            onOpen={select}
            session={session}
            title={title}
            connGeneration={conn.state === 'open' ? conn.generation : -1}
            onFork={fork}
          />
        ) : (
          <div className="empty-state">
            <div className="empty-card" data-testid="empty-state">
              <h1>Start a conversation</h1>
              <p>Pick a session on the left, create one with the provider of your choice, or start from an example.</p>
              <button className="btn primary" data-testid="empty-new-session" disabled={creating} onClick={() => void create(providers?.[0]?.id ?? 'default')}>
                New session
              </button>
              <Examples onPick={(e) => void startExample(e)} disabled={creating} />
            </div>
          </div>
        )}
      </main>
    </div>
  )
}
