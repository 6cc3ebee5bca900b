import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import init, { HostClient } from 'agent-session'
import { App } from './App'
import './styles.css'

// The host defaults to the page's own origin (the reference host serves this build with
// `--static www/dist`); `?host=http://127.0.0.1:7878` points the UI elsewhere (that host
// then needs `--allow-origin` for this page's origin).
function hostBaseUrl(): string {
  const fromQuery = new URLSearchParams(location.search).get('host')
  return fromQuery && /^https?:\/\//.test(fromQuery) ? fromQuery.replace(/\/+$/, '') : location.origin
}

async function boot() {
  const root = createRoot(document.getElementById('root')!)
  try {
    await init()
  } catch (e) {
    root.render(
      <div className="boot-error">
        <h1>Could not load the session engine</h1>
        <p>{e instanceof Error ? e.message : String(e)}</p>
      </div>,
    )
    return
  }
  const baseUrl = hostBaseUrl()
  // The local cache: a conversation seen before paints at once on a reload (docs/API.md).
  const host = new HostClient({ baseUrl, cache: true })
  ;(window as unknown as { __agentSession?: unknown }).__agentSession = { host, baseUrl }
  root.render(
    <StrictMode>
      <App host={host} baseUrl={baseUrl} />
    </StrictMode>,
  )
}

void boot()
