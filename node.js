// agent-session, the entry outside browsers (the `node` export condition: Node programs,
// vitest under jsdom or happy-dom, and server rendering). Browsers and browser bundles use
// index.js; this file is never part of a page.
//
// - `init()` with no argument reads the .wasm beside the glue from the file system (Node has
//   no fetch of `file:` URLs). Where that file is not beside this module (a server bundle
//   that moved this code, such as Next.js's), it resolves without loading anything.
// - Without a DOM (Node, a server render) a HostClient connects on its first `subscribe` or
//   operation, not on construction: a server render only reads snapshots, so it never
//   connects, and its first frame (`connecting`, sessions `cold`) is the one the browser
//   hydrates. With a DOM (jsdom, happy-dom) the client is the browser's, eager as there.
// - Transport `'auto'` takes SSE where no working WebSocket exists (Node 20; jsdom and
//   happy-dom, whose sockets do not work against Node's own fetch and events); `'websocket'`
//   without a global WebSocket is a clear `bad-argument` error instead of endless retries.
import { readFile } from 'node:fs/promises'
import { init as load, initSync, HostClient as Live, Session } from './index.js'
import { CONNECTING, NO_SESSIONS, cold } from './first.js'

/** The module's exports once it is loaded (wasm-bindgen's init loads it once). */
let loaded = null
const here = import.meta.url

export async function init(input) {
  if (input === undefined && !loaded) {
    try {
      input = { module_or_path: await readFile(new URL('pkg/agent_session_bg.wasm', here)) }
    } catch {
      return undefined // not beside this module: a server bundle moved it; nothing loads
    }
  }
  return (loaded = await load(input))
}
export default init

function syncInit(module) {
  return (loaded = initSync(module))
}
export { syncInit as initSync, Session }

const freeze = Object.freeze
function error(code, message) {
  return Object.assign(new Error(message), { code })
}

const IDLE = freeze({
  frames: 0,
  malformedFrames: 0,
  unroutedFrames: 0,
  inflightRequests: 0,
  sockets: 0,
  timerArmed: false,
  hostListeners: 0,
  sessionListeners: 0,
})

/** The options with the transport this environment can carry. */
function carried(options) {
  if (options === undefined || options === null) options = {}
  if (typeof options !== 'object') return options
  const t = options.transport
  const socket = typeof WebSocket === 'function'
  if (t === 'websocket' && !socket) {
    throw error('bad-argument', "transport 'websocket' needs a global WebSocket (Node 22 or later, or a browser); use 'auto' or 'sse'")
  }
  const dom = /jsdom|happy-?dom/i.test(globalThis.navigator?.userAgent ?? '')
  return (t === undefined || t === 'auto') && (!socket || dom) ? { ...options, transport: 'sse' } : options
}

const LIVE = Symbol('live')
const START = Symbol('start')

/** The HostClient outside a browser: see the head of this file. */
export class HostClient {
  constructor(options) {
    const opts = carried(options)
    if (loaded && typeof document !== 'undefined') return new Live(opts)
    this.options = opts
    this.sessions = new Map()
    this.closed = false
    this[LIVE] = null
  }

  [START]() {
    if (this.closed) throw error('closed', 'the HostClient was closed')
    if (!loaded) throw error('not-initialized', 'agent-session: the WebAssembly module is not loaded (await init() first; a server bundle without the .wasm file never loads it)')
    return (this[LIVE] ??= new Live(this.options))
  }

  getSnapshot() {
    return this[LIVE]?.getSnapshot() ?? CONNECTING
  }

  getSessions() {
    return this[LIVE]?.getSessions() ?? NO_SESSIONS
  }

  diagnostics() {
    return this[LIVE]?.diagnostics() ?? IDLE
  }

  subscribe(listener) {
    // As the module's: after close, an unsubscribe that was never needed, no throw.
    if (this.closed && !this[LIVE]) return () => {}
    return this[START]().subscribe(listener)
  }

  session(sessionId) {
    if (this.closed) throw error('closed', 'the HostClient was closed')
    if (typeof sessionId !== 'string' || sessionId === '') throw error('bad-argument', 'sessionId must be a non-empty string')
    let s = this.sessions.get(sessionId)
    if (!s) this.sessions.set(sessionId, (s = new LazySession(this, sessionId)))
    return s
  }

  close() {
    this.closed = true
    this[LIVE]?.close()
  }

  clearCache() {
    return Live.prototype.clearCache.call(this)
  }

  free() {
    this.close()
    this[LIVE]?.free()
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.close()
  }
}

/** A session of a HostClient that has not started yet; the live one's once it has. */
class LazySession {
  constructor(host, sessionId) {
    this.host = host
    this.sessionId = sessionId
    this.live = null
  }

  [START]() {
    return (this.live ??= this.host[START]().session(this.sessionId))
  }

  getSnapshot() {
    return this.current()?.getSnapshot() ?? cold(this)
  }

  diagnostics() {
    return this.current()?.diagnostics() ?? null
  }

  subscribe(listener) {
    if (this.host.closed && !this.host[LIVE]) return () => {}
    return this[START]().subscribe(listener)
  }

  current() {
    return this.live ?? (this.host[LIVE] && !this.host.closed ? this[START]() : null)
  }

  free() {}

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {}
}

// Every other method (subscribe, the operations, whatever the module adds) starts the client
// and runs on the live object: the entry's own and the ones it inherits from the module's
// classes (index.js's HostClient extends wasm-bindgen's).
for (const [lazy, live] of [
  [HostClient, Live],
  [LazySession, Session],
]) {
  for (let p = live.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) for (const name of Object.getOwnPropertyNames(p)) {
    if (name in lazy.prototype || typeof Object.getOwnPropertyDescriptor(p, name).value !== 'function') continue
    Object.defineProperty(lazy.prototype, name, {
      configurable: true,
      writable: true,
      value(...args) {
        return this[START]()[name](...args)
      },
    })
  }
}
