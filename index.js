// agent-session, the package entry: wasm-bindgen's classes with disposal, the lifetime rules
// of docs/API.md ("Lifetimes": a Session's free and dispose do nothing) and the local cache.
import init, { initSync, HostClient as Wasm, Session } from './pkg/agent_session.js'

const cache = () => import('./cache.js')

class HostClient extends Wasm {
  constructor(options) {
    super(options)
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
}

const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose')
const method = (value) => ({ value, configurable: true, writable: true })
const freeHost = Wasm.prototype.free
Object.defineProperty(HostClient.prototype, dispose, method(function () { this.close() }))
Object.defineProperty(HostClient.prototype, 'free', method(function () {
  if (this.__wbg_ptr) {
    this.close()
    freeHost.call(this)
  }
}))
Object.defineProperty(Session.prototype, dispose, method(() => {}))
Object.defineProperty(Session.prototype, 'free', method(() => {}))

export default init
export { init, initSync, HostClient, Session }
