// agent-session, the package entry: the wasm's classes, with the local cache and the many-tabs
// layer (both loaded on demand) and the host's disposal (docs/API.md "Lifetimes").
import init, { initSync, HostClient as Wasm, Session } from './pkg/agent_session.js'

const cache = () => import('./cache.js')
// What a client holds beside the wasm (the many-tabs link `s`, the cache `k`), let go by
// close() or when the collector takes the client: a lock, channel or database held for a
// client nobody has would keep a leader serving nobody.
const unlink = ({ s, k }) => {
  if (s) (s.gone = 1), s.m?.close()
  if (k) (k.gone = 1), k.c?.close()
}
const unlinked = new FinalizationRegistry(unlink)

class HostClient extends Wasm {
  constructor(options) {
    // Tabs of one origin share one host connection where the browser can (share.js decides;
    // elsewhere each connects alone), unless `share: false` (docs/API.md "Many tabs").
    const link = options?.share !== false && { w: [] }
    // The local cache composes through the wasm's store hook: the sessions that change before
    // cache.js is in wait for it.
    const kept = options?.cache && { w: new Set() }
    // Frames of types the wasm does not read go to `host.workspaces()`'s store once it is in.
    // Prompts carry the runtime's time zone unless the app says otherwise (as upstream's own
    // client sends it; `clientTimeZone: null` sends none); `subagents.js` reads it from `h.z`.
    options = { clientTimeZone: Intl.DateTimeFormat().resolvedOptions().timeZone, ...options, __frames: (t) => h.w?.deref()?.f(t) }
    const h = { s: link, k: kept, z: options.clientTimeZone }
    if (link) options.__socket = (path, url) => link.m?.socket(path, url) ?? (link.w.push({ path, url, close() { this.gone = 1 } }), link.w.at(-1))
    if (kept) options.__store = (s) => (kept.f ? kept.f(s) : kept.w.add(s))
    super(options)
    unlinked.register(this, (this.h = h))
    if (link) import('./share.js').then((m) => (link.m = m.join(options, link.w)) && link.gone && link.m.close())
    if (kept) cache().then((m) => m.attach(kept, options))
  }

  // The method goes into the URL: a name, or nothing the wasm takes. The payload is written
  // here (`JSON.stringify` is the engine's).
  call(method, payload = {}, o) {
    return super.call(/^[\w.-]+$/.test(method) ? method : 0, JSON.stringify(payload), o?.signal)
  }

  // Both are read at every connect (`host.describe`) and seed (`session.list`), where the
  // value is checked against its schema.
  describe() {
    return this.call('host.describe')
  }

  listSessions() {
    return this.call('session.list')
  }

  // Both are the host's payloads as given: the host checks them (a seed host has no fork: 404,
  // which resolves `unsupported`).
  createSession(o) {
    return this.call('session.create', o ?? {})
  }

  fork(o) {
    return this.call('session.fork', o)
  }

  // A search gives up the one before it: a search box asks again at every keystroke.
  search(query, o) {
    this.h.q?.abort()
    const c = (this.h.q = new AbortController())
    const s = o?.signal
    return this.call('session.search', { query }, { signal: s ? AbortSignal.any([c.signal, s]) : c.signal })
  }

  // The 2026-08 host's workspaces and archive set, kept live (workspaces.js, loaded on the
  // first call: one store per client).
  workspaces() {
    return (this.h.p ??= import('./workspaces.js').then((m) => m.store(this, this.h)))
  }

  // One session's model directory and selection, behind a fence (models.js, loaded on the
  // first call).
  models(sessionId) {
    return import('./models.js').then((m) => m.store(this, sessionId))
  }

  // One session's subagents, kept live (subagents.js, loaded on the first call).
  subagents(parentSessionId) {
    return import('./subagents.js').then((m) => m.store(this, this.h, parentSessionId))
  }

  clearCache() {
    return cache().then((m) => m.clearAll())
  }

  sharing() {
    const s = this.h.s
    return s ? (s.m ? s.m.state() : { role: 'starting' }) : null
  }

  close() {
    super.close()
    unlink(this.h)
  }

  // Both close at once, the many-tabs link too (a Session's are the wasm's no-op).
  free() {
    if (this.__wbg_ptr) {
      this.close()
      super.free()
    }
  }

  [Symbol.dispose]() {
    this.close()
  }
}

export default init
export { init, initSync, HostClient, Session }
