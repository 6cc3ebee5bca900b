// agent-session, the package entry: the wasm's classes, with the local cache and the many-tabs
// layer (both loaded on demand) and the host's disposal (docs/API.md "Lifetimes").
import init, { initSync, HostClient as Wasm, Session } from './pkg/agent_session.js'

const cache = () => import('./cache.js')

class HostClient extends Wasm {
  constructor(options) {
    // Tabs of one origin share one host connection where the browser can (share.js decides;
    // elsewhere each connects alone); opt-in until a shared client that nobody references
    // can be collected (docs/API.md "Many tabs").
    const link = options?.share === true && { w: [] }
    // The local cache composes through the wasm's store hook: the sessions that change before
    // cache.js is in wait for it.
    const kept = options?.cache && { w: new Set() }
    if (link || kept) options = { ...options }
    if (link) options.__socket = (path, url) => link.m?.socket(path, url) ?? (link.w.push({ path, url, close() { this.gone = 1 } }), link.w.at(-1))
    if (kept) options.__store = (s) => (kept.f ? kept.f(s) : kept.w.add(s))
    super(options)
    this.link = link
    this.kept = kept
    if (link) import('./share.js').then((m) => (link.m = m.join(options, link.w)))
    if (kept) cache().then((m) => m.attach(kept, options))
  }

  clearCache() {
    return cache().then((m) => m.clearAll())
  }

  sharing() {
    return this.link ? (this.link.m ? this.link.m.state() : { role: 'starting' }) : null
  }

  close() {
    super.close()
    this.link?.m?.close()
    if (this.kept) {
      this.kept.gone = 1
      this.kept.c?.close()
    }
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
