// agent-session, the package entry: the wasm's classes, with the local cache and the many-tabs
// layer (both loaded on demand) and the host's disposal (docs/API.md "Lifetimes").
import init, { initSync, HostClient as Wasm, Session } from './pkg/agent_session.js'

const cache = () => import('./cache.js')
const g = globalThis

class HostClient extends Wasm {
  constructor(options) {
    // Tabs of one origin share one host connection where the browser can (share.js); opt-in
    // until a shared client that nobody references can be collected (docs/API.md "Many tabs").
    const link = options?.share === true && g.document && g.navigator?.locks && g.BroadcastChannel && g.crypto?.subtle && { w: [] }
    if (link) {
      options = { ...options, __socket: (path, url) => link.m?.socket(path, url) ?? (link.w.push({ path, url, close() { this.gone = 1 } }), link.w.at(-1)) }
    }
    super(options)
    this.link = link
    if (link) import('./share.js').then((m) => (link.m = m.join(options, link.w)))
    if (options?.cache) {
      this.made = new Set()
      cache().then((m) => m.attach(this, options))
    }
  }

  session(id) {
    const s = super.session(id)
    this.made?.add(s)
    return s
  }

  clearCache() {
    return cache().then((m) => m.clearAll())
  }

  sharing() {
    return this.link ? this.link.m?.state() ?? { role: 'starting' } : null
  }

  close() {
    super.close()
    this.link?.m?.close()
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
